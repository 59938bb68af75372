"""A fake clock for tests: virtual time that never really sleeps.

Semantics, exactly:

- :meth:`FakeClock.now` returns the virtual time (``start``, 0.0 by default).
- :meth:`FakeClock.sleep` (sync) advances virtual time by the requested seconds at once, firing
  every timer that falls due on the way, in order.
- :meth:`FakeClock.advance` does the same from the test's side.
- :meth:`FakeClock.asleep` suspends the task until virtual time reaches its wake time. With
  ``autojump=True`` (the default) the clock jumps by itself: when the event loop has nothing else
  ready to run (its ready queue is empty) while some task waits on the clock, virtual time jumps
  to the earliest wake time and that waiter (and any due at the same instant) is woken; repeat.
  As in trio's ``MockClock(autojump_threshold=0)``, a task blocked on real I/O counts as idle, so
  virtual time may jump while it waits. With ``autojump_threshold > 0`` the clock first lets
  that many *real* seconds pass with a waiter pending before it jumps. With ``autojump=False``
  only :meth:`advance` (or a sync :meth:`sleep`) moves time.
- :meth:`FakeClock.call_later` runs a callback when virtual time reaches ``now + delay``; created
  inside a running event loop the callback runs on that loop (thread-safe), otherwise in the
  thread that advances the clock. surefoot's async drivers use it for deadlines.
- :attr:`FakeClock.sleeps` lists every requested sleep (sync and async), for assertions.

Thread-safe: ``advance`` and ``sleep`` may be called from any thread.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import math
import threading
from collections.abc import Callable

__all__ = ["FakeClock", "FakeTimer"]


class FakeTimer:
    """A pending :meth:`FakeClock.call_later` callback; :meth:`cancel` it to drop it."""

    __slots__ = ("callback", "cancelled", "loop", "when")

    def __init__(
        self, when: float, callback: Callable[[], object], loop: asyncio.AbstractEventLoop | None
    ) -> None:
        self.when = when
        self.callback = callback
        self.loop = loop
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


def _check(name: str, seconds: float) -> float:
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise ValueError(f"{name} must be a number of seconds, got {type(seconds).__name__}")
    if math.isnan(seconds):
        raise ValueError(f"{name} must not be NaN")
    return float(seconds)


class FakeClock:
    """Virtual monotonic time for sync and async tests; see the module docstring."""

    def __init__(
        self, start: float = 0.0, *, autojump: bool = True, autojump_threshold: float = 0.0
    ) -> None:
        self._now = _check("start", start)
        self.autojump = autojump
        self.autojump_threshold = max(0.0, _check("autojump_threshold", autojump_threshold))
        self._lock = threading.RLock()
        self._timers: list[tuple[float, int, FakeTimer]] = []
        self._seq = itertools.count()
        self._checking: set[asyncio.AbstractEventLoop] = set()
        #: Every sleep requested through this clock, in order (seconds, as requested).
        self.sleeps: list[float] = []

    def __repr__(self) -> str:
        return f"FakeClock(now={self._now:g}, pending={len(self._timers)})"

    def now(self) -> float:
        return self._now

    # -- moving time --------------------------------------------------------------------------

    def advance(self, seconds: float) -> None:
        """Move virtual time forward by ``seconds`` (>= 0), firing due timers in order."""
        seconds = _check("seconds", seconds)
        if seconds < 0:
            raise ValueError(f"seconds must be >= 0, virtual time never goes back; got {seconds}")
        with self._lock:
            target = self._now + seconds
        while True:
            with self._lock:
                if not self._timers or self._timers[0][0] > target:
                    self._now = max(self._now, target)
                    return
                when, _, timer = heapq.heappop(self._timers)
                if timer.cancelled:
                    continue
                self._now = max(self._now, when)
            self._fire(timer)

    def sleep(self, seconds: float) -> None:
        """Sync sleep: advances virtual time at once (non-positive values do nothing)."""
        seconds = _check("seconds", seconds)
        self.sleeps.append(seconds)
        if seconds > 0:
            self.advance(seconds)

    @staticmethod
    def _fire(timer: FakeTimer) -> None:
        if timer.loop is None:
            timer.callback()
        elif not timer.loop.is_closed():
            timer.loop.call_soon_threadsafe(timer.callback)

    def call_later(self, delay: float, callback: Callable[[], object]) -> FakeTimer:
        """Run ``callback`` once virtual time has advanced by ``delay``."""
        delay = max(0.0, _check("delay", delay))
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        with self._lock:
            timer = FakeTimer(self._now + delay, callback, loop)
            heapq.heappush(self._timers, (timer.when, next(self._seq), timer))
        if loop is not None:
            self._schedule_jump(loop)
        return timer

    # -- async --------------------------------------------------------------------------------

    async def asleep(self, seconds: float) -> None:
        """Suspend until virtual time reaches ``now + seconds`` (see autojump)."""
        seconds = _check("seconds", seconds)
        self.sleeps.append(seconds)
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not fut.done():
                fut.set_result(None)

        timer = self.call_later(seconds, wake)
        try:
            await fut
        finally:
            timer.cancel()

    def _schedule_jump(self, loop: asyncio.AbstractEventLoop) -> None:
        if not self.autojump:
            return
        with self._lock:
            if loop in self._checking:
                return
            self._checking.add(loop)
        if self.autojump_threshold > 0:
            loop.call_later(self.autojump_threshold, self._jump, loop)
        else:
            loop.call_soon(self._jump, loop)

    def _jump(self, loop: asyncio.AbstractEventLoop) -> None:
        ready = getattr(loop, "_ready", None)  # asyncio's ready queue; absent on other loops
        if ready and self.autojump_threshold == 0:
            loop.call_soon(self._jump, loop)  # something can still run: look again next turn
            return
        with self._lock:
            self._checking.discard(loop)
            while self._timers and self._timers[0][2].cancelled:
                heapq.heappop(self._timers)
            if not self._timers:
                return
            when = self._timers[0][0]
        self.advance(max(0.0, when - self._now))
        with self._lock:
            pending = any(not t.cancelled and t.loop is loop for _, _, t in self._timers)
        if pending:
            self._schedule_jump(loop)
