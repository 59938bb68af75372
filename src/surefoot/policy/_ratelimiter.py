"""A client-side rate limiter fed by the providers' rate-limit headers: :class:`SharedRateLimiter`.

Every response's headers go to :meth:`SharedRateLimiter.observe` (OpenAI ``x-ratelimit-*``,
Anthropic ``anthropic-ratelimit-*``, IETF ``RateLimit``, through
:func:`surefoot.classify.parse_ratelimit_headers`); every request first asks
:meth:`~SharedRateLimiter.acquire` (or waits in :meth:`~SharedRateLimiter.throttle`). The limiter
keeps, per key, the remaining requests and tokens and when each refills:

- a request is let through (and counted) while both buckets can pay for it;
- a bucket that cannot pay makes the caller wait until its reset time;
- below ``pace_below`` (10 %) of a known limit, requests are spread evenly over the time left
  until the reset, so a fleet slows down *before* it gets a 429 instead of after;
- once a reset time passes, the bucket is forgotten until the next response reports it.

Within one window, observations keep the lowest remaining count (responses arrive out of
order, and requests in flight have not been counted by the server yet). With a
:class:`surefoot.stores.RedisStore` the state is shared by every process (atomic scripts on the
server's clock); otherwise it is this process's (:class:`MemoryRateStore`).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from surefoot.clock import SYSTEM_CLOCK, Clock
from surefoot.errors import RateLimitError
from surefoot.policy._deadline import time_left

if TYPE_CHECKING:
    from surefoot.classify._ratelimit import RateLimitInfo

__all__ = ["MemoryRateStore", "SharedRateLimiter"]

_DIMS = (("r", 0), ("t", 3))  # (dimension, offset in the observed fields)


class MemoryRateStore:
    """Rate-limit state in this process (the same rules as the Redis scripts)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state: dict[str, dict[str, float]] = {}

    def rl_observe(
        self, key: str, fields: Sequence[float | None], default_reset: float, now: float
    ) -> None:
        with self._lock:
            s = self._state.setdefault(key, {})
            for d, i in _DIMS:
                rem, reset, lim = fields[i], fields[i + 1], fields[i + 2]
                if lim is not None:
                    s[d + "l"] = lim
                if rem is None:
                    continue
                at = now + (default_reset if reset is None else reset)
                old, old_at = s.get(d + "n"), s.get(d + "a")
                if old is not None and old_at is not None and old_at > now and at <= old_at + 0.5:
                    rem, at = min(old, rem), max(old_at, at)
                s[d + "n"], s[d + "a"] = rem, at

    def rl_acquire(self, key: str, tokens: float, pace_below: float, now: float) -> float:
        with self._lock:
            s = self._state.get(key)
            if s is None:
                return 0.0
            wait = interval = 0.0
            live: dict[str, float] = {}
            for d, cost in (("r", 1.0), ("t", tokens)):
                rem, at, lim = s.get(d + "n"), s.get(d + "a"), s.get(d + "l")
                if rem is not None and at is not None and now >= at:
                    del s[d + "n"], s[d + "a"]
                    rem = None
                if rem is None or at is None or cost <= 0:
                    continue
                if rem < cost:
                    wait = max(wait, at - now)
                    continue
                live[d] = rem - cost
                if lim is not None and rem - cost < lim * pace_below:
                    interval = max(interval, (at - now) * cost / rem)
            na = s.get("na", 0.0)
            if interval > 0 and na > now:
                wait = max(wait, na - now)
            if wait > 0:
                return wait
            for d, left in live.items():
                s[d + "n"] = left
            if interval > 0:
                s["na"] = max(na, now) + interval
            return 0.0


def _fields(info: RateLimitInfo) -> tuple[float | None, ...]:
    return (
        info.remaining_requests,
        info.reset_requests_s,
        info.limit_requests,
        info.remaining_tokens,
        info.reset_tokens_s,
        info.limit_tokens,
    )


def _resolve(store: object) -> Any:
    if store is None:
        return MemoryRateStore()
    if hasattr(store, "rl_acquire"):
        return store
    from surefoot.stores import MemoryStore

    if isinstance(store, MemoryStore):
        return MemoryRateStore()
    from surefoot.stores._resolve import resolve_store

    return resolve_store(store)


class SharedRateLimiter:
    """Slow a fleet down before the provider's limits are hit; see the module docstring.

    ``store``: ``None`` (this process), a :class:`surefoot.stores.RedisStore`, a Redis URL or
    client (shared). ``key`` names the limit, e.g. ``"openai:gpt-4o"`` (one per provider key and
    model). ``pace_below`` (0.1) the share of a limit below which requests are spaced;
    ``default_reset`` (1 s) how long a remaining count without a reset time is trusted;
    ``max_wait`` (60 s) the longest :meth:`throttle` waits before raising
    :class:`surefoot.RateLimitError` (also raised when the wait would pass the deadline in force).
    """

    def __init__(
        self,
        store: object = None,
        key: str = "default",
        *,
        pace_below: float = 0.1,
        default_reset: float = 1.0,
        max_wait: float = 60.0,
        clock: Clock | None = None,
    ) -> None:
        if not isinstance(key, str) or not key:
            raise ValueError(f"key must be a non-empty str, got {key!r}")
        for name, v, lo in (("pace_below", pace_below, 0.0), ("default_reset", default_reset, 0.0)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v < math.inf:
                raise ValueError(f"{name} must be a finite number >= 0, got {v!r}")
        if pace_below > 1:
            raise ValueError(f"pace_below must be in [0, 1], got {pace_below!r}")
        if isinstance(max_wait, bool) or not isinstance(max_wait, (int, float)) or max_wait < 0:
            raise ValueError(f"max_wait must be a number of seconds >= 0, got {max_wait!r}")
        self.store: Any = _resolve(store)
        self.key = key
        self.pace_below = float(pace_below)
        self.default_reset = float(default_reset)
        self.max_wait = float(max_wait)
        self.clock: Clock = clock if clock is not None else SYSTEM_CLOCK

    def __repr__(self) -> str:
        return f"SharedRateLimiter(key={self.key!r}, store={self.store!r})"

    @staticmethod
    def _info(headers_or_info: object) -> RateLimitInfo | None:
        from surefoot.classify._ratelimit import RateLimitInfo, parse_ratelimit_headers

        info = (
            headers_or_info
            if isinstance(headers_or_info, RateLimitInfo)
            else parse_ratelimit_headers(headers_or_info)
        )
        return None if info.empty else info

    def observe(self, headers_or_info: object) -> None:
        """Learn from a response's headers (any mapping or list of pairs) or a
        :class:`surefoot.RateLimitInfo`; headers without rate-limit fields change nothing."""
        info = self._info(headers_or_info)
        if info is not None:
            self.store.rl_observe(self.key, _fields(info), self.default_reset, self.clock.now())

    async def aobserve(self, headers_or_info: object) -> None:
        info = self._info(headers_or_info)
        if info is None:
            return
        fn = getattr(self.store, "arl_observe", None)
        if fn is None:
            self.observe(info)
        else:
            await fn(self.key, _fields(info), self.default_reset, self.clock.now())

    def acquire(self, tokens: float = 0) -> float:
        """Take one request and ``tokens`` (an estimate of the call's tokens): 0.0 when taken,
        else the seconds to wait before asking again (nothing was taken)."""
        return float(self.store.rl_acquire(self.key, tokens, self.pace_below, self.clock.now()))

    async def aacquire(self, tokens: float = 0) -> float:
        fn = getattr(self.store, "arl_acquire", None)
        if fn is None:
            return self.acquire(tokens)
        return float(await fn(self.key, tokens, self.pace_below, self.clock.now()))

    def _check(self, waited: float, wait: float) -> None:
        left = time_left()
        if waited + wait > self.max_wait or (left is not None and wait > left):
            raise RateLimitError(
                f"rate limit for {self.key!r}: the next slot is {wait:.3g}s away, more than "
                f"{'the deadline' if left is not None and wait > left else 'max_wait'} allows",
                retry_after=wait,
                service=self.key,
            )

    def throttle(self, tokens: float = 0) -> float:
        """Wait (with the clock) until :meth:`acquire` lets the call through; the seconds
        waited. Raises :class:`surefoot.RateLimitError` past ``max_wait`` or the deadline."""
        waited = 0.0
        while (wait := self.acquire(tokens)) > 0:
            self._check(waited, wait)
            self.clock.sleep(wait)
            waited += wait
        return waited

    async def athrottle(self, tokens: float = 0) -> float:
        waited = 0.0
        while (wait := await self.aacquire(tokens)) > 0:
            self._check(waited, wait)
            await self.clock.asleep(wait)
            waited += wait
        return waited
