"""The drivers: :class:`Guard`, ``@resilient``, iterator forms, records and telemetry hooks.

They carry out what the pure policy (:mod:`surefoot.policy`) decides: sleep, call, cut an async
attempt off at the deadline, report to the breaker and the budget.
"""

from surefoot.guard._core import Guard
from surefoot.guard._decorate import resilient
from surefoot.guard._iter import AsyncAttempts, Attempt, SyncAttempts
from surefoot.guard._records import AttemptRecord, GuardHooks, RunRecord

__all__ = [
    "AsyncAttempts",
    "Attempt",
    "AttemptRecord",
    "Guard",
    "GuardHooks",
    "RunRecord",
    "SyncAttempts",
    "resilient",
]
