"""The drivers' edges: what each driver does when the loop's ops meet cancellation, an abandoned
stream, an iterator used out of order, and hooks that ask for every attempt. One loop serves
them all (``surefoot.policy._attempts``); these are the paths where the drivers differ."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

import surefoot
from surefoot import CircuitBreaker, CircuitOpenError, Guard, GuardHooks, resilient
from surefoot.testing import FakeClock, FaultServer, Model

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from test_client_helpers import base_url

REPLY = " ".join(f"w{i}" for i in range(12))


def open_breaker(clock: FakeClock) -> CircuitBreaker:
    """A breaker just opened, whose next caller is the half-open probe."""
    breaker = CircuitBreaker("b", failure_threshold=1, recovery_timeout=5, clock=clock)
    with breaker.acquire() as permit:
        permit.failure(surefoot.NetworkError("down"))
    clock.advance(5)
    assert breaker.snapshot().state is surefoot.BreakerState.HALF_OPEN
    return breaker


class Flaky:
    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        if self.calls <= self.failures:
            raise surefoot.NetworkError("reset")
        return "ok"

    async def acall(self) -> str:
        return self()


# -- a cancelled probe is released ---------------------------------------------------------------


def test_a_probe_interrupted_by_the_caller_is_released_sync() -> None:
    clock = FakeClock()
    breaker = open_breaker(clock)
    guard = Guard(retries=0, breaker=breaker, clock=clock)

    def interrupted() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        guard.call(interrupted)
    assert guard.call(lambda: "ok") == "ok"  # the next caller probed at once, and closed it
    assert breaker.state is surefoot.BreakerState.CLOSED


@pytest.mark.parametrize("form", ["acall", "decorator", "hooks"])
async def test_a_probe_cancelled_by_the_caller_is_released_async(form: str) -> None:
    clock = FakeClock()
    breaker = open_breaker(clock)
    seen: list[Any] = []
    hooks = GuardHooks(on_attempt=seen.append) if form == "hooks" else None

    async def cancelled() -> None:
        raise asyncio.CancelledError

    async def ok() -> str:
        return "ok"

    guard = Guard(retries=2, breaker=breaker, clock=clock, hooks=hooks)
    run = guard.acall if form != "decorator" else lambda fn: resilient(guard)(fn)()
    if form == "decorator":
        guarded = guard(cancelled)
        with pytest.raises(asyncio.CancelledError):
            await guarded()
    else:
        with pytest.raises(asyncio.CancelledError):
            await run(cancelled)
    assert await guard.acall(ok) == "ok"
    assert breaker.state is surefoot.BreakerState.CLOSED
    if form == "hooks":
        assert [r.ok for r in seen] == [True]  # the cancelled attempt is no attempt record


# -- the iterator forms --------------------------------------------------------------------------


async def test_async_with_attempt_retries_then_succeeds_without_blocking() -> None:
    clock = FakeClock()
    flaky = Flaky(2)
    guard = Guard(retries=3, clock=clock)
    attempts = guard.aattempts()
    async for attempt in attempts:
        async with attempt:
            await flaky.acall()
    assert flaky.calls == 3
    record = attempts.record
    assert record.outcome == "success" and [a.ok for a in record.attempts] == [False] * 2 + [True]
    assert len(clock.sleeps) == 2


async def test_async_with_attempt_raises_from_the_block_when_the_run_gives_up() -> None:
    guard = Guard(retries=1, clock=FakeClock())
    attempts = guard.aattempts()
    reached_after_block = 0
    with pytest.raises(surefoot.NetworkError):
        async for attempt in attempts:
            async with attempt:
                raise surefoot.NetworkError("reset")
            reached_after_block += 1  # after the suppressed first failure only
    assert reached_after_block == 1
    assert attempts.record.outcome == "failure" and len(attempts.record.attempts) == 2


async def test_async_attempts_are_cut_off_at_the_deadline() -> None:
    clock = FakeClock()
    guard = Guard(retries=5, timeout=3, clock=clock)
    attempts = guard.aattempts()
    with pytest.raises(surefoot.RunTimeoutError):
        async for attempt in attempts:
            async with attempt:
                await clock.asleep(10)
    assert attempts.record.outcome == "timeout"


async def test_an_open_circuit_ends_the_async_iteration() -> None:
    clock = FakeClock()
    breaker = CircuitBreaker("c", failure_threshold=1, recovery_timeout=30, clock=clock)
    with breaker.acquire() as permit:
        permit.failure(surefoot.NetworkError("down"))
    attempts = Guard(retries=3, breaker=breaker, clock=clock).aattempts()
    with pytest.raises(CircuitOpenError):
        async for attempt in attempts:
            async with attempt:  # pragma: no cover - never admitted
                pass
    assert attempts.record.outcome == "rejected"


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_an_attempt_that_is_not_used_is_an_error(mode: str) -> None:
    guard = Guard(retries=2, clock=FakeClock())
    if mode == "sync":
        it = guard.attempts()
        next(it)
        with pytest.raises(RuntimeError, match="with attempt"):
            next(it)
        return

    async def go() -> None:
        ait = guard.aattempts()
        await ait.__anext__()
        with pytest.raises(RuntimeError, match="with attempt"):
            await ait.__anext__()

    asyncio.run(go())


# -- decorators with hooks take the recorded path ----------------------------------------------


def test_a_decorated_function_with_hooks_reports_every_attempt() -> None:
    seen: list[Any] = []
    flaky = Flaky(1)
    wrapped = resilient(retries=2, clock=FakeClock(), hooks=GuardHooks(on_attempt=seen.append))(
        flaky
    )
    assert wrapped() == "ok"
    assert [r.ok for r in seen] == [False, True]
    assert wrapped.guard.retries == 2  # type: ignore[attr-defined]


async def test_a_decorated_coroutine_with_hooks_reports_every_attempt() -> None:
    seen: list[Any] = []
    flaky = Flaky(1)

    @resilient(retries=2, clock=FakeClock(), hooks=GuardHooks(on_attempt=seen.append))
    async def call() -> str:
        return await flaky.acall()

    assert await call() == "ok"
    assert [r.ok for r in seen] == [False, True]


async def test_a_decorated_coroutine_succeeds_on_its_first_attempt() -> None:
    """The inlined async wrapper's plain success, the path every call takes first."""
    breaker = CircuitBreaker("first")

    @resilient(retries=2, timeout=30, breaker=breaker)
    async def call(x: int) -> int:
        assert surefoot.time_left() is not None
        return x + 1

    assert [await call(i) for i in range(3)] == [1, 2, 3]
    assert call.__name__ == "call"


# -- an abandoned stream releases what it holds ----------------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("style", ["openai", "anthropic"])
def test_a_stream_the_caller_stops_reading_releases_its_probe(mode: str, style: str) -> None:
    """The caller breaks out of a stream admitted as the half-open probe: the probe's
    reservation is released at once, so the next call probes instead of waiting out the
    reservation (30 s) behind an open circuit."""
    clock = FakeClock()
    breaker = open_breaker(clock)
    with FaultServer(models=[Model("m1", reply=REPLY)]) as srv:
        opts: dict[str, Any] = {
            "base_url": base_url(srv, style),
            "model": "m1",
            "style": style,
            "breaker": breaker,
            "clock": clock,
        }
        if mode == "sync":
            with surefoot.LLMClient(**opts) as c:
                events = c.stream("hi")
                first = next(e for e in events if getattr(e, "type", "") == "text")
                events.close()  # type: ignore[attr-defined]
                assert first.text
                assert c.run("again").text == REPLY
        else:

            async def go() -> None:
                async with surefoot.AsyncLLMClient(**opts) as c:
                    events = c.stream("hi")
                    async for e in events:
                        if getattr(e, "type", "") == "text":
                            break
                    await events.aclose()  # type: ignore[attr-defined]
                    assert (await c.run("again")).text == REPLY

            asyncio.run(go())
    assert breaker.state is surefoot.BreakerState.CLOSED
