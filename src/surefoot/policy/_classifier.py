"""The default classifier: which failures are worth another attempt.

Retry HTTP 408, 429, 500, 502, 503 and 504; any network error (the ``OSError`` family, builtins
``TimeoutError``, surefoot's :class:`~surefoot.MessagingError` and
:class:`~surefoot.TimeoutError`); and any :class:`~surefoot.SurefootError` whose ``retryable`` is
true. A server's problem details saying ``retryable: false`` win over the status, except that a
5xx during a stream is retryable. Cancellation is never retryable.

Foreign exceptions are translated at this boundary by :func:`translate`, which asks every hook
registered with :func:`register_translator` (most recent first; e.g. ``surefoot.classify`` for
httpx and aiohttp) and then falls back to the built-in rules: builtins ``TimeoutError`` →
:class:`surefoot.TimeoutError`, the rest of ``OSError`` → :class:`surefoot.NetworkError`, the
original kept as ``__cause__``.
"""

from __future__ import annotations

import asyncio
import builtins
import threading
from collections.abc import Callable

from surefoot.errors import MessagingError, NetworkError, SurefootError
from surefoot.errors import TimeoutError as SurefootTimeoutError

__all__ = [
    "CANCELLATION",
    "RETRYABLE_STATUSES",
    "Translator",
    "breaker_counts",
    "default_retryable",
    "register_translator",
    "translate",
    "unregister_translator",
]

#: Statuses the default classifier retries.
RETRYABLE_STATUSES = frozenset({408, 429, 500, 502, 503, 504})

#: Exceptions that mean "stop", never "failed": they pass through every policy untouched.
CANCELLATION: tuple[type[BaseException], ...] = (
    asyncio.CancelledError,
    KeyboardInterrupt,
    SystemExit,
    GeneratorExit,
)

#: A translation hook: a typed error for ``exc``, or ``None`` when it does not know ``exc``.
Translator = Callable[[BaseException], SurefootError | None]

_translators: tuple[Translator, ...] = ()
_lock = threading.Lock()


def register_translator(fn: Translator) -> Translator:
    """Add a hook consulted by :func:`translate` before the built-in rules (most recent first).

    Returns ``fn``, so it also works as a decorator. A hook that raises is skipped.
    """
    global _translators
    with _lock:
        if fn not in _translators:
            _translators = (fn, *_translators)
    return fn


def unregister_translator(fn: Translator) -> None:
    """Remove a hook added by :func:`register_translator`; unknown hooks are ignored."""
    global _translators
    with _lock:
        _translators = tuple(t for t in _translators if t is not fn)


def translate(exc: BaseException) -> SurefootError | None:
    """``exc`` as a :class:`SurefootError`, or ``None`` when it is not a known failure kind.

    A SurefootError is returned as is; cancellations always give ``None``.
    """
    if isinstance(exc, SurefootError):
        return exc
    if isinstance(exc, CANCELLATION):
        return None
    for fn in _translators:
        try:
            out = fn(exc)
        except Exception:  # a broken hook must not hide the original failure
            continue
        if out is not None:
            if out.__cause__ is None and out is not exc:
                out.__cause__ = exc
            return out
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if isinstance(exc, builtins.TimeoutError):
        err: SurefootError = SurefootTimeoutError(text)
    elif isinstance(exc, OSError):
        err = NetworkError(text)
    else:
        return None
    err.__cause__ = exc
    return err


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
    if isinstance(error, CANCELLATION):
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

    Counted: connection errors and retryable failures, unless the server's problem details say
    ``retryable: false``. Not counted: cancellations, local errors (foreign exceptions that are
    no transport failure), non-retryable failures, circuit-open rejections and run timeouts.
    """
    if isinstance(error, CANCELLATION):
        return False
    err = error if isinstance(error, SurefootError) else translate(error)
    if err is None:
        return False
    if _server_says_not_retryable(err):
        return False
    if isinstance(err, MessagingError):
        return True
    return err.retryable
