"""The default classifier: which failures are worth another attempt, and which a breaker counts.

Pure rules over an error that the engine has already translated at its boundary
(:mod:`surefoot._translate`: a foreign exception that is a recognised failure, such as an
``httpx.ConnectError`` or an ``openai.RateLimitError``, arrives here as the matching
:class:`~surefoot.SurefootError`).

Retried: HTTP 408, 429, 500, 502, 503 and 504; any network error (the ``OSError`` family,
builtins ``TimeoutError``); and any :class:`~surefoot.SurefootError` whose ``retryable`` is
true. A server's problem details saying ``retryable: false`` win over the status, except that a
5xx during a stream is retryable. Cancellation (anything that is not an ``Exception``:
``asyncio.CancelledError``, ``KeyboardInterrupt``, ``SystemExit``, ``GeneratorExit``) is never
retried and never counted.
"""

from __future__ import annotations

from surefoot.errors import CircuitOpenError, MessagingError, RunTimeoutError, SurefootError

__all__ = ["RETRYABLE_STATUSES", "breaker_counts", "default_retryable", "is_cancellation"]

#: Statuses the default classifier retries.
RETRYABLE_STATUSES = frozenset({408, 429, 500, 502, 503, 504})


def is_cancellation(error: BaseException) -> bool:
    """True for "stop", never "failed": every exception that is not an ``Exception``."""
    return not isinstance(error, Exception)


def _server_says_not_retryable(error: SurefootError) -> bool:
    return error.has_server_problem and error.problem_details.retryable is False


def default_retryable(
    error: BaseException | None, status: int | None = None, *, in_stream: bool = False
) -> bool:
    """Whether the default classifier retries this failure.

    ``status`` is the HTTP status of a completed non-2xx response (``None`` for a transport
    failure); when omitted it is read from a SurefootError's context. ``in_stream`` says the
    failure happened during a stream, where a 5xx is retryable whatever the problem says.
    """
    if error is None:
        return status in RETRYABLE_STATUSES
    if is_cancellation(error):
        return False
    if isinstance(error, SurefootError):
        if status is None:
            status = error.context.http_status
        if in_stream and status is not None and 500 <= status <= 599:
            return True
        if _server_says_not_retryable(error):
            return False
        return error.retryable
    if isinstance(error, OSError):  # includes ConnectionError, socket errors, TimeoutError
        return True
    return status in RETRYABLE_STATUSES


def breaker_counts(error: BaseException) -> bool:
    """Whether a circuit breaker counts this failure against the service.

    Counted: connection errors (a :class:`~surefoot.MessagingError`, an ``OSError``) and
    retryable failures, unless the server's problem details say ``retryable: false``. Not
    counted: cancellations, local errors (any other exception), non-retryable failures,
    circuit-open rejections and run timeouts.
    """
    if is_cancellation(error) or isinstance(error, (CircuitOpenError, RunTimeoutError)):
        return False
    if not isinstance(error, SurefootError):
        return isinstance(error, OSError)
    if _server_says_not_retryable(error):
        return False
    if isinstance(error, MessagingError):
        return True
    return error.retryable
