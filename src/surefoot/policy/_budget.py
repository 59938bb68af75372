"""The retry budget: a token bucket that stops retries from becoming the outage.

As in gRPC retry throttling and the AWS SDK retry quota: each retry spends ``retry_cost``
tokens, each successful call refills ``success_refill`` tokens (up to ``capacity``). When a
bucket holds less than ``retry_cost``, a retry turns into an immediate failure: the caller gets
the original error and the attempt record says ``"retry budget exhausted"``. First attempts are
never refused; only retries spend. A bucket never goes negative.

Buckets are keyed (e.g. ``"openai:gpt-4o"``): one budget object serves many providers and models.
Thread-safe through its :class:`~surefoot.stores.BudgetStore`; ``store="redis://..."`` (or a
redis-py client, or a :class:`surefoot.stores.RedisStore`) shares the buckets across a fleet.
"""

from __future__ import annotations

import math
from typing import Any

from surefoot.stores._base import BudgetStore
from surefoot.stores._memory import MemoryStore
from surefoot.stores._resolve import resolve_store

__all__ = ["BoundBudget", "RetryBudget"]


def _amount(name: str, value: object, *, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a number, got {type(value).__name__}")
    v = float(value)
    if not math.isfinite(v) or v < 0 or (positive and v == 0):
        rule = "> 0" if positive else ">= 0"
        raise ValueError(f"{name} must be a finite number {rule}, got {value!r}")
    return v


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
        store: BudgetStore | str | Any = None,
        default_key: str = "default",
    ) -> None:
        self.capacity = _amount("capacity", capacity, positive=True)
        self.retry_cost = _amount("retry_cost", retry_cost)
        self.success_refill = _amount("success_refill", success_refill)
        if self.retry_cost > self.capacity:
            raise ValueError(
                f"retry_cost ({retry_cost!r}) must not exceed capacity ({capacity!r}), "
                "or no retry could ever be paid for"
            )
        if store is not None and not isinstance(store, MemoryStore):
            store = resolve_store(store)  # a Redis URL or client -> RedisStore
        self.store: BudgetStore = store if store is not None else MemoryStore()
        self.default_key = default_key

    def __repr__(self) -> str:
        return (
            f"RetryBudget(capacity={self.capacity:g}, retry_cost={self.retry_cost:g}, "
            f"success_refill={self.success_refill:g})"
        )

    def try_spend(self, key: str | None = None) -> bool:
        """Pay for one retry under ``key``; ``False`` when the bucket cannot pay."""
        if self.retry_cost == 0.0:
            return True
        return self.store.try_spend(key or self.default_key, self.retry_cost, self.capacity)

    def on_success(self, key: str | None = None) -> None:
        """Refill after a successful call under ``key``."""
        if self.success_refill:
            self.store.deposit(key or self.default_key, self.success_refill, self.capacity)

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
