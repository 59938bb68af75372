"""The I/O requests the pure run flow yields to its driver (sync or async).

The flow (:mod:`surefoot.llm._loop`, :mod:`surefoot.llm._call`) is a generator: it yields one of
the ops below, or one of the engine's ops (:mod:`surefoot.policy._attempts`: ``Now``, ``Sleep``,
``Admit``, ``Report``, ``Release``, ``Spend``, ``Refill``, ``Notify``, carried out by
:func:`surefoot.guard._io_async.aperform`); the driver carries it out and sends back the answer
(or throws the exception the I/O raised into the generator). This is how httpx shares its auth
flows between its two clients: one flow, two small drivers, no duplicated logic.

=============  =====================================  ===========================================
op             driver does                            sends back
=============  =====================================  ===========================================
``Post``       one POST through the transport          :class:`surefoot.http.Response`
``Open``       opens a streaming POST                  ``(status, headers)``; keeps the stream
``Read``       reads the next chunk of that stream     ``bytes`` (``b""`` at its end)
``ReadAll``    reads the rest of it (bounded)          ``bytes``
``Close``      closes it                               ``None``
``RunTools``   runs tool functions (concurrently)      a list: each result or the raised exception
``Emit``       hands an event to the stream's caller   ``None``
``Throttle``   waits for the shared rate limiter's     ``None`` (raises its ``RateLimitError`` when
               slot, bounded by ``timeout``           no slot comes in time)
``Observe``    feeds response headers to the limiter   ``None`` (a failure is logged, not raised)
=============  =====================================  ===========================================

``timeout`` on an op is the time left before the run's deadline (``None``: no deadline). The
async driver wraps the op in ``asyncio.timeout(timeout)`` and, when that fires, throws
:class:`~surefoot.policy._attempts.DeadlineHit` into the flow; the sync driver hands it to the
transport's timeouts (connect and per read, never longer than the time left).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from surefoot.llm._messages import ToolCall
from surefoot.policy._attempts import DeadlineHit

if TYPE_CHECKING:
    from surefoot.guard._limiter import SharedRateLimiter

__all__ = [
    "CLOSE",
    "Close",
    "DeadlineHit",
    "Emit",
    "Observe",
    "Open",
    "Post",
    "Read",
    "ReadAll",
    "RunTools",
    "Throttle",
    "ToolJob",
]


class Post:
    """One POST of ``body`` to ``url``: ``timeout`` is the time left before the run's deadline
    (its expiry is the deadline's), ``read`` the longest silence of one read when shorter than
    the client's ``read_timeout`` (its expiry is a timeout of this attempt), else ``None``."""

    __slots__ = ("body", "headers", "read", "timeout", "url")

    def __init__(
        self,
        url: str,
        headers: Mapping[str, str],
        body: bytes,
        timeout: float | None,
        read: float | None = None,
    ) -> None:
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.read = read


class Open(Post):
    """A streaming request (a POST, or with ``method="GET"`` a resume that sends no body):
    answered by ``(status, headers)``."""

    __slots__ = ("method",)

    def __init__(
        self,
        url: str,
        headers: Mapping[str, str],
        body: bytes,
        timeout: float | None,
        read: float | None = None,
        method: str = "POST",
    ) -> None:
        super().__init__(url, headers, body, timeout, read)
        self.method = method


class Read:
    __slots__ = ("timeout",)

    def __init__(self, timeout: float | None) -> None:
        self.timeout = timeout


class ReadAll(Read):
    __slots__ = ()


class Close:
    __slots__ = ()


class ToolJob:
    """One tool call to run: the function and its checked arguments."""

    __slots__ = ("arguments", "call", "fn")

    def __init__(self, call: ToolCall, fn: Callable[..., Any], arguments: dict[str, Any]) -> None:
        self.call = call
        self.fn = fn
        self.arguments = arguments


class RunTools:
    __slots__ = ("jobs", "timeout")

    def __init__(self, jobs: list[ToolJob], timeout: float | None) -> None:
        self.jobs = jobs
        self.timeout = timeout


class Emit:
    __slots__ = ("event",)

    def __init__(self, event: object) -> None:
        self.event = event


class Throttle:
    """Wait for a slot of ``limiter`` (``tokens`` estimated), at most ``timeout`` seconds."""

    __slots__ = ("limiter", "timeout", "tokens")

    def __init__(self, limiter: SharedRateLimiter, tokens: float, timeout: float | None) -> None:
        self.limiter = limiter
        self.tokens = tokens
        self.timeout = timeout


class Observe:
    """Feed one response's ``headers`` to the client's rate limiter."""

    __slots__ = ("headers",)

    def __init__(self, headers: Mapping[str, str]) -> None:
        self.headers = headers


CLOSE = Close()
