"""Each dialect, the 200-body and SSE paths, rate-limit headers and problem+json."""

from __future__ import annotations

import json

import pytest

import surefoot
from surefoot import (
    Kind,
    RateLimitInfo,
    classify,
    classify_event,
    inspect_response,
    kind_of,
    parse_ratelimit_headers,
    ratelimit_of,
)

NOW = 1_700_000_000.0


def test_openai_insufficient_quota_is_not_retryable() -> None:
    body = {
        "error": {
            "message": "You exceeded your current quota",
            "type": "insufficient_quota",
            "code": "insufficient_quota",
        }
    }
    err = classify(429, {"x-request-id": "req_1"}, body, provider="openai", model="gpt-4o")
    assert isinstance(err, surefoot.LLMError)
    assert err.error_type is surefoot.LLMErrorType.QUOTA_EXHAUSTED
    assert err.kind == "quota_exhausted" and not err.retryable
    assert err.context.http_status == 429 and err.context.request_id == "req_1"
    assert err.model == "gpt-4o"


def test_openai_rate_limit_with_headers_and_text_hint() -> None:
    headers = {
        "x-ratelimit-remaining-requests": "0",
        "x-ratelimit-remaining-tokens": "512",
        "x-ratelimit-reset-requests": "6m0s",
        "x-ratelimit-reset-tokens": "12ms",
        "x-ratelimit-limit-requests": "60",
    }
    body = {
        "error": {
            "message": "Rate limit reached ... Please try again in 11.122s.",
            "type": "tokens",
            "code": "rate_limit_exceeded",
        }
    }
    err = classify(429, headers, json.dumps(body), provider="openai")
    assert isinstance(err, surefoot.RateLimitError)
    assert err.retryable and err.retry_after == pytest.approx(11.122)
    assert err.service == "openai" and err.remaining_quota == 0
    info = ratelimit_of(err)
    assert info is not None and info.reset_requests_s == 360.0 and info.reset_tokens_s == 0.012


def test_retry_after_header_beats_text() -> None:
    body = {"error": {"message": "try again in 20s", "code": "rate_limit_exceeded"}}
    err = classify(429, {"retry-after-ms": "1500", "Retry-After": "3"}, body)
    assert err.retry_after == 1.5
    err = classify(429, {"Retry-After": "3"}, body)
    assert err.retry_after == 3.0


def test_request_too_large_is_context_too_long() -> None:
    body = {
        "error": {
            "message": "Request too large for gpt-4o on tokens per min (TPM): "
            "Limit 30000, Requested 30601.",
            "code": "rate_limit_exceeded",
        }
    }
    for status in (413, 429):
        assert classify(status, None, body).kind == "context_too_long"


def test_azure_content_filter_with_and_without_innererror() -> None:
    inner = {
        "error": {
            "message": "filtered",
            "code": "content_filter",
            "innererror": {
                "code": "ResponsibleAIPolicyViolation",
                "content_filter_result": {"hate": {"filtered": True}},
            },
        }
    }
    plain = {
        "error": {
            "message": "The response was filtered due to the prompt triggering "
            "Azure OpenAI's content management policy.",
            "code": None,
        }
    }
    for body in (inner, plain):
        err = classify(400, {}, body, provider="azure")
        assert err.kind == "content_filtered" and not err.retryable


def test_anthropic_overloaded_http_and_stream_are_the_same() -> None:
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    http = classify(529, {"request-id": "req_a"}, body, provider="anthropic")
    sse = classify_event("error", json.dumps(body), provider="anthropic")
    assert sse is not None
    assert type(http) is type(sse) and http.kind == sse.kind == "model_overloaded"
    assert http.retryable and sse.retryable
    assert http.context.request_id == "req_a"


def test_anthropic_credit_balance_is_quota() -> None:
    body = {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "Your credit balance is too low"},
    }
    assert classify(400, {}, body).kind == "quota_exhausted"


def test_anthropic_ratelimit_headers_rfc3339() -> None:
    info = parse_ratelimit_headers(
        {
            "anthropic-ratelimit-requests-remaining": "0",
            "anthropic-ratelimit-requests-reset": "2023-11-14T22:14:20Z",
            "anthropic-ratelimit-tokens-remaining": "100",
        },
        now=NOW,
    )
    assert info.remaining_requests == 0 and info.reset_requests_s == pytest.approx(60.0)
    assert info.remaining_tokens == 100 and info.source == "anthropic"


def test_ietf_ratelimit_fields() -> None:
    info = parse_ratelimit_headers(
        [("RateLimit", '"default";r=5;t=30'), ("RateLimit-Policy", '"default";q=100;w=60')]
    )
    assert (info.remaining_requests, info.reset_requests_s) == (5, 30.0)
    assert (info.limit_requests, info.window_s) == (100, 60.0)
    old = parse_ratelimit_headers(
        {"RateLimit-Limit": "10", "RateLimit-Remaining": "0", "RateLimit-Reset": "7"}
    )
    assert (old.limit_requests, old.remaining_requests, old.reset_s) == (10, 0, 7.0)
    assert parse_ratelimit_headers({"x-ratelimit-reset-tokens": "garbage"}).reset_tokens_s is None
    assert parse_ratelimit_headers(None) == RateLimitInfo()


def _gemini(quota_id: str) -> dict[str, object]:
    return {
        "error": {
            "code": 429,
            "message": "You exceeded your current quota",
            "status": "RESOURCE_EXHAUSTED",
            "details": [
                {
                    "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                    "violations": [{"quotaId": quota_id}],
                },
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "36s"},
            ],
        }
    }


def test_gemini_per_minute_vs_per_day() -> None:
    minute = classify(429, {}, _gemini("GenerateRequestsPerMinutePerProjectPerModel"))
    day = classify(429, {}, _gemini("GenerateRequestsPerDayPerProjectPerModel-FreeTier"))
    assert minute.kind == "rate_limit" and minute.retryable and minute.retry_after == 36.0
    assert day.kind == "quota_exhausted" and not day.retryable


def test_gemini_api_key_invalid_on_400_and_arrays() -> None:
    body = [
        {
            "error": {
                "code": 400,
                "message": "API key not valid.",
                "status": "INVALID_ARGUMENT",
                "details": [
                    {
                        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                        "reason": "API_KEY_INVALID",
                    }
                ],
            }
        }
    ]
    assert classify(400, {}, body, provider="gemini").kind == "auth_failed"


def test_bedrock_header_and_event_stream_agree() -> None:
    hdr = {"x-amzn-ErrorType": "ThrottlingException:http://internal.amazon.com/coral/x/"}
    http = classify(429, hdr, {"message": "Too many requests, please wait"})
    ev = classify_event("throttlingException", b'{"message":"Too many requests"}')
    assert ev is not None and type(http) is type(ev) and http.kind == ev.kind == "rate_limit"
    typed = classify(
        400,
        {},
        {
            "__type": "com.amazon#ValidationException",
            "message": "The provided model identifier is invalid.",
        },
    )
    assert typed.kind == "model_not_found"


def test_openrouter_nested_raw_json_string() -> None:
    raw = json.dumps(
        {
            "type": "error",
            "error": {"type": "invalid_request_error", "message": "Prompt is too long"},
        }
    )
    body = {
        "error": {
            "message": "Provider returned error",
            "code": 413,
            "metadata": {"raw": raw, "provider_name": "Anthropic"},
        }
    }
    err = classify(413, {}, body, provider="openrouter")
    assert err.kind == "context_too_long"
    assert err.context.metadata["upstream_provider"] == "Anthropic"


def test_ollama_and_vllm_and_cohere() -> None:
    assert classify(404, {}, {"error": "model 'x' not found, try pulling it first"}).kind == (
        "model_not_found"
    )
    vllm = {
        "object": "error",
        "message": "Internal server error",
        "type": "InternalServerError",
        "code": 500,
    }
    assert classify(500, {}, vllm).kind == "server_error"
    assert (
        classify(
            400,
            {},
            {"message": "too many tokens: total number of tokens in the prompt cannot exceed 4081"},
        ).kind
        == "context_too_long"
    )
    cap = classify(400, {}, {"error": "model does not support tools"})
    assert isinstance(cap, surefoot.LLMCapabilityError) and cap.kind == "capability_mismatch"


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (502, "server_error"),
        (504, "timeout"),
        (520, "server_error"),
        (522, "timeout"),
        (524, "timeout"),
        (503, "server_error"),
    ],
)
def test_html_proxy_pages(status: int, kind: str) -> None:
    page = f"<html><head><title>{status} Error</title></head><body>cloudflare</body></html>"
    err = classify(status, {"content-type": "text/html", "cf-ray": "abc-ATL"}, page)
    assert err.kind == kind and err.retryable
    assert err.context.request_id == "abc-ATL"


def test_problem_json_catalog_codes() -> None:
    h = {"content-type": "application/problem+json"}

    def pj(code: str, status: int, **extra: object) -> surefoot.SurefootError:
        body = {"type": "about:blank", "title": code, "status": status, "error_code": code, **extra}
        return classify(status, h, body)

    billing = pj("BILLING_LIMIT_EXCEEDED", 429, retryable=False)
    assert billing.kind == "quota_exhausted" and not billing.retryable
    assert billing.code == "BILLING_LIMIT_EXCEEDED" and billing.has_server_problem
    deadline = pj("TASK_DEADLINE_EXCEEDED", 504, retryable=False)
    assert isinstance(deadline, surefoot.RunTimeoutError) and not deadline.retryable
    assert pj("LLM_CONFIG_CONTEXT_TOO_SMALL", 503).kind == "context_too_long"
    assert pj("CONTENT_FILTERED", 400).kind == "content_filtered"
    rl = pj("RATE_LIMIT_EXCEEDED", 429, retryable=True, retry_after_seconds=7)
    assert isinstance(rl, surefoot.RateLimitError) and rl.retry_after == 7.0 and rl.retryable
    no = pj("RATE_LIMIT_EXCEEDED", 429, retryable=False)
    assert isinstance(no, surefoot.RateLimitError) and not no.retryable
    assert isinstance(pj("VALIDATION_ERROR", 422), surefoot.ValidationError)
    assert isinstance(pj("AUTHENTICATION_FAILED", 401), surefoot.AuthError)
    unavailable = pj("SERVICE_UNAVAILABLE", 503, retryable=False)
    assert not unavailable.retryable
    in_stream = classify(
        503,
        h,
        {"error_code": "SERVICE_UNAVAILABLE", "retryable": False, "title": "x"},
        in_stream=True,
    )
    assert in_stream.retryable and in_stream.kind == "server_error"


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ({"choices": [{"finish_reason": "content_filter", "message": {}}]}, "content_filtered"),
        ({"candidates": [{"finishReason": "SAFETY"}]}, "content_filtered"),
        ({"candidates": [{"finishReason": "RECITATION"}]}, "content_filtered"),
        ({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}}, "content_filtered"),
        ({"candidates": [{"finishReason": "MALFORMED_FUNCTION_CALL"}]}, "malformed_tool_call"),
        ({"stop_reason": "refusal", "content": []}, "content_filtered"),
        ({"stop_reason": "model_context_window_exceeded"}, "context_too_long"),
        ({"stopReason": "guardrail_intervened"}, "content_filtered"),
        (
            {
                "choices": [
                    {
                        "finish_reason": "tool_calls",
                        "message": {
                            "tool_calls": [{"function": {"name": "f", "arguments": '{"a": 1'}}]
                        },
                    }
                ]
            },
            "malformed_tool_call",
        ),
    ],
)
def test_inspect_response_failures(body: object, kind: str) -> None:
    err = inspect_response(body)
    assert err is not None and err.kind == kind
    assert classify(200, {}, json.dumps(body)).kind == kind


@pytest.mark.parametrize(
    "body",
    [
        {"choices": [{"finish_reason": "stop", "message": {"content": "hi"}}]},
        {"choices": [{"finish_reason": "length", "message": {"content": "hi"}}]},
        {"stop_reason": "max_tokens"},
        {"candidates": [{"finishReason": "STOP"}]},
        {"choices": [{"message": {"tool_calls": [{"function": {"arguments": '{"a": 1}'}}]}}]},
    ],
)
def test_inspect_response_fine(body: object) -> None:
    assert inspect_response(body) is None
    assert classify(200, {}, body).kind == "unknown"


def test_200_body_error_matches_http() -> None:
    err = {"message": "Rate limit exceeded", "code": 429}
    in_body = inspect_response({"choices": [], "error": err})
    over_http = classify(429, {}, {"error": err})
    assert in_body is not None and type(in_body) is type(over_http)
    assert (in_body.kind, in_body.retryable) == (over_http.kind, over_http.retryable)


def test_stream_events() -> None:
    failed = {
        "type": "response.failed",
        "response": {
            "status": "failed",
            "error": {
                "code": "server_error",
                "message": "The model failed to generate a response.",
            },
        },
    }
    err = classify_event("response.failed", json.dumps(failed))
    assert err is not None and err.kind == "server_error" and err.retryable
    inc = {
        "type": "response.incomplete",
        "response": {"status": "incomplete", "incomplete_details": {"reason": "content_filter"}},
    }
    ev = classify_event("response.incomplete", inc)
    assert ev is not None and ev.kind == "content_filtered"
    chunk = {"choices": [{"delta": {"content": "hi"}, "finish_reason": None}]}
    assert classify_event("message", json.dumps(chunk)) is None
    assert classify_event("ping", "") is None
    assert classify_event("message", "[DONE]") is None
    oa = {"error": {"message": "The server had an error", "type": "server_error"}}
    http = classify(500, {}, oa)
    ev2 = classify_event(None, json.dumps(oa))
    assert ev2 is not None and type(ev2) is type(http) and ev2.kind == http.kind


def test_in_stream_5xx_is_retryable() -> None:
    err = classify(
        500,
        {"content-type": "application/problem+json"},
        {"error_code": "INTERNAL_ERROR", "retryable": False, "title": "x"},
        in_stream=True,
    )
    assert err.retryable


def test_sse_body_over_classify() -> None:
    text = (
        'event: message_start\ndata: {"type":"message_start"}\n\n'
        'event: error\ndata: {"type":"error","error":{"type":"overloaded_error",'
        '"message":"Overloaded"}}\n\n'
    )
    err = classify(200, {"content-type": "text/event-stream"}, text)
    assert err.kind == "model_overloaded" and err.retryable
    assert err.context.metadata.get("in_stream") is True


def test_transport_text() -> None:
    assert classify(None, None, "httpx.ReadTimeout: The read operation timed out").kind == (
        "timeout"
    )
    net = classify(None, None, "ConnectionResetError: [Errno 104] Connection reset by peer")
    assert isinstance(net, surefoot.NetworkError) and net.retryable


def test_kinds_and_kind_of() -> None:
    assert len(Kind) == 15 and Kind.RATE_LIMIT == "rate_limit"
    assert kind_of(classify(429, {}, "")) is Kind.RATE_LIMIT
    assert kind_of(ConnectionRefusedError("refused")) is Kind.NETWORK
    assert kind_of(surefoot.SurefootError("x")) is Kind.UNKNOWN


def test_status_only_table() -> None:
    expect = {
        400: "invalid_request",
        401: "auth_failed",
        402: "quota_exhausted",
        403: "permission_denied",
        404: "model_not_found",
        408: "timeout",
        413: "context_too_long",
        429: "rate_limit",
        500: "server_error",
        529: "model_overloaded",
        418: "invalid_request",
        599: "server_error",
    }
    for status, kind in expect.items():
        assert classify(status, None, None).kind == kind, status


def test_secrets_are_redacted() -> None:
    body = {
        "error": {
            "message": "Incorrect API key provided: sk-proj-abcdefghijklmnop1234",
            "code": "invalid_api_key",
        }
    }
    err = classify(401, {}, body)
    assert err.kind == "auth_failed" and "abcdefghijklmnop" not in str(err)
