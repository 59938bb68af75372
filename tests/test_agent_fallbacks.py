"""Fallbacks: run on the chosen categories only, by callable or by action name; when the
fallback fails too, both failures are reported."""

from __future__ import annotations

from typing import Any

import pytest

from surefoot import ActionCategory, ActionExecutionError, ApprovalRequiredError
from surefoot.agent import Agent, FallbackFailedError, action, fallback
from test_agent_helpers import closed_port, get

modes = pytest.mark.parametrize("mode", ["sync", "async"])


async def call(mode: str, agent: Agent, name: str, args: Any = None) -> Any:
    if mode == "sync":
        return agent.execute_action(name, args)
    return await agent.aexecute_action(name, args)


def refused() -> str:
    return f"http://127.0.0.1:{closed_port()}/"


@modes
async def test_fallback_runs_on_a_chosen_category(mode: str) -> None:
    @fallback(lambda **kw: f"cached for {kw['city']}", on={ActionCategory.NETWORK})
    @action(type="http", pre=["city != ''"])
    def forecast(city: str, url: str) -> str:
        return get(url)

    agent = Agent(actions=[forecast])
    assert await call(mode, agent, "forecast", {"city": "Paris", "url": refused()}) == (
        "cached for Paris"
    )
    # VALIDATION is not among the chosen categories: no fallback.
    with pytest.raises(ActionExecutionError) as info:
        await call(mode, agent, "forecast", {"city": "", "url": refused()})
    assert info.value.category is ActionCategory.VALIDATION
    assert not isinstance(info.value, FallbackFailedError)


@modes
async def test_fallback_by_name_and_below_the_action_decorator(mode: str) -> None:
    agent = Agent()

    @agent.action(type="http")
    @fallback("cached_forecast", on=[ActionCategory.NETWORK, "SERVER_ERROR"])
    def forecast(city: str, url: str) -> str:
        return get(url)

    @agent.action
    def cached_forecast(city: str, url: str) -> str:
        return f"cached {city}"

    assert await call(mode, agent, "forecast", {"city": "Oslo", "url": refused()}) == "cached Oslo"


@modes
async def test_llm_action_without_a_client_falls_back(mode: str) -> None:
    agent = Agent()

    @agent.action(type="llm", fallback=lambda text, error: f"plain:{text}:{error.category.value}")
    def summarize(text: str) -> str:
        return f"Summarize: {text}"

    assert await call(mode, agent, "summarize", {"text": "abc"}) == "plain:abc:VALIDATION"


@modes
async def test_both_failures_are_reported(mode: str) -> None:
    def broken_cache(**kw: Any) -> str:
        raise KeyError("cache is cold")

    agent = Agent()

    @agent.action(type="http", fallback=broken_cache, fallback_on={ActionCategory.NETWORK})
    def forecast(url: str) -> str:
        return get(url)

    with pytest.raises(FallbackFailedError) as info:
        await call(mode, agent, "forecast", {"url": refused()})
    err = info.value
    assert isinstance(err, ActionExecutionError)
    assert err.action_name == "forecast" and err.category is ActionCategory.UNKNOWN
    assert err.original.category is ActionCategory.NETWORK
    assert err.__context__ is err.original
    assert err.__cause__ is err.fallback_error
    assert isinstance(err.fallback_error.__cause__, KeyError)
    text = err.detailed_message
    assert "Connection refused" in text and "cache is cold" in text
    assert "fallback 'broken_cache' failed" in text


@modes
async def test_fallback_cycle_and_unknown_fallback_are_reported(mode: str) -> None:
    agent = Agent()

    @agent.action(fallback="b")
    def a(x: int) -> int:
        raise RuntimeError("a fails")

    @agent.action(fallback="a")
    def b(x: int) -> int:
        raise RuntimeError("b fails")

    @agent.action(fallback="missing")
    def c(x: int) -> int:
        raise RuntimeError("c fails")

    with pytest.raises(FallbackFailedError) as info:
        await call(mode, agent, "a", {"x": 1})
    assert "fallback cycle: a -> b -> a" in info.value.detailed_message
    with pytest.raises(FallbackFailedError) as info2:
        await call(mode, agent, "c", {"x": 1})
    assert info2.value.category is ActionCategory.INVOCATION


@modes
async def test_approval_of_a_fallback_action_is_not_wrapped(mode: str) -> None:
    agent = Agent()

    @agent.action(fallback="careful")
    def quick(x: int) -> int:
        raise RuntimeError("quick fails")

    @agent.action(requires_approval=True)
    def careful(x: int) -> int:
        return x

    with pytest.raises(ApprovalRequiredError):
        await call(mode, agent, "quick", {"x": 1})


def test_bad_fallback_declarations() -> None:
    with pytest.raises(ValueError, match="on= takes ActionCategory"):
        fallback("x", on={"NOPE"})
    with pytest.raises(TypeError, match="fallback="):
        action(fallback=42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="fallback_on= needs fallback="):
        action(fallback_on={ActionCategory.NETWORK})


def test_errors_pickle() -> None:
    import pickle

    from surefoot.agent import SecurityError

    agent = Agent()

    @agent.action(fallback=lambda x: 1 / 0)
    def f(x: int) -> int:
        raise RuntimeError("f fails")

    with pytest.raises(FallbackFailedError) as info:
        agent.execute_action("f", {"x": 1})
    again = pickle.loads(pickle.dumps(info.value))
    assert again.category is ActionCategory.UNKNOWN and again.fallback_name == "<lambda>"
    assert again.original.action_name == "f"
    sec = pickle.loads(pickle.dumps(SecurityError(action="f")))
    assert sec.action == "f" and sec.error_code == "SUREFOOT-SECURITY"
