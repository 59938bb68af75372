"""Foreign exceptions translated once, at the engine's boundary.

Every driver (:class:`surefoot.Guard`, the LLM client, agent actions) judges a failure by its
translation: a recognised failure of httpx, httpx2, aiohttp, requests, urllib3, urllib, openai,
anthropic, asyncio or a socket becomes the matching :class:`~surefoot.SurefootError` through
:func:`surefoot.classify_exception` (a 429 is a ``RateLimitError`` with its ``Retry-After``, a
``ConnectError`` a ``NetworkError``, a 404 a non-retryable error), the original kept as
``__cause__``; any other exception is judged, and raised, as it is. No registration needed.

The classifier is imported on the first failure, never by the success path.
"""

from __future__ import annotations

from surefoot.errors import SurefootError

__all__ = ["subject", "translate"]


def translate(exc: BaseException) -> SurefootError | None:
    """``exc`` as a typed error when it is a recognised failure, else ``None`` (cancellations
    included)."""
    if isinstance(exc, SurefootError):
        return exc
    if not isinstance(exc, Exception):
        return None
    from surefoot._classify._exceptions import recognise

    return recognise(exc)


def subject(exc: BaseException) -> BaseException:
    """The error the policy and the breaker judge, and the caller sees: ``exc`` translated when
    it is a recognised failure, else ``exc`` itself."""
    err = translate(exc)
    return exc if err is None else err
