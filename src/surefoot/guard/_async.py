"""The async driver: :meth:`Guard.acall` and its recorded loop.

Each attempt is bounded by the time left before the deadline without paying for a timer per
call: on the system clock one timer per event loop serves every scope (:class:`_LoopWatch`);
on another clock (such as :class:`surefoot.testing.FakeClock`) each scope arms its own timer
with ``clock.call_later``. When the deadline passes the task is cancelled; the cancellation is
told apart from the caller's own exactly as :func:`asyncio.timeout` does it (``Task.uncancel``),
and becomes :class:`surefoot.RunTimeoutError`. A caller's cancellation passes through unchanged.
"""

from __future__ import annotations

import asyncio
import math
import time
import weakref
from _thread import get_ident as _get_ident
from asyncio import current_task as _current_task
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from surefoot.clock import SystemClock
from surefoot.errors import CircuitOpenError
from surefoot.guard._records import RunRecord
from surefoot.guard._run import DeadlineExpired, Run
from surefoot.policy._classifier import CANCELLATION
from surefoot.policy._deadline import DEADLINE

if TYPE_CHECKING:
    from surefoot.clock import Clock
    from surefoot.guard._core import Guard

__all__ = ["Watchdog", "acall", "acall_with_record", "arm"]

_monotonic = time.monotonic

P = ParamSpec("P")
R = TypeVar("R")


class Watchdog:
    """Cancels the current task at an absolute deadline of a non-system ``clock`` (one timer
    per scope, on ``clock.call_later`` when the clock has it, else on the loop)."""

    __slots__ = ("_cancelling", "_handle", "_task", "fired")

    def __init__(self, when: float, clock: Clock) -> None:
        task = asyncio.current_task()
        if task is None:  # pragma: no cover - always inside a task under asyncio
            raise RuntimeError("a surefoot deadline needs to run inside an asyncio task")
        self._task = task
        self._cancelling = task.cancelling()
        self.fired = False
        delay = when - clock.now()
        later = getattr(clock, "call_later", None)
        if later is None:
            self._handle: Any = asyncio.get_running_loop().call_later(delay, self._fire)
        else:
            self._handle = later(delay, self._fire)

    def _fire(self) -> None:
        if not self._task.done():
            self.fired = True
            self._task.cancel("surefoot: the run's deadline elapsed")

    def disarm(self) -> None:
        self._handle.cancel()

    def expired(self) -> bool:
        """After a ``CancelledError``: True when it was this watchdog's (then swallowed)."""
        return self.fired and self._task.uncancel() <= self._cancelling


class _LoopWatch:
    """One timer per event loop for every system-clock deadline scope on it.

    ``active`` maps each task to its innermost deadline (an outer one is restored on leaving);
    entering a scope costs two dict operations, and the timer is re-armed only when a deadline
    is earlier than the armed one. When it fires it cancels the tasks whose deadline has passed
    and re-arms for the earliest remaining one.
    """

    __slots__ = ("active", "armed_at", "fired", "handle", "loop")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.active: dict[asyncio.Task[Any], float] = {}
        self.fired: set[asyncio.Task[Any]] = set()
        self.handle: asyncio.TimerHandle | None = None
        self.armed_at = math.inf

    def arm(self, when: float) -> None:
        if self.handle is not None:
            self.handle.cancel()
        self.armed_at = when
        loop = self.loop
        self.handle = loop.call_at(loop.time() + (when - _monotonic()), self.fire)

    def fire(self) -> None:
        self.handle = None
        self.armed_at = math.inf
        now = _monotonic()
        nxt = math.inf
        for task, when in list(self.active.items()):
            if when <= now:
                if task not in self.fired and not task.done():
                    self.fired.add(task)
                    task.cancel("surefoot: the run's deadline elapsed")
            elif when < nxt:
                nxt = when
        if nxt < math.inf:
            self.arm(nxt)

    def leave(self, task: asyncio.Task[Any], prev: float | None) -> None:
        if prev is None:
            self.active.pop(task, None)
        else:
            self.active[task] = prev
            if prev < self.armed_at:
                self.arm(prev)

    def expired(self, task: asyncio.Task[Any], baseline: int) -> bool:
        fired = self.fired
        if task not in fired:
            return False
        fired.discard(task)
        return task.uncancel() <= baseline


class _Scope:
    """A system-clock deadline scope as an object (for the iterator forms)."""

    __slots__ = ("baseline", "prev", "task", "watch")

    def __init__(self, watch: _LoopWatch, task: asyncio.Task[Any], when: float) -> None:
        self.watch = watch
        self.task = task
        self.baseline = task.cancelling()
        self.prev = watch.active.get(task)
        watch.active[task] = when
        if when < watch.armed_at:
            watch.arm(when)

    def disarm(self) -> None:
        self.watch.leave(self.task, self.prev)

    def expired(self) -> bool:
        return self.watch.expired(self.task, self.baseline)


_watches: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopWatch] = (
    weakref.WeakKeyDictionary()
)
_last: tuple[object, _LoopWatch] = (None, _LoopWatch.__new__(_LoopWatch))


_current_tasks: dict[Any, asyncio.Task[Any]] = getattr(asyncio.tasks, "_current_tasks", {})
_thread_loop: dict[int, Any] = {}


def current_task_fast() -> tuple[asyncio.AbstractEventLoop, asyncio.Task[Any]]:
    """``(running loop, current task)``, several times cheaper than :func:`asyncio.current_task`
    on CPython 3.11 (whose ``get_running_loop`` dominates): the loop is cached per thread and
    checked against the loop's own record of the thread running it."""
    tid = _get_ident()
    loop = _thread_loop.get(tid)
    if loop is None or getattr(loop, "_thread_id", None) != tid:
        loop = asyncio.get_running_loop()
        _thread_loop[tid] = loop
    task = _current_tasks.get(loop)
    if task is None:
        task = _current_task()
        if task is None:
            raise RuntimeError("a surefoot deadline needs to run inside an asyncio task")
    return loop, task


def _watch_for(loop: asyncio.AbstractEventLoop) -> _LoopWatch:
    global _last
    watch = _watches.get(loop)
    if watch is None:
        watch = _watches[loop] = _LoopWatch(loop)
    _last = (loop, watch)
    return watch


def arm(when: float, clock: Clock) -> _Scope | Watchdog:
    """Bound the current task by the absolute deadline ``when``; call ``disarm()`` after, and
    ``expired()`` on a ``CancelledError`` to tell the deadline from the caller's cancel."""
    if type(clock) is not SystemClock:
        return Watchdog(when, clock)
    loop, task = current_task_fast()
    watch = _last[1] if _last[0] is loop else _watch_for(loop)
    return _Scope(watch, task, when)


async def acall(
    self: Guard, fn: Callable[P, Awaitable[R]], /, *args: P.args, **kwargs: P.kwargs
) -> R:
    """``await fn(*args, **kwargs)`` under the guard; each attempt is cut off at the deadline
    (raising :class:`surefoot.RunTimeoutError`). A breaker on a store with an asyncio client
    (Redis) is admitted and told the outcome through it, never blocking the event loop."""
    if self._arecorded:
        return (await _arun(self, fn, args, kwargs))[0]
    token = None
    scope = DEADLINE.get()
    if self.timeout is not None:
        when = self._now() + self.timeout
        if scope is None or when < scope[0]:
            scope = (when, self.clock)
            token = DEADLINE.set(scope)
    try:
        view = self._view
        if view is not None:
            ticket = view.ticket
            if ticket < 0:
                ticket = self._admit()  # type: ignore[misc]
        elif self._admit is not None:
            ticket = self._admit()
        else:
            ticket = -1
        try:
            if scope is None:
                result = await fn(*args, **kwargs)
            elif type(self.clock) is SystemClock:
                # Inline system-clock scope: see _LoopWatch (no allocation, no timer per call).
                loop, task = current_task_fast()
                watch = _last[1] if _last[0] is loop else _watch_for(loop)
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
                        raise DeadlineExpired() from None
                    raise
                finally:
                    watch.leave(task, prev)
            else:
                guard = arm(scope[0], self.clock)
                try:
                    result = await fn(*args, **kwargs)
                except asyncio.CancelledError:
                    if guard.expired():
                        raise DeadlineExpired() from None
                    raise
                finally:
                    guard.disarm()
        except CANCELLATION:
            if ticket >= 0:
                Run(self, None).release(ticket)
            raise
        except BaseException as exc:
            return (await _arun(self, fn, args, kwargs, exc, ticket))[0]
        if ticket >= 0 and (view is None or ticket != view.ticket or view.failures):
            self._record_breaker(ticket, None)  # type: ignore[misc]
        if self._budget_ok is not None:
            self._budget_ok(self.budget_key)
        return result
    finally:
        if token is not None:
            DEADLINE.reset(token)


async def acall_with_record(
    self: Guard, fn: Callable[P, Awaitable[R]], /, *args: P.args, **kwargs: P.kwargs
) -> tuple[R, RunRecord]:
    """Like :meth:`Guard.acall`, and also the :class:`RunRecord` of every attempt."""
    return await _arun(self, fn, args, kwargs)


async def _arun(
    self: Guard,
    fn: Callable[..., Awaitable[R]],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    exc: BaseException | None = None,
    ticket: int = -1,
) -> tuple[R, RunRecord]:
    token = None
    scope = DEADLINE.get()
    if exc is None and self.timeout is not None:
        when = self._now() + self.timeout
        if scope is None or when < scope[0]:
            scope = (when, self.clock)
            token = DEADLINE.set(scope)
    run = Run(self, None if scope is None else scope[0])
    clock = self.clock
    astore = self._astore  # the breaker's store has an asyncio client: await every round trip
    try:
        while True:
            if exc is not None:
                try:
                    delay = await run.afailed(exc, ticket) if astore else run.failed(exc, ticket)
                finally:
                    exc = None
                if delay > 0:
                    await clock.asleep(delay)
                run.before_attempt()
            run.started = clock.now()
            try:
                ticket = await run.aadmit() if astore else run.admit()
            except CircuitOpenError as rej:
                run.rejected(rej)
            try:
                if scope is None:
                    result = await fn(*args, **kwargs)
                else:
                    guard = arm(scope[0], clock)
                    try:
                        result = await fn(*args, **kwargs)
                    except asyncio.CancelledError:
                        if guard.expired():
                            raise DeadlineExpired() from None
                        raise
                    finally:
                        guard.disarm()
            except CANCELLATION:
                if astore:
                    await run.arelease(ticket)
                else:
                    run.release(ticket)
                raise
            except BaseException as e:
                exc = e
                continue
            if astore:
                await run.asucceeded(ticket)
            else:
                run.succeeded(ticket)
            return result, run.record("success")
    finally:
        if token is not None:
            DEADLINE.reset(token)
