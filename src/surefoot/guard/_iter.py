"""Iterator forms for code that is not a single call (tenacity style).

::

    for attempt in guard.attempts():
        with attempt:
            ...

    async for attempt in guard.aattempts():
        with attempt:
            ...

A failure inside ``with attempt:`` is swallowed when the policy retries it (the iterator then
waits and yields the next attempt) and raised from the ``with`` when the run gives up. A success
ends the loop. ``.record`` on the iterator is the :class:`RunRecord` so far.
"""

from __future__ import annotations

import asyncio
from contextvars import Token
from types import TracebackType
from typing import TYPE_CHECKING, Literal

from surefoot.clock import Clock
from surefoot.errors import CircuitOpenError, RunTimeoutError
from surefoot.guard._async import Watchdog, _Scope, arm
from surefoot.guard._records import RunRecord
from surefoot.guard._run import Run
from surefoot.policy._classifier import CANCELLATION
from surefoot.policy._deadline import DEADLINE

if TYPE_CHECKING:
    from surefoot.guard._core import Guard

__all__ = ["Attempt", "AsyncAttempts", "SyncAttempts"]

_Outcome = Literal["success", "failure", "timeout", "rejected"]


class _Attempts:
    def __init__(self, guard: Guard) -> None:
        self._guard = guard
        self._run: Run | None = None
        self._delay: float | None = None  # set by a retried failure, consumed by next()
        self._outcome: _Outcome | None = None

    @property
    def record(self) -> RunRecord:
        run = self._run
        return RunRecord(() if run is None else tuple(run.records), self._outcome or "failure")

    def _start(self) -> Run:
        g = self._guard
        scope = DEADLINE.get()
        when = None if scope is None else scope[0]
        if g.timeout is not None:
            mine = g.clock.now() + g.timeout
            if when is None or mine < when:
                when = mine
        self._run = Run(g, when)
        return self._run

    def _next_delay(self) -> float | None:
        """``None`` to stop; otherwise the wait before the next attempt."""
        if self._outcome is not None:
            return None
        if self._run is None:
            self._start()
            return 0.0
        if self._delay is None:
            raise RuntimeError("each attempt must be used as `with attempt:` before the next one")
        delay, self._delay = self._delay, None
        return delay


class Attempt:
    """One attempt: use it as ``with attempt:``. ``number`` is zero-based."""

    __slots__ = ("_is_async", "_owner", "_run", "_ticket", "_token", "_watch", "number")

    def __init__(self, owner: _Attempts, run: Run, is_async: bool) -> None:
        self._owner = owner
        self._run = run
        self.number = run.attempt
        self._ticket = -1
        self._token: Token[tuple[float, Clock] | None] | None = None
        self._is_async = is_async
        self._watch: Watchdog | _Scope | None = None

    def __enter__(self) -> Attempt:
        run, g = self._run, self._run.guard
        if run.deadline is not None:
            self._token = DEADLINE.set((run.deadline, g.clock))
        run.started = g.clock.now()
        try:
            self._ticket = run.admit()
        except CircuitOpenError as rej:
            self._close()
            self._owner._outcome = "rejected"
            run.rejected(rej)
        if self._is_async and run.deadline is not None:
            self._watch = arm(run.deadline, g.clock)
        return self

    def _close(self) -> None:
        if self._token is not None:
            DEADLINE.reset(self._token)
            self._token = None

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        self._close()
        run, owner = self._run, self._owner
        watch, self._watch = self._watch, None
        if watch is not None:
            watch.disarm()
        if exc is None:
            run.succeeded(self._ticket)
            owner._outcome = "success"
            return False
        if isinstance(exc, asyncio.CancelledError) and watch is not None and watch.expired():
            run.release(self._ticket)
            owner._outcome = "timeout"
            run.timeout()
        if isinstance(exc, CANCELLATION):
            run.release(self._ticket)
            owner._outcome = "failure"
            return False
        try:
            owner._delay = run.failed(exc, self._ticket)
        except RunTimeoutError:
            owner._outcome = "timeout"
            raise
        except BaseException:
            owner._outcome = "failure"
            raise
        return True


class SyncAttempts(_Attempts):
    """The iterator returned by :meth:`Guard.attempts`."""

    def __iter__(self) -> SyncAttempts:
        return self

    def __next__(self) -> Attempt:
        delay = self._next_delay()
        if delay is None:
            raise StopIteration
        run = self._run
        assert run is not None
        if delay > 0:
            self._guard.clock.sleep(delay)
        if run.attempt > 0:
            self._check(run)
        return Attempt(self, run, is_async=False)

    def _check(self, run: Run) -> None:
        try:
            run.before_attempt()
        except RunTimeoutError:
            self._outcome = "timeout"
            raise


class AsyncAttempts(_Attempts):
    """The async iterator returned by :meth:`Guard.aattempts`."""

    def __aiter__(self) -> AsyncAttempts:
        return self

    async def __anext__(self) -> Attempt:
        delay = self._next_delay()
        if delay is None:
            raise StopAsyncIteration
        run = self._run
        assert run is not None
        if delay > 0:
            await self._guard.clock.asleep(delay)
        if run.attempt > 0:
            try:
                run.before_attempt()
            except RunTimeoutError:
                self._outcome = "timeout"
                raise
        return Attempt(self, run, is_async=True)
