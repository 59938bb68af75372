"""The async backend (see :mod:`surefoot._backends`): deadlines that cancel, tools in tasks.

An attempt bounded by a deadline is cancelled when the deadline passes, without paying for a
timer per call: on the system clock one timer per event loop serves every scope
(:class:`LoopWatch`); on another clock (such as :class:`surefoot.testing.FakeClock`) each scope
arms its own timer with ``clock.call_later`` (:class:`Watchdog`). The deadline's cancellation is
told apart from the caller's own exactly as :func:`asyncio.timeout` does it (``Task.uncancel``);
the drivers turn it into :class:`surefoot.RunTimeoutError`, and a caller's cancellation passes
through unchanged.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import math
import time
import weakref
from _thread import get_ident as _get_ident
from asyncio import current_task as _current_task
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from surefoot.clock import SystemClock

if TYPE_CHECKING:
    from surefoot.clock import Clock

__all__ = [
    "LoopWatch",
    "Watchdog",
    "arm",
    "call_blocking",
    "current_task_fast",
    "resolve",
    "run_tools",
    "watch_for",
]

_monotonic = time.monotonic


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


class LoopWatch:
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
    """A system-clock deadline scope as an object (for :func:`arm`)."""

    __slots__ = ("baseline", "prev", "task", "watch")

    def __init__(self, watch: LoopWatch, task: asyncio.Task[Any], when: float) -> None:
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


_watches: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LoopWatch] = (
    weakref.WeakKeyDictionary()
)
#: The last ``(loop, watch)`` looked up: the drivers' fast path checks it first.
last: tuple[object, LoopWatch] = (None, LoopWatch.__new__(LoopWatch))

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


def watch_for(loop: asyncio.AbstractEventLoop) -> LoopWatch:
    """The :class:`LoopWatch` of ``loop`` (made on first use)."""
    global last
    watch = _watches.get(loop)
    if watch is None:
        watch = _watches[loop] = LoopWatch(loop)
    last = (loop, watch)
    return watch


def arm(when: float, clock: Clock) -> _Scope | Watchdog:
    """Bound the current task by the absolute deadline ``when``; call ``disarm()`` after, and
    ``expired()`` on a ``CancelledError`` to tell the deadline from the caller's cancel."""
    if type(clock) is not SystemClock:
        return Watchdog(when, clock)
    loop, task = current_task_fast()
    watch = last[1] if last[0] is loop else watch_for(loop)
    return _Scope(watch, task, when)


async def resolve(value: Any, what: str) -> Any:
    """``value``, awaited when it is awaitable (``what`` returned it)."""
    if inspect.isawaitable(value):
        return await value
    return value


async def call_blocking(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in a worker thread (it may block); an awaitable it returns is awaited."""
    return await resolve(await asyncio.to_thread(fn, *args), "a function")


async def _one_tool(fn: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    try:
        if inspect.iscoroutinefunction(fn):
            return await fn(**kwargs)
        return await call_blocking(functools.partial(fn, **kwargs))
    except Exception as exc:  # the flow turns it into a tool error message
        return exc


async def run_tools(calls: list[tuple[Callable[..., Any], dict[str, Any]]]) -> list[Any]:
    """Each call's result or raised exception: coroutine functions awaited, plain functions in
    the default thread pool (so they do not block the loop), concurrently."""
    if len(calls) == 1:
        fn, kwargs = calls[0]
        return [await _one_tool(fn, kwargs)]
    return list(await asyncio.gather(*(_one_tool(fn, kw) for fn, kw in calls)))
