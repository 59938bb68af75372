"""The public API as a type checker sees it: ``mypy --strict tests/typing`` (``make typecheck``).

Never executed (pytest does not collect it: no ``test_`` prefix). Each ``assert_type`` pins a
type a user's code relies on; each ``# type: ignore[...]`` line pins a misuse the checker must
reject (mypy's ``warn_unused_ignores`` under ``--strict`` fails the run when it is accepted).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, assert_type

import surefoot
from surefoot import (
    AsyncLLMClient,
    CircuitBreaker,
    Decision,
    ErrorInfo,
    Guard,
    LLMClient,
    RateLimitError,
    RetryBudget,
    RetryPolicy,
    RunResult,
    SharedRateLimiter,
    Tier,
    Why,
    resilient,
)
from surefoot.guard import AttemptRecord, RunRecord
from surefoot.testing import FakeClock, FaultServer


def fetch(url: str, *, retries: int = 0) -> bytes:
    return url.encode()


async def afetch(url: str) -> int:
    return len(url)


def on_error(info: ErrorInfo) -> Tier:
    return Tier.RETRY if info.retryable else Tier.FAIL


def decorators_keep_the_signature() -> None:
    plain = resilient(fetch)
    assert_type(plain("x", retries=2), bytes)
    configured = resilient(retries=3, timeout=30, on_error=on_error)(fetch)
    assert_type(configured("x"), bytes)
    configured(3)  # type: ignore[arg-type]
    coro = resilient(retries=1)(afetch)

    async def use() -> None:
        assert_type(await coro("x"), int)


def the_guard_returns_what_the_call_returns(clock: FakeClock) -> None:
    breaker = CircuitBreaker("svc", failure_threshold=5, recovery_timeout=10, clock=clock)
    guard = Guard(retries=2, timeout=5.0, breaker=breaker, budget=RetryBudget(), clock=clock)
    assert_type(guard.call(fetch, "x"), bytes)
    result, record = guard.call_with_record(fetch, "x")
    assert_type(result, bytes)
    assert_type(record, RunRecord)
    assert_type(record.attempts, tuple[AttemptRecord, ...])
    guard.call(fetch, 3)  # type: ignore[arg-type]

    async def use() -> None:
        assert_type(await guard.acall(afetch, "x"), int)
        async for attempt in guard.aattempts():
            async with attempt:
                pass

    for attempt in guard.attempts():
        with attempt:
            assert_type(attempt.number, int)


def the_pure_policy_is_typed() -> None:
    policy = RetryPolicy(retries=3, on_error=on_error)
    decision = policy.decide(RateLimitError("slow", retry_after=2.0), 0, now=0.0, deadline=10.0)
    assert_type(decision, Decision)
    assert_type(decision.why, Why)
    assert_type(decision.why.final, bool)
    assert_type(decision.delay, float)


def deadlines_are_scopes() -> None:
    with surefoot.deadline(5) as scope:
        assert_type(scope.when, float | None)
        assert_type(surefoot.time_left(), float | None)


def errors_carry_attributes(err: surefoot.SurefootError) -> None:
    assert_type(err.retryable, bool)
    assert_type(err.retry_after, float | None)
    assert_type(err.code, str)
    assert_type(err.context.http_status, int | None)
    assert_type(surefoot.classify_exception(ValueError("x")), surefoot.SurefootError)


def the_clients_keep_their_types(server: FaultServer) -> None:
    limiter = SharedRateLimiter(key="openai:m")
    client = LLMClient(base_url=server.base_url, model="m", rate_limiter=limiter)
    assert_type(client.run("hi"), RunResult)
    events = client.stream("hi")
    assert_type(events, Iterator[Any])
    LLMClient(base_url=server.base_url, model="m", retries="2")  # type: ignore[arg-type]
    aclient = AsyncLLMClient(base_url=server.base_url, model=["a", "b"])

    async def use() -> None:
        assert_type(await aclient.run("hi"), RunResult)
        assert_type(aclient.stream("hi"), AsyncIterator[Any])


def a_fake_clock_is_a_clock(clock: FakeClock) -> None:
    c: surefoot.Clock = clock
    assert_type(c.now(), float)


def a_wrapped_sdk_client_keeps_its_type() -> None:
    import anthropic
    import openai

    client = surefoot.wrap(openai.OpenAI(api_key="sk-test"), timeout=30)
    assert_type(client, openai.OpenAI)
    assert_type(surefoot.wrap(anthropic.AsyncAnthropic(api_key="k")), anthropic.AsyncAnthropic)
