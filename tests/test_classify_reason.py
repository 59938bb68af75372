"""``err.context.metadata["classified_by"]``: the rule that decided the kind, on every error."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from surefoot._classify import classify, classify_event, classify_exception, inspect_response
from surefoot._classify._rules import STRONG_TEXT_LABELS, TEXT_LABELS, TRANSPORT_LABELS

CORPUS = Path(__file__).parent / "data" / "classify_corpus.jsonl"


def _by(err: object) -> str:
    meta = err.context.metadata  # type: ignore[attr-defined]
    value = meta["classified_by"]
    assert isinstance(value, str) and value
    return value


def test_every_old_corpus_line_says_what_decided_it() -> None:
    for line in CORPUS.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            err = classify(
                row["status"], row.get("headers") or {}, row["body"], provider=row["provider"]
            )
            assert _by(err), row["id"]


def test_reason_names_the_code_the_phrase_or_the_status() -> None:
    err = classify(
        429,
        {},
        {"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}},
    )
    assert _by(err) == "code=rate_limit_error"
    err = classify(400, {}, {"error": {"message": "This model does not support tools"}})
    assert _by(err) == "message matched 'does not support' -> capability_mismatch"
    assert _by(classify(503, {}, "")) == "status 503"
    assert _by(classify(None, None, "Connection refused")).endswith("-> network")


def test_details_error_code_and_code_families() -> None:
    body = {
        "type": "error",
        "error": {
            "type": "rate_limit_error",
            "message": "Usage credits are required for this model.",
            "details": {"error_code": "credits_required"},
        },
    }
    err = classify(429, {}, body, provider="anthropic")
    assert err.kind == "quota_exhausted" and err.retryable is False
    body = {
        "type": "error",
        "error": {
            "type": "rate_limit_error",
            "message": "Limit reached.",
            "details": {"error_code": "model_weekly_usage_limit_reached"},
        },
    }
    err = classify(429, {}, body, provider="anthropic")
    assert err.kind == "quota_exhausted"
    assert _by(err) == "code=modelweeklyusagelimitreached (spend/usage limit family)"


def test_finish_reasons_and_events() -> None:
    err = inspect_response({"stopReason": "malformed_model_output"})
    assert err is not None and err.kind == "malformed_tool_call"
    assert _by(err) == "stopReason=malformed_model_output"
    err = inspect_response({"choices": [{"finish_reason": "error", "message": {}}]})
    assert err is not None and err.kind == "server_error" and err.retryable
    err = inspect_response({"candidates": [{"finish_reason": "UNEXPECTED_TOOL_CALL"}]})
    assert err is not None and err.kind == "malformed_tool_call"
    data = {"type": "error", "error": {"type": "invalid_request", "code": "cyber_policy"}}
    err = classify_event("error", json.dumps(data))
    assert err is not None and err.kind == "content_filtered"
    assert _by(err) == "code=cyber_policy"


def test_numbers_in_limit_messages() -> None:
    msg = (
        "this endpoint's maximum context length is 131072 tokens. however, you requested "
        "about 138956 tokens (7884 of text input, 131072 in the output)."
    )
    err = classify(400, {}, {"error": {"message": msg, "code": 400}}, provider="openrouter")
    # an output budget equal to the window: input and output together are over it
    assert err.kind == "context_too_long" and "output tokens alone" not in _by(err)
    over = msg.replace("131072 in the output", "200000 in the output")
    err = classify(400, {}, {"error": {"message": over, "code": 400}}, provider="openrouter")
    # an output budget larger than the window: no input is short enough, lower max_tokens
    assert err.kind == "invalid_request" and "output tokens alone" in _by(err)
    msg = (
        "Rate limit reached for model `m` on tokens per minute (TPM): Limit 7000, Used 0, "
        "Requested ~12903. Please try again in 50.5s."
    )
    body = {"error": {"message": msg, "type": "tokens", "code": "rate_limit_exceeded"}}
    err = classify(429, {}, body, provider="groq")
    assert err.kind == "context_too_long" and err.retryable is False


def test_ndjson_stream_error_line() -> None:
    body = (
        '{"message":{"content":"hi"},"done":false}\n'
        '{"error":"an error was encountered while running the model: unexpected EOF"}\n'
    )
    err = classify(200, {"content-type": "application/x-ndjson"}, body, provider="ollama")
    assert err.kind == "server_error" and err.retryable is True


def test_exceptions_say_their_class() -> None:
    err = classify_exception(httpx.ReadTimeout("read timed out"))
    assert _by(err) == "exception class ReadTimeout (timeout)"


def test_labels_are_constants_of_the_tables() -> None:
    for labels in (STRONG_TEXT_LABELS, TEXT_LABELS, TRANSPORT_LABELS):
        assert all(label.startswith("message matched ") for label in labels)
        assert len(set(labels)) == len(labels)
