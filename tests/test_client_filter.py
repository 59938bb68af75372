"""Answers that are no acceptable answer: content filters and refusals (every provider's way of
saying it), and responses of the wrong content type — through run() and stream(), both wire
formats, sync and async."""

from __future__ import annotations

import json
from typing import Any

import pytest

import surefoot
from surefoot.errors import LLMError
from surefoot.testing.faults import ContentFilter, FaultServer, Match, Model, Rule
from test_client_helpers import MODES, STYLES, Harness, StubServer, text_of

both = pytest.mark.parametrize("style", STYLES)
modes = pytest.mark.parametrize("mode", MODES)
filter_modes = pytest.mark.parametrize("fault_mode", ["finish_reason", "error"])
calls = pytest.mark.parametrize("call", ["run", "stream"])


def go(h: Harness, call: str, *args: Any, **kwargs: Any) -> tuple[Any, BaseException | None]:
    """``(result, None)`` or ``(None, error)`` for run() or stream()."""
    if call == "stream":
        events, exc = h.stream(*args, **kwargs)
        return (events[-1].result if exc is None else None), exc
    try:
        return h.run(*args, **kwargs), None
    except Exception as exc:
        return None, exc


def assert_content_filtered(exc: BaseException | None) -> LLMError:
    assert isinstance(exc, LLMError), repr(exc)
    assert exc.code == "CONTENT_FILTERED" and exc.kind == "content_filtered"
    assert exc.retryable is False
    return exc


# -- the ContentFilter fault -------------------------------------------------------------------


@modes
@both
@filter_modes
@calls
def test_filtered_answer_moves_to_the_next_model(
    mode: str, style: str, fault_mode: str, call: str
) -> None:
    with FaultServer(models=[Model("*", reply="from b")]) as srv:
        srv.add_rule(Rule(ContentFilter(mode=fault_mode), Match(model="a")))  # type: ignore[arg-type]
        result, exc = go(Harness(mode, srv, style, model=["a", "b"]), call, "hi")
        assert exc is None, repr(exc)
        assert result.text == "from b" and result.model == "b"
        assert [(a.model, a.outcome, a.kind) for a in result.attempts] == [
            ("a", "fallback", "content_filtered"),
            ("b", "ok", None),
        ]
        assert [q.model for q in srv.requests] == ["a", "b"]  # a filter is never retried


@modes
@both
@filter_modes
@calls
def test_filtered_on_every_model_is_content_filtered(
    mode: str, style: str, fault_mode: str, call: str
) -> None:
    with FaultServer(models=[Model("*", reply="never")]) as srv:
        srv.add_rule(Rule(ContentFilter(mode=fault_mode, text="Sure, the")))  # type: ignore[arg-type]
        # text before the filter: only the streamed finish_reason mode shows it as deltas
        if call == "stream" and fault_mode == "finish_reason":
            events, exc = Harness(mode, srv, style, model=["a", "b"]).stream("hi", task_id="f")
            # after the first delta a filter is final: no fallback, the model's own error
            err = assert_content_filtered(exc)
            assert text_of(events) == "Sure, the"
            assert err.context.operation == "stream" and err.context.task_id == "f"
            assert [q.model for q in srv.requests] == ["a"]
            return
        _result, exc = go(Harness(mode, srv, style, model=["a", "b"]), call, "hi")
        err = assert_content_filtered(exc)
        cause = err.__cause__
        assert isinstance(cause, LLMError) and cause.kind == "content_filtered"
        assert [q.model for q in srv.requests] == ["a", "b"]
        assert [a.outcome for a in err.attempts] == ["fallback", "fallback"]  # type: ignore[attr-defined]


@modes
@both
def test_filter_without_text_streams_nothing_and_falls_back(mode: str, style: str) -> None:
    with FaultServer(models=[Model("*", reply="from b")]) as srv:
        srv.add_rule(Rule(ContentFilter(), Match(model="a")))
        events, exc = Harness(mode, srv, style, model=["a", "b"]).stream("hi")
        assert exc is None and text_of(events) == "from b"


# -- refusals the fast path must not let through (OpenAI's refusal field) ---------------------


def _openai_refusal(model: str, stream: bool) -> tuple[int, dict[str, str], Any]:
    if not stream:
        doc = {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": None, "refusal": "I can't."},
                    "finish_reason": "stop",
                }
            ],
        }
        return 200, {"content-type": "application/json"}, json.dumps(doc).encode()
    chunks = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "refusal": ""}}]},
        {"choices": [{"index": 0, "delta": {"refusal": "I can't."}, "finish_reason": None}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]
    body = [f"data: {json.dumps(c)}\n\n".encode() for c in chunks] + [b"data: [DONE]\n\n"]
    return 200, {"content-type": "text/event-stream"}, body


def _openai_answer(model: str, stream: bool) -> tuple[int, dict[str, str], Any]:
    if not stream:
        doc = {
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": f"from {model}"},
                    "finish_reason": "stop",
                }
            ]
        }
        return 200, {"content-type": "application/json"}, json.dumps(doc).encode()
    chunks = [
        {"choices": [{"index": 0, "delta": {"content": f"from {model}"}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]
    body = [f"data: {json.dumps(c)}\n\n".encode() for c in chunks] + [b"data: [DONE]\n\n"]
    return 200, {"content-type": "text/event-stream"}, body


@modes
@calls
def test_openai_refusal_field_is_not_an_answer(mode: str, call: str) -> None:
    """OpenAI reports a refusal as finish_reason "stop" with ``message.refusal``: the client's
    fast path (which skips inspect_response for a clean stop) must still treat it as filtered."""

    def handler(path: str, headers: dict[str, str], body: bytes) -> Any:
        doc = json.loads(body)
        make = _openai_refusal if doc["model"] == "a" else _openai_answer
        return make(doc["model"], bool(doc.get("stream")))

    with StubServer(handler) as stub:
        result, exc = go(Harness(mode, stub, "openai", model=["a", "b"]), call, "hi")
        assert exc is None, repr(exc)
        assert result.text == "from b"
        assert next((a.model, a.outcome, a.kind) for a in result.attempts) == (
            "a",
            "fallback",
            "content_filtered",
        )
        _result, exc = go(Harness(mode, stub, "openai", model=["a"]), call, "hi")
        err = assert_content_filtered(exc)
        assert isinstance(err.__cause__, LLMError)
        assert err.__cause__.context.metadata.get("provider_code") == "refusal"


# -- the wrong content type -------------------------------------------------------------------

HTML = b"<html><head><title>Sign in</title></head><body>Proxy login</body></html>"
BAD_GATEWAY = b"<html><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>"


@modes
@both
@calls
def test_html_200_from_a_proxy_is_a_typed_error(mode: str, style: str, call: str) -> None:
    def handler(path: str, headers: dict[str, str], body: bytes) -> Any:
        return 200, {"content-type": "text/html; charset=utf-8"}, HTML

    with StubServer(handler) as stub:
        h = Harness(mode, stub, style, retries=1, stream_attempts=2)
        _result, exc = go(h, call, "hi", task_id="html")
        # A chain of one model: its own final error, not LLM_PROVIDERS_UNAVAILABLE.
        cause = exc
        assert isinstance(cause, surefoot.ConnectionFailedError)
        assert "text/html" in str(cause) and "<html>" in str(cause)
        assert cause.context.http_status == 200
        assert cause.context.metadata["content_type"].startswith("text/html")
        assert cause.context.task_id == "html"
        assert len(stub.requests) == 2  # retried, bounded


@modes
@both
@calls
def test_html_502_page_is_a_typed_server_error(mode: str, style: str, call: str) -> None:
    def handler(path: str, headers: dict[str, str], body: bytes) -> Any:
        return 502, {"content-type": "text/html"}, BAD_GATEWAY

    with StubServer(handler) as stub:
        h = Harness(mode, stub, style, retries=1, stream_attempts=2)
        _result, exc = go(h, call, "hi")
        cause = exc  # a chain of one model: its own final error
        assert isinstance(cause, LLMError) and cause.kind == "server_error"
        assert cause.context.http_status == 502
        assert len(stub.requests) == 2


@modes
@both
def test_json_error_answer_to_a_stream_is_classified(mode: str, style: str) -> None:
    """A 200 JSON body on a streamed request is read as JSON, not decoded as an empty
    stream: the error object inside it gives its own class."""
    if style == "openai":
        doc: dict[str, Any] = {"error": {"message": "Invalid API key", "code": "invalid_api_key"}}
    else:
        doc = {"type": "error", "error": {"type": "authentication_error", "message": "bad key"}}

    def handler(path: str, headers: dict[str, str], body: bytes) -> Any:
        return 200, {"content-type": "application/json"}, json.dumps(doc).encode()

    with StubServer(handler) as stub:
        _events, exc = Harness(mode, stub, style).stream("hi")
        assert isinstance(exc, LLMError) and exc.kind == "auth_failed", repr(exc)
        assert exc.context.http_status == 200
        assert len(stub.requests) == 1  # not retryable
