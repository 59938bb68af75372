"""The store interfaces behind circuit breakers and retry budgets.

Each method is one atomic transition, so a shared implementation (Redis, a later issue) can run
it server-side as one script. Two safety rules are part of the contract:

- **Epochs.** Every breaker state change (open, probe reservation, close) increments the
  breaker's ``epoch``. :meth:`BreakerStore.admit` returns a *ticket* that encodes the epoch it
  was admitted in (``epoch * 2``, plus 1 for the probe); an outcome recorded with a ticket from
  an earlier epoch changes nothing, so a slow call admitted before the circuit opened can neither
  close nor re-open a newer circuit.
- **Probe reservations expire.** The single half-open probe is a reservation valid for
  ``probe_timeout`` seconds; if its holder dies without reporting, the next caller after the
  expiry gets a fresh probe (in a new epoch), so recovery is never blocked.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

__all__ = [
    "FAILURE",
    "NEUTRAL",
    "REJECTED",
    "SUCCESS",
    "BreakerConfig",
    "BreakerSnapshot",
    "BreakerState",
    "BreakerStore",
    "BudgetStore",
    "Transition",
]

#: ``admit`` result for a rejected call.
REJECTED = -1
#: Outcomes passed to :meth:`BreakerStore.record`.
SUCCESS, FAILURE, NEUTRAL = 0, 1, 2


class BreakerState(enum.StrEnum):
    """A circuit breaker's state."""

    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


#: ``(old, new)`` when an operation changed the state.
Transition = tuple[BreakerState, BreakerState]


@dataclass(frozen=True, slots=True)
class BreakerConfig:
    """The settings a store needs to apply a breaker's transitions (validated by the breaker)."""

    failure_threshold: int = 10
    recovery_timeout: float = 30.0
    probe_timeout: float = 30.0
    mode: Literal["consecutive", "ratio"] = "consecutive"
    failure_ratio: float = 0.5
    window: float = 60.0
    minimum_throughput: int = 10


@dataclass(frozen=True, slots=True)
class BreakerSnapshot:
    """A consistent view of one breaker: ``retry_after`` is the seconds until a probe can be
    admitted (0 when closed or when the next caller would be the probe)."""

    state: BreakerState
    epoch: int
    failures: int
    calls: int
    retry_after: float


@runtime_checkable
class BreakerStore(Protocol):
    """Where circuit breaker state lives. Every method is atomic with respect to the others."""

    def closed_ticket(self, name: str) -> int:
        """A cheap, possibly stale answer for the success path: the ticket for a normal call
        when the breaker looks closed, else :data:`REJECTED` (then call :meth:`admit`). A store
        that cannot answer cheaply always returns :data:`REJECTED`."""
        ...

    def admit(self, name: str, now: float, config: BreakerConfig) -> int:
        """Admit a call: a ticket >= 0 (odd = the half-open probe) or :data:`REJECTED`."""
        ...

    def record(
        self, name: str, ticket: int, outcome: int, now: float, config: BreakerConfig
    ) -> Transition | None:
        """Record the outcome (:data:`SUCCESS`, :data:`FAILURE` = a counted failure, or
        :data:`NEUTRAL` = neither, which releases a probe reservation) of the call admitted
        with ``ticket``. ``now`` is read only for failures and in ratio mode."""
        ...

    def snapshot(self, name: str, now: float, config: BreakerConfig) -> BreakerSnapshot: ...

    def reset(self, name: str) -> Transition | None:
        """Close the breaker and forget its counts (a new epoch)."""
        ...


@runtime_checkable
class BudgetStore(Protocol):
    """Where retry budget token buckets live, one per key; a missing bucket is full."""

    def try_spend(self, key: str, cost: float, capacity: float) -> bool:
        """Take ``cost`` tokens if the bucket holds that many; never goes below zero."""
        ...

    def deposit(self, key: str, amount: float, capacity: float) -> None:
        """Add ``amount`` tokens, up to ``capacity``."""
        ...

    def level(self, key: str, capacity: float) -> float:
        """The tokens in the bucket now."""
        ...

    def reset_budget(self, key: str | None = None) -> None:
        """Refill one bucket, or all of them when ``key`` is ``None``."""
        ...
