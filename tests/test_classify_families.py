"""Families of failures, tested with phrasings no corpus line holds.

SYNTHETIC PARAPHRASES. Every message below was written for this test -- plausible rewordings of
a failure family found in round 2 (see ``tests/data/classify_corpus_2026.md``), not real
provider output. They test that a rule covers its family (synonyms, word order, another
provider's envelope), not one message. Real failures belong in the corpora, never here; these
never go into the corpora.
"""

from __future__ import annotations

from typing import Any

import pytest

from surefoot import classify


def _openai(message: str, code: str | None = None, typ: str = "invalid_request_error") -> Any:
    return {"error": {"message": message, "type": typ, "param": None, "code": code}}


def _anthropic(message: str, typ: str = "invalid_request_error") -> Any:
    return {"type": "error", "error": {"type": typ, "message": message}}


# (case id, provider, status, body, expected kind, expected retryable)
CASES: list[tuple[str, str, int | None, Any, str, bool]] = [
    # spend caps in any verb form or possessive, whatever the type says
    (
        "spend-would-exceed-org",
        "anthropic",
        429,
        _anthropic(
            "This request would exceed your organization's monthly spend limit.", "rate_limit_error"
        ),
        "quota_exhausted",
        False,
    ),
    (
        "spend-reaching-workspace",
        "openai",
        429,
        _openai(
            "Requests are blocked after reaching the workspace spending cap.", "rate_limit_exceeded"
        ),
        "quota_exhausted",
        False,
    ),
    (
        "billing-unpaid-invoice",
        "together",
        412,
        _openai(
            "Your account is suspended because of unpaid invoices.", "PRECONDITION_FAILED", "error"
        ),
        "quota_exhausted",
        False,
    ),
    (
        "billing-past-due",
        "fireworks",
        403,
        _openai("Access paused: past-due balance on account acme.", None, "error"),
        "quota_exhausted",
        False,
    ),
    # feature / beta / tier not open to this account or plan
    (
        "feature-gate-plan",
        "anthropic",
        400,
        _anthropic("Extended thinking is not available for your current plan."),
        "capability_mismatch",
        False,
    ),
    (
        "feature-gate-org",
        "openai",
        400,
        _openai("The priority tier is not enabled for this organization."),
        "capability_mismatch",
        False,
    ),
    # version-gated models
    (
        "version-gate-or-newer",
        "azure",
        400,
        {
            "error": {
                "code": "BadRequest",
                "message": "Tools are supported only for API versions 2024-06-01 or newer.",
            }
        },
        "capability_mismatch",
        False,
    ),
    (
        "version-gate-available-only",
        "azure",
        400,
        {
            "error": {
                "code": "BadRequest",
                "message": "This deployment is available only from api version 2025-01-01-preview.",
            }
        },
        "capability_mismatch",
        False,
    ),
    # a bound counted in items / characters: the request's format, not the context window
    (
        "count-bound-elements",
        "openai",
        400,
        _openai("'$.input' exceeds the maximum length of 2048 elements."),
        "invalid_request",
        False,
    ),
    (
        "count-bound-characters",
        "mistral",
        400,
        {
            "object": "error",
            "message": "Field 'description' exceeds the limit of 1024 characters.",
            "type": "invalid_request_error",
        },
        "invalid_request",
        False,
    ),
    # batch limits
    (
        "batch-inputs",
        "cohere",
        400,
        {"message": "too many texts per batch: maximum is 96"},
        "invalid_request",
        False,
    ),
    (
        "batch-tokens",
        "voyage",
        400,
        {"detail": "The total number of tokens in the batch exceeds 120000; split the request."},
        "invalid_request",
        False,
    ),
    # a field the model or version predates, named as unrecognized
    (
        "unknown-parameter-tool-choice",
        "azure",
        400,
        _openai("Unknown parameter: 'tool_choice'."),
        "capability_mismatch",
        False,
    ),
    (
        "unexpected-argument-response-format",
        "vllm",
        400,
        {
            "object": "error",
            "message": "Unexpected keyword argument response_format",
            "type": "BadRequestError",
        },
        "capability_mismatch",
        False,
    ),
    # an enum value with the valid ones offered
    (
        "enum-did-you-mean",
        "groq",
        400,
        _openai("field 'reasoning_format' is unsupported, did you mean 'response_format'?"),
        "invalid_request",
        False,
    ),
    (
        "enum-must-be-one-of",
        "gemini",
        400,
        {
            "error": {
                "code": 400,
                "message": "Role 'tool' is not supported; must be one of user, model.",
                "status": "INVALID_ARGUMENT",
            }
        },
        "invalid_request",
        False,
    ),
    # routers with the model but no backend for a feature
    (
        "router-no-provider-supports",
        "openrouter",
        404,
        {
            "error": {
                "message": "No providers available that support image input for this model.",
                "code": 404,
            }
        },
        "capability_mismatch",
        False,
    ),
    (
        "router-no-endpoint-can-handle",
        "openrouter",
        404,
        {
            "error": {
                "message": "No endpoints found which can handle structured outputs.",
                "code": 404,
            }
        },
        "capability_mismatch",
        False,
    ),
    # access withheld from an existing model, whatever the code
    (
        "access-lacks",
        "openai",
        403,
        _openai("This key lacks access to model `o3-pro`.", "model_not_found"),
        "permission_denied",
        False,
    ),
    (
        "access-org-has-no",
        "openai",
        403,
        _openai("Organization org-1 has no access to model gpt-5.", "model_not_found"),
        "permission_denied",
        False,
    ),
    # concurrency holds clear when in-flight requests finish
    (
        "inflight-code",
        "openrouter",
        402,
        {
            "error": {
                "message": "Too many requests in flight for this key.",
                "code": 402,
                "metadata": {"reason": "concurrency_limit_exceeded"},
            }
        },
        "rate_limit",
        True,
    ),
    # stopped deployments
    (
        "endpoint-stopped-code",
        "together",
        400,
        _openai("Endpoint unavailable.", "endpoint_not_deployed"),
        "model_not_found",
        False,
    ),
    (
        "endpoint-paused-text",
        "fireworks",
        400,
        _openai("The deployment accounts/x/deployments/y has been paused by its owner."),
        "model_not_found",
        False,
    ),
    # tool-call generation failures
    (
        "tool-call-could-not-produce",
        "cohere",
        422,
        {"message": "The model could not produce a valid tool call."},
        "malformed_tool_call",
        False,
    ),
    (
        "tool-call-cannot-be-parsed",
        "mistral",
        422,
        {
            "object": "error",
            "message": "Function call cannot be parsed from the model output",
            "type": "invalid_request_error",
        },
        "malformed_tool_call",
        False,
    ),
    # transport: truncated bodies, and a wrapper around the provider's server error
    (
        "transport-empty-reply",
        "openai",
        None,
        "Empty reply from server",
        "network",
        True,
    ),
    (
        "transport-premature-close",
        "deepseek",
        None,
        "FetchError: Invalid response body while trying to fetch https://api.x/v1: Premature close",
        "network",
        True,
    ),
    (
        "transport-wrapper-server-error",
        "openai",
        None,
        "stream closed before response.completed: An error occurred while processing your request.",
        "server_error",
        True,
    ),
]


@pytest.mark.parametrize(
    ("provider", "status", "body", "kind", "retryable"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_family_paraphrase(
    provider: str, status: int | None, body: Any, kind: str, retryable: bool
) -> None:
    err = classify(status, {}, body, provider=provider)
    assert (err.kind, err.retryable) == (kind, retryable), err.context.metadata.get("classified_by")


def test_bare_error_message_in_a_200_body() -> None:
    """A 2xx body that is nothing but an error message (Bedrock's stream) is a failure."""
    body = {
        "message": "The model returned the following errors: messages.0.role: must start with user"
    }
    err = classify(200, {}, body, provider="bedrock")
    assert err.kind == "invalid_request"
    ok = classify(
        200, {}, {"output": {"message": {"role": "assistant", "content": []}}}, provider="bedrock"
    )
    assert ok.kind == "unknown"
