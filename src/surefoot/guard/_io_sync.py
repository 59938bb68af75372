# GENERATED from src/surefoot/guard/_io_async.py by scripts/unasync.py: do not edit.
# Edit the async source, then run `make generate` (CI fails when this file is stale).
"""The engine's I/O (async): breaker admission and outcomes, budget payments, rate-limit waits,
and the interpreter of the attempt loop's ops (:mod:`surefoot.policy._attempts`).

Written once, for asyncio: the sync twin ``_io_sync.py`` is generated from this file by
``scripts/unasync.py`` (``make generate``; CI fails when it is stale). Every store call here
awaits the store's coroutine method (Redis: its asyncio client), so no async path makes a
blocking round trip; a store with only sync methods (in memory) is awaited through
:class:`~surefoot.guard._lazy.AsyncFacade`.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from surefoot.errors import CircuitOpenError
from surefoot.guard._hooks import safe_call
from surefoot.policy._attempts import (
    Admit,
    Call,
    Notify,
    Now,
    Refill,
    Release,
    Report,
    Sleep,
    Spend,
)
from surefoot.policy._types import NEUTRAL, REJECTED, SUCCESS, BreakerState, Transition

if TYPE_CHECKING:
    from surefoot.clock import Clock
    from surefoot.guard._breaker import CircuitBreaker
    from surefoot.guard._budget import RetryBudget
    from surefoot.guard._limiter import SharedRateLimiter

__all__ = [
    "acquire",
    "admit",
    "breaker_call",
    "drive",
    "observe",
    "perform",
    "refill",
    "release",
    "report",
    "spend",
    "throttle",
]

P = ParamSpec("P")
R = TypeVar("R")
_OPEN, _HALF = BreakerState.OPEN, BreakerState.HALF_OPEN
#: The ops :func:`perform` carries out.
_ENGINE_OPS = frozenset((Now, Sleep, Admit, Report, Release, Spend, Refill, Notify))


# -- the breaker ----------------------------------------------------------------------------------


def admit(b: CircuitBreaker) -> int:
    """A ticket for one call through ``b`` (odd: the half-open probe), or
    :class:`surefoot.CircuitOpenError`."""
    ticket = b._closed_ticket(b.name)
    if ticket >= 0:
        return ticket
    now = b.clock.now()
    ticket = int(b.store.admit(b.name, now, b.config))
    if ticket == REJECTED:
        snap = b.store.snapshot(b.name, now, b.config)
        raise CircuitOpenError(name=b.name, retry_after=snap.retry_after)
    if ticket & 1:
        b._notify((_OPEN, _HALF))
    return ticket


def report(b: CircuitBreaker, ticket: int, error: BaseException | None) -> Transition | None:
    """Record the outcome of the call admitted with ``ticket`` (``error`` ``None``: a success);
    the transition it caused, if any."""
    outcome = b._outcome(error)
    now = b.clock.now() if (outcome != SUCCESS or b._ratio or ticket & 1) else 0.0
    tr: Transition | None = b.store.record(b.name, ticket, outcome, now, b.config)
    if tr is not None:
        b._notify(tr)
    return tr


def release(b: CircuitBreaker, ticket: int) -> Transition | None:
    """Report no outcome for ``ticket`` (the call was abandoned). Only a probe's release changes
    anything (it frees the reservation), so any other ticket costs no store call."""
    if ticket < 0 or not ticket & 1:
        return None
    tr: Transition | None = b.store.record(b.name, ticket, NEUTRAL, b.clock.now(), b.config)
    if tr is not None:
        b._notify(tr)
    return tr


def breaker_call(b: CircuitBreaker, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    """``fn(*args, **kwargs)`` through the breaker ``b`` alone (no retries)."""
    ticket = admit(b)
    try:
        result = fn(*args, **kwargs)
    except BaseException as exc:
        report(b, ticket, exc)
        raise
    report(b, ticket, None)
    return result


# -- the budget -----------------------------------------------------------------------------------


def spend(budget: RetryBudget, key: str | None = None) -> bool:
    """Pay for one retry under ``key``; ``False`` when the bucket cannot pay."""
    if budget.retry_cost == 0.0:
        return True
    paid = budget.store.try_spend(key or budget.default_key, budget.retry_cost, budget.capacity)
    return bool(paid)


def refill(budget: RetryBudget, key: str | None = None) -> None:
    """Refill after a successful call under ``key``."""
    if budget.success_refill:
        budget.store.deposit(key or budget.default_key, budget.success_refill, budget.capacity)


# -- the rate limiter -----------------------------------------------------------------------------


def acquire(lim: SharedRateLimiter, tokens: float = 0) -> float:
    """Take one request and ``tokens``: 0.0 when taken, else the seconds to wait."""
    wait = lim.store.rl_acquire(lim.key, tokens, lim.pace_below, lim.clock.now())
    return float(wait)


def observe(lim: SharedRateLimiter, headers_or_info: object) -> None:
    """Learn from a response's headers or a :class:`surefoot.RateLimitInfo`."""
    fields = lim._fields(headers_or_info)
    if fields is not None:
        lim.store.rl_observe(lim.key, fields, lim.default_reset, lim.clock.now())


def throttle(lim: SharedRateLimiter, tokens: float = 0) -> float:
    """Wait until the limiter lets one call through; the seconds waited."""
    waited = 0.0
    while (wait := acquire(lim, tokens)) > 0:
        lim._refuse(waited, wait)
        lim.clock.sleep(wait)
        waited += wait
    return waited


# -- the interpreter of the attempt loop ----------------------------------------------------------


def perform(op: Any, clock: Clock) -> Any:
    """Carry out one op of the attempt loop other than ``Call``; its answer."""
    t = type(op)
    if t is Now:
        return clock.now()
    if t is Sleep:
        clock.sleep(op.seconds)
        return None
    if t is Admit:
        return admit(op.breaker)
    if t is Report:
        return report(op.breaker, op.ticket, op.error)
    if t is Release:
        return release(op.breaker, op.ticket)
    if t is Spend:
        return spend(op.budget, op.key)
    if t is Refill:
        refill(op.budget, op.key)
        return None
    if t is Notify:
        safe_call(op.fn, *op.args)
        return None
    raise AssertionError(f"not an op of the attempt loop: {op!r}")


def drive(
    gen: Generator[Any, Any, Any],
    clock: Clock,
    call: Callable[[], Any] | None,
    other: Callable[[Any], Any] | None = None,
) -> Any:
    """Run the attempt loop ``gen`` to its end: ``Call`` runs ``call()``, the engine's ops
    :func:`perform`, and any other op (a driver's own, like the SDK transport's ``Send``)
    ``other(op)``. What they raise is thrown into the loop, which decides (a cancellation
    passes through it after the ticket is released)."""
    value: Any = None
    exc: BaseException | None = None
    while True:
        try:
            op = gen.send(value) if exc is None else gen.throw(exc)
        except StopIteration as stop:
            return stop.value
        value = exc = None
        try:
            t = type(op)
            if t is Call and call is not None:
                value = call()
            elif other is not None and t not in _ENGINE_OPS:
                value = other(op)
            else:
                value = perform(op, clock)
        except BaseException as e:
            exc = e
