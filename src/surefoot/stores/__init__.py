"""Where circuit breaker and retry budget state lives: the store protocols and the memory store."""

from surefoot.stores._base import (
    BreakerConfig,
    BreakerSnapshot,
    BreakerState,
    BreakerStore,
    BudgetStore,
    Transition,
)
from surefoot.stores._memory import MemoryStore

__all__ = [
    "BreakerConfig",
    "BreakerSnapshot",
    "BreakerState",
    "BreakerStore",
    "BudgetStore",
    "MemoryStore",
    "Transition",
]
