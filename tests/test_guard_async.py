import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import surefoot
from surefoot import CircuitBreaker, RetryBudget, deadline, time_left
from surefoot.guard import Guard, resilient
from surefoot.policy import BreakerState, ErrorInfo, Tier
from surefoot.testing.clock import FakeClock


def err503() -> surefoot.SurefootError:
    return surefoot.LLMError(
        error_type=surefoot.LLMErrorType.SERVER_ERROR,
        context=surefoot.ErrorContext(http_status=503),
    )


class AFlaky:
    def __init__(
        self, *failures: BaseException, clock: FakeClock | None = None, stall: float = 0.0
    ) -> None:
        self.failures = list(failures)
        self.calls = 0
        self.clock = clock
        self.stall = stall

    async def __call__(self) -> str:
        self.calls += 1
        if self.clock is not None and self.stall:
            await self.clock.asleep(self.stall)
        if self.failures:
            raise self.failures.pop(0)
        return "ok"


async def test_retries_with_virtual_waits() -> None:
    clock = FakeClock()
    f = AFlaky(ConnectionResetError(), err503())
    out, rec = await Guard(retries=2, clock=clock, random=lambda: 0.0).acall_with_record(f)
    # The network error has no delay of its own: equal-jitter backoff, 0.5 * 2**0 / 2. The 503
    # is a provider server error, whose own 2 s floors the backoff.
    assert out == "ok" and f.calls == 3 and clock.sleeps == [0.25, 2.0]
    assert rec.outcome == "success"


async def test_deadline_bounds_a_stalled_attempt() -> None:
    clock = FakeClock()
    f = AFlaky(clock=clock, stall=100.0)
    with pytest.raises(surefoot.RunTimeoutError):
        await Guard(retries=3, timeout=0.2, clock=clock).acall(f)
    assert clock.now() == pytest.approx(0.2) and f.calls == 1


async def test_deadline_on_system_clock_bounds_real_wait() -> None:
    async def stall() -> None:
        await asyncio.sleep(30)

    with pytest.raises(surefoot.RunTimeoutError):
        await Guard(timeout=0.05).acall(stall)

    @resilient(timeout=0.05, breaker=CircuitBreaker("sys"))
    async def stall2() -> None:
        await asyncio.sleep(30)

    with pytest.raises(surefoot.RunTimeoutError):
        await stall2()


async def test_external_cancel_is_not_a_timeout_and_never_counts() -> None:
    b = CircuitBreaker("c", failure_threshold=1)
    seen: list[ErrorInfo] = []
    started = asyncio.Event()

    @resilient(timeout=30, breaker=b, on_error=lambda i: seen.append(i) or Tier.RETRY)
    async def stall() -> None:
        started.set()
        await asyncio.sleep(30)

    task = asyncio.create_task(stall())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert seen == [] and b.state is BreakerState.CLOSED


async def test_cancel_during_backoff_wait() -> None:
    clock = FakeClock(autojump=False)
    f = AFlaky(err503())
    task = asyncio.create_task(Guard(retries=2, clock=clock).acall(f))
    for _ in range(5):
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert f.calls == 1


async def test_time_left_inside_async_attempt_and_nested() -> None:
    clock = FakeClock()
    seen: list[float | None] = []

    async def probe() -> None:
        seen.append(time_left())

    async with deadline(1.0, clock=clock):
        await Guard(timeout=5.0, clock=clock).acall(probe)
    await Guard(clock=clock).acall(probe)
    assert seen == [1.0, None]


async def test_outer_deadline_bounds_guard_without_timeout() -> None:
    clock = FakeClock()
    f = AFlaky(clock=clock, stall=50)
    async with deadline(2.0, clock=clock):
        with pytest.raises(surefoot.RunTimeoutError):
            await Guard(clock=clock).acall(f)


async def test_tier_fail_and_hook_error_and_foreign() -> None:
    f = AFlaky(err503())
    with pytest.raises(surefoot.LLMError):
        await Guard(retries=5, on_error=lambda i: Tier.FAIL, clock=FakeClock()).acall(f)
    assert f.calls == 1
    boom = ValueError("mine")
    with pytest.raises(ValueError) as ei:
        await Guard(clock=FakeClock()).acall(AFlaky(boom))
    assert ei.value is boom


async def test_breaker_and_budget_async() -> None:
    clock = FakeClock()
    b = CircuitBreaker("a", failure_threshold=1, clock=clock)
    budget = RetryBudget(capacity=1, success_refill=0)
    g = Guard(retries=3, breaker=b, budget=budget, clock=clock)
    with pytest.raises(surefoot.CircuitOpenError):
        await g.acall(AFlaky(err503(), err503()))  # opened after 1st failure; retry rejected
    f = AFlaky()
    with pytest.raises(surefoot.CircuitOpenError):
        await g.acall(f)
    assert f.calls == 0


async def test_aattempts_iterator_with_deadline() -> None:
    clock = FakeClock()
    it = Guard(retries=3, clock=clock).aattempts()
    n = 0
    async for attempt in it:
        with attempt:
            n += 1
            if attempt.number == 0:
                raise ConnectionResetError
    assert n == 2 and it.record.outcome == "success"
    it2 = Guard(retries=3, timeout=1.0, clock=clock).aattempts()
    with pytest.raises(surefoot.RunTimeoutError):
        async for attempt in it2:
            with attempt:
                await clock.asleep(10)
    assert it2.record.outcome == "timeout"


async def test_resilient_async_decorator_detects_coroutines() -> None:
    clock = FakeClock()
    f = AFlaky(ConnectionResetError())

    @resilient(retries=1, clock=clock)
    async def call() -> str:
        return await f()

    assert asyncio.iscoroutinefunction(call)
    assert await call() == "ok" and f.calls == 2


@settings(max_examples=40, deadline=None)
@given(
    retries=st.integers(0, 6),
    failures=st.integers(0, 8),
    timeout=st.none() | st.floats(0.5, 30),
    stall=st.floats(0, 3),
)
def test_property_async_attempts_and_deadline(
    retries: int, failures: int, timeout: float | None, stall: float
) -> None:
    async def main() -> None:
        clock = FakeClock()
        f = AFlaky(*(err503() for _ in range(failures)), clock=clock, stall=stall)
        try:
            await Guard(retries=retries, timeout=timeout, clock=clock).acall(f)
        except (surefoot.LLMError, surefoot.RunTimeoutError):
            pass
        assert f.calls <= retries + 1
        if timeout is not None:
            assert clock.now() <= timeout + 1e-9  # nothing ran past the deadline

    asyncio.run(main())


async def test_1000_tasks_through_guard_half_open_admit_one_probe() -> None:
    clock = FakeClock()
    b = CircuitBreaker("p", failure_threshold=1, recovery_timeout=1, clock=clock)
    with pytest.raises(surefoot.LLMError):
        await Guard(retries=0, breaker=b, clock=clock).acall(AFlaky(err503()))
    clock.advance(1)
    f = AFlaky(clock=clock, stall=0.5)
    g = Guard(retries=0, breaker=b, clock=clock)
    res = await asyncio.gather(*(g.acall(f) for _ in range(1000)), return_exceptions=True)
    assert f.calls == 1 and res.count("ok") == 1
    assert b.state is BreakerState.CLOSED
