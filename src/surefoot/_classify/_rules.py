"""The decision tables: provider codes, message text and HTTP status to a :class:`Kind`.

A dialect extracts a :class:`Finding` (message, codes, maybe a kind it is sure of); then
:func:`decide` walks, in this order, and the first answer wins:

1. the kind the dialect decided itself (Gemini's per-minute vs per-day ``QuotaFailure``, ...);
2. :data:`STRONG_TEXT`: phrases that beat any code ("Request too large ... tokens per min" is
   context_too_long although its code says ``rate_limit_exceeded``; "credit balance is too
   low" is quota_exhausted although Anthropic types it ``invalid_request_error``);
3. :data:`STRONG_CODES`: provider codes that name the cause exactly, and for a code none of
   the tables lists, :data:`CODE_FAMILIES` (its parts: ``..._usage_limit_reached`` is a spent
   quota, ``..._policy`` a content filter), most specific code first;
4. :data:`TEXT_RULES`: message phrases, each row a family of phrasings;
5. :data:`WEAK_CODES`: generic codes (``invalid_request_error``, ``api_error``, ...);
6. :func:`kind_for_status`: the HTTP status alone.

Then numbers in a limit message may correct the answer (:mod:`surefoot._classify._limits`).
The step that answered leaves a constant label in ``Finding.reason`` (the error's
``classified_by``). Adding a provider's wording is one row in a table, never a new branch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from surefoot._classify._fastre import RuleTable, lowered
from surefoot._classify._kinds import Kind
from surefoot._classify._limits import limits_kind, window_kind

if TYPE_CHECKING:
    from surefoot.problem import ProblemDetails

__all__ = [
    "NOTHING_MATCHED",
    "STRONG_CODES",
    "STRONG_TEXT",
    "TEXT_RULES",
    "TRANSPORT_DEFAULT_LABEL",
    "TRANSPORT_RULES",
    "WEAK_CODES",
    "WIDE_RULES",
    "Finding",
    "decide",
    "kind_for_status",
    "norm_code",
    "phrase_kind",
    "transport_finding",
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
    #: What decided the kind (``err.context.metadata["classified_by"]``): a constant label of
    #: the rule, set by :func:`decide` or by the dialect that decided the kind itself.
    reason: str = ""


def norm_code(code: object) -> str:
    """A code compared case- and punctuation-insensitively: ``Throttling-Exception`` ->
    ``throttlingexception``; Bedrock's ``ns#ThrottlingException:url`` -> its bare name."""
    s = code if isinstance(code, str) else str(code)
    if "#" in s:
        s = s.rsplit("#", 1)[1]
    if ":" in s:
        s = s.split(":", 1)[0]
    s = s.lower()
    if s.isascii():  # the common case, without the regex engine
        return s.translate(_DROP_ASCII)
    return _NOT_ALNUM.sub("", s)


#: Every ASCII character but ``[a-z0-9]`` (the text is lower-cased first), for ``translate``.
_DROP_ASCII = {c: None for c in range(128) if not chr(c).isalnum() or chr(c).isupper()}
_NOT_ALNUM = re.compile(r"[^a-z0-9]")


#: ``classified_by`` labels of the exact codes, by normalised code: ``code=rate_limit_error``.
CODE_LABELS: dict[str, str] = {}


def _codes(kind: Kind, *names: str) -> dict[str, Kind]:
    for n in names:
        CODE_LABELS.setdefault(norm_code(n), f"code={n}")
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
        "credits_required",  # Anthropic: the plan's usage credits are spent (a 429)
        "usage_limit_reached",  # OpenAI Codex / ChatGPT plan window spent (hours away)
        "usage_limit_exceeded",
        "spend_limit_reached",
        "spend_limit_exceeded",
        "budget_exceeded",
        "key_limit_exceeded",
    ),
    **_codes(
        K.CONTEXT_TOO_LONG,
        "context_length_exceeded",
        "model_context_window_exceeded",
        "context_window_exceeded",
        "request_too_large",
        "LLM_CONFIG_CONTEXT_TOO_SMALL",
        "prompt_too_long",
        "input_too_long",
        "too_many_prompt_tokens",  # Perplexity: "The total length of all messages is too long."
        "max_tokens_per_request",  # OpenAI embeddings: "Requested N tokens, max M per request"
    ),
    **_codes(
        K.QUOTA_EXHAUSTED,
        "Arrearage",  # DashScope: the account is in arrears ("... in good standing")
        "AllocationQuota.FreeTierOnly",  # DashScope: the free tier is spent, paid use is off
    ),
    **_codes(
        K.PERMISSION_DENIED,
        "ModelNotOpen",  # Volcengine Ark: the account has not activated this model
    ),
    **_codes(
        K.INVALID_REQUEST,
        # request-format limits: a field, array, image or file over its bound
        "string_above_max_length",
        "array_above_max_length",
        "array_below_min_length",
        "integer_above_max_value",
        "image_too_large",
        "image_file_too_large",
        "file_too_large",
        "payload_too_large",
        "invalid_image_format",
        "invalid_base64_image",
        "missing_thought_signature",
        "unsupported_file",  # Responses API: a file type no input takes ("try again with a pdf")
        "UnknownOperationException",  # AWS: no operation at this path (a wrong URL)
    ),
    **_codes(
        K.CAPABILITY_MISMATCH,
        "OperationNotSupported",
        "unsupported_parameter",  # OpenAI: "'max_tokens' is not supported with this model"
        "claude_code_version_too_old",  # Anthropic: the client cannot use this model
        "model_not_supported_for_feature",
        "unsupported_feature",
        "feature_not_supported",
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
        "cyber_policy",  # OpenAI Codex / Responses: flagged for cybersecurity risk
        "image_content_policy_violation",
        "invalid_prompt",  # Responses API: the prompt was flagged
    ),
    **_codes(
        K.MODEL_OVERLOADED,
        "overloaded_error",
        "overloaded",
        "ModelNotReadyException",
        "engine_overloaded",
        "capacity_exceeded",
        "ServiceUnavailableException",
        "server_is_overloaded",  # Responses API response.failed
    ),
    **_codes(
        K.MODEL_NOT_FOUND,
        "model_not_found",
        "DeploymentNotFound",
        "ResourceNotFoundException",
        "model_not_available",
        "unavailable_model",  # Azure AI Foundry: "Unavailable model: text-embedding-3-large"
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
        "organization_restricted",
        "organization_suspended",
        "account_suspended",
        "account_deactivated",
    ),
    **_codes(
        K.MALFORMED_TOOL_CALL,
        "tool_use_failed",
        "MALFORMED_FUNCTION_CALL",
        "json_validate_failed",  # Groq JSON mode: the model's output failed validation
    ),
    **_codes(
        K.TIMEOUT,
        "ModelTimeoutException",
        "DEADLINE_EXCEEDED",
        "TASK_DEADLINE_EXCEEDED",
        "vector_store_timeout",
    ),
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
        "unsupported_value",  # the message says whether it is the model's limit
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
        "provider_unavailable",  # OpenRouter's metadata.error_type: its words decide first
        "service_unavailable",
        "DATA_LOSS",
    ),
    **_codes(K.MODEL_NOT_FOUND, "not_found_error", "NOT_FOUND", "NotFoundError"),
    **_codes(K.RATE_LIMIT, "RESOURCE_EXHAUSTED"),
    **_codes(K.TIMEOUT, "timeout", "request_timeout", "timeout_error"),
}


def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE | re.DOTALL)


#: A text rule as written: its kind, a short name for the family of phrasings it covers (the
#: ``classified_by`` label), and its regex.
Spec = tuple[Kind, str, str]


def _table(
    specs: tuple[Spec, ...],
) -> tuple[tuple[tuple[Kind, re.Pattern[str]], ...], tuple[str, ...]]:
    """The ``(kind, pattern)`` rows of ``specs`` and, parallel to them, each row's label."""
    rows = tuple((kind, _re(pattern)) for kind, _, pattern in specs)
    labels = tuple(f"message matched {name} -> {kind.value}" for kind, name, _ in specs)
    return rows, labels


_STRONG_TEXT_SPECS: tuple[Spec, ...] = (
    # a tool call the model wrote as XML that did not parse (Ollama's and vLLM's XML tool
    # parsers: "XML syntax error on line 3: unexpected EOF"): requests are JSON, so an XML
    # parse failure is the model's output, not the request nor a cut connection
    (
        K.MALFORMED_TOOL_CALL,
        "'XML syntax error' (the model's XML tool call)",
        r"\bxml (syntax|parse|parsing) error\b",
    ),
    # a local runtime whose model process died ("The model has crashed without additional
    # information. (Exit code: null)"): the server's failure, another try may load it again
    (
        K.SERVER_ERROR,
        "'the model has crashed' (a runtime's process died)",
        r"\b(model|model process|worker|runner|backend|engine) (has |had )?crashed\b",
    ),
    # a front end's "Service Temporarily Unavailable" without its status (a client's
    # repr of it): what the corpus holds the same 503 page as
    (
        K.SERVER_ERROR,
        "'service temporarily unavailable' (a 503 in words)",
        r"\bservice (is )?temporarily unavailable\b",
    ),
    # the provider says it is overloaded ("The engine is currently overloaded, please try again
    # later", sent as a 429 typed ``requests``): capacity, whatever a rate code says
    (
        K.MODEL_OVERLOADED,
        "'the engine is currently overloaded' (capacity)",
        r"\b(the )?(engines?|models?|servers?|services?|systems?|clusters?|backends?|gpus?) "
        r"(is |are )(currently |temporarily )?overloaded\b"
        r"|\bcapacity (is )?(temporarily )?(exceeded|unavailable)\b",
    ),
    # the content filter itself failed ("content_filter_error": "The contents are not
    # filtered"): nothing was blocked, the service erred
    (
        K.SERVER_ERROR,
        "'the contents are not filtered' (the filter failed)",
        r"\bcontents? (are|is|was|were|could) not (be )?filtered\b",
    ),
    # a field the request must carry, or two it may not carry together ("field messages is
    # required", "Cannot use both json_schema and grammar"): the request's, whatever status
    # or code a relay or server puts on it
    (
        K.INVALID_REQUEST,
        "'field x is required' / 'cannot use both' (the request's fields)",
        r"\b(field|parameter|property|argument|param) ['\"`]?[\w.\[\]-]{1,60}['\"`]? is required\b"
        r"|\bcannot (use|specify|set|pass|combine|provide) both\b|\b(are|is) mutually exclusive\b"
        r"|\bcannot be (used|specified|set|combined|provided) together\b",
    ),
    # a relay that lost its upstream's stream while reading it ("stream_read_error", an
    # upstream read error): the exchange broke, whatever a server word beside it says
    (
        K.NETWORK,
        "'stream read error' (an upstream read that broke)",
        r"\bstream[_ ]read[_ ](error|failed|failure)\b|\b(upstream|socket) read (error|failed)\b"
        # a stream that stopped before its last event ("Upstream stream ended without a
        # terminal response event")
        r"|\bstream (ended|closed|finished|stopped|terminated)( unexpectedly| prematurely| early)?"
        r" (without|before) (a |an |the |any )?(terminal|final|completion|completed|done|end|finish"
        r"|last)\b",
    ),
    (
        K.CONTEXT_TOO_LONG,
        "'request too large ... tokens per min'",
        r"request too large.{0,200}(tokens? per min|\btpm\b)|input or output tokens must be "
        r"reduced",
    ),
    # older vLLM: max_tokens = window - prompt; negative means the prompt alone overflows
    (
        K.CONTEXT_TOO_LONG,
        "'max_tokens must be at least 1, got -N'",
        r"max_tokens must be at least 1, got -\d",
    ),
    # a token cap of the request per model ("Request body too large for gpt-5-mini model.
    # Max size: 4000 tokens."): the input is too long for it, before the byte-size row
    (
        K.CONTEXT_TOO_LONG,
        "'too large for model x: max size N tokens' (a token cap)",
        r"\btoo large for [^.\n]{0,60}\bmodel\b[^\n]{0,40}\bmax(imum)? size:? ?\d+ tokens\b",
    ),
    # an HTTP payload limit (a proxy's 413 reason phrase) beats a provider's size code
    (
        K.INVALID_REQUEST,
        "'entity too large' (byte size)",
        r"(entity|payload|request body) too large",
    ),
    # a field the API renamed or moved ("Unsupported parameter: 'reasoning_effort'. In the
    # Responses API, this parameter has moved to 'reasoning.effort'"): the request's spelling,
    # whatever the code says of support
    (
        K.INVALID_REQUEST,
        "'this parameter has moved to' (a renamed field)",
        r"\b(parameter|field|argument|option|property) has (been )?(moved|renamed) to\b"
        r"|\bhas (been )?renamed to\b",
    ),
    # the tool call arguments the caller sent back (a replayed turn) are not JSON: the
    # request's, even when a relay wraps it in "upstream request failed"
    (
        K.INVALID_REQUEST,
        "'arguments must be valid JSON' (the request's tool call)",
        r"`?arguments`? must be (a )?valid json",
    ),
    # a model open only to some account tiers ("Access to this model is allowed for build
    # tier 2 and above"): the account's access, before any word of credits or billing
    (
        K.PERMISSION_DENIED,
        "'access to this model is allowed for tier N' (a tier gate)",
        r"\baccess to this model is (only )?(allowed|available|granted|restricted|limited) (for"
        r"|to) [^.\n]{0,40}\btiers?\b",
    ),
    # a local server running with no model in memory ("No models loaded. Please load a
    # model"): there is no model to answer, whatever the code says
    (
        K.MODEL_NOT_FOUND,
        "'no models loaded' (a server without a model)",
        r"\bno models? (is |are )?(currently )?loaded\b",
    ),
    # a gateway's model list for a team or key ("Invalid model for team x: y. Valid models
    # for team are: [...]"): the model exists, this caller may not use it
    (
        K.PERMISSION_DENIED,
        "'invalid model for team' (a key's or team's model list)",
        r"\binvalid model for (team|key|user|project|organi[sz]ation)\b|\bvalid models for (this "
        r")?(team|key|user|project)\b",
    ),
    # a route kept for the gateway's admin ("Only master key can be used to generate ..."):
    # the key is valid, the route is not its, whatever the auth words beside it
    (
        K.PERMISSION_DENIED,
        "'only the master key can' (an admin route)",
        r"\bonly (the )?(master|admin|proxy admin|root) (keys?|users?|accounts?) (can|may|are "
        r"allowed)\b",
    ),
    # a model the backend does not offer to this caller ("The requested model is not
    # supported."): no such model here, whatever the code's word of support
    (
        K.MODEL_NOT_FOUND,
        "'the requested model is not supported' (not offered)",
        r"\bthe (requested|specified|selected) model is not (supported|offered)\b",
    ),
    (
        K.QUOTA_EXHAUSTED,
        "'credit balance is too low'",
        r"credit balance is too low|insufficient[_ ]quota",
    ),
    (
        K.QUOTA_EXHAUSTED,
        "'insufficient credits'",
        r"\b(insufficient|not enough) (credits?|balance|funds)\b|\b(account )?(balance|credits?"
        r"|funds) (is |are )?(insufficient|not enough|too low)\b",
    ),
    (
        K.QUOTA_EXHAUSTED,
        "'don't have enough credits'",
        r"(do not|don'?t) have enough credits?|out-of-credit",
    ),
    (
        K.QUOTA_EXHAUSTED,
        "'requires more credits'",
        r"requires more credits|can only afford|credits (are )?depleted"
        r"|(doesn'?t|does not|don'?t|do not) have any credits|\bno credits (yet|left|remaining)"
        r"|credits are required|credits? required|credit is required",
    ),
    (
        K.QUOTA_EXHAUSTED,
        "'billing limit'",
        r"billing (hard )?limit|exceeded your (monthly|spend|current quota)",
    ),
    # spend / usage / budget caps: nothing clears them before the period or the cap changes,
    # whatever the status or the type ("rate_limit_error", "invalid_request_error") says
    (
        K.QUOTA_EXHAUSTED,
        "'usage limit reached' (spend cap)",
        r"(usage limit|spend limit|spending limit|budget limit|key limit|credit limit|usage cap"
        r"|spend cap)s? (has been |have been |was )?(reached|exceeded|hit)",
    ),
    (
        K.QUOTA_EXHAUSTED,
        "'reached your usage limits' (spend cap)",
        r"(reach(ed|es|ing)?|exceed(ed|s|ing)?|hit(ting)?|over) (your|the|its|their|a) "
        r"[a-z' ]{0,30}(spend limit|spending limit|usage limit|budget limit|spend cap"
        r"|spending cap|usage cap|budget cap|credit limit)",
    ),
    # an unpaid bill: the account waits for a payment, not for time
    (
        K.QUOTA_EXHAUSTED,
        "'failure to pay invoices' (billing)",
        r"(failure|failed) to pay|unpaid (invoices?|bills?|balance)|(past[ -]due|overdue) "
        r"(invoices?|payments?|balance|bills?)|outstanding (invoices?|balance)",
    ),
    # a model past its life ("This Model is marked by provider as Legacy ... upgrade to an
    # active model"): gone for this caller whatever the access words say
    (
        K.MODEL_NOT_FOUND,
        "'model is marked as legacy' (a retired model)",
        r"\bmarked (by (the )?provider )?as (legacy|retired|end[- ]of[- ]life|deprecated and "
        r"removed)\b|\b(legacy|retired|decommissioned|end[- ]of[- ]life) model\b[^.\n]{0,80}\b("
        r"upgrade|switch|migrate|move)\b|\bupgrade to an active model\b",
    ),
    # a gateway whose every upstream failed ("All AI providers failed to respond ...
    # [429] ... [500] ..."): the gateway's failure, whatever the upstreams' words
    (
        K.SERVER_ERROR,
        "'all providers failed' (a gateway's failover exhausted)",
        r"\ball (the )?(ai |upstream |configured |available )?(providers|upstreams|backends"
        r"|deployments|endpoints|channels) (failed|have failed|are (unavailable|down)|returned "
        r"errors?)\b",
    ),
    # a mode the server cannot serve ("cannot govern streaming ... Retry with stream=false"):
    # the request works without it, whatever a policy code says
    (
        K.CAPABILITY_MISMATCH,
        "'cannot serve streaming' (mode)",
        r"(cannot|can'?t|can not|does not|doesn'?t|do not|don'?t) (yet )?(govern|support|serve"
        r"|handle|be used with|work with) (streaming|streamed|stream)\b|\bretry with "
        r"['\"`]?stream['\"`]?\s*[=:]\s*false\b|\bstreaming (is |are )?(not|n'?t) (yet )?"
        r"(supported|available|allowed)\b",
    ),
    # access to one model withheld from this project or key: the model exists (a 403 that
    # some providers still code ``model_not_found``)
    (
        K.PERMISSION_DENIED,
        "'does not have access to model' (access, not existence)",
        r"(does not|doesn'?t|do not|don'?t) have access to (the |this )?model\b"
        r"|(does not|doesn'?t|do not|don'?t) have access to the [\w -]{1,30} (api|feature"
        r"|endpoint)\b"
        r"|(has no|have no|without|lacks?|lacking) access to (the |this )?model\b"
        # an identity without the role for this operation ("Principal does not have access to
        # API/Operation."): Azure's RBAC refusal
        r"|(does not|doesn'?t|do not|don'?t) have access to (the |this )?(api/operation|api"
        r"|operation|resource)\b(?! (key|version))"
        r"|not allowed to (sample from|use|access|call) (the |this )?model\b",
    ),
    # a mode the plan does not include ("Extra usage is required for long context requests",
    # typed rate_limit_error): no wait helps, dropping the mode does
    (
        K.CAPABILITY_MISMATCH,
        "'extra usage is required for long context' (plan gate)",
        r"(extra|additional) usage (is )?required|required for long[- ]context"
        r"|long[- ]context (requests? )?(requires|is not (available|included))",
    ),
    # access to a model withheld until the account does something (a use-case form, a
    # subscription): permission, whatever code (Bedrock's ResourceNotFoundException) says, and
    # before the rows that read "for this model" as a restriction
    (
        K.PERMISSION_DENIED,
        "'requires a subscription' / 'use-case form' (access gate)",
        r"use[- ]case (form|details)|requires? a (paid )?subscription|subscription (is )?required"
        r"|upgrade (your plan )?for access|(not been|not|never been) granted access"
        r"|access (has not been|was not|is not) granted|request(ing)? access (to|before)"
        # a model the account must switch on first ("has not activated the model x. Please
        # activate the model service in the Ark Console")
        r"|\b(has not|have not|hasn'?t|haven'?t) (yet )?(activated|enabled|opened) (the |this )?"
        r"(model|service)\b|\bactivate the model( service)?\b",
    ),
    # a credential of a kind this API does not take ("API keys are not supported by this API.
    # Expected OAuth2 access token"): the caller's credentials, before the rows that read "not
    # supported by" as a model's capability
    (
        K.AUTH_FAILED,
        "'API keys are not supported by this API' (credential type)",
        r"\b(api[ _-]?keys?|bearer tokens?|access tokens?|oauth ?2?( access)? tokens?|credentials?"
        r"|authentication (methods?|types?|schemes?))\b (are |is )?(not (supported|accepted"
        r"|allowed)|unsupported) (by|for|on|with|in) (this|the) (api|service|endpoint|server)\b"
        r"|\bexpected (an? )?(oauth ?2?|bearer|access) (access )?token\b",
    ),
    # a model that exists but not behind this API ("The requested model 'gpt-4o-search-preview'
    # is not supported with the Responses API", coded model_not_found): the model lacks the
    # API, another API or model serves the request
    (
        K.CAPABILITY_MISMATCH,
        "'model x is not supported with the Responses API' (an API the model lacks)",
        r"\bmodel\b[^.\n]{0,80}\b(is|are) not supported (with|by|on|in|for|via|through) the "
        r"[\w./ -]{1,30} (api|endpoint)\b",
    ),
    # no identity at all, although Google types it PERMISSION_DENIED
    (
        K.AUTH_FAILED,
        "'unregistered callers' (no credentials)",
        r"unregistered callers|without established identity",
    ),
    # a byte bound on the body beats a provider's size code that also covers the window
    (
        K.INVALID_REQUEST,
        "'maximum allowed number of bytes' (body size)",
        r"(maximum|max|allowed) (allowed )?(number of )?bytes\b|request body size\b"
        r"|(request|payload) body\b[^.\n]{0,30}\b(length|size) limit",
    ),
    # the ids of earlier tool calls, which the caller sends back, breaking a format rule
    # ("Tool call id was toolu_01... but must be a-z, A-Z, 0-9"): the request, not the model's
    # output, whatever code names a function call
    (
        K.INVALID_REQUEST,
        "'tool call id ... must be' (ids the caller sent)",
        r"tool[_ ]?(call|use)[_ ]?ids?\b[^.\n]{0,80}\b(must (be|match|contain|have)|should be"
        r"|is not valid|is invalid|are invalid|does not match|doesn'?t match|expected to)",
    ),
    (
        K.AUTH_FAILED,
        "'api key was reported as leaked'",
        r"api key (was reported as leaked|has been revoked|expired)",
    ),
)

# an SDK that will not send a long request without streaming ("Streaming is strongly
# recommended for operations that may take longer than 10 minutes"): the call's form, not a
# wait that ran out, so before the transport rows' "timeout" too
_STREAMING_REQUIRED: Spec = (
    K.INVALID_REQUEST,
    "'streaming is strongly recommended for long operations' (an SDK's refusal)",
    r"\bstreaming is (strongly )?(recommended|required) for (operations|requests)\b",
)

#: The label of the transport row whose failure no retry mends (see :data:`FINAL_TRANSPORT`).
_CORS_LABEL = "'blocked by CORS policy' (a browser's refusal)"

_TRANSPORT_SPECS: tuple[Spec, ...] = (
    _STREAMING_REQUIRED,
    # a browser that refused the response for want of CORS headers: no response reaches the
    # caller, and none will until the server allows the origin
    (
        K.NETWORK,
        _CORS_LABEL,
        r"\bblocked by cors policy\b|\bcors (request did not succeed|header .{0,40} missing"
        r"|preflight)|no 'access-control-allow-origin' header",
    ),
    (
        K.TIMEOUT,
        "'timed out'",
        r"timed? ?out|timeout|deadline[ _]?exceeded"
        r"|did not properly respond after a period of time",
    ),
    # the provider's words for overload inside a client's wrapper ("OpenAIAPIError:
    # [server_error] That model is currently overloaded with other requests. You can retry
    # ..."), or a stream's error that names one ("stream error: We're currently experiencing
    # high demand"): before the lost-connection and server-error rows its words match
    (
        K.MODEL_OVERLOADED,
        "'currently overloaded' (overload inside)",
        r"\b(is |are )?(currently )?overloaded\b|\b(over|at) capacity\b|\bhigh demand\b",
    ),
    # the provider's words for a spent quota inside a client's stream wrapper ("stream error:
    # stream disconnected before completion: You exceeded your current quota, please check
    # your plan and billing details."): the cause inside decides, as for an overload
    (
        K.QUOTA_EXHAUSTED,
        "'exceeded your current quota' (quota inside)",
        r"exceeded your current quota|\binsufficient[_ ]quota\b|check your plan and billing",
    ),
    # a connection that died under the response (undici's "terminated" / UND_ERR_SOCKET, an
    # HTTP/2 stream reset): before the server-error row, which its wrapped text may mention
    (
        K.NETWORK,
        "'terminated' / 'other side closed' (connection lost)",
        r"\bterminated\b|und_err_socket|other side closed|socketerror|socket (disconnected"
        r"|closed)|\bnet::err_|err_connection|(h2|http2|http/2) protocol error|stream error"
        r"(:| received| in\b)|rst_stream|\bgoaway\b|error sending request|error decoding "
        r"response|error reading (a )?(response )?body|closed the connection|closed idle "
        r"connection|forcibly closed|handshake|\btls\b|x509|certificate|reset by peer|stream "
        r"(was )?reset|streamreset|connection attempts? failed",
    ),
    # a client's wrapper ("stream disconnected before completion: ...") around the provider's
    # own words for a server failure: the cause inside decides
    (
        K.SERVER_ERROR,
        "'an error occurred while processing your request' (server error inside)",
        r"(an )?error occurred while processing (your|the) request|you can retry your request"
        r"|internal server error|bad gateway|service unavailable|\b50[0-4] (server )?error"
        r"|status( code)?:? 5\d\d\b",
    ),
    (
        K.NETWORK,
        "'connection refused/reset'",
        r"connection (refused|reset|aborted|error|closed)|name or service not known"
        r"|temporary failure in name resolution|getaddrinfo|name ?resolution|no route to host"
        r"|network is unreachable|failed to establish a new connection|econn(reset|refused)"
        r"|enotfound|peer closed connection|incomplete chunked read|remote ?protocol ?error"
        r"|closed unexpectedly|remote end closed|server disconnected|broken pipe"
        r"|unable to connect|connecterror|certificate verify failed|ssl|eof occurred"
        r"|nodename nor servname|could not resolve|connection was closed|socket hang up"
        r"|fetch failed|incomplete ?read|chunkedencodingerror|cannot connect to host"
        r"|payload is not completed"
        # the body ended early or never came: an empty or truncated response
        r"|unexpected end of (json|input|stream|file|data)|invalid json response body"
        # a body that was not the JSON asked for (an HTML error page parsed as JSON)
        r"|unexpected token\b.{0,40}\b(in json at position|is not valid json)\b"
        r"|empty (reply|response) from (the )?server|premature (close|end)|unexpected eof"
        r"|ended prematurely|response (body )?(was )?(truncated|incomplete)"
        r"|prematurely closed|prematurecloseexception|transfer closed with outstanding read data"
        r"|\bcurl: \((18|52|56)\)"
        r"|connection (was )?(lost|dropped|terminated)|expecting value: line 1 column 1"
        # other runtimes' words (Node, Go, Rust hyper, Java, .NET, browsers)
        r"|ehostunreach|enetunreach|econnaborted|eai_again|incompletemessage|connectionreset"
        r"|no such host|failed to connect|while sending the request|networkerror|failed to "
        r"fetch|connection broken"
        # an aborted exchange (a fetch AbortError), a stream that stopped short of its end
        r"|(operation|request|stream|fetch|connection) (was|has been) aborted|aborterror"
        # OkHttp ("java.io.EOFException: \n not found", "unexpected end of stream on ...")
        r"|\beofexception\b|\bunexpected end of stream\b"
        # Go's url.Error for the client's own request (``Post "https://...": EOF``)
        r"|https?://[^\s'\"]+['\"]?: (eof|unexpected eof)\b|\bdial tcp\b|\bread tcp\b"
        r"|stream (ended|closed|finished|stopped)( unexpectedly| prematurely| early)? (without"
        r"|before)",
    ),
)

#: Request features a model or an API may lack, as a message names them (a regex group).
_FEATURE = (
    r"(tools?|tool_choice|tool_config|functions?|function_call(ing)?|parallel_tool_calls"
    r"|response_format|json_schema|json_object|json[_ ]mode|structured[_ ]outputs?|logprobs"
    r"|top_logprobs|logit_bias|reasoning(_effort)?|thinking|stream(ing|_options)?|vision"
    r"|image_url|images?|input_audio|audio|modalities|documents?|pdfs?|system[_ ](prompt"
    r"|message)s?|temperature|top_p|top_k|seed|stop|presence_penalty|frequency_penalty"
    r"|prediction|web_search(_options)?|(live|web) search|search_parameters|citations"
    r"|cache_control|service_tier|n)"
)

_TEXT_SPECS: tuple[Spec, ...] = (
    # a gateway's spend budget for a key, team or deployment ("crossed budget", "Budget has
    # been exceeded"): no wait refills it
    (
        K.QUOTA_EXHAUSTED,
        "'budget exceeded' (spend budget)",
        r"(exceeded|crossed|over|reached|exhausted|spent) (the |your |its |their |a )?"
        r"(max(imum)? |monthly |daily |spend(ing)? )?budget\b|\bbudget (has been |have been "
        r"|was |is )?(exceeded|crossed|reached|exhausted|spent)"
        # the cap named with its amount ("Workspace monthly budget of $500.00 exceeded")
        r"|\bbudget (of|for) \S{1,30}( \S{1,30})? (has been |have been |was |is )?(exceeded"
        r"|crossed|reached|exhausted|spent)\b",
    ),
    # what is limited decides, before the context row reads "exceeds the maximum length":
    # a batch of inputs, or a bound counted in items / characters / bytes, is the request's
    # format (split the batch, shorten the field), never the model's context window
    (
        K.INVALID_REQUEST,
        "'too many tokens in batch' (batch limit)",
        r"(tokens?|inputs?|texts?|items?|requests?|documents?|strings?|embeddings?) (in|per) (the "
        r"|a |one |each |your )?batch\b|batch (size|length)\b|batch (is |was )?too (large|big|long)"
        r"|max(imum)? batch\b",
    ),
    (
        K.INVALID_REQUEST,
        "'exceeds the maximum length of N items' (count or size bound)",
        r"(max(imum)?|limit|at most|exceeds?|exceeded|up to|no more than|less than( or equal to)?"
        r"|longer than|larger than|greater than|over)\b[^.\n]{0,40}?\b\d[\d,.]* ?(items?"
        r"|elements?|entries|characters?|chars|bytes?|messages|strings|images?|files?"
        r"|tools?|functions?|pages?|documents?)\b",
    ),
    # the output budget named as what is too large ("'max_tokens' ... is too large: 5000.
    # This model's maximum context length is 4096"): lower max_tokens, the input may stay
    (
        K.INVALID_REQUEST,
        "'max_tokens is too large' (output bound named first)",
        r"(^|requested |[`'\"])max_(completion_|output_)?tokens['`\"]?( or ['`\"]?"
        r"max_completion_tokens['`\"]?)? (is too large|(of )?\d[\d,]* exceeds\b|exceeds\b)",
    ),
    (
        K.CONTEXT_TOO_LONG,
        "'maximum context length'",
        r"context[_ ]length|maximum context|context window|context limit|prompt (is )?too long"
        r"|context size|must have less than \d+ tokens|tokens of context"
        r"|input (is )?too long|(input|prompt)? ?token count.{0,60}exceeds"
        r"|exceeds? the (model'?s? )?max(imum)? (number of )?(context|input|prompt)? ?"
        r"(tokens|length)|maximum (number of )?tokens allowed|is too large for the model"
        r"|`?inputs`? tokens \+ `?max_new_tokens`? must be"
        r"|(input|prompt) tokens? exceeds?|max(imum)? model length|max_model_len"
        r"|\bprompt[_ ]tokens\b[^.\n]{0,40}\b(must be (less|smaller|fewer) than|exceeds?"
        r"|greater than|larger than)\b[^.\n]{0,20}\bmax[_ ](seq|sequence|position|input)[_ ]?"
        r"(len|length)\b"
        r"|token count (is |of )?\d[\d,]*\b[^.\n]{0,40}\b(but|exceeds|over|more than)\b"
        r"|only supports up to \d[\d,]* (input |prompt )?tokens"
        r"|max(imum)? (input|prompt) length|max(imum)? sequence length|sequence length "
        r"(exceeds|exceeded|is too long)|(conversation|chat history|thread|dialog(ue)?) (is |has "
        r"grown )?too long"
        r"|exceeds? (the |this )?(model'?s?|model) (max(imum)? )?(token|context) (limit|length"
        r"|window|size)",
    ),
    (
        K.INVALID_REQUEST,
        "'max_tokens > N' (output bound)",
        r"max[_ ]?tokens`?:? (must|\d+ >)|maximum (allowed )?number of output tokens"
        r"|maximum tokens you requested|max_(completion_)?tokens'? is too large"
        r"|supports at most \d+ (completion|output) tokens",
    ),
    # a request-format size limit: a field, array, file, image or body over its bound (tokens
    # are the context window's business, above and below)
    (
        K.INVALID_REQUEST,
        "'string too long' (request-format limit)",
        r"string too long|array too long|maxlength|max_length|member must have length"
        r"|with maximum length|with max length|(string|array|list|field|value) is too long"
        r"|too many (images|files|tools|functions|items|documents|stop sequences|pdfs|pages"
        r"|attachments)",
    ),
    (
        K.INVALID_REQUEST,
        "'at most N images' (request-format limit)",
        r"(at most|maximum of|up to|no more than) \d+ (images?|files?|tools?|items?"
        r"|documents?|functions?|stop sequences?|pdfs?|pages?|attachments?)\b",
    ),
    (
        K.INVALID_REQUEST,
        "'file too large' (byte-size limit)",
        r"(image|file|pdf|document|upload|attachment|payload|body)s? (is |are )?(too large"
        r"|too big)|(image|file|pdf|document|upload|attachment|payload|body|request) size "
        r"(is |are )?(too large|too big|exceeds?|limit)|(request|body|payload|upload) (body )?"
        r"size\b[^.\n]{0,30}\b(exceeded|too large|too big)",
    ),
    # a per-minute or per-second budget named as what was exceeded ("Tokens per minute limit
    # exceeded - too many tokens processed"): the window refills
    # a token the input may not hold ("contains an invalid token: <|fim_suffix|>", "disallowed
    # special token"): the data, not a credential
    # data the caller sent back that the server cannot open ("The encrypted content for item
    # cmp_... could not be verified", a reasoning item from another organization)
    (
        K.INVALID_REQUEST,
        "'encrypted content could not be verified' (replayed data)",
        r"\bencrypted[ _]content\b[^\n]{0,120}\b(could not|cannot|can'?t|failed to) be (verified"
        r"|decrypted|parsed|validated)|\b(could not|cannot|can'?t|failed to|unable to) (decrypt"
        r"|verify|validate) (the )?(provided |supplied |given )?encrypted[ _]content\b",
    ),
    (
        K.INVALID_REQUEST,
        "'contains an invalid token' (input data)",
        r"(contains?|containing|found|encountered|includes?)( an?)? (invalid|forbidden|disallowed"
        r"|reserved|illegal|unsupported) (special )?tokens?\b|disallowed special tokens?"
        r"|special tokens? (is |are )?not allowed|file format error|invalid file format",
    ),
    # the Batch API's queue of enqueued tokens is full ("Enqueued token limit reached ...
    # Please try again once some in_progress batches have been completed"): it drains
    (
        K.RATE_LIMIT,
        "'enqueued token limit reached' (a batch queue)",
        r"\benqueued token limit\b|\benqueued tokens?\b[^.\n]{0,40}\blimit\b",
    ),
    (
        K.RATE_LIMIT,
        "'tokens per minute limit exceeded' (throughput window)",
        r"(tokens?|requests?|calls?|queries) per (minute|min|second|sec)\b[^.\n]{0,30}\b(limit"
        r"|exceeded|reached)",
    ),
    (
        K.CONTEXT_TOO_LONG,
        "'too many tokens'",
        r"too many (input |prompt )?tokens(?!.{0,40}(wait|per (min|minute|second|day)"
        r"|try again))|reduce the length|request too large"
        # "The total length of all messages is too long." (Perplexity)
        r"|\bmax(imum)? \d+ tokens per request\b"
        r"|\b(total |combined )?length of (all )?(the )?(messages|prompts?|inputs?|conversation"
        r"|context)( is| was)? too long\b",
    ),
    (
        K.QUOTA_EXHAUSTED,
        "'out of credits'",
        r"out of credits?|\bout of (extra |additional |your )?usage\b"
        r"|\b(free tier|free quota|trial|token amount|allowance)\b[^.\n]{0,30}\b(has been |is |was "
        r"|have been )?(exhausted|used up|depleted)\b|\bremain_?quota\s*=\s*0\b"
        r"|\bquota\b.{0,160}(per ?day|daily|monthly)|(daily|monthly) (quota"
        r"|limit)|payment required|purchase (more )?credits|add (more )?credits"
        r"|(free )?trial (period |credits? )?(has |have )?(ended|expired|run out|been used up)"
        r"|\bno quota (left|remaining|available)\b|\bout of quota\b|\bquota (has been |is |was )?"
        r"(used up|depleted|spent)\b",
    ),
    # an allowance said to be spent with no window and no wait named ("web search quota
    # exceeded"): nothing clears it soon. A quota per minute or second, one that says when to
    # come back, or a metric named after it (Google's "Quota exceeded for
    # aiplatform.googleapis.com/..._per_base_model", a per-minute quota by default) is a
    # throttle and stays with the rate rows
    (
        K.QUOTA_EXHAUSTED,
        "'quota exceeded' (no window named)",
        r"^(?![\s\S]*(per[ _-]?(minute|min|second|sec|hour)(\b|_)|\b(rpm|tpm|rps)\b|try again"
        r"|retry|wait|in \d+(\.\d+)? ?(s|ms|seconds?)\b))[\s\S]*\bquota (exceeded|exhausted"
        r"|used up|reached)\b(?! for ([\w-]+\.)+googleapis\.com\b| for quota metric\b)",
    ),
    # a router whose every route for the model is excluded by the account's own settings
    # ("No endpoints available matching your guardrail restrictions and data policy", "Paid
    # model training violation (account settings): 1 endpoint excluded"): the account decides,
    # before the content-policy row reads "guardrail" as a filtered prompt
    (
        K.PERMISSION_DENIED,
        "'no endpoints found matching your data policy' (privacy settings)",
        r"matching your (guardrail[\w ]{0,30}(and|or) )?data policy|data polic(y|ies) (settings"
        r"|restrict)|privacy settings|no allowed providers|allowed providers (are|is) (not )?"
        r"available|\bmatching your (guardrail|privacy|data|account)\b[\w ]{0,40}\b(restrictions?"
        r"|settings|polic(y|ies))\b|\(account settings\)|\b\d+ (endpoints?|providers?) excluded\b",
    ),
    # an account closed for its conduct ("suspended for violating our terms"): the account, not
    # this request's content, before the content-policy row
    (
        K.PERMISSION_DENIED,
        "'account suspended' (account gate)",
        r"\b(account|organi[sz]ation|api key|key|project)\b[^.\n]{0,30}\b(has been |was |is |have "
        r"been )?(suspended|banned|terminated|deactivated|disabled|blocked)\b",
    ),
    (
        K.CONTENT_FILTERED,
        "'content policy'",
        r"content[_ ](management )?(filter|policy)|responsible ?ai|safety (system|filter"
        r"|settings|reasons)|flagged (by|as|for)|usage polic(y|ies)|prohibited content"
        r"|blocked (by|due to) (the |a |our )?(safety|moderation|content)|moderation|\bguardrail"
        # a guardrail's verdict on the prompt ("Request blocked: prompt injection patterns
        # detected"), the recitation filter in words ("Response stopped due to recitation
        # policy.")
        r"|\bprompt[ -]injection\b|\brecitation (policy|filter|check|block)|\bdue to recitation\b"
        r"|content exists risk|\bcontent risk\b|(contains?|detected|found) (sensitive"
        r"|inappropriate|unsafe|harmful|illegal) (content|words|information|material)"
        r"|(sensitive|inappropriate|unsafe) (content|words)|data_inspection_failed"
        # misspelt in a provider's own message ("input data may contain inappropiate content")
        r"|\binappropiate (content|words|information|material)\b"
        # Gemini's block reason as a gateway prints it ("blocked: prompt:
        # BlockedReasonProhibitedContent")
        r"|\bblocked ?reason ?(prohibited ?content|safety|blocklist|image ?safety|other)\b"
        r"|violat\w* (of )?(our |the |openai'?s? |\w+'s )?(content |usage |safety |community "
        r"|acceptable use )?(polic|terms|guidelines|rules)"
        # a gateway's word filter ("Content blocked: keyword 'x' detected")
        # a finish reason of the filter printed by a client ("blocked: candidate:
        # FinishReasonSafety", "finish_reason: RECITATION")
        r"|\bfinish[ _]?reason[ _:=]*['\"]?(safety|recitation|blocklist|prohibited[ _]?content|spii"
        r"|image[ _]?safety)\b"
        r"|\bcontent (was |has been )?blocked\b|(banned|blocked|forbidden|prohibited|denied) "
        r"(keywords?|words?|terms?|phrases?)\b|\bkeyword ['\"`][^'\"`\n]{1,60}['\"`] (was )?"
        r"(detected|found|matched)",
    ),
    (
        K.MALFORMED_TOOL_CALL,
        "'failed to call a function'",
        r"(failed|unable) to (call|parse) (a |the )?(model'?s? )?(function|tool)"
        r"|malformed (function|tool)|model (produced|generated|returned|emitted) (an? )?invalid "
        r"(json|arguments|tool call|function call)|invalid json in (its|the|a) (tool|function) call"
        r"|invalid (tool|function) call|tool call (arguments )?(is |are )?not valid json"
        r"|(function|tool) call arguments (are |is )?not valid json"
        r"|tool call validation failed|attempted to call tool"
        r"|(no|not a|without a) valid (tool|function) call|(could not|couldn'?t|failed to|unable to"
        r"|did not) (generate|produce|emit|return|create) (a )?(valid )?(tool|function) call"
        r"|(tool|function) call (could not|couldn'?t|cannot) be (parsed|generated|decoded)"
        r"|((failed|unable) to|could not|couldn'?t) (generate|create|produce) (a )?(valid )?json\b"
        r"|json_validate_failed"
        r"|error parsing (the )?(tool|function) call|failed parsing (the )?(tool|function) call"
        r"|\bnon-json (tool |function )?(call )?arguments\b"
        # Bedrock's ModelErrorException for a tool call the model botched ("Model produced
        # invalid sequence as part of ToolUse")
        r"|\bmodel (produced|generated|returned|emitted) (an? )?invalid [\w ]{1,20}(as part of"
        r"|in|for|within) (an? |the |its )?(tool ?use|tool[ _]calls?|function[ _]calls?)\b",
    ),
    # a web framework's own not-found page as the whole message ("404 page not found" from
    # Go's router, FastAPI's {"detail": "Not Found"}, Express's "Cannot POST /generate"): no
    # handler has the path, so the URL is wrong; a model a handler could not find names itself
    # (Azure's "Resource not found" is its answer for a deployment it does not have)
    (
        K.INVALID_REQUEST,
        "'404 page not found' (a framework's default page)",
        r"^\W*(404\W*)?(page |route )?not found\W*$"
        r"|^\W*cannot (get|post|put|patch|delete) /[\w/.-]*\W*$",
    ),
    # a gateway that found no route for the path: the URL is wrong, not the model
    (
        K.INVALID_REQUEST,
        "'no route matched' (wrong URL)",
        r"no route (matched|found|for (that|this|the) (uri|url|path))|route not found"
        r"|unrecognized request url|invalid url \(|\b(unsupported|unknown|unrecognized) (api )?"
        r"(endpoint|route)s?\b(?! (parameter|option|field|argument))",
    ),
    # a router with the model but no backend for a feature: the feature, not the model
    (
        K.CAPABILITY_MISMATCH,
        "'no endpoints found that support tools' (routing)",
        r"no (endpoints?|providers?|deployments?|backends?|instances?)\b"
        r"[^.\n]{0,30}\b(that|which|able to|capable of|can) (support|handle|accept|serve|process)",
    ),
    # a dedicated deployment that exists but is not serving: start it, no wait helps
    (
        K.MODEL_NOT_FOUND,
        "'endpoint is not running' (stopped deployment)",
        r"(endpoint|deployment|instance)\b[^.\n]{0,100}\b(is not|isn'?t|not) (running|deployed"
        r"|started|active)|(endpoint|deployment)\b[^.\n]{0,100}\b(is|has been|was) (stopped"
        r"|paused|shut down|scaled down)"
        # a model served only on a dedicated endpoint the account has not started ("Unable to
        # access non-serverless model x ... create and start a new dedicated endpoint")
        r"|\bnon-serverless( model)?\b|\b(create|start|deploy)( and start)? an? (new )?dedicated "
        r"(endpoint|deployment)\b",
    ),
    # a parameter this model retired ("`temperature` is deprecated for this model"), before the
    # model-not-found row reads "deprecated" as the model's
    (
        K.CAPABILITY_MISMATCH,
        "'x is deprecated for this model' (retired parameter)",
        r"\b(is|are|has been|have been) (deprecated|no longer supported|removed|ignored) (for|with"
        r"|on|by|in) (this|the (selected|specified|current|requested)) model\b",
    ),
    # a model the runtime cannot load ("error loading model hyperparameters: key not found in
    # model: deepseek2.expert_weights_scale", "unknown model architecture"): another runtime
    # version or another model, before the not-found row its words would match
    (
        K.CAPABILITY_MISMATCH,
        "'unknown model architecture' (the runtime cannot load it)",
        r"\berror loading model\b[^\n]{0,120}\b(key not found|unknown (model )?architecture"
        r"|unsupported (model )?architecture)|\b(unknown|unsupported) model architecture\b",
    ),
    # a deployment without a chat template ("default chat template is no longer allowed, so
    # you must provide a chat template"): it cannot serve chat until one is set
    (
        K.CAPABILITY_MISMATCH,
        "'you must provide a chat template' (deployment)",
        r"\b(must provide|no|missing|without|does not (have|define)|doesn'?t (have|define)) a?"
        r" ?chat[ _]template\b|\bchat[ _]template (is )?(not|no longer) (set|found|defined"
        r"|allowed|available)\b",
    ),
    # a tool version the endpoint lacks, in a validator's words ("Input tag
    # 'web_search_20250305' found using 'type' does not match any of the expected tags")
    (
        K.CAPABILITY_MISMATCH,
        "'input tag web_search_20250305 does not match' (tool version)",
        r"\binput tag ['\"`][a-z_]+_\d{8}['\"`] found using ['\"`]type['\"`] does not match",
    ),
    # a tool of another API's shape ("Input tag 'function' found using 'type' does not match
    # any of the expected tags"): the request's format, no version the model lacks
    (
        K.INVALID_REQUEST,
        "'input tag function does not match the expected tags' (another API's tool shape)",
        r"\binput tag ['\"`]\w+['\"`] found using ['\"`]type['\"`] does not match",
    ),
    # a schema the request sent that cannot be one ("Invalid schema: Circular reference
    # detected ... are not supported"): the request's, before the rows of support
    (
        K.INVALID_REQUEST,
        "'invalid schema: circular reference' (the request's schema)",
        r"\binvalid (json |tool |function |response |input )?schema\b[^\n]{0,40}\bcircular"
        r"|\bcircular reference (detected|found|in)\b",
    ),
    # a schema validator's missing field ("$: required property 'model' not found"): the
    # request lacks it, no model is missing
    (
        K.INVALID_REQUEST,
        "'required property x not found' (a missing field)",
        r"\brequired (property|field|parameter|key|argument) ['\"`]?[\w.$/-]{1,60}['\"`]? "
        r"(not found|is missing|missing|not provided)\b",
    ),
    # a gateway with no channel for the model ("No available channels for model x in group
    # default", new-api's English for 无可用渠道)
    (
        K.MODEL_NOT_FOUND,
        "'no available channels for model' (a gateway without the model)",
        r"\bno (available|usable|enabled) (channels?|providers?|routes?) for (the )?model\b",
    ),
    (
        K.MODEL_NOT_FOUND,
        "'model not found'",
        r"model.{0,120}(not found|does not exist|doesn'?t exist|not exist)"
        r"|(unknown|invalid|unsupported|no such) model|model identifier is invalid"
        r"|no endpoints found|is not a valid model|try pulling it first"
        r"|\bsupported (api )?models?( names)? (are|is|include)\b[^.\n]{0,120}\bbut (you )?(passed"
        r"|sent|gave|requested|provided)\b"
        r"|object identifier is invalid"
        r"|deployment.{0,80}(not found|does not exist)|is not found for api version"
        r"|model_not_found|has been decommissioned|model.{0,80}no longer (supported"
        r"|available)|model.{0,80}(has been )?deprecated|\bunavailable model\b"
        r"|no (matching |such )?models? (found|matched|matching)\b"
        # a custom model that exists but serves nothing yet ("finetuned model with name x is not
        # ready for serving")
        r"|\b(fine-?tuned|custom|trained) model\b[^.\n]{0,80}\bnot (ready|deployed|yet available)"
        # the route serves other models ("model is not available on this endpoint")
        r"|\bmodel( ['\"`]?[\w./:@-]{1,80}['\"`]?)? (is|was) (not|n'?t) (available|served|offered"
        r"|hosted) (on|at|via|through|from) (this|the) (endpoint|route|gateway|url|path|server)\b",
    ),
    (
        K.PERMISSION_DENIED,
        "'region not supported'",
        r"(region|location|country|territory)( is| are)? not (supported|available)"
        r"|not available in your (region|country|location)"
        r"|\bunsupported (countries|regions|territories|locations?)\b",
    ),
    (
        K.PERMISSION_DENIED,
        "'organization must be verified' (account gate)",
        r"organi[sz]ation (must be verified|has been (restricted|suspended|disabled|banned))"
        r"|(only|not) authori[sz]ed for use with|cannot be used for other api requests"
        r"|^operation not allowed|\baction (is )?not allowed"
        # a resource's network policy ("Outbound network access is restricted. The hostname
        # ... is not in the allowed FQDN list for this resource")
        r"|\b(outbound |inbound |network |public )*access (is|has been) restricted\b"
        r"|\bnot in the (list of )?allowed\b[^.\n]{0,30}\blist\b"
        r"|verify (your )?organi[sz]ation|account (has been |is )?(suspended|disabled"
        r"|deactivated|restricted|banned)|\bnot (allow|white)listed\b|\b(allow|white)list\b",
    ),
    # a sound or a film where this input takes neither ("unsupported MIME type 'audio/mpeg'",
    # "video/mp4 is not supported"): a modality, not a file's encoding, before the format row
    (
        K.CAPABILITY_MISMATCH,
        "'unsupported MIME type audio/...' (a modality)",
        r"\bunsupported (mime|media|content|file)[ _-]?type:?\s*['\"`]?(audio|video)/"
        r"|\b(audio|video)/[\w.+-]+['\"`]?\s*(,? which )?(is |are )?(not (yet )?supported"
        r"|unsupported)\b",
    ),
    # a format or version no model accepts: the request is wrong, not the model's limits
    (
        K.INVALID_REQUEST,
        "'image format not supported' (request format)",
        r"(image|file|media|audio)[ _-]?(format|extension)s?\b[^.\n]{0,40}(not supported"
        r"|unsupported)|unsupported (image|file|media|audio) (format|type)"
        r"|unsupported (mime|media|content)[ _-]?type"
        # an input part's MIME type (a response MIME type is an output mode, a capability)
        r"|(?<!response )\bmime[ _-]?type\b[^.\n]{0,60}\b(not supported|unsupported)"
        r"|file type[^.\n]{0,40}(not supported|unsupported)"
        r"|api[ _-]?version[^.\n]{0,40}(not supported|unsupported)",
    ),
    # the conversation's order ("does not support successive user or assistant messages",
    # "roles must alternate"): the request's format, before the capability rows
    (
        K.INVALID_REQUEST,
        "'successive user messages' / 'roles must alternate' (message order)",
        r"\b(successive|consecutive) (user|assistant|system|tool)\b|(roles?|messages?) (must"
        r"|should)"
        r" (alternate|be alternating)|interleave the (user|assistant)",
    ),
    # a value outside an enum, with the valid ones offered: the request's format, although it
    # says "not supported" ("Role 'function' is not supported. Please use a valid role: ...",
    # "property 'store' is unsupported, did you mean 'stop'?")
    (
        K.INVALID_REQUEST,
        "'did you mean ...' / 'please use a valid ...' (enum value)",
        r"did you mean\b(?! to use)|please (use|provide|specify|choose) a valid\b"
        r"|valid (values|options|roles|choices) (are|include)\b|(must|should) be one of\b"
        r"|expected one of\b|allowed values (are|include)\b|is not a valid (value|role|option)",
    ),
    # a field the API rejects because this model or version predates it: the tool, vision,
    # reasoning... fields name a capability ("Unrecognized request argument supplied: tools")
    (
        K.CAPABILITY_MISMATCH,
        "'unrecognized argument: tools' (capability field)",
        r"(unrecognized|unknown|unexpected|extra|unsupported|invalid|incompatible) (request "
        r"|keyword )?"
        r"(arguments?|parameters?|params?|fields?|propert(y|ies)|keywords?|keys?|inputs?)( supplied"
        r"| provided| passed| given)?:? ?['\"`]?(tools?|tool_choice|functions?|function_call"
        r"|response_format|parallel_tool_calls|reasoning(_effort)?|thinking|audio|modalities"
        r"|logprobs|top_logprobs|stream_options|json_schema|image_url|input_audio"
        r"|web_search_options|prediction|vision|images?)\b(?![.\[])"
        r"|unknown variant ['\"`]?(image_url|image|input_audio|audio|file|video|document"
        r"|thinking|tool_use|tool_result)\b",
    ),
    # a sub-field of a feature named extra ("cache_control.ephemeral.scope: Extra inputs are
    # not permitted"): the API has the feature, the request spelled it wrong
    (
        K.INVALID_REQUEST,
        "'cache_control.scope: extra inputs' (a feature's own sub-field)",
        r"\b(cache_control|eager_input_streaming|citations|thinking|context_management"
        r"|mcp_servers)(\.\w+)+['\"`]?:? ?(extra inputs are not permitted|not permitted"
        r"|unknown field)",
    ),
    # an API that lacks another API's features, in a validator's words ("Extra inputs are not
    # permitted, field: 'tools[0].cache_control'"): the feature, not the format
    (
        K.CAPABILITY_MISMATCH,
        "'extra inputs are not permitted: cache_control' (feature field)",
        r"(extra inputs are not permitted|not permitted|unsupported|not supported|unknown field)"
        r"[^\n;]{0,60}\b(cache_control|eager_input_streaming|citations|thinking|betas?"
        r"|web_search\w*|mcp_servers|container|context_management)\b|\boutput_(config|format)\b"
        r"[^\n;]{0,40}\b(extra inputs are not permitted|not permitted|unknown field)"
        r"|\b(cache_control|eager_input_streaming"
        r"|citations|context_management|mcp_servers|strict)\b[^\n;]{0,40}\b(extra inputs are not "
        r"permitted|not permitted|unsupported|not supported)",
    ),
    (
        K.CAPABILITY_MISMATCH,
        "'unsupported JSON schema fields' (schema subset)",
        r"unsupported (json[ _-]?)?schema (fields?|keywords?|features?|types?|formats?)"
        r"|(json[ _-]?)?schema (fields?|keywords?|features?) (are |is )?(not supported"
        r"|unsupported)|(invalid|unsupported|disallowed) (fields?|keywords?) for (the |this |a )?"
        r"(json[ _-]?)?schema with types?\b"
        # a keyword a type of the schema cannot carry ("For 'array' type, property 'maxItems'
        # is not supported": Bedrock's structured output)
        r"|\bfor ['\"`]?(array|object|string|number|integer|boolean)['\"`]? type, propert(y|ies) "
        r"['\"`][^'\"`]{1,60}['\"`] (is|are) (unsupported|not supported)",
    ),
    (
        K.INVALID_REQUEST,
        "'property x is unsupported' (schema validation)",
        r"\bpropert(y|ies) ['\"`][^'\"`]{1,160}['\"`] (is|are) (unsupported|not supported|not "
        r"allowed|not permitted)",
    ),
    _STREAMING_REQUIRED,
    # a schema validator's words for a field the API itself does not know: the request's
    # format ("property 'timestamp' is unsupported" inside "the following must be satisfied")
    (
        K.INVALID_REQUEST,
        "'extra inputs are not permitted' (schema validation)",
        r"the following must be satisfied|extra (inputs|fields|properties) (are |is )?not "
        r"(permitted|allowed)|additional propert(y|ies) (are |is )?not (permitted|allowed)"
        r"|extraneous key|\bunknown field\b|\bunrecognized field\b|field required"
        r"|'type': 'missing'",
    ),
    # a beta flag the endpoint does not offer ("Unexpected value(s) `x` for the
    # `anthropic-beta` header"): drop the beta
    (
        K.CAPABILITY_MISMATCH,
        "'unexpected value for the anthropic-beta header' (beta)",
        r"(unexpected|unsupported|invalid|unknown) (value\(s\)|values?|betas?)\b[^.\n]{0,80}"
        r"\bbeta\b|\bbeta (header|flag|feature)s?\b[^.\n]{0,60}\b(unexpected|unsupported|not "
        r"supported|invalid|unknown|not (available|enabled|allowed))",
    ),
    # a feature, beta or tier not open to this account, plan or model: drop it to proceed
    (
        K.CAPABILITY_MISMATCH,
        "'beta is not available for this subscription' (feature gate)",
        r"(beta|feature|preview|mode|tier|capability|functionality|option|tool|parameter"
        r"|thinking|reasoning|vision|caching)s?\b[^.\n]{0,40}\b(is |are )?(not|n'?t) (yet "
        r"|currently )?(available|enabled|supported|allowed|offered) (for|on|to|in|with|under) "
        r"(this|your|the|current) (current )?(subscription|account|plan|organi[sz]ation|tier"
        r"|project|api key|key|workspace|model|deployment)",
    ),
    # version-gated models: "enabled only for api versions 2024-12-01-preview and later"
    (
        K.CAPABILITY_MISMATCH,
        "'enabled only for api versions X and later' (version gate)",
        r"(enabled|supported|available|allowed) only (for|in|on|with|from) [^.\n]{0,40}"
        r"\bversions?\b|\bversions? [^.\n]{0,40}\b(and|or) (later|newer|above|higher)\b",
    ),
    (
        K.CAPABILITY_MISMATCH,
        "'does not support'",
        r"(does not|doesn'?t|do not|don'?t|cannot|can'?t|does not yet) support\b"
        r"|(tools?|function calling|tool use|image input|vision|streaming|thinking|reasoning"
        r"|images?|audio|documents?|pdfs?|system (messages?|prompts?|instructions?))"
        r".{0,80}(is |are )?(not supported|unsupported)"
        r"|is not supported by the \w+ (api|endpoint)|please use (the )?/?[\w/.-]+ (api"
        r"|endpoint) instead|missing conversation_config|\bis not (oai|openai)[- ]compatible\b"
        # a content part of a kind the server cannot take ("unsupported content[].type")
        r"|\bunsupported content(\[\])?\.type\b|\bunsupported (content|input|message) (part )?"
        r"type\b",
    ),
    (
        K.CAPABILITY_MISMATCH,
        "'not supported with this model'",
        r"(not |un)(supported|enabled|available) (for|with|by|on|in) [^.\n]{0,60}\b(models?"
        r"|deployments?|endpoints?|api versions?)\b|(isn'?t|is not|are not|aren'?t) supported"
        r"|\bis unsupported (for|with|by|in)\b|is only (supported|available) (in|on|via|through)"
        r"|\b(is |are )?not offered (for|on|with|by|in)\b|\b(has|have) no support for\b"
        # a model or endpoint that cannot take a kind of input ("Model x cannot process PDF
        # files", "does not have vision capabilities", "does not accept a system prompt")
        r"|\b(model|endpoint|deployment)\b[^.\n]{0,60}\b(cannot|can'?t|can not|is unable to|does"
        r" not|doesn'?t) (process|handle|accept|read|see|take|understand|have) (an? |the |any )?"
        r"(pdfs?|images?|audio|videos?|files?|documents?|vision|system (prompts?|messages?)"
        r"|tools?|function calling|tool calling)\b"
        # a feature held back for a tier ("Feature 'prompt caching' requires the Scale tier")
        r"|\b(feature|parameter|option|mode|capability)\b[^.\n]{0,60}\brequires (the |a |an )?"
        r"[\w -]{0,30}\b(tier|plan)\b"
        r"|\bmust be enabled (on|for) (this|the|your) (model|deployment|endpoint|resource)\b"
        r"|\bis not a (valid|supported|recognized) (parameter|option|field|argument) for this "
        r"(provider|model|endpoint|deployment)\b"
        r"|only (supported|available) (by|for|with|on|in)"
        r" [^.\n]{0,30}models?|supported only (by|for|on|with) [^.\n]{0,30}models?"
        r"|does not work with (the |this )?(specified |selected |provided )?model"
        r"|(not |in)compatible with (the |this )?(selected |specified )?model"
        r"|cannot be used with (the |this )(model|endpoint|api|[\w.-]+ (api|endpoint))"
        r"|requires a model that supports"
        r"|['\"`][\w.\[\]-]+['\"`] (is|are) not supported|(parameter|field|feature|mode"
        r"|option|keyword|argument|property|setting|role|schema)s?\b[^.\n]{0,60}\b(is |are )?"
        r"(not supported|unsupported)",
    ),
    (
        K.CAPABILITY_MISMATCH,
        "'is not a multimodal model'",
        r"is not an? (multi-?modal|vision|chat|reasoning|completions?|embeddings?|instruct"
        r"|image|audio|generative|text|tool)\b[\w -]{0,20}model"
        r"|--(enable-|tool-call-parser|reasoning-parser)|requires? (the )?`?--[\w-]+"
        r"|(start|run|launch|restart)[\w ]{0,30} with `?--[\w-]+|--[\w-]+ (flag|option) (is "
        r")?(required|must be (set|enabled))"
        r"|did not match any variant of untagged enum \w*content|or newer is required"
        r"|or later is required|requires a newer version|on-demand (throughput|inference)"
        r"|(service[_ ]tier|throughput|priority"
        r" processing|flex processing)[^.\n]{0,80}(not (supported|available|enabled)"
        r"|unsupported)",
    ),
    # a restriction this model puts on the request ("temperature and top_p cannot both be
    # specified for this model", "This model only works in thinking mode", "This model
    # requires that ... contain audio"): another model accepts it
    (
        K.CAPABILITY_MISMATCH,
        "'... for this model' / 'this model only ...' (per-model restriction)",
        r"(only|cannot|can'?t|can not|not allowed|must not|may not|requires?|required|does not"
        r"|doesn'?t|is not|isn'?t|not (permitted|available|enabled|supported))\b[^.\n]{0,80}"
        r"\b(for|with|by|on|in) (this|the (selected|specified|requested|current|chosen)) model\b"
        r"|\bis infeasible for\b|requested a restricted\b"
        # a form the endpoint takes "only ... currently" ("only messages with 'type=text' are
        # supported currently"): a limit of this endpoint for now, not a malformed request
        r"|\bonly\b[^.\n]{0,60}\b(is|are) (supported|allowed|accepted) (currently|at (this|the) "
        r"(time|moment)|for now|as of now)\b|\b(currently|at (this|the) (time|moment)|for now),? "
        r"only\b[^.\n]{0,60}\b(is|are) (supported|allowed|accepted)\b"
        r"|\b(type|mode|feature|parameter|option)\b[^.\n]{0,40}\b(is|are) (unavailable|not "
        r"available) (now|currently|at the moment|for now)|response_format(\.type)?'? must be\b"
        # a feature this model or endpoint will not let go ("Reasoning is mandatory for this
        # endpoint and cannot be disabled")
        r"|\b(is|are) (mandatory|always on|always enabled) (for|on|with) (this|the (selected"
        r"|specified|requested|current)) (model|endpoint|deployment)\b|\bcannot be (disabled"
        r"|turned off|switched off) (for|on|with) (this|the) (model|endpoint|deployment)\b"
        r"|\buse (the )?[\w/. -]{0,20}stream(ing)? (endpoint |api )?for (a |the |this )?models?\b"
        r"|\bthis model (only|requires|does not|doesn'?t|cannot|can'?t|can only|is only|works"
        r" only|must)\b|\b(model|route|endpoint|deployment|plugin) only (supports|accepts"
        r"|works with|allows)\b[^.\n]{0,30}\b(" + _FEATURE + r"|[\w-]+/[\w-]+|chat|completions?"
        r"|embeddings?|responses)\b"
        r"|\bunsupported (service[_ ]tier|parameter|modalit(y|ies)|feature|mode"
        r"|tool type|reasoning)\b"
        # a feature's value named unsupported ("Unsupported tool_choice: type='function' ...")
        r"|\bunsupported (value for )?['\"`]?" + _FEATURE + r"['\"`]?\s*[:=(]"
        # a feature withdrawn ("Live search is deprecated. Please switch to ...")
        r"|\b" + _FEATURE + r"\b[^.\n;:]{0,30}\b(is|are|has been|have been) (deprecated|removed"
        r"|discontinued|retired|no longer (supported|available))\b"
        # a feature named, then said to be unavailable in the same clause ("logprobs are not
        # available", "Streaming unavailable")
        r"|\b" + _FEATURE + r"\b['\"`]?[^.\n;:]{0,40}\b(is |are )?(not (yet |currently )?(supported"
        r"|available|enabled)|unsupported|unavailable)\b",
    ),
    # two features this API or model will not serve together
    (
        K.CAPABILITY_MISMATCH,
        "'cannot be combined with' (feature combination)",
        r"(cannot|can'?t|can not|may not) be (combined|used together|used alongside|mixed)"
        r"|\b(is |are )?(incompatible|not compatible) with\b|(may not|cannot|can'?t|can not) be "
        r"(enabled|used|set|specified) (when|while|together)\b|(supported|allowed|available"
        r"|enabled) only when\b|only (supported|allowed|available|enabled) when\b|(may|can) only "
        r"be (set|used|enabled|specified)\b[^.\n]{0,40}\bwhen\b",
    ),
    # a throttle named as such, with its rule ("Rate limit exceeded: limit_rpm/...", "limited
    # to 1 requests per minute"), even when it blames high demand
    (
        K.RATE_LIMIT,
        "'rate limit exceeded: limit_rpm' (named throttle)",
        r"rate limit (exceeded|reached): |\blimit_rp[md]\b|limited to \d+ (requests?|calls?"
        r"|queries) per (minute|min|second)",
    ),
    # a local server that tried to load the model and failed ("Failed to load model
    # \"gpt-oss-20b\". Error: Error loading model."): the server's failure, not a model still
    # loading (below)
    (
        K.SERVER_ERROR,
        "'failed to load model' (a load that failed)",
        r"\bfailed to load (the )?model\b",
    ),
    (
        K.MODEL_OVERLOADED,
        "'overloaded'",
        r"overloaded|over capacity|at capacity|(insufficient|no|out of) capacity"
        r"|capacity (temporarily )?(exceeded|unavailable)|high demand|currently loading"
        r"|\byour (queue )?position (in the queue )?is \d+"
        r"|\btoo many (concurrent |simultaneous |open |active )?connections\b"
        r"|model is not ready|not ready to serve|server (is )?busy|server_busy|loading model"
        r"|(high|heavy|too much|unusually high|excessive) (traffic|load)|too busy"
        r"|\b(llm|model|runner|engine|gpu|worker|backend)s? (is |are )?busy\b"
        r"|\bload[_ -]?shed|\badmission (denied|control)"
        r"|\bno (free |available |idle )?slots? (available|left|free)\b"
        # a full request queue (Groq's ``ErrorQueueFull``), a relay's pool of accounts all busy
        r"|queue[ _]?(is )?full\b|\bno (available|free|idle) accounts?\b"
        r"|model is loading|(worker|replica|instance|node|gpu)s?\b[^.\n]{0,30}\b(request )?"
        r"limit reached",
    ),
    (
        K.RATE_LIMIT,
        "'rate limit'",
        r"rate[_ -]?limit|too many requests|slow down|throttl|requests per (minute|min|second)"
        r"|tokens per (minute|min)|resource (has been )?exhausted|\bquota\b"
        r"|requests too (quickly|fast)|error code:? 1015|calls ?/ ?minute",
    ),
    (
        K.AUTH_FAILED,
        "'invalid api key'",
        r"(invalid|incorrect|missing|no|expired|revoked|bad) (x-)?api[ _-]?(key|token)"
        r"|api[ _-]?key (not valid|is invalid|invalid|expired|not found)|unauthori[sz]ed"
        r"|\b(authorization|x-api-key|api[ _-]?key|bearer token)( header)? (is |are )?(required"
        r"|missing)\b"
        r"|authentication|invalid (credentials|bearer token|token|subscription key)"
        r"|security token.{0,40}(invalid|expired)|signature we calculated does not match"
        r"|signature (does not match|has expired|expired)",
    ),
    (
        K.PERMISSION_DENIED,
        "'permission denied'",
        r"permission|not authori[sz]ed to|access denied|forbidden|do(n'?t| not) have access"
        r"|not allowed to|(region|location|country) is not supported",
    ),
    (
        K.TIMEOUT,
        "'timed out'",
        r"timed? ?out|deadline (exceeded|expired)|time-?out|before the (given )?deadline"
        # a gateway that waited and heard nothing back ("did not receive a response from the
        # upstream server"): the wait ran out
        r"|\b(did not|didn'?t|never|failed to) (receive|received|get|got) (a |any )?(timely )?"
        r"response from "
        r"(the )?upstream\b",
    ),
    # a file the caller named by URL that the server could not fetch ("Error while downloading
    # file. Upstream status code: 404."): the URL, not the server, before "upstream" below
    (
        K.INVALID_REQUEST,
        "'error while downloading file: upstream status 404' (the caller's URL)",
        r"\b(download|fetch|retriev)(ing|e|ed)?\b[^\n]{0,80}\b(status|status code|http)[: ]{1,2}"
        r"4(0[0-4]|10|51)\b",
    ),
    (
        K.SERVER_ERROR,
        "'internal server error'",
        r"internal (server )?error|bad gateway|service unavailable|upstream|server[_ ]error"
        r"|stream (was )?interrupted|server (had|experienced|encountered) an error"
        r"|(encountered|hit) an (unexpected|internal) error|unexpected error (during|while"
        r"|occurr?ed)",
    ),
    # a server's own bug surfacing in its reply (a Python exception's words): not the
    # request's fault, whatever the status says
    (
        K.SERVER_ERROR,
        "'name x is not defined' (a server-side exception)",
        r"\bname '\w+' is not defined|object has no attribute '|'nonetype' object|traceback \(most"
        r" recent call last\)|list index out of range|got an unexpected keyword argument"
        r"|cuda (error|out of memory)|segmentation fault",
    ),
    (
        K.SERVER_ERROR,
        "'error while running the model' (runner crash)",
        r"error (was encountered|occurred) while (running|loading) the model|unexpected eof",
    ),
    # a gateway that got nothing usable from the provider behind it (Cloudflare AI Gateway's
    # 2005 "Failed to get response from provider", sent as a 400)
    (
        K.SERVER_ERROR,
        "'failed to get response from provider' (gateway)",
        r"(failed to|could not|couldn'?t|unable to) (get|receive|obtain|read) (a |any )?(valid )?"
        r"response from (the )?(upstream|provider|backend|origin|model|server)"
        r"|no response from (the )?(upstream|provider|backend|origin)",
    ),
    # a server's own call upstream failed, in Go's words (``Post "http://127.0.0.1:63330/
    # completion": EOF``, Ollama's runner): the server's fault, reported in its body (a
    # client's own exception with these words is read by TRANSPORT_RULES first)
    (
        K.SERVER_ERROR,
        "'Post \"http://...\": EOF' (the server's upstream call)",
        r"\b(post|get|put|patch|delete) ['\"]?https?://[^\s'\"]+['\"]?: (eof|unexpected eof|dial "
        r"tcp|read tcp|write tcp|connection refused|connection reset|broken pipe)\b"
        r"|\berror (decoding|reading|parsing) (the )?(upstream |provider'?s? )?response( body)?\b"
        r"|\b(empty|invalid|unsupported|malformed|bad)( or (empty|invalid|unsupported|malformed))?"
        r" (upstream|transformer|backend|provider) response\b",
    ),
    # a connection lost, reported in a body by a gateway or a client
    (
        K.NETWORK,
        "'network connection lost' (transport, in a body)",
        r"network connection (was )?lost|connection (was )?(lost|reset|dropped)\b"
        r"|network (error|failure) (occurred|while)",
    ),
    # a client's stream wrapper with no cause inside that another row read
    (
        K.NETWORK,
        "'stream disconnected' (transport)",
        r"stream (disconnected|closed|ended|finished|stopped)( unexpectedly| prematurely| early)?"
        r" (before|without (completing|completion|a final|the final|finishing))",
    ),
    # schema validation wording, last: "Expected `thinking` ..., but found `text`", Bedrock's
    # "The model returned the following errors: ..."
    (
        K.INVALID_REQUEST,
        "'expected X but found Y' (schema validation)",
        r"\bexpected\b[^.\n]{0,80}\bbut (found|got|received|was)\b|the model returned the"
        r" following errors?|must start with\b|must begin with\b|must end with\b"
        r"|(is|are) required when\b"
        # a value of the wrong type ("parameter 'max_tokens' is of type string but should be of
        # type int32")
        r"|\b(is|was) of type \w+ but (should|must) be (of type )?\w+|\binvalid type: (parameter"
        r"|field|value|argument)\b"
        # a header, field or parameter the request left out ("Either x-portkey-config or
        # x-portkey-provider header is required")
        r"|\b(header|field|parameter|param|argument|property)s?\b( ['\"`]?[\w.-]{1,60}['\"`]?)?"
        r" (is |are )?(required|missing)\b"
        r"|\bmissing (required )?(header|field|parameter|param|argument|property)s?\b",
    ),
)

#: Phrases that beat any provider code.
STRONG_TEXT, STRONG_TEXT_LABELS = _table(_STRONG_TEXT_SPECS)
#: Transport failures described by text alone (no HTTP status): timeouts before resets,
#: since "Read timed out" often comes wrapped in a connection pool's message.
TRANSPORT_RULES, TRANSPORT_LABELS = _table(_TRANSPORT_SPECS)
#: Transport rows whose failure is not retryable: the same request meets the same refusal.
FINAL_TRANSPORT = frozenset(
    i for i, (_, name, _) in enumerate(_TRANSPORT_SPECS) if name == _CORS_LABEL
)
#: Message phrases, most specific first.
TEXT_RULES, TEXT_LABELS = _table(_TEXT_SPECS)

#: Families of provider codes, for a code no exact table names: the next provider's
#: ``weekly_usage_limit_reached`` or ``model_policy_violation`` read by its parts. Matched
#: against the normalised code (see :func:`norm_code`), in this order; the first wins.
CODE_FAMILIES: tuple[tuple[Kind, str, re.Pattern[str]], ...] = tuple(
    (kind, name, re.compile(pattern))
    for kind, name, pattern in (
        # a hold that clears when in-flight requests settle (OpenRouter's
        # ``in_flight_budget_exhausted``): before the budget family it would otherwise join
        (K.RATE_LIMIT, "in-flight/concurrency", r"inflight|concurren"),
        (
            K.QUOTA_EXHAUSTED,
            "spend/usage limit",
            r"spendlimit|usagelimit|budget|billing|credit|balance|payment|quota",
        ),
        (K.RATE_LIMIT, "rate limit", r"ratelimit|throttl|toomanyrequests"),
        (K.CONTEXT_TOO_LONG, "context window", r"context(length|window)|prompttoolong"),
        (
            K.CONTENT_FILTERED,
            "policy",
            r"polic(y|ies)|safety|moderation|contentfilter|flagged|guardrail",
        ),
        (K.MODEL_OVERLOADED, "overload", r"overload|capacity|busy|saturat|queue"),
        # a model or service withheld where the caller is (``model_not_available_in_region``)
        (K.PERMISSION_DENIED, "region gate", r"inregion|inyourregion|countr|territor|geoblock"),
        (
            K.CAPABILITY_MISMATCH,
            "not supported",
            r"notsupported|unsupported|versiontooold|notenabled|capability|notimplemented"
            r"|unimplemented|convertrequest",
        ),
        (
            K.PERMISSION_DENIED,
            "account gate",
            r"permission|forbidden|restricted|suspended|banned|deactivated|accessdenied"
            r"|verification|disabled|serviceblocked",
        ),
        (K.AUTH_FAILED, "authentication", r"unauthori|authentic|invalidkey|apikey"),
        (K.TIMEOUT, "timeout", r"timeout|timedout|deadline"),
        (
            K.MALFORMED_TOOL_CALL,
            "invalid generation",
            r"jsonvalidate|toolusefailed|malformed(function|tool)|invalid(tool|function)call",
        ),
        # a dedicated endpoint or deployment that is not serving: start it, no wait helps
        (
            K.MODEL_NOT_FOUND,
            "endpoint not running",
            r"notrunning|notdeployed|(endpoint|deployment)(stopped|paused|notready)",
        ),
    )
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


#: Statuses more specific than a generic ``invalid_request`` code sent with them.
_STATUS_BEATS_GENERIC = frozenset({401, 402, 403, 429})


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


_ANY_FAMILY = re.compile("|".join(p.pattern for _, _, p in CODE_FAMILIES))

#: Phrases in scripts without letter case, for text that is not ASCII (the messages of the
#: one-api / new-api gateways, in Chinese): searched after every other table, as they are.
WIDE_RULES: tuple[tuple[Kind, str, re.Pattern[str]], ...] = tuple(
    (kind, f"message matched {label!r}", re.compile(pattern))
    for kind, label, pattern in (
        # "当前分组 default 下对于模型 gpt-5 无可用渠道": no channel serves this model
        (K.MODEL_NOT_FOUND, "无可用渠道 (no channel for the model)", r"无可用渠道|模型不存在"),
        # "用户额度不足", "该令牌额度已用尽", "余额不足": the allowance or balance is spent
        (K.QUOTA_EXHAUSTED, "额度不足 (allowance spent)", r"额度不足|额度已用尽|余额不足|欠费"),
        # "无效的令牌", "令牌已过期", "未提供令牌": the gateway's key
        (
            K.AUTH_FAILED,
            "无效的令牌 (invalid token)",
            r"无效的令牌|令牌已过期|未提供令牌|令牌验证失败",
        ),
        # "请求过于频繁", "请求频率过高": too many requests
        (K.RATE_LIMIT, "请求过于频繁 (too many requests)", r"请求过于频繁|请求频率|限流"),
        # "当前分组上游负载已饱和,请稍后再试": the group's upstream load is saturated, try
        # later -- a relay's limit on its shared channels, sent with 429
        (K.RATE_LIMIT, "负载已饱和 (upstream load saturated)", r"负载已?饱和"),
        # "系统检测到输入或生成内容可能包含不安全或敏感内容": the content filter
        (K.CONTENT_FILTERED, "敏感内容 (sensitive content)", r"敏感内容|不安全或敏感|违规内容"),
        # "服务接口异常,请联系管理员" (the service interface failed, contact the administrator),
        # "系统内部错误": the platform's own failure
        (
            K.SERVER_ERROR,
            "服务异常 (service failure)",
            r"服务(接口|内部)?异常|系统(内部)?(异常|错误)|内部错误|服务器(内部)?错误",
        ),
    )
)

#: Words that say only "the request is bad" ("Invalid arguments passed to the model."): as
#: weak as a generic ``invalid_request`` code, so they answer only where such a code would.
_WEAK_TEXT = re.compile(
    r"\binvalid (arguments?|parameters?|params|inputs?|values?|request|payload)\b", re.IGNORECASE
)
WEAK_TEXT_LABEL = "message matched 'invalid arguments' (a bad request, no cause named)"

#: ``classified_by`` labels of the status fallback, computed once.
_STATUS_LABELS: dict[int, str] = {n: f"status {n}" for n in range(100, 1000)}


def transport_finding(text: str) -> Finding | None:
    """A :class:`Finding` for ``text`` when :data:`TRANSPORT_RULES` recognise it as a
    client's words for a failed exchange ("stream disconnected before completion: ..."),
    else ``None``: for a 2xx body that is such a message and nothing else."""
    i = _TRANSPORT.first_index(text, lowered(text))
    if i < 0:
        return None
    f = Finding("text", message=text[:4096], kind=TRANSPORT_RULES[i][0])
    f.reason = TRANSPORT_LABELS[i]
    if i in FINAL_TRANSPORT:
        f.retryable = False
    return f


def _phrase(text: str) -> tuple[Kind, str] | None:
    """The kind and label of the first phrase row matching ``text`` (:data:`STRONG_TEXT`,
    then :data:`TEXT_RULES`), or ``None``."""
    low = lowered(text)
    i = _STRONG.first_index(text, low)
    if i >= 0:
        return STRONG_TEXT[i][0], STRONG_TEXT_LABELS[i]
    i = _TEXT.first_index(text, low)
    return (TEXT_RULES[i][0], TEXT_LABELS[i]) if i >= 0 else None


def phrase_kind(text: str) -> Kind | None:
    """The kind of the first phrase row matching ``text``, or ``None``: for a text that is
    only a name, such as a problem's title, with no codes to weigh."""
    found = _phrase(text)
    return None if found is None else found[0]


def decide(
    finding: Finding, status: int | None, *, transport: bool = False, structured: bool = False
) -> Kind:
    """The kind of a failure: the first of the six steps in the module docstring to answer.

    ``transport`` is true when no response was received (``status`` is ``None`` and the text
    describes an exception): :data:`TRANSPORT_RULES` then come first. ``structured`` is true
    when the body is JSON: whatever the rows do not know in it is no lost connection (a
    server wrote it, or a client serialised an exception whose code a row knows). The rule
    that answered
    is left in ``finding.reason`` as a constant label (no formatting on this path).
    """
    dialect = finding.kind is not None
    kind = _decide(finding, status, transport, structured)
    if kind is K.CONTEXT_TOO_LONG or kind is K.RATE_LIMIT or kind is K.INVALID_REQUEST:
        better = limits_kind(kind, finding.message)
        if better is not None:
            kind, finding.reason = better
    if (kind is K.RATE_LIMIT or kind is K.QUOTA_EXHAUSTED) and not dialect:
        window = window_kind(kind, finding.message, from_family=finding.reason.endswith("family)"))
        if window is not None:
            kind, finding.reason = window
    return kind


def _code_kind(finding: Finding, codes: list[str]) -> Kind | None:
    """The kind the first code that names one gives (an exact code, else a code family)."""
    for c in codes:  # the most specific code first (details.error_code before the type)
        kind = STRONG_CODES.get(c)
        if kind is not None:
            finding.reason = CODE_LABELS[c]
            return kind
        if c in WEAK_CODES or _ANY_FAMILY.search(c) is None:
            continue
        for kind, name, pattern in CODE_FAMILIES:
            if pattern.search(c):
                finding.reason = f"code={c} ({name} family)"
                return kind
    return None


#: The reason of a transport failure (no status, no body) whose words no row knows: a lost
#: connection, as nearly every such failure is. ``classify_exception`` does not take it for
#: an exception that only may be a transport failure.
TRANSPORT_DEFAULT_LABEL = "no response, words no rule knows (a lost connection)"
#: The reason of a failure no row, code or status names (``unknown``).
NOTHING_MATCHED = "nothing matched"

#: Words of an exchange (a response, a connection, a stream...): a status-less failure in words
#: no row knows is taken for a lost connection only when it speaks of one.
_EXCHANGE = re.compile(
    r"\b(responses?|connections?|connect(ing|ed)?|sockets?|streams?|body|headers?|reply|replies"
    r"|fetch|network|upstream|transport|tcp|http|dns|host)\b",
    re.IGNORECASE,
)

#: Where LiteLLM's proxy appends its router's context to an upstream's error ("...
#: Received Model Group=x\nAvailable Model Group Fallbacks=[...]\nError doing the fallback:
#: ..."): the text after it is other models' failures, not this one's.
_ROUTER_TAIL = "Received Model Group="


#: Where a client quotes the response it could not read ("error parsing response ...:
#: SyntaxError: Unexpected token A in JSON at position 0, response text: Anthropic API failed
#: with: {"detail":"Rate limit exceeded"}"): the text after it is the server's.
_QUOTED_RESPONSE = re.compile(
    r"\b(?:response (?:text|body|was)|raw (?:response|body)|body was)\s*[:=]\s*", re.IGNORECASE
)


def _quoted_response_kind(finding: Finding, text: str) -> Kind | None:
    """The kind the phrase rows give the response a transport failure's text quotes, or
    ``None``: the server's words name the cause, the client's parse error only its symptom."""
    m = _QUOTED_RESPONSE.search(text)
    found = None if m is None else _phrase(text[m.end() :])
    if found is None:
        return None
    kind, finding.reason = found
    return kind


def _decide(finding: Finding, status: int | None, transport: bool, structured: bool) -> Kind:
    if finding.kind is not None:
        if not finding.reason:
            finding.reason = f"{finding.dialect} dialect"
        return finding.kind
    text = finding.message
    cut = text.find(_ROUTER_TAIL)
    if cut > 0:
        text = text[:cut]
    low = lowered(text)
    codes = [norm_code(c) for c in finding.codes if c]
    strong = -1
    if transport:
        # an exception's own code (``UND_ERR_BODY_TIMEOUT``) before its words ("terminated");
        # in a JSON body, the phrases that beat any code on a response beat it here too
        if structured:
            strong = _STRONG.first_index(text, low)
            if strong >= 0:
                finding.reason = STRONG_TEXT_LABELS[strong]
                return STRONG_TEXT[strong][0]
        kind = _code_kind(finding, codes) if codes else None
        if kind is not None:
            return kind
        kind = _quoted_response_kind(finding, text)
        if kind is not None:
            return kind
        i = _TRANSPORT.first_index(text, low)
        if i >= 0:
            finding.reason = TRANSPORT_LABELS[i]
            if i in FINAL_TRANSPORT:
                finding.retryable = False
            return TRANSPORT_RULES[i][0]
    # searched once: a structured transport failure's strong phrases were looked for above
    i = strong if transport and structured else _STRONG.first_index(text, low)
    if i >= 0:
        finding.reason = STRONG_TEXT_LABELS[i]
        return STRONG_TEXT[i][0]
    kind = _code_kind(finding, codes) if codes else None
    if kind is not None:
        return kind
    # a phrase in a script without letter case names its cause more exactly than the English
    # words around it ("403 Forbidden: ... cause: 用户额度不足"): before the text rows
    if not text.isascii():
        for kind, label, pattern in WIDE_RULES:
            if pattern.search(text):
                finding.reason = label
                return kind
    i = _TEXT.first_index(text, low)
    if i >= 0:
        finding.reason = TEXT_LABELS[i]
        return TEXT_RULES[i][0]
    eff = status if status is not None else finding.status
    # a generic "invalid request" type is no word against a status that names the cause
    # (OpenAI sends its 401s typed ``invalid_request_error``)
    generic_ok = eff not in _STATUS_BEATS_GENERIC and (eff is None or eff < 500)
    for c in codes:
        kind = WEAK_CODES.get(c)
        if kind is not None and (generic_ok or kind is not K.INVALID_REQUEST):
            finding.reason = CODE_LABELS[c]
            return kind
    if generic_ok:
        if _WEAK_TEXT.search(text):
            finding.reason = WEAK_TEXT_LABEL
            return K.INVALID_REQUEST
        for c in codes:
            if c.startswith("invalid"):  # ``invalid_encrypted_content``: an unlisted bad value
                finding.reason = f"code={c} (an unlisted invalid_* code)"
                return K.INVALID_REQUEST
    kind = kind_for_status(eff)
    if kind is None and transport and eff is None and not structured and _EXCHANGE.search(text):
        # a failure with no response at all, in words no row knows that speak of the exchange
        # ("bad response", undici's "Response body length does not match content-length
        # header"): the exchange broke. A server's sentence whose status was lost ("Principal
        # does not have access to API/Operation.") is no lost connection
        finding.reason = TRANSPORT_DEFAULT_LABEL
        return K.NETWORK
    if kind is None:
        finding.reason = NOTHING_MATCHED
        return K.UNKNOWN
    finding.reason = _STATUS_LABELS.get(eff, "status") if eff is not None else "status"
    return kind
