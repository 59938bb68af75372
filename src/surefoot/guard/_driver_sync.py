# GENERATED from src/surefoot/guard/_driver_async.py by scripts/unasync.py: do not edit.
# Edit the async source, then run `make generate` (CI fails when this file is stale).
"""The async driver of :class:`surefoot.Guard`: :meth:`~surefoot.Guard.call`, the decorator's
wrapper, and the iterator form :meth:`~surefoot.Guard.attempts`.

Written once: the sync driver ``_driver_sync.py`` is generated from this file by
``scripts/unasync.py``. The success path is kept to what it must do: with ``timeout`` set, one
clock reading and one context-variable set/reset (so callees see :func:`surefoot.time_left`);
with a breaker, one lock-free read before and one after; nothing is allocated for records or
hooks. Everything after a failure is the engine's one loop (:mod:`surefoot.policy._attempts`),
carried out by :func:`~surefoot.guard._io_sync.drive`; its modules are imported by the first
failure, so a program whose calls succeed never loads them.

Async attempts are cut off at the deadline (:mod:`surefoot._backends._async`), raising
:class:`surefoot.RunTimeoutError`. Sync attempts cannot be preempted: a callee bounds its own
I/O with :func:`surefoot.time_left`; the deadline is checked after each failed attempt and
before each wait, and a wait never ends past it. A success is returned even when it arrived
after the deadline: the work is done.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Generator
from types import TracebackType
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from surefoot._scope import DEADLINE, effective, enter
from surefoot.clock import Clock
from surefoot.telemetry import _hub

if TYPE_CHECKING:
    from contextvars import Token

    from surefoot.guard._guard import Guard
    from surefoot.policy._attempts import Plan
    from surefoot.policy._records import RunRecord

__all__ = ["Attempt", "SyncAttempts", "call", "call_with_record", "wrap"]

P = ParamSpec("P")
R = TypeVar("R")
#: What :meth:`SyncAttempts._step` answers when there is no op to carry out now.
_PAUSE, _ENDED = object(), object()
_dget, _dset, _dreset = DEADLINE.get, DEADLINE.set, DEADLINE.reset


def call(self: Guard, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    """``fn(*args, **kwargs)`` under this guard's retries, deadline, breaker and budget."""
    if self._recorded or _hub.SINKS:
        return (_loop(self, fn, args, kwargs))[0]
    token = None
    scope = _dget()
    timeout = self.timeout
    if timeout is not None:
        # surefoot._scope.enter, inline: the success path's only clock reading.
        when = self._now() + timeout
        if scope is None or when < scope[0]:
            scope = (when, self.clock)
            token = _dset(scope)
    try:
        view = self._view
        if view is not None:
            ticket = view.ticket
            if ticket < 0:
                ticket = self._admit()
        elif self._admit is not None:
            ticket = self._admit()
        else:
            ticket = -1
        try:
            result = fn(*args, **kwargs)
        except Exception as exc:
            out: R = _failed(self, fn, args, kwargs, exc, ticket, scope)
            return out
        except BaseException:
            if ticket >= 0:
                self._release(ticket)
            raise
        if ticket >= 0 and (view is None or ticket != view.ticket or view.failures):
            self._report(ticket, None)
        if self._refill is not None:
            self._refill(self._budget_key)
        return result
    finally:
        if token is not None:
            _dreset(token)


def call_with_record(
    self: Guard, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs
) -> tuple[R, RunRecord]:
    """Like :meth:`Guard.call`, and also the :class:`RunRecord` of every attempt."""
    return _loop(self, fn, args, kwargs)


def _attempt(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    deadline: float | None,
    clock: Clock,
) -> Any:
    """One attempt, cut off at ``deadline`` (:class:`DeadlineHit`) when there is one."""
    return fn(*args, **kwargs)


def _failed(
    guard: Guard,
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    exc: BaseException,
    ticket: int,
    scope: tuple[float, Clock] | None,
) -> Any:
    """The rest of a run whose first attempt (on the success path) failed with ``exc``."""
    from surefoot.guard._io_sync import drive
    from surefoot.policy._attempts import GaveUp, run

    deadline = None if scope is None else scope[0]
    plan = guard._plan(deadline)
    clock = guard.clock

    def attempt() -> Any:
        return _attempt(fn, args, kwargs, deadline, clock)

    out = drive(run(plan, (exc, ticket)), clock, attempt)
    if type(out) is GaveUp:
        guard._give_up(plan.records, out)
    return out


def _loop(
    guard: Guard,
    fn: Callable[..., R],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> tuple[R, RunRecord]:
    """A whole run through the engine's loop, recorded from its first attempt."""
    from surefoot.guard._io_sync import drive
    from surefoot.policy._attempts import GaveUp, run
    from surefoot.policy._records import RunRecord

    clock = guard.clock
    deadline, token = enter(guard.timeout, clock)
    trace = guard._trace() if _hub.SINKS else None
    try:
        plan = guard._plan(deadline, trace)

        def attempt() -> Any:
            return _attempt(fn, args, kwargs, deadline, clock)

        try:
            out = drive(run(plan), clock, attempt)
        except BaseException as exc:
            if trace is not None:
                trace.end(exc)
            raise
        if type(out) is GaveUp:
            if trace is not None:
                trace.end(out.error)
            guard._give_up(plan.records, out)
        if trace is not None:
            trace.end(None)
        return out, RunRecord(tuple(plan.records), "success")
    finally:
        if token is not None:
            _dreset(token)


def wrap(guard: Guard, fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` run through ``guard``, as a function of the same signature (``.guard`` is the
    guard).

    The wrapper is :func:`call` with the guard's settings bound once: its success path is the
    same steps, inlined (a call through :func:`call` would cost a third more on the path every
    call takes). Any failure goes to the same :func:`_failed`.
    """
    if guard._recorded:

        @functools.wraps(fn)
        def recorded(*args: P.args, **kwargs: P.kwargs) -> R:
            return (_loop(guard, fn, args, kwargs))[0]

        recorded.guard = guard  # type: ignore[attr-defined]
        return recorded

    timeout, now, clock = guard.timeout, guard._now, guard.clock
    view, admit, report, release = guard._view, guard._admit, guard._report, guard._release
    refill, budget_key = guard._refill, guard._budget_key

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        if _hub.SINKS:
            return (_loop(guard, fn, args, kwargs))[0]
        token = None
        scope = _dget()
        if timeout is not None:
            when = now() + timeout
            if scope is None or when < scope[0]:
                scope = (when, clock)
                token = _dset(scope)
        try:
            if view is not None:
                ticket = view.ticket
                if ticket < 0:
                    ticket = admit()
            elif admit is not None:
                ticket = admit()
            else:
                ticket = -1
            try:
                result = fn(*args, **kwargs)
            except Exception as exc:
                out: R = _failed(guard, fn, args, kwargs, exc, ticket, scope)
                return out
            except BaseException:
                if ticket >= 0:
                    release(ticket)
                raise
            if ticket >= 0 and (view is None or ticket != view.ticket or view.failures):
                report(ticket, None)
            if refill is not None:
                refill(budget_key)
            return result
        finally:
            if token is not None:
                _dreset(token)

    wrapper.guard = guard  # type: ignore[attr-defined]
    return wrapper


# -- the iterator form --------------------------------------------------------------------------


class SyncAttempts:
    """The iterator of :meth:`Guard.attempts`: ``for attempt in guard.attempts():``
    then ``with attempt:`` (or ``with attempt:``) around the attempt's code.

    A failure inside the block is suppressed when it will be retried (the iterator then waits
    and yields the next attempt) and raised from the block when the run gives up; a success
    ends the loop. ``.record`` is the :class:`RunRecord` so far.
    """

    def __init__(self, guard: Guard) -> None:
        self._guard = guard
        self._plan: Plan | None = None
        self._gen: Generator[Any, Any, Any] | None = None
        self._deadline: float | None = None
        self._pending: Any = None  # the op to carry out before the next attempt
        self._number = 0
        self._outcome: str | None = None
        self._trace: Any = None

    @property
    def record(self) -> RunRecord:
        from surefoot.policy._records import RunRecord

        records = () if self._plan is None else tuple(self._plan.records)
        return RunRecord(records, self._outcome or "failure")  # type: ignore[arg-type]

    def __iter__(self) -> SyncAttempts:
        return self

    def __next__(self) -> Attempt:
        from surefoot.guard._io_sync import perform
        from surefoot.policy._attempts import Call, run

        if self._outcome is not None:
            raise StopIteration
        g = self._guard
        if self._gen is None:
            self._deadline = effective(g.timeout, g.clock)
            self._trace = g._trace() if _hub.SINKS else None
            self._plan = g._plan(self._deadline, self._trace)
            self._gen = run(self._plan)
            op = next(self._gen)
        else:
            op, self._pending = self._pending, None
            if op is None:
                raise RuntimeError(
                    "each attempt must be used as `with attempt:` before the next one"
                )
        while type(op) is not Call:
            value: Any = None
            err: BaseException | None = None
            try:
                value = perform(op, g.clock)
            except BaseException as e:
                err = e
            op = self._step(value, err)
            if op is _ENDED:
                raise StopIteration
            if op is _PAUSE:  # a wait (carried out next round) or the next attempt
                op, self._pending = self._pending, None
        number, self._number = self._number, self._number + 1
        return Attempt(self, number, self._deadline)

    def _end(self, out: Any) -> None:
        """The loop ended: a success, or the run gives up (raised here)."""
        from surefoot.policy._attempts import GaveUp

        trace = self._trace
        if type(out) is not GaveUp:
            self._outcome = "success"
            if trace is not None:
                trace.end(None)
            return
        if trace is not None:
            trace.end(out.error)
        why = out.why.name
        self._outcome = (
            "timeout" if why == "DEADLINE" else "rejected" if why == "CIRCUIT_OPEN" else "failure"
        )
        assert self._plan is not None
        self._guard._give_up(self._plan.records, out)

    def _step(self, value: Any, err: BaseException | None) -> Any:
        """Send ``value`` (or throw ``err``) into the loop: the next op to carry out, or
        :data:`_PAUSE` once it waits or asks for the next attempt (kept for
        :meth:`__next__`), or :data:`_ENDED` (a success; a give-up raises here)."""
        from surefoot.policy._attempts import Call, Sleep

        assert self._gen is not None
        try:
            op = self._gen.send(value) if err is None else self._gen.throw(err)
        except StopIteration as stop:
            self._end(stop.value)
            return _ENDED
        except BaseException as exc:
            self._outcome = "failure"
            if self._trace is not None:
                self._trace.end(exc)
            raise
        if type(op) is Sleep or type(op) is Call:
            self._pending = op
            return _PAUSE
        return op

    def _afinish(self, exc: BaseException | None) -> bool:
        """Send the attempt's outcome into the loop and carry it on up to the next wait or
        attempt: True to suppress a failure that will be retried."""
        from surefoot.guard._io_sync import perform

        clock = self._guard.clock
        op = self._step(None, exc)
        while op is not _PAUSE and op is not _ENDED:
            value: Any = None
            err: BaseException | None = None
            try:
                value = perform(op, clock)
            except BaseException as e:
                err = e
            op = self._step(value, err)
        return op is _PAUSE


class Attempt:
    """One attempt of an iterator form: use it as ``with attempt:`` (or, in
    :meth:`Guard.attempts`, ``with attempt:``). ``number`` is zero-based."""

    __slots__ = ("_armed", "_deadline", "_owner", "_token", "number")

    def __init__(self, owner: SyncAttempts, number: int, deadline: float | None) -> None:
        self._owner = owner
        self.number = number
        self._deadline = deadline
        self._token: Token[tuple[float, Clock] | None] | None = None
        self._armed: Any = None

    def _open(self) -> None:
        deadline = self._deadline
        if deadline is not None:
            clock = self._owner._guard.clock
            self._token = _dset((deadline, clock))

    def _close(self, exc: BaseException | None) -> BaseException | None:
        """Leave the deadline scope; the outcome to send into the loop."""
        token, self._token = self._token, None
        if token is not None:
            _dreset(token)
        return exc

    def __enter__(self) -> Attempt:
        self._open()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        return self._owner._afinish(self._close(exc))
