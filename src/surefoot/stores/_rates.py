"""Rate-limit state in this process: :class:`MemoryRateStore`, a locking shell around the pure
arithmetic of :mod:`surefoot.policy._buckets` (the Redis scripts mirror the same rules)."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from surefoot.policy import _buckets

__all__ = ["MemoryRateStore"]


class MemoryRateStore:
    """Rate-limit state for :class:`surefoot.SharedRateLimiter` in this process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state: dict[str, dict[str, float]] = {}

    def __repr__(self) -> str:
        return f"MemoryRateStore(keys={len(self._state)})"

    def rl_observe(
        self, key: str, fields: Sequence[float | None], default_reset: float, now: float
    ) -> None:
        with self._lock:
            _buckets.rl_observe(self._state.setdefault(key, {}), fields, default_reset, now)

    def rl_acquire(self, key: str, tokens: float, pace_below: float, now: float) -> float:
        with self._lock:
            return _buckets.rl_acquire(self._state.get(key), tokens, pace_below, now)
