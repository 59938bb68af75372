"""chat over the LLM client with the actions as tools, end to end against FaultServer:
the tool loop, completion, suspension and resumption, approvals in a chat, no client."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

import surefoot
from surefoot.agent import Agent
from surefoot.llm import AsyncLLMClient, LLMClient, WaitFor
from surefoot.testing.faults import FaultServer, Model, ToolCall, Turn

modes = pytest.mark.parametrize("mode", ["sync", "async"])


class Chat:
    """The same chat calls through LLMClient (sync) or AsyncLLMClient (async)."""

    def __init__(self, mode: str, agent: Agent) -> None:
        self.mode, self.agent = mode, agent

    async def chat(self, question: str) -> Any:
        if self.mode == "sync":
            return self.agent.chat(question)
        return await self.agent.achat(question)

    async def resume(self, result: Any, answer: Any) -> Any:
        if self.mode == "sync":
            return self.agent.resume(result, answer)
        return await self.agent.aresume(result, answer)


@asynccontextmanager
async def chat_agent(mode: str, *turns: Turn, **agent_options: Any) -> AsyncIterator[Any]:
    with FaultServer(models=[Model("m1", turns=list(turns))]) as srv:
        options = {"base_url": srv.base_url + "/v1", "model": "m1", "api_key": "k"}
        client: Any = LLMClient(**options) if mode == "sync" else AsyncLLMClient(**options)
        agent = Agent("helper", llm=client, **agent_options)
        try:
            yield agent, Chat(mode, agent), srv
        finally:
            if mode == "sync":
                client.close()
            else:
                await client.aclose()


@modes
async def test_chat_runs_actions_as_tools(mode: str) -> None:
    turns = [Turn(tool_calls=[ToolCall("forecast", {"city": "Paris"})]), Turn("Sunny in Paris.")]
    async with chat_agent(mode, *turns, instructions="Be brief.") as (agent, c, srv):

        @agent.action(type="http", pre=["city != ''"])
        def forecast(city: str) -> str:
            """The forecast for a city."""
            return f"sunny in {city}"

        r = await c.chat("Weather in Paris?")
        assert r.status == "completed" and r.text == "Sunny in Paris."
        assert [m.content for m in r.messages if m.role == "tool"] == ["sunny in Paris"]
        first = srv.requests[0].json
        assert first["messages"][0] == {"role": "system", "content": "Be brief."}
        assert first["tools"][0]["function"]["name"] == "forecast"


@modes
async def test_a_failing_action_goes_back_to_the_model_as_a_categorized_error(mode: str) -> None:
    turns = [Turn(tool_calls=[ToolCall("forecast", {"city": ""})]), Turn("Which city?")]
    async with chat_agent(mode, *turns) as (agent, c, _):

        @agent.action(pre=["city != ''"])
        def forecast(city: str) -> str:
            return city

        r = await c.chat("Weather?")
        tool = next(m for m in r.messages if m.role == "tool")
        assert tool.is_error and "VALIDATION" in tool.content and "city != ''" in tool.content


@modes
async def test_task_complete_in_an_action_ends_the_run(mode: str) -> None:
    turns = [Turn(tool_calls=[ToolCall("submit", {"answer": "42"})]), Turn("not reached")]
    async with chat_agent(mode, *turns) as (agent, c, srv):

        @agent.action
        def submit(answer: str) -> str:
            raise surefoot.TaskCompleteError(result=answer)

        r = await c.chat("Solve it")
        assert r.status == "completed" and r.output == "42" and r.text == "42"
        assert len(srv.requests) == 1


@modes
async def test_suspension_and_resumption(mode: str) -> None:
    turns = [
        Turn(tool_calls=[ToolCall("ask_human", {"question": "Ship to Paris?"})]),
        Turn("Shipped."),
    ]
    async with chat_agent(mode, *turns) as (agent, c, srv):

        @agent.action
        def ask_human(question: str) -> str:
            raise WaitFor(question, kind="input")

        r = await c.chat("Ship the order")
        assert r.status == "pending"
        assert r.pending is not None and r.pending.prompt == "Ship to Paris?"
        assert r.pending.tool_call.name == "ask_human"
        final = await c.resume(r, "yes")
        assert final.status == "completed" and final.text == "Shipped."
        assert srv.requests[-1].json["messages"][-1]["content"] == "yes"


@modes
async def test_approval_required_in_a_chat_reaches_the_caller_unwrapped(mode: str) -> None:
    turns = [Turn(tool_calls=[ToolCall("transfer", {"amount": 5})]), Turn("done")]
    async with chat_agent(mode, *turns) as (agent, c, srv):

        @agent.action(approval="moves money")
        def transfer(amount: int) -> str:
            return f"sent {amount}"

        with pytest.raises(surefoot.ApprovalRequiredError) as info:
            await c.chat("pay")
        assert type(info.value) is surefoot.ApprovalRequiredError
        assert info.value.action == "transfer" and len(srv.requests) == 1
        agent.approve("transfer")
        r = await c.chat("pay")
        assert r.text == "done"


async def test_chat_without_a_client_or_with_the_wrong_one() -> None:
    with pytest.raises(surefoot.ConfigurationError, match="no LLM client"):
        Agent().chat("hi")
    with FaultServer() as srv:
        client = AsyncLLMClient(base_url=srv.base_url + "/v1", model="m1", api_key="k")
        with pytest.raises(TypeError, match="achat"):
            Agent(llm=client).chat("hi")
        await client.aclose()
        sync_client = LLMClient(base_url=srv.base_url + "/v1", model="m1", api_key="k")
        r = await Agent(llm=sync_client).achat("echo me")  # a sync client runs in a thread
        assert r.text == "echo me"
        sync_client.close()


@modes
async def test_an_action_failing_every_round_keeps_its_category(mode: str) -> None:
    """After max_tool_errors rounds the chat fails with the action's own category and type
    (the LLM client keeps an ActionExecutionError's), not the generic INVOCATION/"tool"."""
    turns = [Turn(tool_calls=[ToolCall("forecast", {"city": f"c{i}"})]) for i in range(6)]
    async with chat_agent(mode, *turns) as (agent, c, srv):

        @agent.action(type="http")
        def forecast(city: str) -> str:
            raise ConnectionResetError(f"weather API reset the connection for {city}")

        with pytest.raises(surefoot.ActionExecutionError) as ei:
            await c.chat("Weather?")
        err = ei.value
        assert err.category is surefoot.ActionCategory.NETWORK and err.action_type == "http"
        assert err.action_name == "forecast"
        assert len(srv.requests) == 4  # max_tool_errors=3: the 4th failing round ends the run
