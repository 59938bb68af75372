"""Each action failure category from a real cause, sync and async; what is never wrapped;
completion inside an action."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

import surefoot
from surefoot import ActionCategory, ActionExecutionError
from surefoot.agent import Agent, SecurityError
from surefoot.llm import LLMClient
from surefoot.testing.clock import FakeClock
from surefoot.testing.faults import FaultServer, Status
from test_agent_helpers import closed_port, get, http_server

modes = pytest.mark.parametrize("mode", ["sync", "async"])


async def call(mode: str, agent: Agent, name: str, args: Any = None) -> Any:
    if mode == "sync":
        return agent.execute_action(name, args)
    return await agent.aexecute_action(name, args)


async def failure(mode: str, agent: Agent, name: str, args: Any = None) -> ActionExecutionError:
    with pytest.raises(ActionExecutionError) as info:
        await call(mode, agent, name, args)
    return info.value


def http_agent() -> Agent:
    agent = Agent("weather")

    @agent.action(type="http")
    def fetch(url: str) -> str:
        """Fetch a URL."""
        return get(url)

    return agent


@modes
async def test_network_from_a_refused_connection(mode: str) -> None:
    url = f"http://127.0.0.1:{closed_port()}/forecast"
    err = await failure(mode, http_agent(), "fetch", {"url": url})
    assert err.category is ActionCategory.NETWORK
    assert err.retryable is True
    assert err.action_name == "fetch" and err.action_type == "http"
    assert "Connection refused" in err.detailed_message
    assert "URLError" in type(err.__cause__).__name__


@modes
@pytest.mark.parametrize(
    ("status", "category", "retryable"),
    [
        (400, ActionCategory.CLIENT_ERROR, False),
        (404, ActionCategory.CLIENT_ERROR, False),
        (500, ActionCategory.SERVER_ERROR, True),
        (503, ActionCategory.SERVER_ERROR, True),
    ],
)
async def test_http_statuses_from_a_loopback_server(
    mode: str, status: int, category: ActionCategory, retryable: bool
) -> None:
    with http_server(status) as (url, script):
        err = await failure(mode, http_agent(), "fetch", {"url": url + "/x"})
    assert script.hits == 1
    assert err.category is category and err.retryable is retryable
    assert err.status == status
    assert f"HTTP Error {status}" in err.detailed_message
    assert err.__cause__ is not None and type(err.__cause__).__name__ == "HTTPError"


@modes
async def test_parameter_missing_and_wrong_type_are_checked_before_the_call(mode: str) -> None:
    calls: list[int] = []
    agent = Agent()

    @agent.action
    def book(city: str, nights: int) -> str:
        calls.append(nights)
        return city

    missing = await failure(mode, agent, "book", {"city": "Paris"})
    assert missing.category is ActionCategory.PARAMETER and not missing.retryable
    assert "nights: missing (required)" in missing.detailed_message
    wrong = await failure(mode, agent, "book", {"city": "Paris", "nights": "many"})
    assert wrong.category is ActionCategory.PARAMETER
    assert "nights" in str(wrong.__cause__)
    extra = await failure(mode, agent, "book", {"city": "Paris", "nights": 1, "x": 1})
    assert extra.category is ActionCategory.PARAMETER
    not_a_mapping = await failure(mode, agent, "book", ["Paris", 1])
    assert not_a_mapping.category is ActionCategory.PARAMETER
    assert calls == []
    assert await call(mode, agent, "book", {"city": "Oslo", "nights": "2"}) == "Oslo"
    assert calls == [2]


@modes
async def test_validation_from_a_validation_error_inside(mode: str) -> None:
    agent = Agent()

    @agent.action
    def check(text: str) -> str:
        raise surefoot.ValidationError("guardrail: no shouting")

    err = await failure(mode, agent, "check", {"text": "HI"})
    assert err.category is ActionCategory.VALIDATION and not err.retryable


@modes
async def test_llm_from_a_real_model_call_inside_the_action(mode: str) -> None:
    with FaultServer() as srv:
        srv.enqueue(Status(400, message="bad model request"), times=1)
        client = LLMClient(base_url=srv.base_url + "/v1", model="m1", api_key="k", retries=0)
        agent = Agent()

        @agent.action
        def summarize(text: str) -> str:
            return client.run(f"summarize {text}").text

        err = await failure(mode, agent, "summarize", {"text": "x"})
        client.close()
    assert err.category is ActionCategory.LLM and err.retryable
    assert isinstance(err.__cause__, surefoot.LLMError)


@modes
async def test_llm_action_runs_the_prompt_through_the_client(mode: str) -> None:
    with FaultServer() as srv:
        options: Any = {"base_url": srv.base_url + "/v1", "model": "m1", "api_key": "k"}
        options["retries"] = 0
        if mode == "sync":
            client: Any = LLMClient(**options)
        else:
            client = surefoot.AsyncLLMClient(**options)
        agent = Agent(llm=client)

        @agent.action(type="llm")
        def echo(word: str) -> str:
            return f"say {word}"

        assert await call(mode, agent, "echo", {"word": "hello"}) == "say hello"
        srv.enqueue(Status(500), times=1)
        err = await failure(mode, agent, "echo", {"word": "x"})
        assert err.category is ActionCategory.LLM and err.action_type == "llm"
        if mode == "sync":
            client.close()
        else:
            await client.aclose()


@modes
async def test_llm_action_without_a_client_is_validation_not_none(mode: str) -> None:
    agent = Agent()
    ran: list[str] = []

    @agent.action(type="llm")
    def summarize(text: str) -> str:
        ran.append(text)
        return text

    err = await failure(mode, agent, "summarize", {"text": "x"})
    assert err.category is ActionCategory.VALIDATION
    assert "no LLM client" in err.detailed_message
    assert ran == []


@modes
async def test_mcp_action_failure_is_mcp(mode: str) -> None:
    agent = Agent()

    @agent.action(type="mcp")
    def search_docs(query: str) -> str:
        raise RuntimeError("MCP tool 'search' returned isError=true")

    err = await failure(mode, agent, "search_docs", {"query": "x"})
    assert err.category is ActionCategory.MCP and err.retryable
    assert err.action_type == "mcp"


@modes
async def test_invocation_unknown_action_and_signature_mismatch(mode: str) -> None:
    agent = Agent()
    err = await failure(mode, agent, "nope")
    assert err.category is ActionCategory.INVOCATION
    assert isinstance(err.__cause__, LookupError)

    def real(a: str) -> str:  # the signature it advertises below is a lie
        return a

    real.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("city", inspect.Parameter.KEYWORD_ONLY, annotation=str)]
    )
    real.__annotations__ = {"city": str, "return": str}
    agent.add(real, name="lying")
    err = await failure(mode, agent, "lying", {"city": "x"})
    assert err.category is ActionCategory.INVOCATION
    assert isinstance(err.__cause__, TypeError)


@modes
async def test_type_error_inside_the_body_is_unknown_not_invocation(mode: str) -> None:
    agent = Agent()

    @agent.action
    def buggy(n: int) -> int:
        return n + "1"  # type: ignore[operator, no-any-return]

    err = await failure(mode, agent, "buggy", {"n": 1})
    assert err.category is ActionCategory.UNKNOWN and not err.retryable
    assert isinstance(err.__cause__, TypeError)


@modes
async def test_approval_required_is_never_wrapped(mode: str) -> None:
    ran: list[str] = []
    agent = Agent()

    @agent.action(approval="moves money")
    def transfer(amount: int) -> str:
        ran.append("transfer")
        return f"sent {amount}"

    with pytest.raises(surefoot.ApprovalRequiredError) as info:
        await call(mode, agent, "transfer", {"amount": 5})
    assert type(info.value) is surefoot.ApprovalRequiredError
    assert info.value.action == "transfer" and info.value.reason == "moves money"
    assert ran == []
    agent.approve("transfer")
    assert await call(mode, agent, "transfer", {"amount": 5}) == "sent 5"
    agent.revoke("transfer")
    asked: list[tuple[str, dict[str, Any]]] = []

    def approver(name: str, args: dict[str, Any]) -> bool:
        asked.append((name, args))
        return args["amount"] < 10

    agent.approver = approver
    assert await call(mode, agent, "transfer", {"amount": 3}) == "sent 3"
    with pytest.raises(surefoot.ApprovalRequiredError, match="refused"):
        await call(mode, agent, "transfer", {"amount": 50})
    assert asked == [("transfer", {"amount": 3}), ("transfer", {"amount": 50})]


@modes
async def test_security_errors_pass_through_unwrapped(mode: str) -> None:
    agent = Agent()

    @agent.action
    def read_secret(key: str) -> str:
        return "s3cr3t"

    def check(name: str, args: Any) -> None:
        if args.get("key") == "root":
            raise SecurityError("root is off limits", action=name)

    agent.permission_check = check
    with pytest.raises(SecurityError, match="off limits"):
        await call(mode, agent, "read_secret", {"key": "root"})
    assert await call(mode, agent, "read_secret", {"key": "user"}) == "s3cr3t"
    agent.permission_check = lambda name, args: False
    with pytest.raises(SecurityError, match="refused"):
        await call(mode, agent, "read_secret", {"key": "user"})

    def deny(name: str, args: Any) -> None:
        raise PermissionError("nope")

    agent.permission_check = deny
    with pytest.raises(PermissionError, match="nope"):
        await call(mode, agent, "read_secret", {"key": "user"})
    agent.permission_check = None

    @agent.action
    def inner_check(key: str) -> str:
        raise SecurityError("inside the action", action="inner_check")

    with pytest.raises(SecurityError, match="inside the action"):
        await call(mode, agent, "inner_check", {"key": "x"})


@modes
async def test_task_complete_inside_an_action_returns_its_result(mode: str) -> None:
    agent = Agent()

    @agent.action(post=["result == 'never checked'"])
    def finish_now(answer: str) -> str:
        raise surefoot.TaskCompleteError(result={"answer": answer})

    assert await call(mode, agent, "finish_now", {"answer": "42"}) == {"answer": "42"}


async def test_async_actions_and_keyword_arguments() -> None:
    agent = Agent(clock=FakeClock())

    @agent.action
    async def add(a: int, b: int = 1) -> int:
        return a + b

    assert await agent.aexecute_action("add", a=2) == 3
    assert await agent.aexecute_action("add", {"a": 2}, b=5) == 7
    assert await add(1, 1) == 2  # the action object still calls the function
