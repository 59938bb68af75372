"""Where circuit breaker and retry budget state lives: the store protocols, the memory store, and
the Redis store shared by a fleet (:class:`RedisStore`, needs ``pip install surefoot[redis]``)."""

from typing import TYPE_CHECKING, Any

from surefoot.stores._base import (
    BreakerConfig,
    BreakerSnapshot,
    BreakerState,
    BreakerStore,
    BudgetStore,
    Transition,
)
from surefoot.stores._memory import MemoryStore
from surefoot.stores._rates import MemoryRateStore
from surefoot.stores._resolve import resolve_store

if TYPE_CHECKING:
    from surefoot.stores._events import StoreEvent, WhenDown
    from surefoot.stores._redis import RedisStore

__all__ = [
    "BreakerConfig",
    "BreakerSnapshot",
    "BreakerState",
    "BreakerStore",
    "BudgetStore",
    "MemoryRateStore",
    "MemoryStore",
    "RedisStore",
    "StoreEvent",
    "Transition",
    "WhenDown",
    "resolve_store",
]


def __getattr__(name: str) -> Any:
    # RedisStore imports redis-py, an optional dependency: load it on first use only (and the
    # events it reports with it).
    if name == "RedisStore":
        from surefoot.stores._redis import RedisStore

        return RedisStore
    if name in ("StoreEvent", "WhenDown"):
        from surefoot.stores import _events

        return getattr(_events, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
