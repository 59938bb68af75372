"""The classifier's vocabulary: the 15 :class:`Kind` values and their default retryability."""

from __future__ import annotations

import enum

__all__ = ["KINDS", "Kind", "default_retryable", "kind_of"]


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


def kind_of(err: BaseException) -> Kind:
    """The :class:`Kind` of any exception: a surefoot error's ``kind``, or a classified one."""
    value = getattr(err, "kind", None)
    if isinstance(value, str) and value in KINDS:
        return Kind(value)
    from surefoot.errors import SurefootError

    if isinstance(err, SurefootError):
        return Kind.UNKNOWN
    from surefoot.classify._exceptions import classify_exception

    return Kind(classify_exception(err).kind)
