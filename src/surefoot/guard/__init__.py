"""The engine's public face: :class:`Guard`, ``@resilient``, the breaker, the budget and the rate
limiter, their records and hooks.

They carry out what the pure policy (:mod:`surefoot.policy`) decides: one attempt loop
(:mod:`surefoot.policy._attempts`) driven by a sync driver generated from the async one; sleep,
call, cut an async attempt off at the deadline, admit through the breaker, pay the budget. Each
name is loaded on first use, so that a program pays only for what it uses.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from surefoot.guard._breaker import BreakerListener, CircuitBreaker, Permit
    from surefoot.guard._budget import BoundBudget, RetryBudget
    from surefoot.guard._decorate import resilient
    from surefoot.guard._driver_async import AsyncAttempts
    from surefoot.guard._driver_sync import Attempt, SyncAttempts
    from surefoot.guard._guard import Guard
    from surefoot.guard._hooks import GuardHooks
    from surefoot.guard._limiter import SharedRateLimiter
    from surefoot.policy._records import AttemptRecord, RunRecord

_WHERE = {
    "AsyncAttempts": "surefoot.guard._driver_async",
    "Attempt": "surefoot.guard._driver_sync",
    "AttemptRecord": "surefoot.policy._records",
    "BoundBudget": "surefoot.guard._budget",
    "BreakerListener": "surefoot.guard._breaker",
    "CircuitBreaker": "surefoot.guard._breaker",
    "Guard": "surefoot.guard._guard",
    "GuardHooks": "surefoot.guard._hooks",
    "Permit": "surefoot.guard._breaker",
    "RetryBudget": "surefoot.guard._budget",
    "RunRecord": "surefoot.policy._records",
    "SharedRateLimiter": "surefoot.guard._limiter",
    "SyncAttempts": "surefoot.guard._driver_sync",
    "resilient": "surefoot.guard._decorate",
}


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(where), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "AsyncAttempts",
    "Attempt",
    "AttemptRecord",
    "BoundBudget",
    "BreakerListener",
    "CircuitBreaker",
    "Guard",
    "GuardHooks",
    "Permit",
    "RetryBudget",
    "RunRecord",
    "SharedRateLimiter",
    "SyncAttempts",
    "resilient",
]
