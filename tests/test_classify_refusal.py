"""OpenAI refusals (``message.refusal``, streamed ``delta.refusal``, Responses ``refusal``
parts and events) are content_filtered, like Anthropic's ``refusal`` stop reason."""

from __future__ import annotations

import json
from typing import Any

import pytest

import surefoot
from surefoot import classify, classify_event, inspect_response

#: The refusal body shown in OpenAI's Structured Outputs guide (the "Refusals" section).
DOCS_REFUSAL: dict[str, Any] = {
    "id": "chatcmpl-9nYAG9LPNonX8DAyrkwYfemr3C8HC",
    "object": "chat.completion",
    "created": 1721596428,
    "model": "gpt-4o-2024-08-06",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "refusal": "I'm sorry, I cannot assist with that request.",
            },
            "logprobs": None,
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 81, "completion_tokens": 11, "total_tokens": 92},
    "system_fingerprint": "fp_3407719c7f",
}


def _chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    return json.dumps(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1721596428,
            "model": "gpt-4o-2024-08-06",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }
    )


def _is_refusal(err: surefoot.SurefootError | None, text: str) -> None:
    assert isinstance(err, surefoot.LLMError)
    assert err.kind == "content_filtered"
    assert err.error_type is surefoot.LLMErrorType.CONTENT_FILTERED
    assert err.retryable is False
    assert text in str(err)


def test_docs_refusal_body() -> None:
    _is_refusal(inspect_response(DOCS_REFUSAL), "cannot assist")
    _is_refusal(inspect_response(json.dumps(DOCS_REFUSAL)), "cannot assist")
    _is_refusal(classify(200, {"content-type": "application/json"}, DOCS_REFUSAL), "cannot")


def test_streamed_delta_refusal() -> None:
    err = classify_event(None, _chunk({"role": "assistant", "refusal": "I'm sorry"}))
    _is_refusal(err, "I'm sorry")
    assert err is not None and err.context.metadata.get("in_stream") is True
    stream = "".join(
        f"data: {c}\n\n"
        for c in (
            _chunk({"role": "assistant", "content": None, "refusal": ""}),
            _chunk({"refusal": "I can't help with that."}),
            _chunk({}, "stop"),
        )
    )
    _is_refusal(
        classify(200, {"content-type": "text/event-stream"}, stream + "data: [DONE]\n\n"), "help"
    )


def test_responses_api_refusal() -> None:
    body = {
        "object": "response",
        "status": "completed",
        "output": [
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "refusal", "refusal": "I'm sorry, I cannot assist."}],
            }
        ],
    }
    _is_refusal(inspect_response(body), "cannot assist")
    done = {"type": "response.refusal.done", "item_id": "m", "refusal": "No, sorry."}
    _is_refusal(classify_event("response.refusal.done", json.dumps(done)), "No, sorry.")
    delta = {"type": "response.refusal.delta", "item_id": "m", "delta": "No"}
    _is_refusal(classify_event(None, json.dumps(delta)), "No")


@pytest.mark.parametrize(
    "message",
    [
        {"role": "assistant", "content": "Hello", "refusal": None},
        {"role": "assistant", "content": "Hello", "refusal": ""},
        {"role": "assistant", "content": "Hello", "refusal": "   "},
        {"role": "assistant", "content": "Hello", "refusal": 0},
        {"role": "assistant", "content": "Hello", "refusal": ["not", "a", "string"]},
    ],
)
def test_no_refusal_is_fine(message: dict[str, Any]) -> None:
    body = {"object": "chat.completion", "choices": [{"message": message, "finish_reason": "stop"}]}
    assert inspect_response(body) is None
    assert classify_event(None, _chunk({"content": "Hi", "refusal": None})) is None
    assert inspect_response({"object": "response", "status": "completed", "output": []}) is None


def test_content_filter_finish_reason_still_wins() -> None:
    body = {
        "choices": [
            {"message": {"refusal": "I'm sorry"}, "finish_reason": "content_filter"},
        ]
    }
    err = inspect_response(body)
    assert err is not None and err.kind == "content_filtered"
    assert err.context.metadata.get("provider_code") == "content_filter"
