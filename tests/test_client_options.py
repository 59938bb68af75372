"""Bad input to the constructor and to run(): clear TypeError/ValueError naming the option."""

from __future__ import annotations

from typing import Any

import pytest

import surefoot
from surefoot.llm import AsyncLLMClient, LLMClient, ModelSpec
from test_client_helpers import API_KEY, MODES

OK: dict[str, Any] = {"base_url": "http://127.0.0.1:9/v1", "model": "m"}


@pytest.mark.parametrize("cls", [LLMClient, AsyncLLMClient])
@pytest.mark.parametrize(
    ("kwargs", "exc", "words"),
    [
        ({"style": "gemini"}, ValueError, "style"),
        ({"model": []}, ValueError, "model"),
        ({"model": 3}, TypeError, "model"),
        ({"model": ["a", "a"]}, ValueError, "twice"),
        ({"retries": -1}, ValueError, "retries"),
        ({"retries": "2"}, TypeError, "retries"),
        ({"retry_base": -1}, ValueError, "retry_base"),
        ({"timeout": 0}, ValueError, "timeout"),
        ({"timeout": "5"}, TypeError, "timeout"),
        ({"base_url": "not a url"}, ValueError, "base_url"),
        ({"base_url": ""}, ValueError, "base_url"),
        ({"breaker": object()}, TypeError, "breaker"),
        ({"budget": 3}, TypeError, "budget"),
        ({"on_error": 5}, TypeError, "on_error"),
        ({"max_body": 0}, ValueError, "max_body"),
        ({"stream_attempts": 0}, ValueError, "stream_attempts"),
        ({"api_key": 123}, TypeError, "api_key"),
        ({"max_delay": -1}, ValueError, "max_delay"),
        ({"max_delay": float("nan")}, ValueError, "max_delay"),
        ({"max_delay": "8"}, TypeError, "max_delay"),
        ({"max_hint": -0.5}, ValueError, "max_hint"),
        ({"max_hint": float("inf")}, ValueError, "max_hint"),
        ({"max_hint": None}, TypeError, "max_hint"),
        ({"rate_limiter": object()}, TypeError, "rate_limiter"),
    ],
)
def test_constructor_rejects(cls: Any, kwargs: dict[str, Any], exc: type, words: str) -> None:
    with pytest.raises(exc, match=words):
        cls(**{**OK, **kwargs})


@pytest.mark.parametrize("cls", [LLMClient, AsyncLLMClient])
def test_max_delay_and_max_hint_reach_the_retry_policies(cls: Any) -> None:
    c = cls(**OK)
    opts = c._opts
    assert (opts.policy.max_delay, opts.policy.max_hint) == (8.0, 120.0)
    c = cls(**OK, max_delay=0.25, max_hint=3)
    opts = c._opts
    for policy in (opts.policy, opts.resume_policy):
        assert policy.max_delay == 0.25 and policy.max_hint == 3.0


def test_model_spec_checks() -> None:
    with pytest.raises(ValueError, match="context_window"):
        ModelSpec("x", context_window=0)
    with pytest.raises(ValueError, match="name"):
        ModelSpec("")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("kwargs", "exc", "words"),
    [
        ({"tools": "get_weather"}, TypeError, "tools"),
        ({"tools": [1]}, TypeError, "tools"),
        ({"response_model": dict}, TypeError, "response_model"),
        ({"timeout": -1}, ValueError, "timeout"),
        ({"task_id": ""}, ValueError, "task_id"),
    ],
)
def test_run_rejects(mode: str, kwargs: dict[str, Any], exc: type, words: str) -> None:
    import asyncio

    if mode == "sync":
        with LLMClient(**OK) as c, pytest.raises(exc, match=words):
            c.run("hi", **kwargs)
        return

    async def go() -> None:
        async with AsyncLLMClient(**OK) as c:
            with pytest.raises(exc, match=words):
                await c.run("hi", **kwargs)

    asyncio.run(go())


def test_run_rejects_bad_messages() -> None:
    with LLMClient(**OK) as c:
        with pytest.raises(TypeError):
            c.run(42)
        with pytest.raises(ValueError):
            c.run([])
        with pytest.raises(TypeError):
            c.run()


def test_repr_and_secret() -> None:
    c = LLMClient(**OK, api_key=API_KEY)
    text = repr(c)
    assert API_KEY not in text and "127.0.0.1" in text and "openai" in text
    err = surefoot.SurefootError(f"bad key {API_KEY}")
    assert API_KEY not in str(err)
