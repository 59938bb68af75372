"""The classifier's vocabulary: the 15 :class:`Kind` values and their default retryability."""

from __future__ import annotations

import enum

__all__ = ["KINDS", "Kind", "default_retryable"]


class Kind(enum.StrEnum):
    """Why a call failed, in one stable word. ``str(Kind.RATE_LIMIT) == "rate_limit"``."""

    RATE_LIMIT = "rate_limit"
    QUOTA_EXHAUSTED = "quota_exhausted"
    CONTEXT_TOO_LONG = "context_too_long"
    CONTENT_FILTERED = "content_filtered"
    MODEL_OVERLOADED = "model_overloaded"
    MODEL_NOT_FOUND = "model_not_found"
    AUTH_FAILED = "auth_failed"
    PERMISSION_DENIED = "permission_denied"
    INVALID_REQUEST = "invalid_request"
    SERVER_ERROR = "server_error"
    MALFORMED_TOOL_CALL = "malformed_tool_call"
    CAPABILITY_MISMATCH = "capability_mismatch"
    NETWORK = "network"
    TIMEOUT = "timeout"
    UNKNOWN = "unknown"


#: Every kind's value, in declaration order.
KINDS: tuple[str, ...] = tuple(k.value for k in Kind)

_RETRYABLE = frozenset(
    {
        Kind.RATE_LIMIT,
        Kind.MODEL_OVERLOADED,
        Kind.SERVER_ERROR,
        Kind.NETWORK,
        Kind.TIMEOUT,
    }
)


def default_retryable(kind: Kind) -> bool:
    """Whether a failure of this kind is worth repeating when nothing else says otherwise.

    ``unknown`` is not retried by default: a retry policy should not spend its budget on a
    failure nobody recognised (the error tree's ``LLMErrorType.UNKNOWN`` says otherwise; the
    classifier passes ``retryable=False`` explicitly).
    """
    return kind in _RETRYABLE
