"""From a decided :class:`Kind` and a :class:`Finding` to the typed error of the error tree.

Retryability: the kind's default; the server's own ``retryable`` (problem details) wins over
it; a 5xx-class failure during a stream (``in_stream``) is retryable; an explicit
``x-should-retry`` header (``should_retry``) wins over all of these (a ``true`` except over a
spent quota named by the body); and a whole-run deadline
(``TASK_DEADLINE_EXCEEDED``) is never retryable. ``retry_after`` is the server's hint in the
policy's precedence (``retry-after-ms`` > ``Retry-After`` > problem ``retry_after_seconds`` >
Google ``RetryInfo``), then a wait named in the message text ("try again in 11.122s").
"""

from __future__ import annotations

import math
import re
import time
from typing import Any

from surefoot._classify._kinds import Kind, default_retryable
from surefoot._classify._ratelimit import RateLimitInfo, parse_ratelimit_headers
from surefoot._classify._rules import Finding
from surefoot.errors import (
    AuthError,
    BusinessError,
    ConnectionFailedError,
    ErrorContext,
    LLMCapabilityError,
    LLMError,
    LLMErrorType,
    NetworkError,
    PermissionDeniedError,
    RateLimitError,
    RunTimeoutError,
    SurefootError,
    TimeoutError,  # noqa: A004
    ValidationError,
)
from surefoot.policy._hints import hint_from_text, server_hint

__all__ = [
    "DAY_S",
    "build",
    "fallback_error",
    "refine",
    "request_id_of",
    "retry_hint",
    "should_retry_of",
]

K = Kind

#: A server-required wait this long or longer is an exhausted quota, not a rate limit.
DAY_S = 86_400.0
_MAX_MESSAGE = 2000

_DAILY = re.compile(r"per[ _-]?day|(\b|_)daily(\b|_)|\b(TPD|RPD)\b", re.IGNORECASE)

_TYPES: dict[Kind, LLMErrorType] = {
    K.QUOTA_EXHAUSTED: LLMErrorType.QUOTA_EXHAUSTED,
    K.CONTEXT_TOO_LONG: LLMErrorType.CONTEXT_TOO_LONG,
    K.CONTENT_FILTERED: LLMErrorType.CONTENT_FILTERED,
    K.MODEL_OVERLOADED: LLMErrorType.MODEL_OVERLOADED,
    K.MODEL_NOT_FOUND: LLMErrorType.MODEL_NOT_FOUND,
    K.AUTH_FAILED: LLMErrorType.AUTHENTICATION_FAILED,
    K.INVALID_REQUEST: LLMErrorType.INVALID_REQUEST,
    K.SERVER_ERROR: LLMErrorType.SERVER_ERROR,
    K.MALFORMED_TOOL_CALL: LLMErrorType.MALFORMED_TOOL_CALL,
    K.CAPABILITY_MISMATCH: LLMErrorType.CAPABILITY_MISMATCH,
    K.UNKNOWN: LLMErrorType.UNKNOWN,
}

_REQUEST_ID_HEADERS = (
    "x-request-id",
    "request-id",
    "x-amzn-requestid",
    "x-amz-request-id",
    "apim-request-id",
    "x-ms-request-id",
    "x-goog-request-id",
    "x-cloud-trace-context",
    "cf-ray",
)


#: Kinds an ``x-should-retry: true`` does not make retryable (see :func:`build`).
_FINAL_DESPITE_HINT = frozenset((K.QUOTA_EXHAUSTED,))


def should_retry_of(headers: dict[str, str]) -> bool | None:
    """``x-should-retry: true|false`` (any case, spaces ignored) as a bool; ``None`` when the
    header is absent or says anything else, as the SDKs ignore such a value too."""
    value = headers.get("x-should-retry", "").strip().lower()
    return True if value == "true" else False if value == "false" else None


def request_id_of(headers: dict[str, str], finding: Finding | None = None) -> str | None:
    for name in _REQUEST_ID_HEADERS:
        value = headers.get(name)
        if value:
            return value[:128]
    return finding.request_id if finding is not None else None


def retry_hint(headers: dict[str, str], finding: Finding, now: float) -> float | None:
    """The server's wait in seconds, or ``None``; never negative or infinite."""
    hint = None
    # ``headers`` are normalised (lower-case names): most failures carry none of the places a
    # server puts its wait, and looking costs more than the rest of the hint
    if (
        "retry-after" in headers
        or "retry-after-ms" in headers
        or finding.problem is not None
        or finding.google_details is not None
    ):
        try:
            hint = server_hint(headers, finding.problem, finding.google_details, now_epoch=now)
        except Exception:
            hint = None
    if hint is None and finding.retry_after is not None:
        hint = finding.retry_after
    if hint is None:
        hint = hint_from_text(finding.message)
    if hint is None or not math.isfinite(hint) or hint < 0:
        return None
    return hint


def refine(kind: Kind, finding: Finding, retry_after: float | None) -> Kind:
    """A rate limit that cannot clear soon is an exhausted quota: a per-day bucket with no
    near retry time in the message, or a required wait of a day or more."""
    if kind is not K.RATE_LIMIT or finding.kind is not None:
        return kind
    if retry_after is not None and retry_after >= DAY_S:
        finding.reason = f"{finding.reason}; the server's wait is a day or more -> quota_exhausted"
        return K.QUOTA_EXHAUSTED
    daily = _DAILY.search(finding.message) or any(_DAILY.search(c) for c in finding.codes)
    if daily and hint_from_text(finding.message) is None:
        finding.reason = f"{finding.reason}; a per-day bucket -> quota_exhausted"
        return K.QUOTA_EXHAUSTED
    return kind


def build(
    kind: Kind,
    finding: Finding,
    *,
    status: int | None,
    headers: dict[str, str],
    provider: str | None,
    model: str | None,
    in_stream: bool = False,
    now: float | None = None,
    retry_after: float | None = None,
    default_message: str = "",
    should_retry: bool | None = None,
    hinted: bool = False,
) -> SurefootError:
    """The typed error for ``kind``; see the package docstring for the class of each kind.

    ``should_retry`` is the response's ``x-should-retry`` (see :func:`should_retry_of`);
    ``hinted`` says ``retry_after`` is already :func:`retry_hint`'s answer (``None`` included),
    so it is not looked for twice."""
    now_s = time.time() if now is None else now
    if retry_after is None and not hinted:
        retry_after = retry_hint(headers, finding, now_s)
    retryable = default_retryable(kind)
    if finding.retryable is not None:
        retryable = finding.retryable
    eff_status = status if status is not None else finding.status
    if in_stream and (
        (eff_status is not None and eff_status >= 500)
        or kind in (K.SERVER_ERROR, K.MODEL_OVERLOADED)
    ):
        retryable = True
    if should_retry is False or (should_retry and kind not in _FINAL_DESPITE_HINT):
        # The server's explicit verdict on this response, which both official SDKs obey
        # before their own status rules. "false" always wins. "true" does too, except over a
        # body that names a spent quota: gateways send "true" on every 429 by status, and a
        # spent monthly quota does not come back within any retry — retrying it is the very
        # "insufficient quota treated as a rate limit" failure surefoot exists to prevent.
        retryable = should_retry
    run_timeout = finding.catalog_code == "TASK_DEADLINE_EXCEEDED"
    if run_timeout:
        retryable = False
    service = provider or finding.provider or finding.dialect
    meta: dict[str, Any] = {
        "provider": service,
        "dialect": finding.dialect,
        "classified_by": finding.reason or f"kind {kind.value}",
    }
    if finding.codes:
        meta["provider_code"] = finding.codes[0]
    if finding.provider and finding.provider != service:
        meta["upstream_provider"] = finding.provider
    if in_stream:
        meta["in_stream"] = True
    rl: RateLimitInfo | None = parse_ratelimit_headers(headers, now=now_s) if headers else None
    if rl is not None and not rl.empty:
        meta["ratelimit"] = rl.as_dict()
    ctx = ErrorContext(
        http_status=status, request_id=request_id_of(headers, finding), metadata=meta
    )
    message = " ".join((finding.message or default_message).split())[:_MAX_MESSAGE]
    if not message:
        message = f"HTTP {status}" if status is not None else f"{kind.value} failure"
    common: dict[str, Any] = {
        "retryable": retryable,
        "kind": kind.value,
        "problem_details": finding.problem,
        "context": ctx,
        "retry_after": retry_after,
    }
    if finding.catalog_code:
        common["code"] = finding.catalog_code
    model = model or finding.model
    is_problem = finding.problem is not None
    if kind is K.RATE_LIMIT:
        remaining = rl.remaining if rl is not None else None
        return RateLimitError(
            message, service=service, remaining_quota=remaining, model=model, **common
        )
    if kind is K.PERMISSION_DENIED:
        return PermissionDeniedError(message, **common)
    if kind is K.AUTH_FAILED and is_problem:
        return AuthError(message, **common)
    if kind is K.NETWORK:
        return NetworkError(message, **common)
    if kind is K.TIMEOUT:
        cls = RunTimeoutError if run_timeout else TimeoutError
        return cls(message, **common)
    if is_problem and kind is K.INVALID_REQUEST:
        code = finding.catalog_code or ""
        return (ValidationError if code == "VALIDATION_ERROR" else BusinessError)(message, **common)
    if (
        is_problem
        and kind is K.SERVER_ERROR
        and finding.catalog_code
        in (
            None,
            "SERVICE_UNAVAILABLE",
            "INTERNAL_ERROR",
        )
    ):
        return ConnectionFailedError(message, **common)
    if kind is K.CAPABILITY_MISMATCH:
        return LLMCapabilityError(
            message, capability=finding.capability, model=model, provider=service, **common
        )
    return LLMError(message, error_type=_TYPES[kind], model=model, provider=service, **common)


def fallback_error(message: str, provider: str | None, model: str | None) -> SurefootError:
    return LLMError(
        message,
        error_type=LLMErrorType.UNKNOWN,
        retryable=False,
        provider=provider if isinstance(provider, str) else None,
        model=model if isinstance(model, str) else None,
    )
