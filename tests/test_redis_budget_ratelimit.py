"""The retry budget and the shared rate limiter on Redis, and the limiter's memory twin."""

from __future__ import annotations

import asyncio

import pytest

from surefoot import NetworkError, RateLimitError, RateLimitInfo, RetryBudget, SharedRateLimiter
from surefoot.stores import MemoryRateStore, RedisStore
from surefoot.testing.clock import FakeClock

pytestmark = pytest.mark.redis


@pytest.fixture
def store(redis_server, namespace) -> RedisStore:  # type: ignore[no-untyped-def]
    return RedisStore.from_url(redis_server.url, namespace=namespace)


def test_budget_is_shared(store: RedisStore) -> None:
    a = RetryBudget(capacity=3, retry_cost=1, success_refill=0.5, store=store)
    b = RetryBudget(capacity=3, retry_cost=1, success_refill=0.5, store=store)
    assert a.try_spend("openai:gpt-4o") and b.try_spend("openai:gpt-4o")
    assert a.tokens("openai:gpt-4o") == pytest.approx(1)
    assert b.try_spend("openai:gpt-4o") and not a.try_spend("openai:gpt-4o")
    assert b.tokens("anthropic:claude") == 3  # another key, untouched
    a.on_success("openai:gpt-4o")  # written at once (the first refill of the key)
    assert b.tokens("openai:gpt-4o") == pytest.approx(0.5)
    for _ in range(10):
        a.on_success("openai:gpt-4o")  # batched: at most one write per DEPOSIT_EVERY
    store.flush_deposits()
    assert b.tokens("openai:gpt-4o") == 3  # capped (a full bucket is deleted)
    a.try_spend("x"), a.try_spend("y")
    a.reset()
    assert a.tokens("x") == a.tokens("y") == 3


def test_budget_async_guard_path(store: RedisStore) -> None:
    from surefoot import Guard

    budget = RetryBudget(capacity=1, store=store)
    calls = 0

    async def flaky() -> int:
        nonlocal calls
        calls += 1
        if calls < 3:
            raise ConnectionError("reset")
        return 1

    g = Guard(retries=3, retry_base=0.001, budget=budget, budget_key="k")
    with pytest.raises(NetworkError):
        asyncio.run(g.acall(flaky))  # one retry paid, the second refused
    assert calls == 2 and budget.tokens("k") == 0


HEADERS = {
    "x-ratelimit-limit-requests": "100",
    "x-ratelimit-remaining-requests": "3",
    "x-ratelimit-reset-requests": "2s",
    "x-ratelimit-limit-tokens": "10000",
    "x-ratelimit-remaining-tokens": "5000",
    "x-ratelimit-reset-tokens": "10s",
}


@pytest.fixture(params=["memory", "redis"])
def limiter_store(request, store):  # type: ignore[no-untyped-def]
    return MemoryRateStore() if request.param == "memory" else store


def test_limiter_paces_then_waits_for_reset(limiter_store) -> None:  # type: ignore[no-untyped-def]
    clock = FakeClock()
    lim = SharedRateLimiter(limiter_store, "openai:gpt-4o", clock=clock)
    assert lim.acquire(100) == 0.0  # nothing known yet: go
    lim.observe(HEADERS)
    assert lim.acquire(100) == 0.0  # 3 left of 100: below 10 %, so paced from now on
    wait = lim.acquire(100)
    assert 0.5 < wait <= 1.0  # ~2 s spread over the remaining requests
    lim.observe(RateLimitInfo(remaining_requests=50, reset_requests_s=2.0))  # same window: min
    assert lim.acquire() > 0


def test_limiter_tokens_bucket(limiter_store) -> None:  # type: ignore[no-untyped-def]
    lim = SharedRateLimiter(limiter_store, "anthropic:claude", clock=FakeClock())
    lim.observe(
        {
            "anthropic-ratelimit-tokens-limit": "1000",
            "anthropic-ratelimit-tokens-remaining": "1000",
        }
    )
    lim.observe(RateLimitInfo(remaining_tokens=500, reset_tokens_s=3.0))
    assert lim.acquire(400) == 0.0
    wait = lim.acquire(400)  # 100 left: not enough for 400
    assert 2 < wait <= 3.0
    lim.observe({"unrelated": "1"})  # no rate-limit fields: no change
    assert lim.acquire(400) > 0


def test_limiter_is_shared_through_redis(store: RedisStore) -> None:
    a = SharedRateLimiter(store, "k", pace_below=0)
    b = SharedRateLimiter(store, "k", pace_below=0)
    a.observe(RateLimitInfo(remaining_requests=2, reset_requests_s=5))
    assert b.acquire() == 0.0 and a.acquire() == 0.0
    assert b.acquire() > 4  # the fleet spent both


def test_throttle_bounds(store: RedisStore) -> None:
    lim = SharedRateLimiter(store, "t", max_wait=0.5, pace_below=0)
    lim.observe(RateLimitInfo(remaining_requests=0, reset_requests_s=0.2))
    assert 0.1 < lim.throttle() < 1.0  # waited for the reset, then went
    lim.observe(RateLimitInfo(remaining_requests=0, reset_requests_s=30))
    with pytest.raises(RateLimitError) as ei:
        lim.throttle()
    assert ei.value.retry_after and ei.value.retry_after > 20

    async def main() -> float:
        alim = SharedRateLimiter(store, "ta", pace_below=0)
        await alim.aobserve(RateLimitInfo(remaining_requests=0, reset_requests_s=0.2))
        return await alim.athrottle()

    assert 0.1 < asyncio.run(main()) < 1.0


def test_limiter_validation() -> None:
    with pytest.raises(ValueError):
        SharedRateLimiter(None, "")
    with pytest.raises(ValueError):
        SharedRateLimiter(None, "k", pace_below=2)
