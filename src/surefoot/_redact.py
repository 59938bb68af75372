"""Secret redaction: the one place that keeps API keys and auth headers out of text.

Every message surefoot builds from outside text (a server's error body, an exception's
``str()``) passes through :func:`redact` before it is stored on an error, logged or reported.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

__all__ = ["SECRET_HEADERS", "redact", "redact_headers", "register_secret"]

#: Header names whose values are never shown (compared lower-case).
SECRET_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "api-key",
        "x-goog-api-key",
        "cookie",
        "set-cookie",
        "openai-organization",
        "x-amz-security-token",
    }
)

_MASK = "[REDACTED]"

_PATTERNS = re.compile(
    r"""
    (?P<bearer>\b(?:Bearer|Basic|Token)\s+)[A-Za-z0-9._~+/=-]{6,}
    | \b(?:sk|pk|rk)-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{8,}
    | \bAIza[0-9A-Za-z_-]{20,}
    | \b(?:gsk|xai|pplx|fw|r8)_[A-Za-z0-9]{16,}
    | \bAKIA[0-9A-Z]{16}\b
    | (?P<kv>(?:api[_-]?key|apikey|access[_-]?token|secret|password|x-api-key|authorization)
        ["']?\s*[:=]\s*["']?)(?:(?:Bearer|Basic|Token)\s+)?[^\s"',;&]{4,}
    """,
    re.IGNORECASE | re.VERBOSE,
)

#: Every match of _PATTERNS contains one of these (lower-cased): the prefix of each alternative
#: (``key`` covers api_key/apikey/api-key/x-api-key, ``token`` covers access_token and Token).
#: Text containing none of them, and only ASCII, cannot match: the regex is skipped.
_CANDIDATES = (
    "key",
    "token",
    "bearer",
    "basic",
    "sk-",
    "pk-",
    "rk-",
    "aiza",
    "akia",
    "gsk_",
    "xai_",
    "pplx_",
    "fw_",
    "r8_",
    "secret",
    "password",
    "authorization",
)

_registered: set[str] = set()


def register_secret(value: str | None) -> None:
    """Remember a secret (an API key a client was given) so that it is masked everywhere."""
    if value and len(value) >= 4:
        _registered.add(value)


def _sub(match: re.Match[str]) -> str:
    prefix = match.group("bearer") or match.group("kv") or ""
    return prefix + _MASK


def redact(text: str) -> str:
    """``text`` with every known secret and anything shaped like a credential masked."""
    if not text:
        return text
    for secret in _registered:
        if secret in text:
            text = text.replace(secret, _MASK)
    if text.isascii():
        # Unicode case folding (the Kelvin sign for k, the long s for s) matters only outside
        # ASCII: such text takes the full regex.
        low = text.lower()
        for c in _CANDIDATES:
            if c in low:
                break
        else:
            return text
    return _PATTERNS.sub(_sub, text)


def redact_headers(
    headers: Mapping[str, str] | Iterable[tuple[str, str]],
) -> dict[str, str]:
    """A copy of ``headers`` safe to record: secret headers masked, values redacted."""
    items = headers.items() if isinstance(headers, Mapping) else headers
    out: dict[str, str] = {}
    for name, value in items:
        out[name] = _MASK if name.lower() in SECRET_HEADERS else redact(str(value))
    return out
