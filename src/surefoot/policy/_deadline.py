"""Absolute deadlines that nest: the earliest one in force wins.

A deadline is an absolute reading of a :class:`~surefoot.clock.Clock`, kept in a context
variable so it follows the code across calls, threads started with ``contextvars.copy_context``
and asyncio tasks. :func:`deadline` converts a relative timeout on entry (trio's rule); nested
scopes can only shorten it. Any code asks :func:`time_left` how long it has, e.g. to set a socket
timeout.

``deadline()`` itself cancels nothing: it publishes the deadline. Guarded calls inside it
(:class:`surefoot.Guard`, :func:`surefoot.resilient`) enforce it, raising
:class:`surefoot.RunTimeoutError`. Nested deadlines are compared as numbers, so every scope of
one nest must use the same clock (the default system clock unless you inject one).
"""

from __future__ import annotations

import math
from contextvars import ContextVar, Token
from types import TracebackType

from surefoot.clock import SYSTEM_CLOCK, Clock

__all__ = ["current_deadline", "deadline", "time_left"]

#: ``(absolute deadline, clock)`` of the innermost scope, or ``None``.
DEADLINE: ContextVar[tuple[float, Clock] | None] = ContextVar("surefoot_deadline", default=None)


def current_deadline() -> float | None:
    """The absolute deadline in force (on its clock's :meth:`~Clock.now` scale), or ``None``."""
    scope = DEADLINE.get()
    return None if scope is None else scope[0]


def time_left() -> float | None:
    """Seconds left before the deadline in force (never negative), or ``None`` without one."""
    scope = DEADLINE.get()
    if scope is None:
        return None
    left = scope[0] - scope[1].now()
    return left if left > 0.0 else 0.0


def enter(when: float, clock: Clock) -> tuple[float, Token[tuple[float, Clock] | None]]:
    """Publish the absolute deadline ``when`` (or an earlier one already in force).

    Returns the effective deadline and the token to pass to ``DEADLINE.reset``.
    """
    outer = DEADLINE.get()
    if outer is not None and outer[0] <= when:
        return outer[0], DEADLINE.set(outer)
    return when, DEADLINE.set((when, clock))


class deadline:
    """``with deadline(seconds):`` / ``async with deadline(seconds):`` bound the code inside.

    ``seconds=None`` opens no new deadline (an outer one still applies). ``clock`` defaults to
    the system clock. Re-entering the same object is not supported; make a new one.
    """

    __slots__ = ("_clock", "_seconds", "_token", "when")

    def __init__(self, seconds: float | None, *, clock: Clock | None = None) -> None:
        if seconds is not None:
            if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
                raise ValueError(f"seconds must be a number or None, got {type(seconds).__name__}")
            if math.isnan(seconds) or seconds < 0:
                raise ValueError(f"seconds must be >= 0 (or None for no deadline), got {seconds!r}")
        self._seconds = seconds
        self._clock = clock if clock is not None else SYSTEM_CLOCK
        self._token: Token[tuple[float, Clock] | None] | None = None
        #: The effective absolute deadline once entered (``None``: none in force).
        self.when: float | None = None

    def __enter__(self) -> deadline:
        if self._token is not None:
            raise RuntimeError("this deadline scope is already entered; create a new one")
        if self._seconds is None or math.isinf(self._seconds):
            self.when = current_deadline()
            self._token = DEADLINE.set(DEADLINE.get())
        else:
            self.when, self._token = enter(self._clock.now() + self._seconds, self._clock)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        token, self._token = self._token, None
        if token is not None:
            DEADLINE.reset(token)

    async def __aenter__(self) -> deadline:
        return self.__enter__()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.__exit__(exc_type, exc, tb)

    def time_left(self) -> float | None:
        """Seconds left before this scope's effective deadline, or ``None``."""
        if self.when is None:
            return None
        left = self.when - self._clock.now()
        return left if left > 0.0 else 0.0
