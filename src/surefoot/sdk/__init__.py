"""surefoot under the official SDKs: :func:`wrap` an ``openai``/``anthropic`` (or ``groq``)
client, or plug :func:`transport` / :func:`async_transport` into any SDK built on ``httpx`` or
``httpx2``.

The wrapped client keeps the SDK's API and return types; surefoot's engine owns the retries
(the SDK's own are off), server hints, one deadline over the whole call (its stream included),
the breaker, the retry budget, the rate limiter, attempt records and hooks. A failure is raised
as the exception the SDK would raise, which is also surefoot's typed error
(:mod:`surefoot.sdk._hybrid`): ``except openai.RateLimitError`` and
``except surefoot.RateLimitError`` both catch a 429. A stream that ends without its final event
or falls silent raises instead of ending as a success with partial text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from surefoot.sdk._wrap import async_transport, transport, wrap

__all__ = ["async_transport", "transport", "wrap"]


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def __getattr__(name: str) -> Any:
    if name in __all__:
        from surefoot.sdk import _wrap

        value = getattr(_wrap, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'surefoot.sdk' has no attribute {name!r}")
