"""The failure path, written once: a sans-IO generator that every driver runs.

:class:`surefoot.Guard` (sync and async, its decorator and its iterator forms), the LLM client
(for each model of a fallback chain, and for a stream's resumes) and agent actions (through
``Guard``) all carry out this one loop. It does no I/O: it yields what to do and receives what
happened, as httpx's auth flows do.

========  ===========================================  ========================================
op        the driver                                   sends back
========  ===========================================  ========================================
``Call``  runs the attempt (the guarded function)      its result, or throws its exception in
``Admit`` asks the breaker to admit one call           the ticket; throws ``CircuitOpenError``
``Report`` records the attempt's outcome               the breaker's transition, or ``None``
``Release`` releases a ticket without an outcome       the transition, or ``None``
``Spend`` pays for one retry from the budget           ``True`` when paid
``Refill`` refills the budget after a success          ``None``
``Sleep`` waits on the clock                           ``None``
``Now``   reads the clock                              the time
``Notify`` calls a telemetry hook (errors ignored)     ``None``
========  ===========================================  ========================================

The rules, for every attempt in order:

1. The breaker (if any) admits the attempt; a rejection ends the run (``Why.CIRCUIT_OPEN``).
2. The attempt runs. A cancellation (anything that is not an ``Exception``) releases the ticket
   and passes through; :class:`DeadlineHit` (the driver cut the attempt off at the deadline)
   releases the ticket and ends the run with the deadline's error.
3. A failure is translated at the boundary (``Plan.subject``).
4. If the deadline has passed, or the failure is a timeout within :data:`SLACK` of it (a socket
   timeout set from the time left fires a hair early), the failure is the deadline's doing: the
   ticket is released (no outcome for the breaker) and the run ends with the deadline's error.
   Otherwise the failure is reported to the breaker.
5. The decision (``Plan.decide``: a :class:`~surefoot.policy.RetryPolicy`, or the LLM client's
   rules) says retry or fail; a retry must be paid for by the budget (else ``Why.BUDGET``).
6. The attempt's record is kept and the hooks hear of it (``on_attempt``, then ``on_retry``).
7. A retry waits, checks the deadline again (a sync sleep may overshoot) and goes round.

A success reports to the breaker, refills the budget and ends the run with its value.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Generator
from typing import Any, TypeAlias

from surefoot.errors import CircuitOpenError, RunTimeoutError, SurefootError
from surefoot.policy._classifier import is_cancellation
from surefoot.policy._records import AttemptRecord, describe
from surefoot.policy._types import BreakerState, Decision, Why

__all__ = [
    "CALL",
    "NOW",
    "SLACK",
    "Abandoned",
    "Admit",
    "Call",
    "DeadlineHit",
    "Failed",
    "GaveUp",
    "Notify",
    "Now",
    "Op",
    "Plan",
    "Refill",
    "Release",
    "Report",
    "Sleep",
    "Spend",
    "run",
]

#: A timeout error that surfaces this close to the deadline is the deadline's doing.
SLACK = 0.005

_EXPIRED = Decision.fail(Why.DEADLINE)
_OPEN, _HALF = BreakerState.OPEN, BreakerState.HALF_OPEN


class DeadlineHit(Exception):
    """Internal: a driver cut an attempt (or an I/O step) off at the run's deadline."""


class Abandoned(Exception):
    """Internal: thrown into a loop whose caller stopped consuming it (a stream closed early),
    so that it releases its breaker ticket before it ends."""


# -- ops ----------------------------------------------------------------------------------------


class Call:
    __slots__ = ()


class Now:
    __slots__ = ()


CALL = Call()
NOW = Now()


class Admit:
    __slots__ = ("breaker",)

    def __init__(self, breaker: Any) -> None:
        self.breaker = breaker


class Report:
    __slots__ = ("breaker", "error", "ticket")

    def __init__(self, breaker: Any, ticket: int, error: BaseException | None) -> None:
        self.breaker = breaker
        self.ticket = ticket
        self.error = error


class Release:
    __slots__ = ("breaker", "ticket")

    def __init__(self, breaker: Any, ticket: int) -> None:
        self.breaker = breaker
        self.ticket = ticket


class Spend:
    __slots__ = ("budget", "key")

    def __init__(self, budget: Any, key: str | None) -> None:
        self.budget = budget
        self.key = key


class Refill:
    __slots__ = ("budget", "key")

    def __init__(self, budget: Any, key: str | None) -> None:
        self.budget = budget
        self.key = key


class Sleep:
    __slots__ = ("seconds",)

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds


class Notify:
    __slots__ = ("args", "fn")

    def __init__(self, fn: Callable[..., object], args: tuple[Any, ...]) -> None:
        self.fn = fn
        self.args = args


Op: TypeAlias = Call | Now | Admit | Report | Release | Spend | Refill | Sleep | Notify

# -- outcomes -----------------------------------------------------------------------------------


class Failed:
    """What an attempt generator returns for a failure it observed without raising (the LLM
    client's attempts return the provider's typed error this way)."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


class GaveUp:
    """How a run ended without a result: the ``error`` the caller sees, ``why``, and the
    zero-based ``attempt`` it ended in."""

    __slots__ = ("attempt", "decision", "error", "why")

    def __init__(
        self, error: BaseException, why: Why, decision: Decision | None = None, attempt: int = 0
    ) -> None:
        self.error = error
        self.why = why
        self.decision = decision
        self.attempt = attempt


Decide: TypeAlias = Callable[[BaseException, int, float, "float | None", int], Decision]
MakeRecord: TypeAlias = Callable[
    [int, "BaseException | None", "Decision | None", float, "float | None", float], AttemptRecord
]


def _guard_record(
    attempt: int,
    error: BaseException | None,
    decision: Decision | None,
    wait: float,
    started: float | None,
    ended: float,
) -> AttemptRecord:
    if error is None:
        return AttemptRecord(attempt, None, None, None, None, 0.0, None, started, ended)
    return describe(error, attempt, decision, wait, started, ended)


class Plan:
    """What one run needs: the rules (``decide``, ``subject``), the shared objects (``breaker``,
    ``budget``), the deadline, and where its records go.

    - ``attempt``: a generator function of the attempt number whose return value is the
      attempt's result (or a :class:`Failed`); ``None`` makes the loop yield :data:`CALL`.
    - ``passthrough``: exception types that an attempt *raises* to abort the run (they release
      the ticket and pass through); every other ``Exception`` it raises is a failure.
    - ``timed_out(cause, attempt)``: the error for a run whose deadline elapsed.
    - ``hooks``: an object with the telemetry hooks (``on_attempt``, ``on_retry``,
      ``on_breaker_state_change``), or ``None``.
    - ``record_success``: keep a record of a success even when nothing before it was recorded
      and no hook listens (the LLM client skips it for a clean first attempt).
    - ``timed``: read the clock when each attempt starts, for its record (``started``); a
      driver that keeps no record of a clean run may skip it.
    - ``trace``: the call's :class:`surefoot.telemetry._hub.Trace` (attempt starts and ends,
      breaker changes, retry budget spends), or ``None``; its events are yielded as
      :class:`Notify` ops like the hooks.
    - ``log``: a function of ``(record, error)`` called (as a ``Notify``) after each failed
      attempt's decision: the structured log line; ``None`` for none.
    """

    __slots__ = (
        "attempt",
        "breaker",
        "budget",
        "budget_key",
        "deadline",
        "decide",
        "hooks",
        "log",
        "make_record",
        "passthrough",
        "record_success",
        "records",
        "subject",
        "timed",
        "timed_out",
        "trace",
    )

    def __init__(
        self,
        *,
        decide: Decide,
        timed_out: Callable[[BaseException | None, int], BaseException],
        deadline: float | None = None,
        breaker: Any = None,
        budget: Any = None,
        budget_key: str | None = None,
        hooks: Any = None,
        attempt: Callable[[int], Generator[Any, Any, Any]] | None = None,
        subject: Callable[[BaseException], BaseException] | None = None,
        passthrough: tuple[type[BaseException], ...] = (),
        make_record: MakeRecord | None = None,
        records: list[Any] | None = None,
        record_success: bool = True,
        timed: bool = True,
        trace: Any = None,
        log: Callable[[Any, BaseException], object] | None = None,
    ) -> None:
        self.decide = decide
        self.timed_out = timed_out
        self.deadline = deadline
        self.breaker = breaker
        self.budget = budget
        self.budget_key = budget_key
        self.hooks = hooks
        self.attempt = attempt
        self.subject = subject
        self.passthrough = passthrough
        self.make_record = make_record if make_record is not None else _guard_record
        self.records: list[Any] = records if records is not None else []
        self.record_success = record_success
        self.timed = timed
        self.trace = trace
        self.log = log


def _hook(plan: Plan, name: str) -> Callable[..., object] | None:
    hooks = plan.hooks
    return None if hooks is None else getattr(hooks, name, None)


def _kind_key(error: BaseException) -> object:
    return error.kind if isinstance(error, SurefootError) else type(error)


def _near_deadline(error: BaseException, now: float, deadline: float | None) -> bool:
    if deadline is None:
        return False
    if now >= deadline:
        return True
    return (
        isinstance(error, builtins.TimeoutError)
        and not isinstance(error, RunTimeoutError)
        and deadline - now <= SLACK
    )


def run(
    plan: Plan,
    first: tuple[BaseException, int] | None = None,
) -> Generator[Op, Any, Any]:
    """The loop (see the module docstring). Returns the attempt's result, or a :class:`GaveUp`.

    ``first`` hands over a failure the driver's fast path already observed: the exception its
    first attempt raised and the breaker ticket it held (``-1`` without one).
    """
    attempt = 0
    started: float | None = None
    streak_key: object = None
    streak = -1
    last: BaseException | None = None
    breaker, records, make = plan.breaker, plan.records, plan.make_record
    pending = first
    while True:
        if pending is not None:
            exc, ticket = pending
            pending = None
            if isinstance(exc, DeadlineHit):
                if ticket >= 0:
                    yield from _release(plan, ticket)
                return (yield from _timeout(plan, attempt, started, None))
        else:
            started = (yield NOW) if plan.timed else None
            ticket = -1
            if breaker is not None:
                try:
                    ticket = yield Admit(breaker)
                except CircuitOpenError as rejected:
                    now = yield NOW
                    decision = Decision.fail(Why.CIRCUIT_OPEN)
                    records.append(make(attempt, rejected, decision, 0.0, now, now))
                    yield from _ended(plan, records[-1], rejected)
                    return GaveUp(rejected, Why.CIRCUIT_OPEN, decision, attempt)
                if ticket & 1:
                    yield from _changed(plan, (_OPEN, _HALF))
            if plan.trace is not None:
                yield Notify(plan.trace.attempt_started, (attempt,))
            try:
                if plan.attempt is None:
                    value = yield CALL
                else:
                    value = yield from plan.attempt(attempt)
            except DeadlineHit:
                if ticket >= 0:
                    yield from _release(plan, ticket)
                return (yield from _timeout(plan, attempt, started, last))
            except GeneratorExit:
                raise  # closed: nothing may be yielded (an unreleased probe reservation expires)
            except BaseException as raised:
                if is_cancellation(raised) or isinstance(raised, plan.passthrough):
                    if ticket >= 0:
                        yield from _release(plan, ticket)
                    raise
                exc = raised
            else:
                if type(value) is not Failed:
                    yield from _succeeded(plan, attempt, ticket, started)
                    return value
                exc = value.error
        # -- a failure ---------------------------------------------------------------------
        subject = plan.subject(exc) if plan.subject is not None else exc
        last = subject
        now = yield NOW
        dl = plan.deadline
        if _near_deadline(subject, now, dl):
            # The deadline's doing, not the service's: no outcome for the breaker.
            if ticket >= 0:
                yield from _release(plan, ticket)
            records.append(make(attempt, subject, _EXPIRED, 0.0, started, now))
            yield from _ended(plan, records[-1], subject, hooks=False)
            return (yield from _timeout(plan, attempt, started, subject, recorded=True))
        if ticket >= 0:
            tr = yield Report(breaker, ticket, subject)
            if tr is not None:
                yield from _changed(plan, tr)
        key = _kind_key(subject)
        streak = streak + 1 if key == streak_key else 0
        streak_key = key
        decision = plan.decide(subject, attempt, now, dl, streak)
        if decision.retry and plan.budget is not None:
            paid = yield Spend(plan.budget, plan.budget_key)
            if plan.trace is not None:
                yield Notify(plan.trace.budget_spent, (plan.budget, plan.budget_key, paid))
            if not paid:
                decision = Decision.fail(Why.BUDGET)
        wait = decision.delay if decision.retry else 0.0
        rec = make(attempt, subject, decision, wait, started, now)
        records.append(rec)
        yield from _ended(plan, rec, subject)
        if not decision.retry:
            he = decision.hook_error
            if he is not None:
                subject.add_note(
                    f"surefoot: the on_error hook raised {type(he).__name__}: {he}; "
                    "the call failed with this original error"
                )
            return GaveUp(subject, decision.why, decision, attempt)
        fn = _hook(plan, "on_retry")
        if fn is not None:
            yield Notify(fn, (rec,))
        attempt += 1
        if wait > 0:
            yield Sleep(wait)
            if dl is not None:
                now = yield NOW
                if now >= dl:
                    return (yield from _timeout(plan, attempt, now, subject))


def _succeeded(
    plan: Plan, attempt: int, ticket: int, started: float | None
) -> Generator[Op, Any, None]:
    if ticket >= 0:
        tr = yield Report(plan.breaker, ticket, None)
        if tr is not None:
            yield from _changed(plan, tr)
    if plan.budget is not None:
        yield Refill(plan.budget, plan.budget_key)
    fn = _hook(plan, "on_attempt")
    trace = plan.trace
    if fn is not None or plan.records or plan.record_success or trace is not None:
        ended = yield NOW
        rec = plan.make_record(attempt, None, None, 0.0, started, ended)
        plan.records.append(rec)
        if fn is not None:
            yield Notify(fn, (rec,))
        if trace is not None:
            yield Notify(trace.attempt_ended, (rec, None))


def _release(plan: Plan, ticket: int) -> Generator[Op, Any, None]:
    tr = yield Release(plan.breaker, ticket)
    if tr is not None:
        yield from _changed(plan, tr)


def _changed(plan: Plan, transition: tuple[BreakerState, BreakerState]) -> Generator[Op, Any, None]:
    """The breaker changed state: the hook and the trace hear of it."""
    args = (plan.breaker.name, transition[0], transition[1])
    fn = _hook(plan, "on_breaker_state_change")
    if fn is not None:
        yield Notify(fn, args)
    if plan.trace is not None:
        yield Notify(plan.trace.breaker_changed, args)


def _ended(
    plan: Plan, rec: AttemptRecord, error: BaseException, *, hooks: bool = True
) -> Generator[Op, Any, None]:
    """A failed attempt's record is kept: the hook, the trace and the log hear of it."""
    if hooks:
        fn = _hook(plan, "on_attempt")
        if fn is not None:
            yield Notify(fn, (rec,))
    if plan.trace is not None:
        yield Notify(plan.trace.attempt_ended, (rec, error))
    if plan.log is not None:
        yield Notify(plan.log, (rec, error))


def _timeout(
    plan: Plan,
    attempt: int,
    started: float | None,
    cause: BaseException | None,
    *,
    recorded: bool = False,
) -> Generator[Op, Any, GaveUp]:
    err = plan.timed_out(cause, attempt)
    if not recorded:
        now = yield NOW
        plan.records.append(plan.make_record(attempt, err, _EXPIRED, 0.0, started, now))
        yield from _ended(plan, plan.records[-1], err, hooks=False)
    return GaveUp(err, Why.DEADLINE, _EXPIRED, attempt)
