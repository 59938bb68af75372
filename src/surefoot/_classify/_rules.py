"""The decision tables: provider codes, message text and HTTP status to a :class:`Kind`.

A dialect extracts a :class:`Finding` (message, codes, maybe a kind it is sure of); then
:func:`decide` walks, in this order, and the first answer wins:

1. the kind the dialect decided itself (Gemini's per-minute vs per-day ``QuotaFailure``, ...);
2. :data:`STRONG_TEXT`: phrases that beat any code ("Request too large ... tokens per min" is
   context_too_long although its code says ``rate_limit_exceeded``; "credit balance is too
   low" is quota_exhausted although Anthropic types it ``invalid_request_error``);
3. :data:`STRONG_CODES`: provider codes that name the cause exactly;
4. :data:`TEXT_RULES`: message phrases;
5. :data:`WEAK_CODES`: generic codes (``invalid_request_error``, ``api_error``, ...);
6. :func:`kind_for_status`: the HTTP status alone.

Adding a provider's wording is one row in a table, never a new branch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from surefoot._classify._fastre import RuleTable, lowered
from surefoot._classify._kinds import Kind

if TYPE_CHECKING:
    from surefoot.problem import ProblemDetails

__all__ = [
    "STRONG_CODES",
    "STRONG_TEXT",
    "TEXT_RULES",
    "TRANSPORT_RULES",
    "WEAK_CODES",
    "Finding",
    "decide",
    "kind_for_status",
    "norm_code",
]

K = Kind


@dataclass(slots=True)
class Finding:
    """What a dialect read from a failure, before the tables decide its kind."""

    dialect: str
    message: str = ""
    codes: list[str] = field(default_factory=list)
    kind: Kind | None = None
    retryable: bool | None = None
    status: int | None = None  # a status the body declares (Gemini ``error.code``, ...)
    retry_after: float | None = None
    google_details: list[object] | None = None
    model: str | None = None
    request_id: str | None = None
    capability: str | None = None
    provider: str | None = None
    problem: ProblemDetails | None = None
    catalog_code: str | None = None


def norm_code(code: object) -> str:
    """A code compared case- and punctuation-insensitively: ``Throttling-Exception`` ->
    ``throttlingexception``; Bedrock's ``ns#ThrottlingException:url`` -> its bare name."""
    s = str(code).strip()
    if "#" in s:
        s = s.rsplit("#", 1)[1]
    if ":" in s:
        s = s.split(":", 1)[0]
    return re.sub(r"[^a-z0-9]", "", s.lower())


def _codes(kind: Kind, *names: str) -> dict[str, Kind]:
    return {norm_code(n): kind for n in names}


STRONG_CODES: dict[str, Kind] = {
    **_codes(
        K.RATE_LIMIT,
        "rate_limit_exceeded",
        "rate_limit_error",
        "RateLimitError",
        "ThrottlingException",
        "Throttling",
        "TooManyRequestsException",
        "too_many_requests",
        "TooManyRequests",
        "requests",
        "tokens",
        "RATE_LIMIT_EXCEEDED",
        "rate_limited",
        "rateLimitExceeded",
        "userRateLimitExceeded",
        "ramp_limit_exceeded",  # Anthropic: usage grew too fast; retry after Retry-After
    ),
    **_codes(
        K.QUOTA_EXHAUSTED,
        "insufficient_quota",
        "billing_hard_limit_reached",
        "billing_not_active",
        "insufficient_balance",
        "insufficient_credits",
        "payment_required",
        "BILLING_LIMIT_EXCEEDED",
        "ServiceQuotaExceededException",
        "quota_exceeded",
        # Anthropic error.details.error_code: spend limits arrive as a 429 rate_limit_error,
        # but nothing clears them before the billing period (or the organization) changes
        "contract_spend_limit_reached",
        "enforced_spend_limit_reached",
        "linked_organization_spend_limit_reached",
        "linked_organization_billing_unavailable",
    ),
    **_codes(
        K.CONTEXT_TOO_LONG,
        "context_length_exceeded",
        "model_context_window_exceeded",
        "context_window_exceeded",
        "request_too_large",
        "LLM_CONFIG_CONTEXT_TOO_SMALL",
    ),
    **_codes(
        K.CONTENT_FILTERED,
        "content_filter",
        "content_policy_violation",
        "ResponsibleAIPolicyViolation",
        "content_filtered",
        "moderation_blocked",
        "PROHIBITED_CONTENT",
        "SAFETY",
    ),
    **_codes(
        K.MODEL_OVERLOADED,
        "overloaded_error",
        "overloaded",
        "ModelNotReadyException",
        "engine_overloaded",
        "capacity_exceeded",
        "ServiceUnavailableException",
    ),
    **_codes(
        K.MODEL_NOT_FOUND,
        "model_not_found",
        "DeploymentNotFound",
        "ResourceNotFoundException",
        "model_not_available",
        "model_decommissioned",
        "model_deprecated",
    ),
    **_codes(
        K.AUTH_FAILED,
        "authentication_error",
        "invalid_api_key",
        "UNAUTHENTICATED",
        "API_KEY_INVALID",
        "UnrecognizedClientException",
        "ExpiredTokenException",
        "InvalidSignatureException",
        "IncompleteSignatureException",
        "MissingAuthenticationTokenException",
        "AuthenticationError",
        "invalid_authentication",
        "AUTHENTICATION_FAILED",
        "Unauthorized",
    ),
    **_codes(
        K.PERMISSION_DENIED,
        "permission_error",
        "PERMISSION_DENIED",
        "AccessDeniedException",
        "permission_denied",
        "AUTHORIZATION_FAILED",
        "unsupported_country_region_territory",
        "Forbidden",
        "organization_on_hold",  # Anthropic: disabled for trust and safety (a 400)
    ),
    **_codes(K.MALFORMED_TOOL_CALL, "tool_use_failed", "MALFORMED_FUNCTION_CALL"),
    **_codes(K.TIMEOUT, "ModelTimeoutException", "DEADLINE_EXCEEDED", "TASK_DEADLINE_EXCEEDED"),
}

WEAK_CODES: dict[str, Kind] = {
    **_codes(
        K.INVALID_REQUEST,
        "invalid_request_error",
        "ValidationException",
        "INVALID_ARGUMENT",
        "FAILED_PRECONDITION",
        "BadRequestError",
        "bad_request",
        "invalid_request",
        "OUT_OF_RANGE",
        "unsupported_value",
        "unsupported_parameter",
        "invalid_value",
    ),
    **_codes(
        K.SERVER_ERROR,
        "api_error",
        "server_error",
        "internal_server_error",
        "InternalServerException",
        "INTERNAL",
        "UNAVAILABLE",
        "ModelErrorException",
        "ModelStreamErrorException",
        "InternalServerError",
        "internal_error",
        "cf_bad_gateway",
        "service_unavailable",
        "DATA_LOSS",
    ),
    **_codes(K.MODEL_NOT_FOUND, "not_found_error", "NOT_FOUND", "NotFoundError"),
    **_codes(K.RATE_LIMIT, "RESOURCE_EXHAUSTED"),
    **_codes(K.TIMEOUT, "timeout", "request_timeout", "timeout_error"),
}


def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE | re.DOTALL)


#: Phrases that beat any provider code.
STRONG_TEXT: tuple[tuple[Kind, re.Pattern[str]], ...] = (
    (K.CONTEXT_TOO_LONG, _re(r"request too large.{0,200}(tokens? per min|\btpm\b)")),
    # older vLLM: max_tokens = window - prompt; negative means the prompt alone overflows
    (K.CONTEXT_TOO_LONG, _re(r"max_tokens must be at least 1, got -\d")),
    (K.QUOTA_EXHAUSTED, _re(r"credit balance is too low|insufficient[_ ]quota")),
    (K.QUOTA_EXHAUSTED, _re(r"\b(insufficient|not enough) (credits?|balance|funds)\b")),
    (K.QUOTA_EXHAUSTED, _re(r"(do not|don'?t) have enough credits?|out-of-credit")),
    (K.QUOTA_EXHAUSTED, _re(r"requires more credits|can only afford|credits (are )?depleted")),
    (K.QUOTA_EXHAUSTED, _re(r"billing (hard )?limit|exceeded your (monthly|spend)")),
    (K.AUTH_FAILED, _re(r"api key (was reported as leaked|has been revoked|expired)")),
)

#: Transport failures described by text alone (no HTTP status): timeouts before resets,
#: since "Read timed out" often comes wrapped in a connection pool's message.
TRANSPORT_RULES: tuple[tuple[Kind, re.Pattern[str]], ...] = (
    (K.TIMEOUT, _re(r"timed? ?out|timeout|deadline exceeded")),
    (
        K.NETWORK,
        _re(
            r"connection (refused|reset|aborted|error|closed)|name or service not known"
            r"|temporary failure in name resolution|getaddrinfo|name ?resolution|no route to host"
            r"|network is unreachable|failed to establish a new connection|econn(reset|refused)"
            r"|enotfound|peer closed connection|incomplete chunked read|remote ?protocol ?error"
            r"|closed unexpectedly|remote end closed|server disconnected|broken pipe"
            r"|unable to connect|connecterror|certificate verify failed|ssl|eof occurred"
            r"|nodename nor servname|could not resolve|connection was closed"
        ),
    ),
)

#: Message phrases, most specific first.
TEXT_RULES: tuple[tuple[Kind, re.Pattern[str]], ...] = (
    (
        K.CONTEXT_TOO_LONG,
        _re(
            r"context[_ ]length|maximum context|context window|context limit|prompt is too long"
            r"|input (is )?too long|(input|prompt)? ?token count.{0,60}exceeds"
            r"|exceeds? the (model'?s? )?max(imum)? (number of )?(context|input|prompt)? ?"
            r"(tokens|length)|maximum (number of )?tokens allowed|is too large for the model"
            r"|`?inputs`? tokens \+ `?max_new_tokens`? must be"
        ),
    ),
    (
        K.INVALID_REQUEST,
        _re(
            r"max[_ ]?tokens`?:? (must|\d+ >)|maximum (allowed )?number of output tokens"
            r"|maximum tokens you requested"
        ),
    ),
    (
        K.CONTEXT_TOO_LONG,
        _re(
            r"too many (input |prompt )?tokens(?!.{0,40}(wait|per (min|minute|second|day)"
            r"|try again))|reduce the length|request too large"
        ),
    ),
    (
        K.QUOTA_EXHAUSTED,
        _re(
            r"out of credits?|\bquota\b.{0,160}(per ?day|daily|monthly)|(daily|monthly) (quota"
            r"|limit)|payment required|purchase (more )?credits|add (more )?credits"
        ),
    ),
    (
        K.CONTENT_FILTERED,
        _re(
            r"content[_ ](management )?(filter|policy)|responsible ?ai|safety (system|filter"
            r"|settings|reasons)|flagged (by|as)|usage polic(y|ies)|prohibited content"
            r"|blocked (by|due to) (safety|moderation|content)|moderation|guardrail"
        ),
    ),
    (
        K.MALFORMED_TOOL_CALL,
        _re(
            r"(failed|unable) to (call|parse) (a |the )?(function|tool)|malformed (function|tool)"
            r"|invalid (tool|function) call|tool call (arguments )?(is |are )?not valid json"
        ),
    ),
    (
        K.MODEL_NOT_FOUND,
        _re(
            r"model.{0,120}(not found|does not exist|doesn'?t exist|not exist)"
            r"|(unknown|invalid|unsupported|no such) model|model identifier is invalid"
            r"|no endpoints found|is not a valid model|try pulling it first"
            r"|deployment.{0,80}(not found|does not exist)|is not found for api version"
            r"|model_not_found|has been decommissioned|model.{0,80}no longer (supported"
            r"|available)|model.{0,80}(has been )?deprecated"
        ),
    ),
    (
        K.CAPABILITY_MISMATCH,
        _re(
            r"(does not|doesn'?t|do not) support (tools|tool[_ ]?(use|calling|choice)|function"
            r"[_ ]?calling|images?|image input|vision|streaming|system|json mode|structured"
            r"|audio|pdf)|(tools?|function calling|tool use|image input|vision|streaming)"
            r".{0,80}(is |are )?(not supported|unsupported)|is not supported by the \w+ (api"
            r"|endpoint)|please use (the )?/?[\w/.-]+ (api|endpoint) instead"
            r"|missing conversation_config"
        ),
    ),
    (
        K.MODEL_OVERLOADED,
        _re(
            r"overloaded|over capacity|at capacity|(insufficient|no|out of) capacity"
            r"|capacity (exceeded|unavailable)|high demand|currently loading"
            r"|model is not ready|not ready to serve"
        ),
    ),
    (
        K.RATE_LIMIT,
        _re(
            r"rate[_ -]?limit|too many requests|slow down|throttl|requests per (minute|min|second)"
            r"|tokens per (minute|min)|resource (has been )?exhausted|\bquota\b"
            r"|error code:? 1015|calls ?/ ?minute"
        ),
    ),
    (
        K.AUTH_FAILED,
        _re(
            r"(invalid|incorrect|missing|no|expired|revoked|bad) (x-)?api[ _-]?(key|token)"
            r"|api[ _-]?key (not valid|is invalid|invalid|expired|not found)|unauthori[sz]ed"
            r"|authentication|invalid (credentials|bearer token|token|subscription key)"
            r"|security token.{0,40}invalid"
        ),
    ),
    (
        K.PERMISSION_DENIED,
        _re(
            r"permission|not authori[sz]ed to|access denied|forbidden|do(n'?t| not) have access"
            r"|not allowed to|(region|location|country) is not supported"
        ),
    ),
    (K.TIMEOUT, _re(r"timed? ?out|deadline exceeded|time-?out")),
    (
        K.SERVER_ERROR,
        _re(r"internal (server )?error|bad gateway|service unavailable|upstream|server error"),
    ),
)


def kind_for_status(status: int | None) -> Kind | None:
    """The kind the HTTP status alone implies, ``None`` for a success or no status."""
    if status is None or status < 400:
        return None
    exact = _STATUS.get(status)
    if exact is not None:
        return exact
    return K.SERVER_ERROR if status >= 500 else K.INVALID_REQUEST


_STATUS: dict[int, Kind] = {
    400: K.INVALID_REQUEST,
    401: K.AUTH_FAILED,
    402: K.QUOTA_EXHAUSTED,
    403: K.PERMISSION_DENIED,
    404: K.MODEL_NOT_FOUND,
    408: K.TIMEOUT,
    413: K.CONTEXT_TOO_LONG,
    422: K.INVALID_REQUEST,
    429: K.RATE_LIMIT,
    499: K.TIMEOUT,
    500: K.SERVER_ERROR,
    502: K.SERVER_ERROR,
    503: K.SERVER_ERROR,
    504: K.TIMEOUT,
    520: K.SERVER_ERROR,
    521: K.SERVER_ERROR,
    522: K.TIMEOUT,
    523: K.SERVER_ERROR,
    524: K.TIMEOUT,
    529: K.MODEL_OVERLOADED,
}


def _text_kind(rules: tuple[tuple[Kind, re.Pattern[str]], ...], text: str) -> Kind | None:
    """The kind of the first rule matching ``text`` (the reference the fast tables keep to)."""
    if not text:
        return None
    for kind, pattern in rules:
        if pattern.search(text):
            return kind
    return None


# The same tables evaluated on lower-cased text behind a keyword pre-filter (see _fastre): the
# same first-matching row, several times faster.
_TRANSPORT = RuleTable(TRANSPORT_RULES)
_STRONG = RuleTable(STRONG_TEXT)
_TEXT = RuleTable(TEXT_RULES)


def decide(finding: Finding, status: int | None, *, transport: bool = False) -> Kind:
    """The kind of a failure: the first of the six steps in the module docstring to answer.

    ``transport`` is true when no response was received (``status`` is ``None`` and the text
    describes an exception): :data:`TRANSPORT_RULES` then come first.
    """
    if finding.kind is not None:
        return finding.kind
    text = finding.message
    low = lowered(text)
    if transport:
        kind = _TRANSPORT.first(text, low)
        if kind is not None:
            return kind
    kind = _STRONG.first(text, low)
    if kind is not None:
        return kind
    codes = [norm_code(c) for c in finding.codes if c]
    for c in codes:
        kind = STRONG_CODES.get(c)
        if kind is not None:
            return kind
    kind = _TEXT.first(text, low)
    if kind is not None:
        return kind
    for c in codes:
        kind = WEAK_CODES.get(c)
        if kind is not None:
            return kind
    kind = kind_for_status(status if status is not None else finding.status)
    return kind if kind is not None else K.UNKNOWN
