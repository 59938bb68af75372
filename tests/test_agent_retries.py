"""Retries per category through surefoot.Guard on the fake clock, and the deadline of a call
that never returns."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

import surefoot
from surefoot import ActionCategory, ActionExecutionError
from surefoot.agent import Agent
from surefoot.testing.clock import FakeClock
from test_agent_helpers import get, http_server

modes = pytest.mark.parametrize("mode", ["sync", "async"])


async def call(mode: str, agent: Agent, name: str, args: Any = None) -> Any:
    if mode == "sync":
        return agent.execute_action(name, args)
    return await agent.aexecute_action(name, args)


def fetch_agent(clock: FakeClock) -> Agent:
    agent = Agent(clock=clock)

    @agent.action(type="http", retries=2, retry_base=0.5)
    def fetch(url: str) -> str:
        return get(url)

    return agent


@modes
async def test_a_503_is_retried_then_succeeds(mode: str) -> None:
    clock = FakeClock()
    with http_server(503, 503, 200) as (url, script):
        out = await call(mode, fetch_agent(clock), "fetch", {"url": url + "/f"})
    assert out == '{"forecast": "sunny"}'
    assert script.hits == 3
    assert len(clock.sleeps) == 2 and all(0 < s <= 8 for s in clock.sleeps)


@modes
async def test_a_400_is_not_retried(mode: str) -> None:
    clock = FakeClock()
    with http_server(400, 200) as (url, script), pytest.raises(ActionExecutionError) as info:
        await call(mode, fetch_agent(clock), "fetch", {"url": url + "/f"})
    assert info.value.category is ActionCategory.CLIENT_ERROR
    assert script.hits == 1 and clock.sleeps == []


@modes
async def test_retries_exhausted_report_the_last_failure(mode: str) -> None:
    clock = FakeClock()
    with http_server(500) as (url, script), pytest.raises(ActionExecutionError) as info:
        await call(mode, fetch_agent(clock), "fetch", {"url": url + "/f"})
    assert script.hits == 3
    assert info.value.category is ActionCategory.SERVER_ERROR
    assert len(info.value.attempts) == 3  # type: ignore[attr-defined]


async def test_a_tool_that_never_returns_is_cut_off_by_the_deadline() -> None:
    clock = FakeClock()
    agent = Agent(clock=clock)
    never = asyncio.Event()

    @agent.action(type="mcp", timeout=30)
    async def stuck(query: str) -> str:
        await never.wait()
        return "never"

    with pytest.raises(ActionExecutionError) as info:
        await agent.aexecute_action("stuck", {"query": "x"})
    err = info.value
    assert err.category is ActionCategory.NETWORK
    assert isinstance(err.__cause__, surefoot.RunTimeoutError)
    assert clock.now() == pytest.approx(30)


async def test_a_hung_sync_function_is_abandoned_at_the_async_deadline() -> None:
    agent = Agent()
    release = threading.Event()

    @agent.action(timeout=0.05)
    def blocking(x: int) -> int:
        release.wait(10)
        return x

    try:
        with pytest.raises(ActionExecutionError) as info:
            await agent.aexecute_action("blocking", {"x": 1})
        assert isinstance(info.value.__cause__, surefoot.RunTimeoutError)
    finally:
        release.set()


def test_network_failures_retry_then_fall_back() -> None:
    clock = FakeClock()
    agent = Agent(clock=clock)
    attempts: list[int] = []

    @agent.action(retries=3, fallback=lambda **kw: "offline", fallback_on="NETWORK")
    def ping(n: int) -> str:
        attempts.append(n)
        raise ConnectionResetError("reset by peer")

    assert agent.execute_action("ping", {"n": 1}) == "offline"
    assert len(attempts) == 4 and len(clock.sleeps) == 3
