"""The async driver of :class:`surefoot.Guard`: :meth:`~surefoot.Guard.acall`, the decorator's
wrapper, and the iterator form :meth:`~surefoot.Guard.aattempts`.

Written once: the sync driver ``_driver_sync.py`` is generated from this file by
``scripts/unasync.py``. The success path is kept to what it must do: with ``timeout`` set, one
clock reading and one context-variable set/reset (so callees see :func:`surefoot.time_left`);
with a breaker, one lock-free read before and one after; nothing is allocated for records or
hooks. Everything after a failure is the engine's one loop (:mod:`surefoot.policy._attempts`),
carried out by :func:`~surefoot.guard._io_async.adrive`; its modules are imported by the first
failure, so a program whose calls succeed never loads them.

Async attempts are cut off at the deadline (:mod:`surefoot._backends._async`), raising
:class:`surefoot.RunTimeoutError`. Sync attempts cannot be preempted: a callee bounds its own
I/O with :func:`surefoot.time_left`; the deadline is checked after each failed attempt and
before each wait, and a wait never ends past it. A success is returned even when it arrived
after the deadline: the work is done.
"""

from __future__ import annotations

# unasync: async-only
import asyncio

# unasync: end
import functools
from collections.abc import Awaitable, Callable, Generator
from types import TracebackType
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from surefoot._backends import _async as backend
from surefoot._scope import DEADLINE, effective, enter
from surefoot.clock import Clock
from surefoot.policy._attempts import DeadlineHit
from surefoot.telemetry import _hub

if TYPE_CHECKING:
    from contextvars import Token

    from surefoot.guard._guard import Guard
    from surefoot.policy._attempts import Plan
    from surefoot.policy._records import RunRecord

__all__ = ["AsyncAttempts", "Attempt", "acall", "acall_with_record", "awrap"]

P = ParamSpec("P")
R = TypeVar("R")
#: What :meth:`AsyncAttempts._step` answers when there is no op to carry out now.
_PAUSE, _ENDED = object(), object()
_dget, _dset, _dreset = DEADLINE.get, DEADLINE.set, DEADLINE.reset


async def acall(
    self: Guard, fn: Callable[P, Awaitable[R]], /, *args: P.args, **kwargs: P.kwargs
) -> R:
    """``fn(*args, **kwargs)`` under this guard's retries, deadline, breaker and budget."""
    if self._arecorded or _hub.SINKS:
        return (await _aloop(self, fn, args, kwargs))[0]
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
            # unasync: async-only
            if scope is None:
                result = await fn(*args, **kwargs)
            elif self._system_clock:
                # The system-clock deadline scope, inline: see backend.LoopWatch.
                loop, task = backend.current_task_fast()
                last = backend.last
                watch = last[1] if last[0] is loop else backend.watch_for(loop)
                active = watch.active
                prev = active.get(task)
                when = scope[0]
                active[task] = when
                baseline = task.cancelling()
                if when < watch.armed_at:
                    watch.arm(when)
                try:
                    result = await fn(*args, **kwargs)
                except asyncio.CancelledError:
                    if watch.expired(task, baseline):
                        raise DeadlineHit() from None
                    raise
                finally:
                    watch.leave(task, prev)
            else:
                result = await _aattempt(fn, args, kwargs, scope[0], self.clock)
            # unasync: end
            # unasync: sync-only
            # result = fn(*args, **kwargs)
            # unasync: end
        except Exception as exc:
            out: R = await _afailed(self, fn, args, kwargs, exc, ticket, scope)
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


async def acall_with_record(
    self: Guard, fn: Callable[P, Awaitable[R]], /, *args: P.args, **kwargs: P.kwargs
) -> tuple[R, RunRecord]:
    """Like :meth:`Guard.acall`, and also the :class:`RunRecord` of every attempt."""
    return await _aloop(self, fn, args, kwargs)


async def _aattempt(
    fn: Callable[..., Awaitable[Any]],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    deadline: float | None,
    clock: Clock,
) -> Any:
    """One attempt, cut off at ``deadline`` (:class:`DeadlineHit`) when there is one."""
    # unasync: async-only
    if deadline is not None:
        armed = backend.arm(deadline, clock)
        try:
            return await fn(*args, **kwargs)
        except asyncio.CancelledError:
            if armed.expired():
                raise DeadlineHit() from None
            raise
        finally:
            armed.disarm()
    # unasync: end
    return await fn(*args, **kwargs)


async def _afailed(
    guard: Guard,
    fn: Callable[..., Awaitable[Any]],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    exc: BaseException,
    ticket: int,
    scope: tuple[float, Clock] | None,
) -> Any:
    """The rest of a run whose first attempt (on the success path) failed with ``exc``."""
    from surefoot.guard._io_async import adrive
    from surefoot.policy._attempts import GaveUp, run

    deadline = None if scope is None else scope[0]
    plan = guard._plan(deadline)
    clock = guard.clock

    async def attempt() -> Any:
        return await _aattempt(fn, args, kwargs, deadline, clock)

    out = await adrive(run(plan, (exc, ticket)), clock, attempt)
    if type(out) is GaveUp:
        guard._give_up(plan.records, out)
    return out


async def _aloop(
    guard: Guard,
    fn: Callable[..., Awaitable[R]],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> tuple[R, RunRecord]:
    """A whole run through the engine's loop, recorded from its first attempt."""
    from surefoot.guard._io_async import adrive
    from surefoot.policy._attempts import GaveUp, run
    from surefoot.policy._records import RunRecord

    clock = guard.clock
    deadline, token = enter(guard.timeout, clock)
    trace = guard._trace() if _hub.SINKS else None
    try:
        plan = guard._plan(deadline, trace)

        async def attempt() -> Any:
            return await _aattempt(fn, args, kwargs, deadline, clock)

        try:
            out = await adrive(run(plan), clock, attempt)
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


def awrap(guard: Guard, fn: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """``fn`` run through ``guard``, as a function of the same signature (``.guard`` is the
    guard).

    The wrapper is :func:`acall` with the guard's settings bound once: its success path is the
    same steps, inlined (a call through :func:`acall` would cost a third more on the path every
    call takes). Any failure goes to the same :func:`_afailed`.
    """
    if guard._arecorded:

        @functools.wraps(fn)
        async def arecorded(*args: P.args, **kwargs: P.kwargs) -> R:
            return (await _aloop(guard, fn, args, kwargs))[0]

        arecorded.guard = guard  # type: ignore[attr-defined]
        return arecorded

    timeout, now, clock = guard.timeout, guard._now, guard.clock
    view, admit, report, release = guard._view, guard._admit, guard._report, guard._release
    refill, budget_key = guard._refill, guard._budget_key
    # unasync: async-only
    system_clock = guard._system_clock
    # unasync: end

    @functools.wraps(fn)
    async def awrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        if _hub.SINKS:
            return (await _aloop(guard, fn, args, kwargs))[0]
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
                # unasync: async-only
                if scope is None:
                    result = await fn(*args, **kwargs)
                elif system_clock:
                    loop, task = backend.current_task_fast()
                    last = backend.last
                    watch = last[1] if last[0] is loop else backend.watch_for(loop)
                    active = watch.active
                    prev = active.get(task)
                    when = scope[0]
                    active[task] = when
                    baseline = task.cancelling()
                    if when < watch.armed_at:
                        watch.arm(when)
                    try:
                        result = await fn(*args, **kwargs)
                    except asyncio.CancelledError:
                        if watch.expired(task, baseline):
                            raise DeadlineHit() from None
                        raise
                    finally:
                        watch.leave(task, prev)
                else:
                    result = await _aattempt(fn, args, kwargs, scope[0], clock)
                # unasync: end
                # unasync: sync-only
                # result = fn(*args, **kwargs)
                # unasync: end
            except Exception as exc:
                out: R = await _afailed(guard, fn, args, kwargs, exc, ticket, scope)
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

    awrapper.guard = guard  # type: ignore[attr-defined]
    return awrapper


# -- the iterator form --------------------------------------------------------------------------


class AsyncAttempts:
    """The iterator of :meth:`Guard.aattempts`: ``async for attempt in guard.aattempts():``
    then ``async with attempt:`` (or ``with attempt:``) around the attempt's code.

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

    def __aiter__(self) -> AsyncAttempts:
        return self

    async def __anext__(self) -> Attempt:
        from surefoot.guard._io_async import aperform
        from surefoot.policy._attempts import Call, run

        if self._outcome is not None:
            raise StopAsyncIteration
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
                value = await aperform(op, g.clock)
            except BaseException as e:
                err = e
            op = self._step(value, err)
            if op is _ENDED:
                raise StopAsyncIteration
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
        :meth:`__anext__`), or :data:`_ENDED` (a success; a give-up raises here)."""
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

    async def _afinish(self, exc: BaseException | None) -> bool:
        """Send the attempt's outcome into the loop and carry it on up to the next wait or
        attempt: True to suppress a failure that will be retried."""
        from surefoot.guard._io_async import aperform

        clock = self._guard.clock
        op = self._step(None, exc)
        while op is not _PAUSE and op is not _ENDED:
            value: Any = None
            err: BaseException | None = None
            try:
                value = await aperform(op, clock)
            except BaseException as e:
                err = e
            op = self._step(value, err)
        return op is _PAUSE

    # unasync: async-only
    def _finish(self, exc: BaseException | None) -> bool:
        """:meth:`_afinish` for a plain ``with attempt:`` (the store's sync methods)."""
        from surefoot.guard import _io_sync

        clock = self._guard.clock
        op = self._step(None, exc)
        while op is not _PAUSE and op is not _ENDED:
            value: Any = None
            err: BaseException | None = None
            try:
                value = _io_sync.perform(op, clock)
            except BaseException as e:
                err = e
            op = self._step(value, err)
        return op is _PAUSE

    # unasync: end


class Attempt:
    """One attempt of an iterator form: use it as ``with attempt:`` (or, in
    :meth:`Guard.aattempts`, ``async with attempt:``). ``number`` is zero-based."""

    __slots__ = ("_armed", "_deadline", "_owner", "_token", "number")

    def __init__(self, owner: AsyncAttempts, number: int, deadline: float | None) -> None:
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
            # unasync: async-only
            self._armed = backend.arm(deadline, clock)
            # unasync: end

    def _close(self, exc: BaseException | None) -> BaseException | None:
        """Leave the deadline scope; the outcome to send into the loop."""
        token, self._token = self._token, None
        if token is not None:
            _dreset(token)
        # unasync: async-only
        armed, self._armed = self._armed, None
        if armed is not None:
            armed.disarm()
            if isinstance(exc, asyncio.CancelledError) and armed.expired():
                return DeadlineHit()
        # unasync: end
        return exc

    async def __aenter__(self) -> Attempt:
        self._open()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        return await self._owner._afinish(self._close(exc))

    # unasync: async-only
    def __enter__(self) -> Attempt:
        self._open()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        return self._owner._finish(self._close(exc))

    # unasync: end
