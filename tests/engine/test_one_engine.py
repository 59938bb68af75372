"""Regression tests for the drift between the three hand-written failure paths (guard, LLM call,
agent) that one engine removed. Each test failed on the old main and names the symptom.

The official-SDK and foreign-exception cases are in ``test_foreign_exceptions.py``; the options
table in ``tests/test_options_contract.py``; the stream-resume rule in
``tests/policy/test_stream_resume.py``.
"""

from __future__ import annotations

import asyncio
import itertools
import math
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import surefoot
from surefoot import (
    AsyncLLMClient,
    CircuitBreaker,
    Guard,
    LLMClient,
    ModelSpec,
    RetryBudget,
    RetryPolicy,
    RunTimeoutError,
    Tier,
)
from surefoot.policy import Decision, Why
from surefoot.testing import (
    FakeClock,
    FaultServer,
    Hang,
    Match,
    Model,
    Rule,
    ScriptedToolCall,
    Status,
    Turn,
)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from test_client_helpers import Harness

MODES = ["sync", "async"]


def server_error(status: int = 503) -> surefoot.LLMError:
    return surefoot.LLMError(
        "unavailable",
        error_type=surefoot.LLMErrorType.SERVER_ERROR,
        context=surefoot.ErrorContext(http_status=status),
    )


# -- one deadline scope --------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("style", ["openai", "anthropic"])
def test_an_ambient_deadline_bounds_a_client_run_against_a_hanging_server(
    mode: str, style: str
) -> None:
    """``with surefoot.deadline(0.5): client.run(...)`` used to wait for the read timeout (here
    30 s) and fail with a read timeout; the run now ends at the deadline in force."""
    with FaultServer(models=[Model("m1", reply="ok")]) as srv:
        srv.enqueue(Hang(), times=5)
        base = srv.base_url + "/v1" if style == "openai" else srv.base_url
        opts: dict[str, Any] = {
            "base_url": base,
            "model": "m1",
            "style": style,
            "read_timeout": 30,
            "retries": 3,
        }
        started = time.monotonic()
        if mode == "sync":
            with (
                LLMClient(**opts) as c,
                surefoot.deadline(0.5),
                pytest.raises(RunTimeoutError) as ei,
            ):
                c.run("hi")
        else:

            async def go() -> None:
                async with AsyncLLMClient(**opts) as c, surefoot.deadline(0.5):
                    await c.run("hi")

            with pytest.raises(RunTimeoutError) as ei:
                asyncio.run(go())
        elapsed = time.monotonic() - started
    assert "deadline in force" in str(ei.value)
    assert len(srv.requests) == 1  # no retry was started past the deadline
    assert elapsed < 10  # far below the 30 s read timeout the old client waited for


@pytest.mark.parametrize("mode", MODES)
def test_the_run_timeout_and_an_enclosing_deadline_take_the_earlier(mode: str) -> None:
    """Tools run with the run's deadline in force: the earlier of its own timeout and the
    deadline around it."""
    clock = FakeClock()
    turns = [Turn(tool_calls=[ScriptedToolCall("probe", {})]), Turn(text="done")]
    seen: list[float | None] = []

    def probe() -> str:
        seen.append(surefoot.time_left())
        return "ok"

    with FaultServer(models=[Model("m1", turns=turns)]) as srv:
        with surefoot.deadline(50, clock=clock):
            out = Harness(mode, srv, "openai", clock=clock, timeout=600).run("hi", tools=[probe])
        assert out.text == "done"
        with surefoot.deadline(600, clock=clock):
            Harness(mode, srv, "openai", clock=clock, timeout=20).run("hi", tools=[probe])
    # the first run's tool saw the enclosing 50 s, the second run's its own 20 s
    assert len(seen) == 2
    assert seen[0] is not None and 0 < seen[0] <= 50
    assert seen[1] is not None and 0 < seen[1] <= 20


def test_a_nested_guard_cannot_extend_the_outer_deadline() -> None:
    clock = FakeClock()
    inner = Guard(retries=0, timeout=100, clock=clock)
    with surefoot.deadline(5, clock=clock):
        left = inner.call(surefoot.time_left)
    assert left == 5.0


# -- async never blocks --------------------------------------------------------------------------


class SyncSpy:
    """Counts every command sent through a store's sync redis client."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.client, name)
        if not callable(attr):
            return attr

        def spy(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return attr(*args, **kwargs)

        return spy


@pytest.mark.redis
@pytest.mark.parametrize("style", ["openai", "anthropic"])
def test_the_async_client_never_calls_redis_synchronously(
    redis_server: Any, namespace: str, style: str
) -> None:
    """AsyncLLMClient with a Redis breaker, budget and rate limiter used to admit and record
    through the blocking sync client on the event loop; every round trip now goes through
    redis.asyncio."""
    store = surefoot.stores.RedisStore.from_url(redis_server.url, namespace=namespace)
    spy = SyncSpy(store._link.client)
    store._link.client = spy
    breaker = CircuitBreaker("llm", failure_threshold=3, store=store)
    budget = RetryBudget(capacity=5, store=store)
    limiter = surefoot.SharedRateLimiter(store=store, key=f"{style}:m1")
    with FaultServer(models=[Model("m1", reply="ok")]) as srv:
        srv.enqueue(Status(503), times=2)
        base = srv.base_url + "/v1" if style == "openai" else srv.base_url

        async def go() -> None:
            async with AsyncLLMClient(
                base_url=base,
                model="m1",
                style=style,
                retry_base=0.001,
                breaker=breaker,
                budget=budget,
                rate_limiter=limiter,
            ) as c:
                assert (await c.run("hi")).text == "ok"  # two retries, then a success
                events = [e async for e in c.stream("again")]
                assert events[-1].result.text == "ok"

        asyncio.run(go())
    assert spy.calls == 0
    assert len(srv.requests) == 4
    assert budget.tokens(f"{style}:m1") == pytest.approx(5 - 2, abs=0.3)


@pytest.mark.redis
def test_the_async_guard_pays_a_redis_budget_without_blocking(
    redis_server: Any, namespace: str
) -> None:
    store = surefoot.stores.RedisStore.from_url(redis_server.url, namespace=namespace)
    spy = SyncSpy(store._link.client)
    store._link.client = spy
    budget = RetryBudget(capacity=2, store=store)
    calls = 0

    async def flaky() -> int:
        nonlocal calls
        calls += 1
        if calls < 3:
            raise server_error()
        return 7

    async def go() -> None:
        g = Guard(retries=5, retry_base=0.001, max_delay=0.001, budget=budget, budget_key="k")
        assert await g.acall(flaky) == 7

    asyncio.run(go())
    assert spy.calls == 0
    assert budget.tokens("k") == pytest.approx(0.0, abs=0.15)  # two retries paid, one refill


# -- backoff that grows --------------------------------------------------------------------------


def test_a_burst_of_503s_waits_longer_each_time() -> None:
    """A server error's own 2 s used to floor every wait (2, 2, 2, 2: "no backoff"); the
    growth now starts there: 2, then 2-4, 4-8, 8-16, capped by max_delay."""
    for u in (0.0, 0.5, 0.999):
        clock = FakeClock()
        guard = Guard(retries=5, max_delay=30, clock=clock, random=lambda u=u: u)  # type: ignore[misc]

        def unavailable() -> None:
            raise server_error()

        with pytest.raises(surefoot.LLMError):
            guard.call(unavailable)
        waits = clock.sleeps
        assert len(waits) == 3  # a server error allows 3 retries of its own
        assert waits[0] == 2.0
        assert all(b >= a for a, b in itertools.pairwise(waits)), waits
        assert 2 <= waits[1] <= 4 and 4 <= waits[2] <= 8
        assert waits[2] > waits[0]


def test_growth_is_capped_by_max_delay_and_server_hints_stay_exact() -> None:
    clock = FakeClock()
    guard = Guard(retries=8, max_delay=3, clock=clock, random=lambda: 0.999)
    errors = [surefoot.ConnectionFailedError("reset")] * 3 + [
        surefoot.RateLimitError("slow", retry_after=7.5)
    ]
    it = iter(errors)

    def fails() -> None:
        raise next(it)

    with pytest.raises(StopIteration):
        guard.call(fails)
    waits = clock.sleeps
    assert waits[:3] == sorted(waits[:3]) and max(waits[:3]) <= 3
    assert waits[3] == 7.5  # the hint, exactly: not capped, not grown


def test_the_client_backs_off_with_growth_too() -> None:
    clock = FakeClock()
    with FaultServer(models=[Model("m1", reply="ok")]) as srv:
        srv.enqueue(Status(503), times=3)
        h = Harness("sync", srv, "openai", clock=clock, retries=3, max_delay=30)
        assert h.run("hi").text == "ok"
    waits = clock.sleeps
    assert len(waits) == 3 and all(b >= a for a, b in itertools.pairwise(waits))
    assert waits[-1] > waits[0]


# -- decisions carry a typed reason ----------------------------------------------------------


class Reworded(RetryPolicy):
    """A policy whose decisions say one thing in their text and another in ``why``."""

    def decide(self, error: BaseException, *args: Any, **kwargs: Any) -> Decision:
        d = super().decide(error, *args, **kwargs)
        if d.retry:
            return d
        opposite = "retries exhausted" if d.why.final else "not retryable, on_error"
        return Decision(d.action, d.delay, d.why, opposite, d.hook_error)


@pytest.mark.parametrize("mode", MODES)
def test_fallback_is_decided_by_why_not_by_the_text(mode: str) -> None:
    """Falling back to the next model used to be ``reason.startswith("not retryable", ...)``:
    rewording a log line changed behaviour. The decision's ``why`` decides now."""
    with FaultServer(models=[Model("*", reply="from b")]) as srv:
        srv.add_rule(Rule(Status(503), Match(model="a")))
        h = Harness(mode, srv, "openai", model=["a", "b"], retries=0)

        def run_with(policy: RetryPolicy) -> Any:
            def go(c: Any) -> Any:
                c._opts.policy = policy
                return c.run("hi")

            return h.call(go)

        # exhausted, but the text says "not retryable": the chain still moves on to b
        assert run_with(Reworded(retries=0)).text == "from b"
        before = len(srv.requests)
        # on_error FAIL, with a text that says "retries exhausted": raised, b never called
        with pytest.raises(surefoot.LLMError):
            run_with(Reworded(retries=0, on_error=lambda info: Tier.FAIL))
        assert [r.model for r in srv.requests[before:]] == ["a"]


def test_why_tells_final_from_fallback() -> None:
    assert Why.NOT_RETRYABLE.final and Why.ON_ERROR_FAIL.final and Why.BUDGET.final
    assert not Why.EXHAUSTED.final and not Why.CIRCUIT_OPEN.final
    assert Decision.fail(Why.EXHAUSTED).reason == "retries exhausted"


# -- one policy for the same situation ---------------------------------------------------------


def _hook_raises(info: surefoot.ErrorInfo) -> Tier:
    raise ZeroDivisionError("oops")


NOTE = (
    "surefoot: the on_error hook raised ZeroDivisionError: oops; "
    "the call failed with this original error"
)


def test_the_hook_error_note_is_the_same_from_the_guard_and_the_client() -> None:
    def fails() -> None:
        raise server_error()

    with pytest.raises(surefoot.LLMError) as from_guard:
        Guard(on_error=_hook_raises).call(fails)
    with FaultServer(models=[Model("m1", reply="ok")]) as srv:
        srv.enqueue(Status(503))
        with pytest.raises(surefoot.LLMError) as from_client:
            Harness("sync", srv, "openai", on_error=_hook_raises).run("hi")

    async def afails() -> None:
        raise server_error()

    with pytest.raises(surefoot.LLMError) as from_async_guard:
        asyncio.run(Guard(on_error=_hook_raises).acall(afails))
    for ei in (from_guard, from_client, from_async_guard):
        assert ei.value.__notes__ == [NOTE]


def test_awaitables_from_callbacks_follow_one_rule_in_the_sync_agent() -> None:
    """The sync agent used to refuse an awaitable from the approver but run one from a
    fallback. Both are now run to completion when no event loop runs in the thread."""
    from surefoot.agent import Agent, action

    async def approve(name: str, args: dict[str, Any]) -> bool:
        return True

    async def rescue(x: int) -> int:
        return -x

    @action(requires_approval=True)
    def guarded(x: int) -> int:
        return x * 2

    @action(fallback=rescue)
    def broken(x: int) -> int:
        raise ConnectionResetError("down")

    agent = Agent("a", actions=[guarded, broken], approver=approve)
    assert agent.execute_action("guarded", {"x": 2}) == 4
    assert agent.execute_action("broken", {"x": 2}) == -2

    async def inside_a_loop() -> None:
        with pytest.raises(TypeError, match="approver returned an awaitable"):
            agent.execute_action("guarded", {"x": 2})
        with pytest.raises(surefoot.FallbackFailedError):
            agent.execute_action("broken", {"x": 2})

    asyncio.run(inside_a_loop())


def test_the_documented_fakes_import_from_surefoot_testing() -> None:
    from surefoot.testing import FakeClock as Fake

    clock = Fake()
    clock.sleep(2.5)
    assert clock.now() == 2.5 and not math.isnan(clock.now())
    assert ModelSpec("m").name == "m"


async def test_an_aiohttp_503_counts_against_the_breaker() -> None:
    """aiohttp's ClientResponseError for a 503 used to be no failure to the breaker (nothing
    translated it); it is a retryable server error now, and opens the circuit."""
    import aiohttp

    clock = FakeClock()
    breaker = CircuitBreaker("aio", failure_threshold=2, recovery_timeout=30, clock=clock)
    guard = Guard(retries=0, breaker=breaker, clock=clock)
    with FaultServer(models=[Model("m1", reply="ok")]) as srv:
        srv.enqueue(Status(503), times=5)

        async def fetch() -> None:
            async with aiohttp.ClientSession() as session:
                url = srv.base_url + "/v1/chat/completions"
                async with session.post(url, json={"model": "m1", "messages": []}) as resp:
                    resp.raise_for_status()

        for _ in range(2):
            with pytest.raises(surefoot.SurefootError) as ei:
                await guard.acall(fetch)
            assert isinstance(ei.value.__cause__, aiohttp.ClientResponseError)
            assert ei.value.retryable
        with pytest.raises(surefoot.CircuitOpenError):
            await guard.acall(fetch)
        assert len(srv.requests) == 2
