"""One deadline scope for every driver: absolute deadlines that nest, the earliest one wins.

A deadline is an absolute reading of a :class:`~surefoot.clock.Clock`, kept in a context
variable so it follows the code across calls, threads started with ``contextvars.copy_context``
and asyncio tasks. A relative timeout becomes absolute on entry (trio's rule), and a nested
scope can only shorten the deadline in force: "now + timeout, take the earliest" is computed
here and nowhere else (:func:`enter`, :func:`effective`), and read by every driver:
``surefoot.deadline()``, :class:`surefoot.Guard` (``timeout=``, nested guards),
``LLMClient(timeout=)`` and ``run(timeout=)``, agent actions and chats. Any code asks
:func:`time_left` how long it has, e.g. to set a socket timeout; the LLM client's transports
get exactly that.

``deadline()`` itself cancels nothing: it publishes the deadline. The drivers inside it enforce
it, raising :class:`surefoot.RunTimeoutError`. Nested deadlines are compared as numbers, so
every scope of one nest must use the same clock (the default system clock unless you inject
one).
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from types import TracebackType

from surefoot import _check
from surefoot.clock import SYSTEM_CLOCK, Clock

__all__ = [
    "DEADLINE",
    "Deadline",
    "current_deadline",
    "deadline",
    "effective",
    "enter",
    "publish",
    "time_left",
]

#: ``(absolute deadline, clock)`` of the innermost scope, or ``None``.
DEADLINE: ContextVar[tuple[float, Clock] | None] = ContextVar("surefoot_deadline", default=None)

_get, _set = DEADLINE.get, DEADLINE.set


def current_deadline() -> float | None:
    """The absolute deadline in force (on its clock's :meth:`~Clock.now` scale), or ``None``."""
    scope = _get()
    return None if scope is None else scope[0]


def time_left() -> float | None:
    """Seconds left before the deadline in force (never negative), or ``None`` without one."""
    scope = _get()
    if scope is None:
        return None
    left = scope[0] - scope[1].now()
    return left if left > 0.0 else 0.0


def effective(timeout: float | None, clock: Clock) -> float | None:
    """The absolute deadline of a scope of ``timeout`` seconds opened now on ``clock``: the
    earlier of ``now + timeout`` and the deadline in force (``None``: neither)."""
    outer = _get()
    if timeout is None:
        return None if outer is None else outer[0]
    when = clock.now() + timeout
    return when if outer is None or when < outer[0] else outer[0]


def enter(
    timeout: float | None, clock: Clock
) -> tuple[float | None, Token[tuple[float, Clock] | None] | None]:
    """Open a scope of ``timeout`` seconds: ``(effective deadline, token)``.

    The token is ``None`` when the scope changed nothing (no timeout, or an earlier deadline
    already in force); otherwise pass it to ``DEADLINE.reset`` on leaving.
    """
    when = effective(timeout, clock)
    return when, publish(when, clock)


def publish(when: float | None, clock: Clock) -> Token[tuple[float, Clock] | None] | None:
    """Publish an absolute deadline computed by :func:`effective` (``None``: nothing to do)."""
    if when is None:
        return None
    outer = _get()
    if outer is not None and outer[0] <= when:
        return None
    return _set((when, clock))


class Deadline:
    """The scope :func:`deadline` returns: ``with`` or ``async with`` it; ``when`` is its
    effective absolute deadline once entered (``None``: none in force)."""

    __slots__ = ("_clock", "_entered", "_seconds", "_token", "when")

    def __init__(self, seconds: float | None, *, clock: Clock | None = None) -> None:
        limit = _check.timeout("seconds", seconds, zero=True, what="a number of seconds >= 0")
        _check.clock("clock", clock)
        self._seconds = limit
        self._clock = clock if clock is not None else SYSTEM_CLOCK
        self._token: Token[tuple[float, Clock] | None] | None = None
        self._entered = False
        self.when: float | None = None

    def __repr__(self) -> str:
        return f"surefoot.deadline({self._seconds!r}, when={self.when!r})"

    def __enter__(self) -> Deadline:
        if self._entered:
            raise RuntimeError("this deadline scope is already entered; create a new one")
        self._entered = True
        self.when, self._token = enter(self._seconds, self._clock)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        token, self._token = self._token, None
        self._entered = False
        if token is not None:
            DEADLINE.reset(token)

    async def __aenter__(self) -> Deadline:
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


def deadline(seconds: float | None, *, clock: Clock | None = None) -> Deadline:
    """``with deadline(seconds):`` / ``async with deadline(seconds):`` bound the code inside.

    ``seconds=None`` (or ``math.inf``) opens no new deadline (an outer one still applies).
    ``clock`` defaults to the system clock. Re-entering the same scope is not supported while
    it is entered; make a new one.
    """
    return Deadline(seconds, clock=clock)
