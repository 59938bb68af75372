"""Clocks: the :class:`Clock` protocol and :class:`SystemClock`, the one used by default.

Every duration surefoot measures comes from a clock's monotonic :meth:`Clock.now`, never from
wall-clock time, and every wait goes through the clock's :meth:`Clock.sleep` or
:meth:`Clock.asleep`, so tests inject :class:`surefoot.testing.FakeClock` and never really sleep.
"""

from __future__ import annotations

import time
from typing import Protocol, runtime_checkable

__all__ = ["SYSTEM_CLOCK", "Clock", "SystemClock"]


@runtime_checkable
class Clock(Protocol):
    """A monotonic time source with a sync and an async sleep."""

    def now(self) -> float:
        """Monotonic seconds; only differences between two readings mean anything."""
        ...

    def sleep(self, seconds: float) -> None:
        """Block the calling thread for ``seconds``."""
        ...

    async def asleep(self, seconds: float) -> None:
        """Suspend the calling task for ``seconds``."""
        ...


class SystemClock:
    """The real clock: :func:`time.monotonic`, :func:`time.sleep`, :func:`asyncio.sleep`."""

    __slots__ = ()

    # Bound at class level so ``clock.now`` costs one attribute lookup and one C call.
    now = staticmethod(time.monotonic)

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)

    async def asleep(self, seconds: float) -> None:
        import asyncio  # only async code gets here: `import surefoot` stays free of asyncio

        await asyncio.sleep(seconds if seconds > 0 else 0)

    def __repr__(self) -> str:
        return "SystemClock()"


#: The process-wide system clock, the default of every ``clock=`` parameter.
SYSTEM_CLOCK = SystemClock()
