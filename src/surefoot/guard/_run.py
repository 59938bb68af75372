"""The failure path shared by the sync and async drivers: one :class:`Run` per guarded run.

The success path never gets here: a :class:`Run` is made only after a first failure (or up
front, when the caller asked for a record).
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, NoReturn

from surefoot.errors import CircuitOpenError, RunTimeoutError
from surefoot.guard._records import AttemptRecord, RunRecord, attach_attempts, describe, safe_call
from surefoot.policy._classifier import translate
from surefoot.policy._types import Decision
from surefoot.stores._base import NEUTRAL, BreakerState, Transition

if TYPE_CHECKING:
    from surefoot.guard._core import Guard

__all__ = ["SLACK", "DeadlineExpired", "Run"]

#: A timeout error that surfaces this close to the deadline is the deadline's doing: a socket
#: timeout set from ``time_left()`` can fire a hair before the deadline by the clock's reckoning.
SLACK = 0.005

_EXPIRED = Decision("fail", 0.0, "the run's deadline elapsed")
_OPEN, _HALF = BreakerState.OPEN, BreakerState.HALF_OPEN


def _subject(exc: BaseException) -> BaseException:
    """The error the policy and the breaker judge: ``exc`` translated when it can be."""
    err = translate(exc)
    return err if err is not None else exc


class DeadlineExpired(Exception):
    """Internal: the async driver cut an attempt off at the run's deadline."""


class Run:
    """The state of one run past its first failure."""

    __slots__ = ("attempt", "deadline", "guard", "last_error", "records", "started")

    def __init__(self, guard: Guard, deadline: float | None, attempt: int = 0) -> None:
        self.guard = guard
        self.deadline = deadline
        self.attempt = attempt
        self.records: list[AttemptRecord] = []
        self.last_error: BaseException | None = None
        self.started: float | None = None

    # -- outcomes -----------------------------------------------------------------------------

    def admit(self) -> int:
        """Admit one attempt through the breaker (``-1`` without one); tells the hooks when
        this call is the half-open probe (the breaker moved from open to half-open)."""
        g = self.guard
        if g._admit is None:
            return -1
        ticket: int = g._admit()
        if ticket & 1:
            self.probe_admitted()
        return ticket

    async def aadmit(self) -> int:
        """:meth:`admit` through the breaker's asyncio store."""
        g = self.guard
        assert g.breaker is not None
        ticket = await g.breaker._aadmit()
        if ticket & 1:
            self.probe_admitted()
        return ticket

    def probe_admitted(self) -> None:
        g = self.guard
        if g.hooks is not None and g.breaker is not None:
            safe_call(g.hooks.on_breaker_state_change, g.breaker.name, _OPEN, _HALF)

    def succeeded(self, ticket: int) -> None:
        if ticket >= 0:
            self.breaker_outcome(ticket, None)
        self._success_record()

    async def asucceeded(self, ticket: int) -> None:
        """:meth:`succeeded`, recording through the breaker's asyncio store."""
        if ticket >= 0:
            await self.abreaker_outcome(ticket, None)
        self._success_record()

    def _success_record(self) -> None:
        g = self.guard
        if g.budget is not None:
            g.budget.on_success(g.budget_key)
        rec = AttemptRecord(
            self.attempt, None, None, None, None, 0.0, None, self.started, g.clock.now()
        )
        self.records.append(rec)
        if g.hooks is not None:
            safe_call(g.hooks.on_attempt, rec)

    def breaker_outcome(self, ticket: int, error: BaseException | None) -> None:
        g = self.guard
        assert g.breaker is not None
        self.transition(g.breaker._record(ticket, error))

    async def abreaker_outcome(self, ticket: int, error: BaseException | None) -> None:
        g = self.guard
        assert g.breaker is not None
        self.transition(await g.breaker._arecord(ticket, error))

    def transition(self, tr: Transition | None) -> None:
        """Tell the hooks about a state change this run's call caused."""
        g = self.guard
        if tr is not None and g.hooks is not None and g.breaker is not None:
            safe_call(g.hooks.on_breaker_state_change, g.breaker.name, tr[0], tr[1])

    def release(self, ticket: int) -> None:
        """The attempt was cancelled: no outcome for the breaker."""
        if ticket >= 0 and self.guard.breaker is not None:
            self.transition(self.guard.breaker._record_outcome(ticket, NEUTRAL))

    async def arelease(self, ticket: int) -> None:
        """:meth:`release` through the breaker's asyncio store."""
        if ticket >= 0 and self.guard.breaker is not None:
            self.transition(await self.guard.breaker._arelease(ticket))

    def failed(self, exc: BaseException, ticket: int) -> float:
        """Attempt ``self.attempt`` raised ``exc`` (not a cancellation): return the seconds to
        wait before the next attempt, or raise what the caller must see."""
        if isinstance(exc, DeadlineExpired):
            self.release(ticket)
            self.timeout()
        subject = _subject(exc)
        if ticket >= 0:
            self.breaker_outcome(ticket, subject)
        return self.decide(subject)

    async def afailed(self, exc: BaseException, ticket: int) -> float:
        """:meth:`failed`, recording through the breaker's asyncio store."""
        if isinstance(exc, DeadlineExpired):
            await self.arelease(ticket)
            self.timeout()
        subject = _subject(exc)
        if ticket >= 0:
            await self.abreaker_outcome(ticket, subject)
        return self.decide(subject)

    def decide(self, subject: BaseException) -> float:
        """The policy's answer for the failure ``subject`` (already recorded by the breaker)."""
        g = self.guard
        now = g.clock.now()
        dl = self.deadline
        if dl is not None and (
            now >= dl
            or (
                (isinstance(subject, builtins.TimeoutError) and dl - now <= SLACK)
                and not isinstance(subject, RunTimeoutError)
            )
        ):
            self.last_error = subject
            self.records.append(describe(subject, self.attempt, _EXPIRED, 0.0, self.started, now))
            self.timeout()
        decision = g.policy.decide(subject, self.attempt, now, dl)
        if decision.retry and g.budget is not None and not g.budget.try_spend(g.budget_key):
            decision = Decision("fail", 0.0, "retry budget exhausted")
        rec = describe(subject, self.attempt, decision, decision.delay, self.started, now)
        self.records.append(rec)
        self.last_error = subject
        hooks = g.hooks
        if hooks is not None:
            safe_call(hooks.on_attempt, rec)
        if decision.retry:
            if hooks is not None:
                safe_call(hooks.on_retry, rec)
            self.attempt += 1
            return decision.delay
        if decision.hook_error is not None:
            he = decision.hook_error
            subject.add_note(
                f"surefoot: the on_error hook raised {type(he).__name__}: {he}; "
                "the call failed with this original error"
            )
        self.give_up(subject, rec)
        raise subject

    def before_attempt(self) -> None:
        """After a wait: the deadline may have passed while sleeping (sync sleeps overshoot)."""
        dl = self.deadline
        if dl is not None and self.guard.clock.now() >= dl:
            self.timeout()

    def rejected(self, exc: CircuitOpenError) -> NoReturn:
        """The breaker rejected a retry: the run ends with the circuit-open error."""
        now = self.guard.clock.now()
        rec = describe(exc, self.attempt, Decision("fail", 0.0, "circuit open"), 0.0, now, now)
        self.records.append(rec)
        self.give_up(exc, rec)
        raise exc

    def timeout(self) -> NoReturn:
        g = self.guard
        n = self.attempt + 1
        timeout = g.timeout
        what = f"the run's {timeout:g}s deadline" if timeout is not None else "the deadline"
        err = RunTimeoutError(
            f"{what} elapsed during attempt {n}", timeout=timeout, operation=g.operation
        )
        err.__cause__ = self.last_error
        now = g.clock.now()
        if not self.records or self.records[-1].decision is not _EXPIRED:
            self.records.append(describe(err, self.attempt, _EXPIRED, 0.0, self.started, now))
        self.give_up(err, self.records[-1])
        raise err

    def give_up(self, error: BaseException, rec: AttemptRecord) -> None:
        g = self.guard
        attach_attempts(error, self.records, g.operation)
        if g.hooks is not None:
            safe_call(g.hooks.on_give_up, rec, error)

    def record(self, outcome: str) -> RunRecord:
        return RunRecord(tuple(self.records), outcome)  # type: ignore[arg-type]
