"""The OpenAI Responses API through the client (``style="responses"``) against the fault
server: plain and streamed answers, tools, its error events, and a background response's
stream resumed after a cut from the last ``sequence_number`` (no event lost or repeated)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import surefoot
from surefoot.errors import LLMError
from surefoot.testing.faults import (
    FaultServer,
    Model,
    Reset,
    Status,
    StreamError,
    ToolCall,
    Truncate,
    Turn,
)
from test_client_helpers import Harness, text_of

modes = pytest.mark.parametrize("mode", ["sync", "async"])
WORDS = " ".join(f"r{i}" for i in range(30))


def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


def _server(**kw: Any) -> FaultServer:
    return FaultServer(models=[Model("*", reply=WORDS)], **kw)


def _h(mode: str, srv: FaultServer, **options: Any) -> Harness:
    options.setdefault("retry_base", 0.01)
    return Harness(mode, srv, "responses", model="gpt-x", **options)


@modes
def test_plain_and_streamed_answers(mode: str) -> None:
    with _server() as srv:
        h = _h(mode, srv)
        r = h.run("hi")
        assert r.text == WORDS and r.usage.output_tokens == 30
        events, exc = h.stream("hi")
        assert exc is None and text_of(events) == WORDS
        assert events[-1].result.usage.output_tokens == 30
        assert [q.path for q in srv.requests] == ["/v1/responses", "/v1/responses"]
        sent = json.loads(srv.requests[1].body)
        assert sent["stream"] is True and sent["input"][0]["content"] == "hi"
        assert "background" not in sent


@modes
def test_a_tool_round_trip(mode: str) -> None:
    model = Model(
        "*",
        turns=[Turn(tool_calls=[ToolCall("get_weather", {"city": "Lisbon"})]), Turn(text="Sunny.")],
    )
    with FaultServer(models=[model]) as srv:
        r = _h(mode, srv).run("weather?", tools=[get_weather])
        assert r.text == "Sunny." and r.turns == 2
        second = json.loads(srv.requests[1].body)
        kinds = [item.get("type") for item in second["input"]]
        assert "function_call" in kinds and "function_call_output" in kinds
        out = next(i for i in second["input"] if i.get("type") == "function_call_output")
        assert out["output"] == "sunny in Lisbon"


@modes
def test_an_error_status_and_an_error_event_are_typed_and_retried(mode: str) -> None:
    with _server() as srv:
        srv.enqueue(Status(429, retry_after=0))
        srv.enqueue(StreamError(after_deltas=0))
        events, exc = _h(mode, srv).stream("hi")
        assert exc is None and text_of(events) == WORDS
        kinds = [a.kind for a in events[-1].result.attempts[:2]]
        assert kinds == ["rate_limit", "model_overloaded"]
        assert len(srv.requests) == 3


@modes
def test_a_final_error_is_raised(mode: str) -> None:
    with _server() as srv:
        srv.enqueue(Status(401))
        with pytest.raises(LLMError) as ei:
            _h(mode, srv).run("hi")
        assert ei.value.kind == "auth_failed" and len(srv.requests) == 1


@modes
@pytest.mark.parametrize("cut", [Truncate(after_events=12), Reset(at="mid_body", after_events=12)])
def test_a_background_stream_resumes_after_its_last_sequence_number(mode: str, cut: Any) -> None:
    with _server() as srv:
        srv.enqueue(cut)
        events, exc = _h(mode, srv, background=True).stream("hi")
        assert exc is None
        texts = [e.text for e in events if e.type == "text"]
        assert "".join(texts) == WORDS  # resumed: nothing lost, nothing repeated
        assert "restart" not in [e.type for e in events]
        first, second = srv.requests
        assert json.loads(first.body)["background"] is True
        assert second.method == "GET" and second.path.startswith("/v1/responses/resp_")
        result = events[-1].result
        assert [a.outcome for a in result.attempts] == ["reconnect", "ok"]


@modes
def test_without_background_a_cut_stream_starts_over(mode: str) -> None:
    with _server() as srv:
        srv.enqueue(Truncate(after_events=12))
        events, exc = _h(mode, srv).stream("hi")
        assert exc is None and text_of(events) == WORDS
        assert [e.type for e in events].count("restart") == 1
        assert [q.method for q in srv.requests] == ["POST", "POST"]


def test_background_needs_the_responses_style() -> None:
    with pytest.raises(ValueError, match="needs style='responses'"):
        surefoot.LLMClient(base_url="http://127.0.0.1:9/v1", model="m", background=True)
