"""The retry budget: a token bucket that stops retries from becoming the outage.

As in gRPC retry throttling and the AWS SDK retry quota: each retry spends ``retry_cost``
tokens, each successful call refills ``success_refill`` tokens (up to ``capacity``). When a
bucket holds less than ``retry_cost``, a retry turns into an immediate failure: the caller gets
the original error and the attempt record says ``"retry budget exhausted"``. First attempts are
never refused; only retries spend. A bucket never goes negative (the arithmetic:
:mod:`surefoot.policy._buckets`).

Buckets are keyed (e.g. ``"openai:gpt-4o"``): one budget object serves many providers and models.
Thread-safe through its :class:`~surefoot.stores.BudgetStore`; ``store="redis://..."`` (or a
redis-py client, or a :class:`surefoot.stores.RedisStore`) shares the buckets across a fleet, and
the async paths then use its asyncio client.
"""

from __future__ import annotations

from typing import Any, cast

from surefoot import _check
from surefoot.guard import _io_sync
from surefoot.guard._lazy import AsyncFacade, AsyncMethod
from surefoot.stores._base import BudgetStore
from surefoot.stores._memory import MemoryStore
from surefoot.stores._resolve import resolve_store

__all__ = ["BoundBudget", "RetryBudget", "unbind"]


class RetryBudget:
    """A keyed token bucket for retries.

    ``capacity`` (10) tokens per key, full at first; a retry costs ``retry_cost`` (1); a success
    refills ``success_refill`` (0.1), so in steady state at most about one retry per ten
    successes is allowed once the reserve is spent.
    """

    def __init__(
        self,
        capacity: float = 10.0,
        retry_cost: float = 1.0,
        success_refill: float = 0.1,
        *,
        store: BudgetStore | str | None = None,
        default_key: str = "default",
    ) -> None:
        self.capacity = _check.number("capacity", capacity, low_open=True)
        self.retry_cost = _check.number("retry_cost", retry_cost)
        self.success_refill = _check.number("success_refill", success_refill)
        if self.retry_cost > self.capacity:
            raise ValueError(
                f"retry_cost ({retry_cost!r}) must not exceed capacity ({capacity!r}), "
                "or no retry could ever be paid for"
            )
        if store is not None and not isinstance(store, MemoryStore):
            store = cast(BudgetStore, resolve_store(store))  # a Redis URL or client -> RedisStore
            if not callable(getattr(store, "try_spend", None)):
                raise TypeError(
                    "store must be a surefoot.stores.BudgetStore, a Redis URL or a redis-py "
                    f"client, or None, got {_check.shown(store)}"
                )
        self.store: BudgetStore = store if store is not None else MemoryStore()
        self._astore: Any = (
            self.store if hasattr(self.store, "atry_spend") else AsyncFacade(self.store)
        )
        #: True when the store's async methods do real I/O (an asyncio Redis client).
        self.async_io = hasattr(self.store, "atry_spend")
        self.default_key = _check.text("default_key", default_key)

    def __repr__(self) -> str:
        return (
            f"RetryBudget(capacity={self.capacity:g}, retry_cost={self.retry_cost:g}, "
            f"success_refill={self.success_refill:g})"
        )

    try_spend = _io_sync.spend
    on_success = _io_sync.refill
    atry_spend = AsyncMethod("spend")
    aon_success = AsyncMethod("refill")

    def tokens(self, key: str | None = None) -> float:
        """The tokens left under ``key``; always between 0 and ``capacity``."""
        return self.store.level(key or self.default_key, self.capacity)

    def reset(self, key: str | None = None) -> None:
        """Refill one bucket, or every bucket when ``key`` is ``None``."""
        self.store.reset_budget(key)

    def for_key(self, key: str) -> BoundBudget:
        """A view of this budget bound to ``key``, to pass as ``budget=``."""
        return BoundBudget(self, key)


class BoundBudget:
    """A :class:`RetryBudget` bound to one key: the same methods, without the key."""

    __slots__ = ("budget", "key")

    def __init__(self, budget: RetryBudget, key: str) -> None:
        self.budget = budget
        self.key = key

    def __repr__(self) -> str:
        return f"BoundBudget({self.budget!r}, key={self.key!r})"

    def try_spend(self, key: str | None = None) -> bool:
        return self.budget.try_spend(key or self.key)

    def on_success(self, key: str | None = None) -> None:
        self.budget.on_success(key or self.key)

    def tokens(self, key: str | None = None) -> float:
        return self.budget.tokens(key or self.key)

    def reset(self, key: str | None = None) -> None:
        self.budget.reset(key or self.key)


def unbind(budget: RetryBudget | BoundBudget | None, key: str | None) -> tuple[Any, str | None]:
    """``(the RetryBudget, the key to spend under)`` for a ``budget=`` option."""
    if isinstance(budget, BoundBudget):
        return budget.budget, budget.key
    return budget, key
