"""The budget and rate-limit half of :class:`surefoot.stores.RedisStore` (a mixin): token
buckets for :class:`surefoot.RetryBudget`, and the state of
:class:`surefoot.SharedRateLimiter`, with the same fallback as the breaker."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Sequence
from typing import Any

from surefoot.stores._memory import MemoryStore
from surefoot.stores._rates import MemoryRateStore
from surefoot.stores._redis_link import Down, Link
from surefoot.stores._redis_lua import SCRIPTS, Script

__all__ = ["BucketOps"]

_DOWN: Any = object()
_S = SCRIPTS


def _ttl(seconds: float) -> int:
    return max(1, math.ceil(seconds))


class BucketOps:
    """Budget buckets and rate-limit state in Redis; mixed into :class:`RedisStore`."""

    #: Seconds between two writes of one budget key's refills.
    DEPOSIT_EVERY = 0.05
    prefix: str
    key_ttl: float
    local: MemoryStore
    _link: Link
    _rates: Any
    _deposit_lock: threading.Lock
    _deposits: dict[str, float]
    _deposited: dict[str, float]
    _capacities: dict[str, float]

    def _run(self, script: Script, keys: Sequence[str], args: Sequence[object]) -> Any:
        raise NotImplementedError

    async def _arun(self, script: Script, keys: Sequence[str], args: Sequence[object]) -> Any:
        raise NotImplementedError

    # -- budget ---------------------------------------------------------------------------------

    def _bu(self, key: str) -> str:
        return f"{self.prefix}bu:{key}"

    def _spend_args(
        self, key: str, cost: float, capacity: float
    ) -> tuple[Script, list[str], list[object]]:
        return _S["spend"], [self._bu(key)], [cost, capacity, _ttl(self.key_ttl)]

    def _spent(self, key: str, cost: float, capacity: float, raw: Any) -> bool:
        if raw is _DOWN:
            mode = self._link.when_down
            return self.local.try_spend(key, cost, capacity) if mode == "local" else mode == "allow"
        return bool(raw)

    def try_spend(self, key: str, cost: float, capacity: float) -> bool:
        return self._spent(key, cost, capacity, self._run(*self._spend_args(key, cost, capacity)))

    async def atry_spend(self, key: str, cost: float, capacity: float) -> bool:
        raw = await self._arun(*self._spend_args(key, cost, capacity))
        return self._spent(key, cost, capacity, raw)

    def _deposit_due(self, key: str, amount: float, capacity: float) -> float | None:
        """The refills to write now for ``key``, or ``None`` while they are held back."""
        now = time.monotonic()
        self._capacities[key] = capacity
        with self._deposit_lock:
            total = self._deposits.get(key, 0.0) + amount
            if now - self._deposited.get(key, 0.0) < self.DEPOSIT_EVERY:
                self._deposits[key] = total
                return None
            self._deposits.pop(key, None)
            self._deposited[key] = now
        return total

    def _deposit_args(
        self, key: str, total: float, capacity: float
    ) -> tuple[Script, list[str], list[object]]:
        return _S["deposit"], [self._bu(key)], [total, capacity, _ttl(self.key_ttl)]

    def _deposited_raw(self, key: str, total: float, capacity: float, raw: Any) -> None:
        if raw is _DOWN and self._link.when_down == "local":
            self.local.deposit(key, total, capacity)

    def deposit(self, key: str, amount: float, capacity: float) -> None:
        """Refills are added up here and written at most every ``DEPOSIT_EVERY`` seconds per
        key (refills commute; a bucket refills at most that much later), so the success path
        stays one round trip."""
        total = self._deposit_due(key, amount, capacity)
        if total is not None:
            raw = self._run(*self._deposit_args(key, total, capacity))
            self._deposited_raw(key, total, capacity, raw)

    async def adeposit(self, key: str, amount: float, capacity: float) -> None:
        """:meth:`deposit` through the asyncio client."""
        total = self._deposit_due(key, amount, capacity)
        if total is not None:
            raw = await self._arun(*self._deposit_args(key, total, capacity))
            self._deposited_raw(key, total, capacity, raw)

    def flush_deposits(self, capacity: float | None = None) -> None:
        """Write the refills still held back by :meth:`deposit` (e.g. at shutdown); refills of
        keys last written by a budget use that budget's capacity unless one is given."""
        with self._deposit_lock:
            pending, self._deposits = self._deposits, {}
            self._deposited.clear()
        for key, total in pending.items():
            cap = capacity if capacity is not None else self._capacities.get(key, math.inf)
            raw = self._run(_S["deposit"], [self._bu(key)], [total, cap, _ttl(self.key_ttl)])
            if raw is _DOWN and self._link.when_down == "local":
                self.local.deposit(key, total, cap)

    def level(self, key: str, capacity: float) -> float:
        k = self._bu(key)
        raw = _DOWN
        if not self._link.down:
            try:
                raw = self._link.command([k], lambda c: c.get(k))
            except Down:
                pass
        if raw is _DOWN:
            mode = self._link.when_down
            if mode == "local":
                return self.local.level(key, capacity)
            return capacity if mode == "allow" else 0.0
        return capacity if raw is None else min(float(raw), capacity)

    def reset_budget(self, key: str | None = None) -> None:
        self.local.reset_budget(key)

        def wipe(c: Any) -> None:
            if key is not None:
                c.delete(self._bu(key))
                return
            batch = list(c.scan_iter(match=self._bu("*"), count=500))
            for i in range(0, len(batch), 500):
                c.delete(*batch[i : i + 500])

        if not self._link.down:
            try:
                self._link.command([self._bu(key or "*")], wipe)
            except Down:
                pass

    # -- rate limits (used by surefoot.SharedRateLimiter) ---------------------------------

    def _local_rates(self) -> Any:
        if self._rates is None:
            self._rates = MemoryRateStore()
        return self._rates

    def _rl(self, key: str) -> str:
        return f"{self.prefix}rl:{key}"

    def _observe_args(
        self, key: str, fields: Sequence[float | None], default_reset: float
    ) -> list[object]:
        return [*("" if v is None else v for v in fields), _ttl(self.key_ttl), default_reset]

    def rl_observe(
        self, key: str, fields: Sequence[float | None], default_reset: float, now: float
    ) -> None:
        """Record ``fields`` = (remaining, reset_s, limit) for requests then tokens."""
        raw = self._run(
            _S["observe"], [self._rl(key)], self._observe_args(key, fields, default_reset)
        )
        if raw is _DOWN and self._link.when_down == "local":
            self._local_rates().rl_observe(key, fields, default_reset, now)

    async def arl_observe(
        self, key: str, fields: Sequence[float | None], default_reset: float, now: float
    ) -> None:
        args = self._observe_args(key, fields, default_reset)
        raw = await self._arun(_S["observe"], [self._rl(key)], args)
        if raw is _DOWN and self._link.when_down == "local":
            self._local_rates().rl_observe(key, fields, default_reset, now)

    def _acquired(self, key: str, tokens: float, pace_below: float, now: float, raw: Any) -> float:
        if raw is _DOWN:
            mode = self._link.when_down
            if mode == "local":
                return float(self._local_rates().rl_acquire(key, tokens, pace_below, now))
            return 0.0 if mode == "allow" else max(self._link.down_for(), 0.001)
        return float(raw)

    def rl_acquire(self, key: str, tokens: float, pace_below: float, now: float) -> float:
        """Seconds to wait before trying again, or 0.0: go (the request and tokens are taken)."""
        args = [tokens, pace_below, _ttl(self.key_ttl)]
        return self._acquired(
            key, tokens, pace_below, now, self._run(_S["acquire"], [self._rl(key)], args)
        )

    async def arl_acquire(self, key: str, tokens: float, pace_below: float, now: float) -> float:
        args = [tokens, pace_below, _ttl(self.key_ttl)]
        raw = await self._arun(_S["acquire"], [self._rl(key)], args)
        return self._acquired(key, tokens, pace_below, now, raw)
