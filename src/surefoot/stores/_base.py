"""The store interfaces behind circuit breakers and retry budgets.

Each method is one atomic transition of the state machine written in
:mod:`surefoot.policy._fsm` (and :mod:`surefoot.policy._buckets` for budgets), so a shared
implementation (:class:`~surefoot.stores.RedisStore`) runs it server-side as one script. A
store may also offer ``a``-prefixed coroutine twins (``aadmit``, ``arecord``, ``asnapshot``,
``atry_spend``, ``adeposit``), which the async drivers await instead. Two safety rules are part
of the contract:

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

from typing import Protocol, runtime_checkable

from surefoot.policy._types import (
    FAILURE,
    NEUTRAL,
    REJECTED,
    SUCCESS,
    BreakerConfig,
    BreakerSnapshot,
    BreakerState,
    Transition,
)

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
