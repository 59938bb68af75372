"""In-process state for breakers and budgets: :class:`MemoryStore`, a locking shell around the
pure state machine (:mod:`surefoot.policy._fsm`) and bucket arithmetic
(:mod:`surefoot.policy._buckets`).

Thread-safe with one short lock per store; nothing user-supplied ever runs under it. The
closed-breaker success path reads without the lock (``closed_ticket`` and the no-op success),
which is safe under the store's contract: a stale read can only admit one more call in an epoch
that has just ended, and that call's outcome is then ignored.
"""

from __future__ import annotations

import threading

from surefoot.policy import _buckets, _fsm
from surefoot.policy._fsm import BreakerRecord
from surefoot.policy._types import (
    FAILURE,
    SUCCESS,
    BreakerConfig,
    BreakerSnapshot,
    Transition,
)

__all__ = ["MemoryStore"]


class MemoryStore:
    """Breaker and budget state in this process's memory. Share one among breakers freely."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._recs: dict[str, BreakerRecord] = {}
        self._levels: dict[str, float] = {}

    def __repr__(self) -> str:
        return f"MemoryStore(breakers={len(self._recs)}, budgets={len(self._levels)})"

    # -- breaker ------------------------------------------------------------------------------

    def _rec(self, name: str) -> BreakerRecord:
        rec = self._recs.get(name)
        if rec is None:
            with self._lock:
                rec = self._recs.setdefault(name, BreakerRecord())
        return rec

    def local_view(self, name: str) -> BreakerRecord:
        """The live record of ``name``: its ``ticket`` and ``failures`` attributes may be read
        without the lock for the breaker's success path (see the module docstring)."""
        return self._rec(name)

    def closed_ticket(self, name: str) -> int:
        rec = self._recs.get(name)
        return 0 if rec is None else rec.ticket

    def admit(self, name: str, now: float, config: BreakerConfig) -> int:
        rec = self._rec(name)
        with self._lock:
            return _fsm.admit(rec, now, config)

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
        if outcome == SUCCESS and _fsm.is_noop_success(rec, ticket, config):
            return None  # the success path of a healthy circuit: nothing to write
        with self._lock:
            return _fsm.record(rec, ticket, outcome, now, config)

    def snapshot(self, name: str, now: float, config: BreakerConfig) -> BreakerSnapshot:
        rec = self._recs.get(name)
        if rec is None:
            return _fsm.snapshot(None, now, config)
        with self._lock:
            return _fsm.snapshot(rec, now, config)

    def reset(self, name: str) -> Transition | None:
        rec = self._rec(name)
        with self._lock:
            return _fsm.reset(rec)

    # -- budget -------------------------------------------------------------------------------

    def try_spend(self, key: str, cost: float, capacity: float) -> bool:
        with self._lock:
            paid, level = _buckets.spend(self._levels.get(key), cost, capacity)
            if paid and level is not None:
                self._levels[key] = level
            return paid

    def deposit(self, key: str, amount: float, capacity: float) -> None:
        if key not in self._levels:
            return  # a missing bucket is full: the common, lock-free case
        with self._lock:
            level = _buckets.deposit(self._levels.get(key), amount, capacity)
            if level is None:
                self._levels.pop(key, None)
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
