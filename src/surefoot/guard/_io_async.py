"""The engine's I/O (async): breaker admission and outcomes, budget payments, rate-limit waits,
and the interpreter of the attempt loop's ops (:mod:`surefoot.policy._attempts`).

Written once, for asyncio: the sync twin ``_io_sync.py`` is generated from this file by
``scripts/unasync.py`` (``make generate``; CI fails when it is stale). Every store call here
awaits the store's coroutine method (Redis: its asyncio client), so no async path makes a
blocking round trip; a store with only sync methods (in memory) is awaited through
:class:`~surefoot.guard._lazy.AsyncFacade`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
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
    "aacquire",
    "aadmit",
    "abreaker_call",
    "adrive",
    "aobserve",
    "aperform",
    "arefill",
    "arelease",
    "areport",
    "aspend",
    "athrottle",
]

P = ParamSpec("P")
R = TypeVar("R")
_OPEN, _HALF = BreakerState.OPEN, BreakerState.HALF_OPEN
#: The ops :func:`aperform` carries out.
_ENGINE_OPS = frozenset((Now, Sleep, Admit, Report, Release, Spend, Refill, Notify))


# -- the breaker ----------------------------------------------------------------------------------


async def aadmit(b: CircuitBreaker) -> int:
    """A ticket for one call through ``b`` (odd: the half-open probe), or
    :class:`surefoot.CircuitOpenError`."""
    ticket = b._closed_ticket(b.name)
    if ticket >= 0:
        return ticket
    now = b.clock.now()
    ticket = int(await b._astore.aadmit(b.name, now, b.config))
    if ticket == REJECTED:
        snap = await b._astore.asnapshot(b.name, now, b.config)
        raise CircuitOpenError(name=b.name, retry_after=snap.retry_after)
    if ticket & 1:
        b._notify((_OPEN, _HALF))
    return ticket


async def areport(b: CircuitBreaker, ticket: int, error: BaseException | None) -> Transition | None:
    """Record the outcome of the call admitted with ``ticket`` (``error`` ``None``: a success);
    the transition it caused, if any."""
    outcome = b._outcome(error)
    now = b.clock.now() if (outcome != SUCCESS or b._ratio or ticket & 1) else 0.0
    tr: Transition | None = await b._astore.arecord(b.name, ticket, outcome, now, b.config)
    if tr is not None:
        b._notify(tr)
    return tr


async def arelease(b: CircuitBreaker, ticket: int) -> Transition | None:
    """Report no outcome for ``ticket`` (the call was abandoned). Only a probe's release changes
    anything (it frees the reservation), so any other ticket costs no store call."""
    if ticket < 0 or not ticket & 1:
        return None
    tr: Transition | None = await b._astore.arecord(
        b.name, ticket, NEUTRAL, b.clock.now(), b.config
    )
    if tr is not None:
        b._notify(tr)
    return tr


async def abreaker_call(
    b: CircuitBreaker, fn: Callable[P, Awaitable[R]], /, *args: P.args, **kwargs: P.kwargs
) -> R:
    """``fn(*args, **kwargs)`` through the breaker ``b`` alone (no retries)."""
    ticket = await aadmit(b)
    try:
        result = await fn(*args, **kwargs)
    except BaseException as exc:
        await areport(b, ticket, exc)
        raise
    await areport(b, ticket, None)
    return result


# -- the budget -----------------------------------------------------------------------------------


async def aspend(budget: RetryBudget, key: str | None = None) -> bool:
    """Pay for one retry under ``key``; ``False`` when the bucket cannot pay."""
    if budget.retry_cost == 0.0:
        return True
    paid = await budget._astore.atry_spend(
        key or budget.default_key, budget.retry_cost, budget.capacity
    )
    return bool(paid)


async def arefill(budget: RetryBudget, key: str | None = None) -> None:
    """Refill after a successful call under ``key``."""
    if budget.success_refill:
        await budget._astore.adeposit(
            key or budget.default_key, budget.success_refill, budget.capacity
        )


# -- the rate limiter -----------------------------------------------------------------------------


async def aacquire(lim: SharedRateLimiter, tokens: float = 0) -> float:
    """Take one request and ``tokens``: 0.0 when taken, else the seconds to wait."""
    wait = await lim._astore.arl_acquire(lim.key, tokens, lim.pace_below, lim.clock.now())
    return float(wait)


async def aobserve(lim: SharedRateLimiter, headers_or_info: object) -> None:
    """Learn from a response's headers or a :class:`surefoot.RateLimitInfo`."""
    fields = lim._fields(headers_or_info)
    if fields is not None:
        await lim._astore.arl_observe(lim.key, fields, lim.default_reset, lim.clock.now())


async def athrottle(lim: SharedRateLimiter, tokens: float = 0) -> float:
    """Wait until the limiter lets one call through; the seconds waited."""
    waited = 0.0
    while (wait := await aacquire(lim, tokens)) > 0:
        lim._refuse(waited, wait)
        await lim.clock.asleep(wait)
        waited += wait
    return waited


# -- the interpreter of the attempt loop ----------------------------------------------------------


async def aperform(op: Any, clock: Clock) -> Any:
    """Carry out one op of the attempt loop other than ``Call``; its answer."""
    t = type(op)
    if t is Now:
        return clock.now()
    if t is Sleep:
        await clock.asleep(op.seconds)
        return None
    if t is Admit:
        return await aadmit(op.breaker)
    if t is Report:
        return await areport(op.breaker, op.ticket, op.error)
    if t is Release:
        return await arelease(op.breaker, op.ticket)
    if t is Spend:
        return await aspend(op.budget, op.key)
    if t is Refill:
        await arefill(op.budget, op.key)
        return None
    if t is Notify:
        safe_call(op.fn, *op.args)
        return None
    raise AssertionError(f"not an op of the attempt loop: {op!r}")


async def adrive(
    gen: Generator[Any, Any, Any],
    clock: Clock,
    call: Callable[[], Awaitable[Any]] | None,
    other: Callable[[Any], Awaitable[Any]] | None = None,
) -> Any:
    """Run the attempt loop ``gen`` to its end: ``Call`` runs ``call()``, the engine's ops
    :func:`aperform`, and any other op (a driver's own, like the SDK transport's ``Send``)
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
                value = await call()
            elif other is not None and t not in _ENGINE_OPS:
                value = await other(op)
            else:
                value = await aperform(op, clock)
        except BaseException as e:
            exc = e
