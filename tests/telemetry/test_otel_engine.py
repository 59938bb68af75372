"""Spans and metrics of Guard (call, decorator, iterator), agent actions and the wrapped SDKs,
through the real OpenTelemetry SDK; the spans are current inside each attempt, sync and async."""

from __future__ import annotations

import asyncio
from typing import Any

import anthropic
import openai
import pytest
from opentelemetry import trace
from opentelemetry.trace import StatusCode

import surefoot
from conftest import Otel
from surefoot.agent import Agent
from surefoot.testing.clock import FakeClock
from surefoot.testing.faults import FaultServer, Model, Status

KEY = "sk-proj-SdkT3lemetryKey0123456789abcdefgh"


class Flaky:
    """Fails ``n`` times with a retryable error, then answers; notes the current span."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.seen: list[Any] = []

    def __call__(self) -> str:
        self.seen.append(trace.get_current_span())
        if self.n > 0:
            self.n -= 1
            raise ConnectionResetError("reset by peer")
        return "done"

    async def acall(self) -> str:
        return self()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_guard_call_has_a_span_per_attempt_current_inside_it(otel: Otel, mode: str) -> None:
    guard = surefoot.Guard(retries=3, clock=FakeClock(), operation="fetch weather")
    fn = Flaky(2)
    if mode == "sync":
        assert guard.call(fn) == "done"
    else:
        assert asyncio.run(guard.acall(fn.acall)) == "done"
    (call,) = otel.roots()
    assert call.name == "guard fetch weather"
    assert call.attributes["surefoot.entry"] == "guard"
    assert call.attributes["surefoot.operation"] == "fetch weather"
    kids = otel.children(call)
    assert len(kids) == 3
    assert [k.attributes.get("http.request.resend_count") for k in kids] == [None, 1, 2]
    assert kids[0].attributes["error.type"] == "network"
    # The function ran with its own attempt's span current.
    assert [s.get_span_context().span_id for s in fn.seen] == [k.context.span_id for k in kids]
    waits = [e for e in call.events if e.name == "surefoot.wait"]
    assert len(waits) == 2 and waits[0].attributes["surefoot.why"] == "BACKOFF"
    assert otel.total("surefoot.retries", **{"error.type": "network"}) == 2


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_the_decorator_and_the_iterator_form_are_traced(otel: Otel, mode: str) -> None:
    guard = surefoot.Guard(retries=2, clock=FakeClock(), operation="op")
    fn = Flaky(1)
    if mode == "sync":
        assert guard(fn)() == "done"
        for attempt in guard.attempts():
            with attempt:
                assert trace.get_current_span().is_recording()
    else:

        async def go() -> None:
            assert await guard(fn.acall)() == "done"
            async for attempt in guard.aattempts():
                async with attempt:
                    assert trace.get_current_span().is_recording()

        asyncio.run(go())
    roots = otel.roots()
    assert [r.name for r in roots] == ["guard op", "guard op"]
    assert [len(otel.children(r)) for r in roots] == [2, 1]


def test_a_refused_retry_and_a_budget_level(otel: Otel) -> None:
    budget = surefoot.RetryBudget(capacity=1, retry_cost=1, success_refill=0.1)
    guard = surefoot.Guard(retries=5, clock=FakeClock(), budget=budget)
    with pytest.raises(surefoot.NetworkError):
        guard.call(Flaky(9))
    (call,) = otel.roots()
    assert call.status.status_code is StatusCode.ERROR
    assert call.attributes["error.type"] == "network"
    assert [e.name for e in call.events].count("surefoot.budget.refused") == 1
    assert otel.total("surefoot.budget.refusals") == 1
    (level,) = otel.metrics()["surefoot.budget.level"]
    assert level.value == 0


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_an_agent_action_is_an_execute_tool_span(otel: Otel, mode: str) -> None:
    agent = Agent(clock=FakeClock())
    fn = Flaky(1)

    @agent.action(type="http", retries=2, retry_base=0.1)
    def lookup() -> str:
        return fn()

    @agent.action(type="local")
    def plain() -> str:
        return "plain"

    if mode == "sync":
        assert agent.execute_action("lookup") == "done"
        assert agent.execute_action("plain") == "plain"
    else:

        async def go() -> None:
            assert await agent.aexecute_action("lookup") == "done"
            assert await agent.aexecute_action("plain") == "plain"

        asyncio.run(go())
    first, second = sorted(otel.roots(), key=lambda s: s.start_time or 0)
    assert first.name == "execute_tool lookup"
    assert first.attributes["gen_ai.operation.name"] == "execute_tool"
    assert first.attributes["gen_ai.tool.name"] == "lookup"
    assert len(otel.children(first)) == 2
    assert second.name == "execute_tool plain" and otel.children(second) == []


def _openai(mode: str, srv: FaultServer) -> Any:
    cls = openai.OpenAI if mode == "sync" else openai.AsyncOpenAI
    return surefoot.wrap(cls(base_url=srv.base_url + "/v1", api_key=KEY), retry_base=0.01)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_wrapped_openai_client_is_traced(otel: Otel, mode: str) -> None:
    with FaultServer(models=[Model("gpt-x", reply="hello there")]) as srv:
        srv.enqueue(Status(429, retry_after=0))
        client = _openai(mode, srv)
        msgs = [{"role": "user", "content": "hi"}]
        if mode == "sync":
            out = client.chat.completions.create(model="gpt-x", messages=msgs)
        else:

            async def go() -> Any:
                async with client:
                    return await client.chat.completions.create(model="gpt-x", messages=msgs)

            out = asyncio.run(go())
        assert out.choices[0].message.content == "hello there"
    (call,) = otel.roots()
    assert call.name == "chat gpt-x"
    a = call.attributes
    assert (a["surefoot.entry"], a["gen_ai.provider.name"]) == ("sdk", "openai")
    assert a["gen_ai.response.id"] == out.id
    assert a["gen_ai.usage.output_tokens"] == out.usage.completion_tokens
    kids = otel.children(call)
    assert [k.attributes.get("error.type") for k in kids] == ["rate_limit", None]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_wrapped_anthropic_stream_ends_its_span_with_the_stream(otel: Otel, mode: str) -> None:
    with FaultServer(models=[Model("claude-x", reply="one two three")]) as srv:
        srv.enqueue(Status(529))
        cls = anthropic.Anthropic if mode == "sync" else anthropic.AsyncAnthropic
        client = surefoot.wrap(cls(base_url=srv.base_url, api_key=KEY), retry_base=0.01)
        kw: dict[str, Any] = {
            "model": "claude-x",
            "max_tokens": 50,
            "messages": [{"role": "user", "content": "hi"}],
        }
        if mode == "sync":
            with client.messages.stream(**kw) as s:
                text = "".join(s.text_stream)
        else:

            async def go() -> str:
                async with client, client.messages.stream(**kw) as s:
                    return "".join([t async for t in s.text_stream])

            text = asyncio.run(go())
        assert text == "one two three"
    (call,) = otel.roots()
    assert call.name == "chat claude-x" and call.attributes["gen_ai.request.stream"] is True
    assert [k.attributes.get("error.type") for k in otel.children(call)] == [
        "model_overloaded",
        None,
    ]
