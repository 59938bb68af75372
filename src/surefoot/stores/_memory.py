"""In-process state for breakers and budgets: :class:`MemoryStore`.

Thread-safe with one short lock per store; nothing user-supplied ever runs under it. The
closed-breaker success path reads without the lock (``closed_ticket`` and the no-op success),
which is safe under the store's contract: a stale read can only admit one more call in an epoch
that has just ended, and that call's outcome is then ignored.
"""

from __future__ import annotations

import threading
from collections import deque

from surefoot.stores._base import (
    FAILURE,
    NEUTRAL,
    REJECTED,
    SUCCESS,
    BreakerConfig,
    BreakerSnapshot,
    BreakerState,
    Transition,
)

__all__ = ["MemoryStore"]

_CLOSED, _OPEN, _HALF = BreakerState.CLOSED, BreakerState.OPEN, BreakerState.HALF_OPEN
_BUCKETS = 20  # a ratio window is kept as this many time buckets


class _Rec:
    __slots__ = (
        "calls",
        "epoch",
        "failures",
        "open_until",
        "probe_until",
        "state",
        "ticket",
        "window",
    )

    def __init__(self) -> None:
        self.state = _CLOSED
        self.epoch = 0
        self.ticket = 0  # epoch * 2 while closed, REJECTED otherwise
        self.failures = 0
        self.calls = 0
        self.open_until = 0.0
        self.probe_until: float | None = None
        self.window: deque[list[float]] = deque()  # [bucket_start, calls, failures]

    def set_epoch(self, state: BreakerState) -> None:
        self.state = state
        self.epoch += 1
        self.ticket = self.epoch * 2 if state is _CLOSED else REJECTED


class MemoryStore:
    """Breaker and budget state in this process's memory. Share one among breakers freely."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._recs: dict[str, _Rec] = {}
        self._levels: dict[str, float] = {}

    def __repr__(self) -> str:
        return f"MemoryStore(breakers={len(self._recs)}, budgets={len(self._levels)})"

    # -- breaker ------------------------------------------------------------------------------

    def _rec(self, name: str) -> _Rec:
        rec = self._recs.get(name)
        if rec is None:
            with self._lock:
                rec = self._recs.setdefault(name, _Rec())
        return rec

    def local_view(self, name: str) -> _Rec:
        """The live record of ``name``: its ``ticket`` and ``failures`` attributes may be read
        without the lock for the breaker's success path (see the module docstring)."""
        return self._rec(name)

    def closed_ticket(self, name: str) -> int:
        rec = self._recs.get(name)
        return 0 if rec is None else rec.ticket

    def admit(self, name: str, now: float, config: BreakerConfig) -> int:
        rec = self._rec(name)
        with self._lock:
            if rec.state is _CLOSED:
                return rec.ticket
            if now < rec.open_until:
                return REJECTED
            if rec.probe_until is not None and now < rec.probe_until:
                return REJECTED
            rec.set_epoch(_HALF)
            rec.probe_until = now + config.probe_timeout
            return rec.epoch * 2 + 1

    def record(
        self, name: str, ticket: int, outcome: int, now: float, config: BreakerConfig
    ) -> Transition | None:
        if ticket < 0:
            return None
        rec = self._recs.get(name)
        if rec is None:
            if outcome != FAILURE:
                return None
            rec = self._rec(name)
        if (
            outcome == SUCCESS
            and ticket == rec.ticket
            and rec.failures == 0
            and config.mode == "consecutive"
        ):
            return None  # the success path of a healthy circuit: nothing to write
        with self._lock:
            if ticket >> 1 != rec.epoch:
                return None  # an outcome from an earlier epoch changes nothing
            if ticket & 1:
                return self._probe_outcome(rec, outcome, now, config)
            if rec.state is not _CLOSED or outcome == NEUTRAL:
                return None
            if config.mode == "consecutive":
                if outcome == SUCCESS:
                    rec.failures = 0
                    return None
                rec.failures += 1
                if rec.failures < config.failure_threshold:
                    return None
            else:
                self._slide(rec, now, config, outcome == FAILURE)
                if (
                    outcome == SUCCESS
                    or rec.calls < config.minimum_throughput
                    or rec.failures < config.failure_ratio * rec.calls
                ):
                    return None
            self._open(rec, now, config)
            return (_CLOSED, _OPEN)

    def _probe_outcome(
        self, rec: _Rec, outcome: int, now: float, config: BreakerConfig
    ) -> Transition | None:
        if rec.state is not _HALF:
            return None
        if outcome == NEUTRAL:
            rec.probe_until = None  # release: the next caller probes
            return None
        if outcome == SUCCESS:
            rec.set_epoch(_CLOSED)
            rec.failures = rec.calls = 0
            rec.window.clear()
            rec.probe_until = None
            return (_HALF, _CLOSED)
        self._open(rec, now, config)
        return (_HALF, _OPEN)

    @staticmethod
    def _open(rec: _Rec, now: float, config: BreakerConfig) -> None:
        rec.set_epoch(_OPEN)
        rec.open_until = now + config.recovery_timeout
        rec.probe_until = None
        rec.failures = rec.calls = 0
        rec.window.clear()

    @staticmethod
    def _slide(rec: _Rec, now: float, config: BreakerConfig, failed: bool) -> None:
        width = config.window / _BUCKETS
        win = rec.window
        horizon = now - config.window
        while win and win[0][0] <= horizon:
            old = win.popleft()
            rec.calls -= int(old[1])
            rec.failures -= int(old[2])
        if not win or now >= win[-1][0] + width:
            win.append([now, 0.0, 0.0])
        bucket = win[-1]
        bucket[1] += 1
        rec.calls += 1
        if failed:
            bucket[2] += 1
            rec.failures += 1

    def snapshot(self, name: str, now: float, config: BreakerConfig) -> BreakerSnapshot:
        rec = self._recs.get(name)
        if rec is None:
            return BreakerSnapshot(_CLOSED, 0, 0, 0, 0.0)
        with self._lock:
            if config.mode == "ratio" and rec.state is _CLOSED:
                horizon = now - config.window
                while rec.window and rec.window[0][0] <= horizon:
                    old = rec.window.popleft()
                    rec.calls -= int(old[1])
                    rec.failures -= int(old[2])
            state, wait = rec.state, 0.0
            if state is _OPEN:
                wait = max(0.0, rec.open_until - now)
                if wait == 0.0:
                    state = _HALF
            elif state is _HALF and rec.probe_until is not None and now < rec.probe_until:
                wait = rec.probe_until - now
            return BreakerSnapshot(state, rec.epoch, rec.failures, rec.calls, wait)

    def reset(self, name: str) -> Transition | None:
        rec = self._rec(name)
        with self._lock:
            old = rec.state
            rec.set_epoch(_CLOSED)
            rec.failures = rec.calls = 0
            rec.window.clear()
            rec.probe_until = None
            rec.open_until = 0.0
            return None if old is _CLOSED else (old, _CLOSED)

    # -- budget -------------------------------------------------------------------------------

    def try_spend(self, key: str, cost: float, capacity: float) -> bool:
        with self._lock:
            level = self._levels.get(key, capacity)
            if level < cost:
                return False
            self._levels[key] = level - cost
            return True

    def deposit(self, key: str, amount: float, capacity: float) -> None:
        if key not in self._levels:
            return  # a missing bucket is full: the common, lock-free case
        with self._lock:
            level = self._levels.get(key)
            if level is None:
                return
            level += amount
            if level >= capacity:
                del self._levels[key]
            else:
                self._levels[key] = level

    def level(self, key: str, capacity: float) -> float:
        return min(self._levels.get(key, capacity), capacity)

    def reset_budget(self, key: str | None = None) -> None:
        with self._lock:
            if key is None:
                self._levels.clear()
            else:
                self._levels.pop(key, None)
