"""stream(): deltas exactly once, transparent retries before the first delta, resume with
Last-Event-ID after it, typed errors with stream context otherwise."""

from __future__ import annotations

import json
from typing import Any

import pytest

import surefoot
from surefoot.errors import LLMError
from surefoot.llm import ResultEvent, RunResult
from surefoot.testing.faults import (
    FaultServer,
    MalformedToolCall,
    Model,
    Reset,
    Status,
    StreamError,
    ToolCall,
    Truncate,
    Turn,
)
from test_client_helpers import MODES, STYLES, Harness, StubServer, text_of

both = pytest.mark.parametrize("style", STYLES)
modes = pytest.mark.parametrize("mode", MODES)
REPLY = "one two three four five six seven eight"


@modes
@both
def test_stream_text_and_result(mode: str, style: str) -> None:
    with FaultServer(models=[Model("m1", reply=REPLY)]) as srv:
        events, exc = Harness(mode, srv, style).stream("hi")
        assert exc is None
        assert text_of(events) == REPLY
        assert all(e.type == "text" for e in events[:-1])
        last = events[-1]
        assert isinstance(last, ResultEvent) and last.type == "result"
        assert isinstance(last.result, RunResult) and last.result.text == REPLY


@modes
@both
def test_stream_retries_before_first_delta(mode: str, style: str) -> None:
    with FaultServer(models=[Model("m1", reply=REPLY)]) as srv:
        srv.enqueue(Status(503))
        srv.enqueue(StreamError(after_deltas=0))
        events, exc = Harness(mode, srv, style).stream("hi")
        assert exc is None and text_of(events) == REPLY
        assert len(srv.requests) == 3
        assert len({r.idempotency_key for r in srv.requests}) == 1


@modes
@both
def test_mid_stream_overload_resumes_exactly_once(mode: str, style: str) -> None:
    """An overload error event after 3 deltas (Anthropic `event: error` overloaded_error,
    OpenAI `data: {"error": ...}`): retryable, and the events carry ids, so the client
    reconnects with Last-Event-ID, within the same stream attempt budget, losing and repeating
    nothing."""
    with FaultServer(models=[Model("m1", reply=REPLY)]) as srv:
        srv.enqueue(StreamError(after_deltas=3, error="overloaded"))
        events, exc = Harness(mode, srv, style).stream("hi", task_id="s-1")
        assert exc is None, repr(exc)
        assert text_of(events) == REPLY  # nothing lost, nothing repeated
        first, second = srv.requests
        assert first.last_event_id is None and second.last_event_id
        assert first.idempotency_key == second.idempotency_key
        assert json.loads(first.body) == json.loads(second.body)
        attempts = events[-1].result.attempts
        assert [(a.outcome, a.kind) for a in attempts] == [
            ("reconnect", "model_overloaded"),
            ("ok", None),
        ]
        assert [a.attempt for a in attempts] == [0, 1]


@modes
@both
def test_mid_stream_retryable_errors_share_the_stream_budget(mode: str, style: str) -> None:
    """Every reconnect spends the one stream attempt budget; once it is spent the typed error
    is raised with its stream context, and the caller saw a prefix, never a repeat."""
    with FaultServer(models=[Model("m1", reply=REPLY)]) as srv:
        srv.enqueue(StreamError(after_deltas=1, error="server"), times=9)
        events, exc = Harness(mode, srv, style, stream_attempts=3).stream("hi", task_id="b")
        assert isinstance(exc, LLMError) and exc.kind == "server_error"
        assert exc.code != "LLM_PROVIDERS_UNAVAILABLE"
        text = text_of(events)
        assert text and REPLY.startswith(text)
        assert exc.context.attempt == 2 and exc.context.task_id == "b"
        last_sent = srv.requests[-1].last_event_id
        assert last_sent and int(exc.context.last_event_id or 0) > int(last_sent)
        assert len(srv.requests) == 3
        assert all(r.last_event_id for r in srv.requests[1:])
    with FaultServer(models=[Model("m1", reply=REPLY)]) as srv:
        srv.enqueue(StreamError(after_deltas=2, error="overloaded"), times=2)
        events, exc = Harness(mode, srv, style).stream("hi")
        assert exc is None and text_of(events) == REPLY
        outcomes = [a.outcome for a in events[-1].result.attempts]
        assert outcomes == ["reconnect", "reconnect", "ok"]


@modes
@both
def test_an_open_breaker_after_the_first_delta_never_falls_back(mode: str, style: str) -> None:
    """The overload opens model a's breaker; the reconnect is rejected. Moving on to model b
    would replay the answer from its start, so the CircuitOpenError is raised instead."""
    breaker = surefoot.CircuitBreaker("a", failure_threshold=1)
    with FaultServer(models=[Model("*", reply=REPLY)]) as srv:
        srv.enqueue(StreamError(after_deltas=3, error="overloaded"))
        h = Harness(mode, srv, style, model=["a", "b"], breaker={"a": breaker})
        events, exc = h.stream("hi")
        assert isinstance(exc, surefoot.CircuitOpenError), repr(exc)
        assert exc.context.last_event_id
        assert REPLY.startswith(text_of(events)) and text_of(events)
        assert [r.model for r in srv.requests] == ["a"]


@modes
@both
@pytest.mark.parametrize("error", ["content_filter", "bad_request", "context_length"])
def test_final_mid_stream_error_event_is_not_retried(mode: str, style: str, error: str) -> None:
    with FaultServer(models=[Model("m1", reply=REPLY)]) as srv:
        srv.enqueue(StreamError(after_deltas=2, error=error))
        events, exc = Harness(mode, srv, style).stream("hi", task_id="f")
        assert isinstance(exc, LLMError) and not exc.retryable
        assert exc.code != "LLM_PROVIDERS_UNAVAILABLE"
        assert text_of(events) == "one two "[: len(text_of(events))]
        ctx = exc.context
        assert ctx.operation == "stream" and ctx.task_id == "f" and ctx.attempt == 0
        assert ctx.last_event_id
        attempts = exc.attempts  # type: ignore[attr-defined]
        assert [(a.outcome, a.reason) for a in attempts] == [("fail", "final error event")]
        assert len(srv.requests) == 1


@modes
@both
def test_mid_stream_error_event_same_class_as_http(mode: str, style: str) -> None:
    with FaultServer(models=[Model("m1", reply=REPLY)]) as srv:
        srv.enqueue(StreamError(after_deltas=2, error="overloaded"))
        events, exc = Harness(mode, srv, style, stream_attempts=1).stream("hi", task_id="s-1")
        assert isinstance(exc, LLMError) and exc.kind == "model_overloaded"
        assert text_of(events) == "one two "[: len(text_of(events))]
        ctx = exc.context
        assert ctx.operation == "stream" and ctx.task_id == "s-1" and ctx.attempt == 0
        assert ctx.last_event_id
        assert ctx.metadata.get("http_status") == 200
        assert len(srv.requests) == 1
    with FaultServer(models=[Model("m1", reply=REPLY)]) as srv:
        srv.enqueue(Status(529 if style == "anthropic" else 503, error="overloaded"), times=9)
        with pytest.raises(LLMError) as ei:
            Harness(mode, srv, style, retries=0).run("hi")
        assert type(ei.value) is type(exc) and ei.value.kind == exc.kind


@modes
@both
@pytest.mark.parametrize("fault", ["truncate", "reset"])
def test_resume_with_last_event_id_exactly_once(mode: str, style: str, fault: str) -> None:
    resumed = 0
    for _ in range(3):
        with FaultServer(models=[Model("m1", reply=REPLY)]) as srv:
            f: Any = (
                Truncate(after_events=6)
                if fault == "truncate"
                else Reset(at="mid_body", after_events=6)
            )
            srv.enqueue(f)
            events, exc = Harness(mode, srv, style).stream("hi")
            assert exc is None
            assert text_of(events) == REPLY  # nothing lost, nothing repeated
            first, second = srv.requests
            assert first.idempotency_key == second.idempotency_key
            assert json.loads(first.body) == json.loads(second.body)
            outcomes = [a.outcome for a in events[-1].result.attempts]
            # A connection reset can discard bytes already sent; then nothing was emitted and
            # the request is simply retried. Otherwise it resumes after the last event id.
            assert outcomes in (["reconnect", "ok"], ["retry", "ok"])
            if outcomes[0] == "reconnect":
                assert second.last_event_id
                resumed += 1
            else:
                assert second.last_event_id is None
    assert resumed >= 1


@modes
@both
def test_stream_attempt_budget_covers_the_whole_stream(mode: str, style: str) -> None:
    with FaultServer(models=[Model("m1", reply=REPLY)]) as srv:
        srv.enqueue(Status(503), times=50)
        _events, exc = Harness(mode, srv, style, stream_attempts=3).stream("hi")
        assert isinstance(exc, LLMError) and exc.context.http_status == 503  # one model: its own
        assert len(srv.requests) == 3


LONG = " ".join(f"word{i}" for i in range(60))


@modes
@both
def test_stream_budget_is_not_capped_by_the_errors_own_attempts(mode: str, style: str) -> None:
    """After the first delta, a reset allows 3 retries of its own, but one budget of
    stream_attempts covers every resume of the stream: 4 resets then success succeed, 5 fail."""
    assert surefoot.NetworkError("reset").max_retry_attempts < 4
    with FaultServer(models=[Model("m1", reply=LONG)]) as srv:
        srv.enqueue(Reset(at="mid_body", after_events=5), times=4)
        events, exc = Harness(mode, srv, style, stream_attempts=5).stream("hi")
        assert exc is None, repr(exc)
        assert text_of(events) == LONG
        attempts = events[-1].result.attempts
        assert [(a.outcome, a.kind) for a in attempts] == [("reconnect", "network")] * 4 + [
            ("ok", None)
        ]
        assert len(srv.requests) == 5 and len({r.idempotency_key for r in srv.requests}) == 1
    with FaultServer(models=[Model("m1", reply=LONG)]) as srv:
        srv.enqueue(Reset(at="mid_body", after_events=5), times=5)
        _events, exc = Harness(mode, srv, style, stream_attempts=5).stream("hi")
        assert isinstance(exc, surefoot.SurefootError) and exc.kind == "network"
        assert exc.context.attempt == 4
        assert len(srv.requests) == 5


@modes
@both
def test_retries_before_the_first_delta_mean_what_they_mean_for_run(mode: str, style: str) -> None:
    """Before the first delta a stream's failures follow ``retries=`` exactly as ``run()``'s
    do (the stream's own budget only bounds the resumes after it): the same number of
    attempts for the same failures, whatever ``stream_attempts`` says."""
    for retries in (1, 2):
        for call in ("run", "stream"):
            with FaultServer(models=[Model("m1", reply=REPLY)]) as srv:
                srv.enqueue(Reset(), times=9)
                h = Harness(mode, srv, style, retries=retries, stream_attempts=5)
                if call == "run":
                    with pytest.raises(surefoot.NetworkError):
                        h.run("hi")
                else:
                    _events, exc = h.stream("hi")
                    assert isinstance(exc, surefoot.NetworkError)
                assert len(srv.requests) == retries + 1, (call, retries)


@modes
@both
def test_stream_invalid_tool_arguments_go_back_to_the_model(mode: str, style: str) -> None:
    def get_weather(city: str) -> str:
        return f"sunny in {city}"

    model = Model(
        "m1",
        turns=[
            Turn(tool_calls=[ToolCall("get_weather", '{"city": "Par')]),
            Turn(tool_calls=[ToolCall("get_weather", {"town": "Paris"})]),
            Turn(tool_calls=[ToolCall("get_weather", {"city": "Paris"})]),
            Turn(text="Sunny."),
        ],
    )
    with FaultServer(models=[model]) as srv:
        events, exc = Harness(mode, srv, style).stream("weather?", tools=[get_weather])
        assert exc is None, repr(exc)
        results = [e for e in events if e.type == "tool_result"]
        assert [r.is_error for r in results] == [True, True, False]
        assert "JSON" in results[0].content and "city" in results[1].content
        assert results[2].content == "sunny in Paris"
        assert text_of(events) == "Sunny."
        assert len(srv.requests) == 4  # no retry: each bad call went back to the model
    with FaultServer(models=[Model("m1", turns=[Turn(text="fine")])]) as srv:
        srv.enqueue(MalformedToolCall(name="get_weather"))
        events, exc = Harness(mode, srv, style).stream("weather?", tools=[get_weather])
        assert exc is None and text_of(events) == "fine"
        assert [e.is_error for e in events if e.type == "tool_result"] == [True]


@modes
@both
def test_stream_invalid_tool_arguments_are_bounded(mode: str, style: str) -> None:
    def get_weather(city: str) -> str:
        return city

    turns = [Turn(tool_calls=[ToolCall("get_weather", '{"city": ' + str(i))]) for i in range(9)]
    with FaultServer(models=[Model("m1", turns=turns)]) as srv:
        h = Harness(mode, srv, style, max_tool_errors=2)
        events, exc = h.stream("x", tools=[get_weather])
        assert isinstance(exc, LLMError) and exc.code == "MALFORMED_TOOL_CALL"
        assert len(srv.requests) == 3
        assert [e.is_error for e in events if e.type == "tool_result"] == [True, True]


@modes
@both
def test_stream_tool_loop_events(mode: str, style: str) -> None:
    def get_weather(city: str) -> str:
        return f"sunny in {city}"

    model = Model(
        "m1",
        turns=[Turn(tool_calls=[ToolCall("get_weather", {"city": "Paris"})]), Turn(text="Sunny.")],
    )
    with FaultServer(models=[model]) as srv:
        events, exc = Harness(mode, srv, style).stream("weather?", tools=[get_weather])
        assert exc is None
        types = [e.type for e in events]
        assert "tool_call" in types and types[-1] == "result"
        (tr,) = [e for e in events if e.type == "tool_result"]
        assert tr.content == "sunny in Paris" and tr.call.name == "get_weather"
        args = "".join(e.arguments_delta for e in events if e.type == "tool_call")
        assert json.loads(args) == {"city": "Paris"}
        assert text_of(events) == "Sunny."


def _chunk(text: str) -> bytes:
    obj = {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}
    return f"data: {json.dumps(obj)}\n\n".encode()


@modes
@pytest.mark.parametrize("rescue", ["off", "restart"])
def test_no_ids_after_first_delta_raises_with_context(mode: str, rescue: str) -> None:
    """A stream cut after its first delta by a server whose events carry no id: with
    ``stream_rescue="off"`` the typed error is raised at once; by default the answer starts
    over (each time announced by a restart event) within ``retries=``, then the error."""

    def handler(path: str, headers: dict[str, str], body: bytes) -> Any:
        return 200, {"content-type": "text/event-stream"}, [_chunk("hel"), _chunk("lo")]

    with StubServer(handler) as stub:
        h = Harness(mode, stub, "openai", stream_rescue=rescue, retry_base=0.01)
        events, exc = h.stream("hi", task_id="nt")
        assert text_of(events) == "hello"
        assert isinstance(exc, surefoot.ConnectionFailedError)
        assert exc.context.operation == "stream" and exc.context.task_id == "nt"
        assert exc.context.http_status == 200
        restarts = [e for e in events if e.type == "restart"]
        tries = 1 if rescue == "off" else 3  # retries=2
        assert exc.context.attempt == tries - 1 and len(stub.requests) == tries
        assert len(restarts) == tries - 1
        assert all(r.discarded == "hello" and r.model == "m1" for r in restarts)
        assert [e.type for e in events].count("text") == 2 * tries


def _error_event() -> bytes:
    return b'data: {"error": {"message": "Overloaded", "type": "server_error", "code": null}}\n\n'


@modes
@pytest.mark.parametrize("rescue", ["off", "restart"])
def test_no_ids_mid_stream_overload_raises_with_context(mode: str, rescue: str) -> None:
    """A retryable error event after the first delta, from a server whose events carry no id:
    nothing to resume from. ``"off"``: the typed error is raised with its stream context;
    ``"restart"``: the answer starts over on the same model within ``retries=``."""

    def handler(path: str, headers: dict[str, str], body: bytes) -> Any:
        return 200, {"content-type": "text/event-stream"}, [_chunk("hel"), _error_event()]

    with StubServer(handler) as stub:
        h = Harness(mode, stub, "openai", stream_rescue=rescue, retry_base=0.01)
        events, exc = h.stream("hi", task_id="nid")
        assert text_of(events) == "hel"
        assert isinstance(exc, LLMError) and exc.retryable
        assert exc.context.operation == "stream" and exc.context.task_id == "nid"
        tries = 1 if rescue == "off" else 3
        assert exc.context.attempt == tries - 1 and exc.context.last_event_id is None
        assert exc.context.metadata["http_status"] == 200
        assert len(stub.requests) == tries
        assert [e.type for e in events].count("restart") == tries - 1


@modes
def test_inclusive_replay_is_deduplicated(mode: str) -> None:
    """A server that replays the last event it sent (inclusive) must not duplicate a delta."""
    done = b"data: [DONE]\n\n"

    def ev(i: int, text: str) -> bytes:
        return f"id: {i}\n".encode() + _chunk(text)

    def handler(path: str, headers: dict[str, str], body: bytes) -> Any:
        if headers.get("last-event-id") == "2":
            return 200, {"content-type": "text/event-stream"}, [ev(2, "lo"), ev(3, "!"), done]
        return 200, {"content-type": "text/event-stream"}, [ev(1, "hel"), ev(2, "lo")]

    with StubServer(handler) as stub:
        events, exc = Harness(mode, stub, "openai").stream("hi")
        assert exc is None
        assert text_of(events) == "hello!"
        assert stub.requests[1][1]["last-event-id"] == "2"


@modes
def test_garbage_sse_lines_are_ignored(mode: str) -> None:
    def handler(path: str, headers: dict[str, str], body: bytes) -> Any:
        junk = b": comment\nfoo: bar\nretry: x1\n\n"
        return 200, {"content-type": "text/event-stream"}, [junk, _chunk("ok"), b"data: [DONE]\n\n"]

    with StubServer(handler) as stub:
        events, exc = Harness(mode, stub, "openai").stream("hi")
        assert exc is None and text_of(events) == "ok"
