"""OpenTelemetry GenAI spans and metrics of the LLM client, through the real SDK: a 429, a
fallback to the next model and a breaker that opens; streams; redaction."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.trace import StatusCode

import surefoot
from conftest import Otel
from surefoot.errors import LLMError
from surefoot.llm import AsyncLLMClient, LLMClient
from surefoot.testing.faults import FaultServer, Match, Model, Rule, Status

KEY = "sk-proj-T3lemetryS3cretKey0123456789abcdef"


def _client(mode: str, srv: FaultServer, **options: Any) -> Any:
    cls = LLMClient if mode == "sync" else AsyncLLMClient
    options.setdefault("retry_base", 0.01)
    options.setdefault("max_delay", 0.05)
    return cls(base_url=srv.base_url + "/v1", api_key=KEY, **options)


def _run(mode: str, client: Any, prompt: str = "hi") -> Any:
    if mode == "sync":
        return client.run(prompt)

    async def go() -> Any:
        async with client:
            return await client.run(prompt)

    return asyncio.run(go())


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_429_fallback_and_breaker_make_one_span_tree(otel: Otel, mode: str) -> None:
    rules = [Rule(fault=Status(503), match=Match(model="primary"))]
    breaker = surefoot.CircuitBreaker(failure_threshold=2, name="primary")
    with FaultServer(models=[Model("*", reply="from backup")], rules=rules) as srv:
        srv.enqueue(Status(429, retry_after=0))
        client = _client(
            mode, srv, model=["primary", "backup"], retries=1, breaker={"primary": breaker}
        )
        assert _run(mode, client).text == "from backup"
        assert len(srv.requests) == 3

    (call,) = otel.roots()
    assert call.name == "chat primary"
    assert call.kind is trace.SpanKind.INTERNAL
    a = call.attributes
    assert a["gen_ai.operation.name"] == "chat"
    assert a["gen_ai.provider.name"] == "openai"
    assert a["gen_ai.request.model"] == "primary"
    assert a["gen_ai.response.model"] == "backup"
    assert a["gen_ai.usage.input_tokens"] >= 1 and a["gen_ai.usage.output_tokens"] >= 1
    assert a["gen_ai.response.finish_reasons"] == ("stop",)
    assert a["server.address"] == "127.0.0.1"
    assert a["surefoot.attempts"] == 3 and a["surefoot.retries"] == 1
    assert call.status.status_code is not StatusCode.ERROR

    kids = otel.children(call)
    assert [k.name for k in kids] == ["chat primary", "chat primary", "chat backup"]
    assert all(k.kind is trace.SpanKind.CLIENT for k in kids)
    first, second, third = (k.attributes for k in kids)
    assert first["error.type"] == "rate_limit" and first["http.response.status_code"] == 429
    assert first["surefoot.decision"] == "retry" and "http.request.resend_count" not in first
    assert second["http.request.resend_count"] == 1 and second["surefoot.attempt"] == 1
    assert second["surefoot.outcome"] == "fallback"
    assert second["error.type"] in ("server_error", "model_overloaded")
    assert "error.type" not in third and third["gen_ai.response.model"] == "backup"
    assert kids[0].status.status_code is StatusCode.ERROR

    events = {e.name: e for e in call.events}
    assert events["surefoot.wait"].attributes["surefoot.why"] == "HINT"
    assert events["surefoot.wait"].attributes["error.type"] == "rate_limit"
    fb = events["surefoot.fallback"].attributes
    assert (fb["surefoot.fallback.from"], fb["surefoot.fallback.to"]) == ("primary", "backup")
    br = events["surefoot.breaker.state_change"].attributes
    assert (
        br["surefoot.breaker.name"],
        br["surefoot.breaker.from"],
        br["surefoot.breaker.to"],
    ) == (
        "primary",
        "closed",
        "open",
    )

    assert otel.total("surefoot.attempts") == 3
    assert otel.total("surefoot.retries", **{"error.type": "rate_limit"}) == 1
    assert otel.total("surefoot.fallbacks") == 1
    assert otel.total("surefoot.breaker.transitions", **{"surefoot.breaker.to": "open"}) == 1
    (state,) = otel.metrics()["surefoot.breaker.state"]
    assert state.value == 2 and state.attributes["surefoot.breaker.name"] == "primary"
    assert otel.total("gen_ai.client.operation.duration", **{"gen_ai.provider.name": "openai"}) == 1
    usage = otel.metrics()["gen_ai.client.token.usage"]
    assert {p.attributes["gen_ai.token.type"] for p in usage} == {"input", "output"}


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_open_circuit_is_a_rejected_attempt_then_the_backup(otel: Otel, mode: str) -> None:
    breaker = surefoot.CircuitBreaker(failure_threshold=1, name="primary")
    rules = [Rule(fault=Status(503), match=Match(model="primary"))]
    with FaultServer(models=[Model("*", reply="ok")], rules=rules) as srv:
        client = _client(
            mode, srv, model=["primary", "backup"], retries=0, breaker={"primary": breaker}
        )
        _run(mode, client)
        otel.exporter.clear()
        _run(mode, client)
        assert len(srv.requests) == 3  # the second call never reached the primary
    (call,) = otel.roots()
    kids = otel.children(call)
    assert kids[0].attributes["surefoot.why"] == "CIRCUIT_OPEN"
    assert kids[0].attributes["surefoot.error_code"] == "SUREFOOT-CIRCUITOPEN"
    assert kids[1].name == "chat backup"


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_failed_call_is_an_error_span_with_the_kind(otel: Otel, mode: str) -> None:
    with FaultServer(models=[Model("m", reply="ok")]) as srv:
        srv.enqueue(Status(401), times=3)
        with pytest.raises(LLMError) as ei:
            _run(mode, _client(mode, srv, model="m"))
    (call,) = otel.roots()
    assert call.status.status_code is StatusCode.ERROR
    assert call.attributes["error.type"] == "auth_failed"
    # The span's ids are on the error, for the user's logs.
    ctx = ei.value.context
    assert ctx.trace_id == f"{call.context.trace_id:032x}"
    assert otel.total("gen_ai.client.operation.duration", **{"error.type": "auth_failed"}) == 1


def test_the_call_and_attempt_spans_are_current_and_nest_under_the_callers(otel: Otel) -> None:
    tracer = otel.tracer_provider.get_tracer("app")
    with FaultServer(models=[Model("m", reply="ok")]) as srv:
        srv.enqueue(Status(500))
        with tracer.start_as_current_span("request handler") as outer:
            _run("sync", _client("sync", srv, model="m"))
            assert trace.get_current_span() is outer  # every context attached was detached
    (root,) = otel.roots()
    assert root.name == "request handler"
    (call,) = otel.children(root)
    assert call.name == "chat m" and len(otel.children(call)) == 2


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_stream_has_spans_parented_explicitly(otel: Otel, mode: str) -> None:
    with FaultServer(models=[Model("m", reply="one two three")]) as srv:
        srv.enqueue(Status(529))
        client = _client(mode, srv, model="m")
        if mode == "sync":
            events = list(client.stream("hi"))
        else:

            async def go() -> list[Any]:
                async with client:
                    return [e async for e in client.stream("hi")]

            events = asyncio.run(go())
        assert events
        assert trace.get_current_span() is trace.INVALID_SPAN
    (call,) = otel.roots()
    assert call.attributes["gen_ai.request.stream"] is True
    kids = otel.children(call)
    assert len(kids) == 2 and kids[0].attributes["error.type"] == "model_overloaded"
    assert call.attributes["gen_ai.usage.output_tokens"] >= 1


def test_no_secret_reaches_a_span_or_a_metric(otel: Otel) -> None:
    with FaultServer(models=[Model("m", reply="ok")]) as srv:
        srv.enqueue(Status(401, message=f"Incorrect API key provided: {KEY}"))
        with pytest.raises(LLMError):
            _run("sync", _client("sync", srv, model="m"))
    seen = []
    for s in otel.spans():
        seen.append(s.name)
        seen.append(repr(dict(s.attributes)))
        seen.append(s.status.description or "")
        seen.extend(repr(dict(e.attributes)) for e in s.events)
    for points in otel.metrics().values():
        seen.extend(repr(dict(p.attributes)) for p in points)
    text = "\n".join(seen)
    assert "Incorrect API key" in text  # the message is there ...
    assert KEY not in text and KEY[8:24] not in text  # ... without the key


def test_uninstrumented_nothing_is_emitted(otel: Otel) -> None:
    surefoot.telemetry.uninstrument()
    with FaultServer(models=[Model("m", reply="ok")]) as srv:
        _run("sync", _client("sync", srv, model="m"))
    assert otel.spans() == []
