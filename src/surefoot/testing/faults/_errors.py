"""Provider-faithful error bodies and headers, for the OpenAI and Anthropic dialects.

OpenAI: ``{"error": {"message", "type", "param", "code"}}`` with ``x-request-id`` and
``x-ratelimit-*`` headers; mid-stream, ``data: {"error": {...}}``. Anthropic: ``{"type":
"error", "error": {"type", "message"}, "request_id"}``, with ``error.details.error_code`` when
the error has a code (the Anthropic SDK picks its exception class by status and that code),
and ``request-id``, ``x-should-retry`` and ``anthropic-ratelimit-*`` headers; mid-stream,
``event: error`` whose error object carries ``details`` (``null`` without a code).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from surefoot.testing.faults._faults import Status

__all__ = [
    "Dialect",
    "ErrorSpec",
    "anthropic_error_code",
    "error_body",
    "error_event_data",
    "error_headers",
    "error_object",
    "error_spec",
    "kind_for_status",
    "should_retry_header",
]

Dialect = Literal["openai", "anthropic"]


@dataclass(frozen=True)
class ErrorSpec:
    """One error kind: its usual status and its type, code and message in each dialect
    (``anthropic_code`` is the ``error.details.error_code``, if the API sends one)."""

    status: int
    openai_type: str
    openai_code: str | None
    openai_message: str
    anthropic_type: str
    anthropic_message: str
    anthropic_code: str | None = None


_SPECS: dict[str, ErrorSpec] = {
    "bad_request": ErrorSpec(
        400, "invalid_request_error", None, "Invalid request.",
        "invalid_request_error", "Invalid request.",
    ),
    "content_filter": ErrorSpec(
        400, "invalid_request_error", "content_filter",
        "The response was filtered due to the prompt triggering Azure OpenAI's content "
        "management policy. Please modify your prompt and retry. To learn more about our "
        "content filtering policies please read our documentation: "
        "https://go.microsoft.com/fwlink/?linkid=2198766",
        "invalid_request_error", "Output blocked by content filtering policy",
    ),
    "context_length": ErrorSpec(
        400, "invalid_request_error", "context_length_exceeded",
        "This model's maximum context length is {window} tokens. However, your messages "
        "resulted in {tokens} tokens. Please reduce the length of the messages.",
        "invalid_request_error", "prompt is too long: {tokens} tokens > {window} maximum",
    ),
    "auth": ErrorSpec(
        401, "invalid_request_error", "invalid_api_key",
        "Incorrect API key provided. You can find your API key at "
        "https://platform.openai.com/account/api-keys.",
        "authentication_error", "invalid x-api-key",
    ),
    "permission": ErrorSpec(
        403, "request_forbidden", "unsupported_country_region_territory",
        "Country, region, or territory not supported",
        "permission_error", "Your API key does not have permission to use the specified resource.",
    ),
    "not_found": ErrorSpec(
        404, "invalid_request_error", "model_not_found",
        "The model `{model}` does not exist or you do not have access to it.",
        "not_found_error", "model: {model}",
    ),
    "request_too_large": ErrorSpec(
        413, "invalid_request_error", None, "Request too large.",
        "request_too_large", "Request exceeds the maximum allowed number of bytes.",
    ),
    "rate_limit": ErrorSpec(
        429, "requests", "rate_limit_exceeded",
        "Rate limit reached for {model} in organization org-surefoot on requests per min "
        "(RPM): Limit 60, Used 60, Requested 1. Please try again in 1s.",
        "rate_limit_error",
        "Number of request tokens has exceeded your per-minute rate limit.",
    ),
    "insufficient_quota": ErrorSpec(  # Anthropic: the tier's monthly spend cap (see below)
        429, "insufficient_quota", "insufficient_quota",
        "You exceeded your current quota, please check your plan and billing details. For "
        "more information on this error, read the docs: "
        "https://platform.openai.com/docs/guides/error-codes/api-errors.",
        "rate_limit_error",
        "Your organization has reached the monthly spend limit of its API usage tier. Access "
        "resumes at the start of next month; move to a higher tier to restore it sooner.",
        "enforced_spend_limit_reached",
    ),
    "server": ErrorSpec(
        500, "server_error", None, "The server had an error while processing your request. "
        "Sorry about that!", "api_error", "Internal server error",
    ),
    "unavailable": ErrorSpec(
        503, "server_error", None, "The server is overloaded or not ready yet.",
        "api_error", "Service unavailable",
    ),
    "overloaded": ErrorSpec(
        529, "server_error", None, "That model is currently overloaded with other requests. "
        "You can retry your request, or contact us through our help center at "
        "help.openai.com if the error persists.", "overloaded_error", "Overloaded",
    ),
    "timeout": ErrorSpec(
        504, "server_error", "timeout", "Request timed out.", "timeout_error",
        "Request timed out.",
    ),
}  # fmt: skip

#: What the Anthropic API sends for a quota error at other statuses than the 429 of the tier's
#: spend cap: 402 for billing (no credit left), 400 for a spend limit the organization set.
_ANTHROPIC_QUOTA_BY_STATUS = {
    402: (
        "billing_error",
        "Your credit balance is too low to access the Anthropic API. Please go to Plans & "
        "Billing to upgrade or purchase credits.",
    ),
    400: (
        "invalid_request_error",
        "You have reached your specified API usage limits. You will regain access on the "
        "first day of next month at 00:00 UTC.",
    ),
}

_BY_STATUS = {
    400: "bad_request",
    401: "auth",
    402: "insufficient_quota",
    403: "permission",
    404: "not_found",
    408: "timeout",
    413: "request_too_large",
    429: "rate_limit",
    500: "server",
    502: "server",
    503: "unavailable",
    504: "timeout",
    529: "overloaded",
}


def kind_for_status(status: int) -> str:
    """The error kind a bare status stands for (``429`` → ``rate_limit``)."""
    return _BY_STATUS.get(status, "bad_request" if status < 500 else "server")


def error_spec(kind: str) -> ErrorSpec:
    return _SPECS[kind]


def _message(template: str, override: str | None, context: dict[str, Any]) -> str:
    if override is not None:
        return override
    values = {"model": "unknown", "tokens": 0, "window": 0, **context}
    return template.format(**values)


def error_object(
    dialect: Dialect,
    kind: str,
    message: str | None = None,
    *,
    status: int | None = None,
    code: str | None = None,
    in_stream: bool = False,
    **context: Any,
) -> dict[str, Any]:
    """The inner error object (``{"message", "type", "param", "code"}`` / ``{"type", ...}``).

    ``status`` is the HTTP status it is sent with (``None``: the kind's usual one, or inside a
    200); ``code`` overrides the machine-readable code; ``in_stream`` renders the Anthropic
    mid-stream shape (``details`` always present, ``null`` without a code).
    """
    spec = _SPECS[kind]
    if dialect == "openai":
        if kind == "content_filter":  # Azure OpenAI's shape: no type, the filter's verdict
            return {
                "message": _message(spec.openai_message, message, context),
                "type": None,
                "param": "prompt",
                "code": code or spec.openai_code,
                "status": 400,
                "innererror": {
                    "code": "ResponsibleAIPolicyViolation",
                    "content_filter_result": {
                        "hate": {"filtered": False, "severity": "safe"},
                        "self_harm": {"filtered": False, "severity": "safe"},
                        "sexual": {"filtered": False, "severity": "safe"},
                        "violence": {"filtered": True, "severity": "high"},
                    },
                },
            }
        return {
            "message": _message(spec.openai_message, message, context),
            "type": spec.openai_type,
            "param": "messages" if kind == "context_length" else None,
            "code": code or spec.openai_code,
        }
    error_type, template = spec.anthropic_type, spec.anthropic_message
    if kind == "insufficient_quota" and status in _ANTHROPIC_QUOTA_BY_STATUS:
        error_type, template = _ANTHROPIC_QUOTA_BY_STATUS[status]
    error_code = anthropic_error_code(kind, status, code)
    details = None if error_code is None else {"error_code": error_code}
    inner: dict[str, Any] = {"details": details} if in_stream else {}
    inner["type"] = error_type
    inner["message"] = _message(template, message, context)
    if details is not None and not in_stream:
        inner["details"] = details
    return inner


def error_body(
    dialect: Dialect,
    kind: str,
    message: str | None = None,
    request_id: str = "req_0",
    *,
    status: int | None = None,
    code: str | None = None,
    **context: Any,
) -> bytes:
    """The whole JSON error body for ``kind`` in ``dialect``, sent with ``status``."""
    inner = error_object(dialect, kind, message, status=status, code=code, **context)
    doc: dict[str, Any]
    if dialect == "openai":
        doc = {"error": inner}
    else:
        doc = {"type": "error", "error": inner, "request_id": request_id}
    return json.dumps(doc).encode()


def error_event_data(
    dialect: Dialect, kind: str, message: str | None = None, request_id: str | None = None
) -> str:
    """The ``data:`` payload of a mid-stream error event: OpenAI ``{"error": {...}}``,
    Anthropic ``{"type": "error", "error": {"details", "type", "message"}, "request_id"}``."""
    inner = error_object(dialect, kind, message, in_stream=True)
    if dialect == "openai":
        return json.dumps({"error": inner})
    return json.dumps({"type": "error", "error": inner, "request_id": request_id})


def anthropic_error_code(kind: str, status: int | None, code: str | None = None) -> str | None:
    """The ``error.details.error_code`` of an Anthropic error: ``code``, else the kind's own
    (none for a quota error sent as a 402 or 400, which the API sends without one)."""
    if code is not None:
        return code
    if kind == "insufficient_quota" and status in _ANTHROPIC_QUOTA_BY_STATUS:
        return None
    return _SPECS[kind].anthropic_code


def should_retry_header(
    dialect: Dialect,
    status: int,
    should_retry: bool | None,
    kind: str = "bad_request",
    code: str | None = None,
) -> str | None:
    """The ``x-should-retry`` value for an error: the fault's choice, else the provider's.

    The Anthropic API marks its errors (``true`` for 408, 409, 429 and 5xx, ``false`` for
    the other 4xx), except a spend limit reached (``*_spend_limit_reached``), which is not
    marked: the SDK retries it by its status, in vain. The OpenAI API sends none.
    """
    if should_retry is not None:
        return "true" if should_retry else "false"
    if dialect != "anthropic":
        return None
    error_code = anthropic_error_code(kind, status, code)
    if error_code is not None and error_code.endswith("_spend_limit_reached"):
        return None
    return "true" if status in (408, 409, 429) or status >= 500 else "false"


def _retry_after_text(value: float | str) -> str:
    if isinstance(value, str):
        return value
    return str(math.ceil(value))


def error_headers(dialect: Dialect, fault: Status, request_id: str) -> list[tuple[str, str]]:
    """Headers for an error response: request id, Retry-After, rate-limit headers, extras."""
    headers: list[tuple[str, str]] = [("content-type", "application/json")]
    headers.append(("x-request-id" if dialect == "openai" else "request-id", request_id))
    kind = fault.error or kind_for_status(fault.status)
    retry = should_retry_header(dialect, fault.status, fault.should_retry, kind, fault.code)
    if retry is not None:
        headers.append(("x-should-retry", retry))
    if fault.retry_after is not None:
        headers.append(("retry-after", _retry_after_text(fault.retry_after)))
    if fault.retry_after_ms is not None:
        headers.append(("retry-after-ms", str(fault.retry_after_ms)))
    wants_limits = fault.ratelimit_headers
    if wants_limits is None:
        wants_limits = fault.status == 429
    if wants_limits:
        reset = fault.retry_after if isinstance(fault.retry_after, int | float) else 1.0
        headers.extend(_ratelimit_headers(dialect, float(reset)))
    headers.extend((k.lower(), v) for k, v in fault.headers.items())
    return headers


def _ratelimit_headers(dialect: Dialect, reset: float) -> list[tuple[str, str]]:
    if dialect == "openai":
        return [
            ("x-ratelimit-limit-requests", "60"),
            ("x-ratelimit-remaining-requests", "0"),
            ("x-ratelimit-reset-requests", f"{reset:g}s"),
            ("x-ratelimit-limit-tokens", "150000"),
            ("x-ratelimit-remaining-tokens", "0"),
            ("x-ratelimit-reset-tokens", f"{reset:g}s"),
        ]
    when = datetime.now(UTC) + timedelta(seconds=reset)
    stamp = when.strftime("%Y-%m-%dT%H:%M:%SZ")
    return [
        ("anthropic-ratelimit-requests-limit", "60"),
        ("anthropic-ratelimit-requests-remaining", "0"),
        ("anthropic-ratelimit-requests-reset", stamp),
        ("anthropic-ratelimit-input-tokens-limit", "120000"),
        ("anthropic-ratelimit-input-tokens-remaining", "0"),
        ("anthropic-ratelimit-input-tokens-reset", stamp),
        ("anthropic-ratelimit-output-tokens-limit", "30000"),
        ("anthropic-ratelimit-output-tokens-remaining", "0"),
        ("anthropic-ratelimit-output-tokens-reset", stamp),
        ("anthropic-ratelimit-tokens-limit", "150000"),
        ("anthropic-ratelimit-tokens-remaining", "0"),
        ("anthropic-ratelimit-tokens-reset", stamp),
    ]
