"""Failures to reach a service or to observe its answer: messaging, connection, network, timeout."""

from __future__ import annotations

import builtins
from typing import Any

from surefoot.errors._base import SurefootError

__all__ = [
    "ConnectionFailedError",
    "MessagingError",
    "NetworkError",
    "RunTimeoutError",
    "TimeoutError",
]


class MessagingError(SurefootError):
    """Base class of transport failures: the outcome of the call was not observed."""

    default_retryable = True
    default_code = "SERVICE_UNAVAILABLE"
    default_kind = "network"


class ConnectionFailedError(MessagingError):
    """A request or stream failed before its outcome was observed, or a service answered 5xx.

    This reports a failure to observe an outcome, not proof that the remote work failed: keep
    ``context.task_id`` and ``context.last_event_id`` to resume or report it.
    """


class NetworkError(ConnectionFailedError):
    """The connection itself failed: refused, reset, DNS failure, TLS failure."""

    def __init__(
        self, message: str = "", *, host: str | None = None, port: int | None = None, **kwargs: Any
    ) -> None:
        super().__init__(message, **kwargs)
        self.host = host
        self.port = port

    def _detail_fields(self) -> list[tuple[str, object]]:
        return [("host", self.host), ("port", self.port)]


class TimeoutError(SurefootError, builtins.TimeoutError):  # noqa: A001
    """An operation took longer than its timeout. Also a :class:`builtins.TimeoutError`.

    ``timeout`` is the limit in seconds, ``operation`` what timed out.
    """

    default_retryable = True
    default_code = "SERVICE_UNAVAILABLE"
    default_kind = "timeout"

    def __init__(
        self,
        message: str = "",
        *,
        timeout: float | None = None,
        operation: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(message, **kwargs)
        self.timeout = timeout
        self.operation = operation if operation is not None else self.context.operation

    def __str__(self) -> str:  # builtins.TimeoutError would otherwise format errno/strerror
        return SurefootError.__str__(self)

    def _detail_fields(self) -> list[tuple[str, object]]:
        t = None if self.timeout is None else f"{self.timeout:g}s"
        return [("timeout", t)]


class RunTimeoutError(TimeoutError):
    """The whole-run deadline elapsed. Never raised for the caller's own cancellation.

    Not retryable: the deadline that bounded the run is spent. Start again with a later one.
    """

    default_retryable = False
    default_code = "TASK_DEADLINE_EXCEEDED"
    default_kind = "timeout"
