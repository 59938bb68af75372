"""Provider-faithful error bodies and headers, for the OpenAI and Anthropic dialects.

OpenAI: ``{"error": {"message", "type", "param", "code"}}`` with ``x-request-id`` and
``x-ratelimit-*`` headers. Anthropic: ``{"type": "error", "error": {"type", "message"},
"request_id"}`` with ``request-id`` and ``anthropic-ratelimit-*`` headers.
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
    "error_body",
    "error_event_data",
    "error_headers",
    "error_object",
    "error_spec",
    "kind_for_status",
]

Dialect = Literal["openai", "anthropic"]


@dataclass(frozen=True)
class ErrorSpec:
    """One error kind: its usual status and its type, code and message in each dialect."""

    status: int
    openai_type: str
    openai_code: str | None
    openai_message: str
    anthropic_type: str
    anthropic_message: str


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
        403, "invalid_request_error", "unsupported_country_region_territory",
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
    "insufficient_quota": ErrorSpec(
        429, "insufficient_quota", "insufficient_quota",
        "You exceeded your current quota, please check your plan and billing details.",
        "billing_error",
        "Your credit balance is too low to access the Anthropic API. Please go to Plans & "
        "Billing to upgrade or purchase credits.",
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
        529, "server_error", "overloaded", "The engine is currently overloaded, please try "
        "again later.", "overloaded_error", "Overloaded",
    ),
    "timeout": ErrorSpec(
        504, "server_error", "timeout", "Request timed out.", "timeout_error",
        "Request timed out.",
    ),
}  # fmt: skip

_BY_STATUS = {
    400: "bad_request",
    401: "auth",
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
    dialect: Dialect, kind: str, message: str | None = None, **context: Any
) -> dict[str, Any]:
    """The inner error object (``{"message", "type", "param", "code"}`` / ``{"type", ...}``)."""
    spec = _SPECS[kind]
    if dialect == "openai":
        if kind == "content_filter":  # Azure OpenAI's shape: no type, the filter's verdict
            return {
                "message": _message(spec.openai_message, message, context),
                "type": None,
                "param": "prompt",
                "code": spec.openai_code,
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
        param = (
            "messages" if kind == "context_length" else ("model" if kind == "not_found" else None)
        )
        return {
            "message": _message(spec.openai_message, message, context),
            "type": spec.openai_type,
            "param": param,
            "code": spec.openai_code,
        }
    return {
        "type": spec.anthropic_type,
        "message": _message(spec.anthropic_message, message, context),
    }


def error_body(
    dialect: Dialect,
    kind: str,
    message: str | None = None,
    request_id: str = "req_0",
    **context: Any,
) -> bytes:
    """The whole JSON error body for ``kind`` in ``dialect``."""
    inner = error_object(dialect, kind, message, **context)
    doc: dict[str, Any]
    if dialect == "openai":
        doc = {"error": inner}
    else:
        doc = {"type": "error", "error": inner, "request_id": request_id}
    return json.dumps(doc).encode()


def error_event_data(dialect: Dialect, kind: str, message: str | None = None) -> str:
    """The ``data:`` payload of a mid-stream error event."""
    inner = error_object(dialect, kind, message)
    if dialect == "openai":
        return json.dumps({"error": inner})
    return json.dumps({"type": "error", "error": inner})


def _retry_after_text(value: float | str) -> str:
    if isinstance(value, str):
        return value
    return str(math.ceil(value))


def error_headers(dialect: Dialect, fault: Status, request_id: str) -> list[tuple[str, str]]:
    """Headers for an error response: request id, Retry-After, rate-limit headers, extras."""
    headers: list[tuple[str, str]] = [("content-type", "application/json")]
    headers.append(("x-request-id" if dialect == "openai" else "request-id", request_id))
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
        ("anthropic-ratelimit-tokens-limit", "150000"),
        ("anthropic-ratelimit-tokens-remaining", "0"),
        ("anthropic-ratelimit-tokens-reset", stamp),
    ]
