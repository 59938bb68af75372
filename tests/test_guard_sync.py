import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import surefoot
from surefoot import CircuitBreaker, RetryBudget, time_left
from surefoot.guard import Guard, GuardHooks, resilient
from surefoot.policy import BreakerState, ErrorInfo, Tier
from surefoot.testing.clock import FakeClock


def err503(**kw: object) -> surefoot.SurefootError:
    return surefoot.LLMError(
        error_type=surefoot.LLMErrorType.SERVER_ERROR,
        context=surefoot.ErrorContext(http_status=503),
        **kw,  # type: ignore[arg-type]
    )


class Flaky:
    def __init__(
        self, *failures: BaseException, result: object = "ok", clock: FakeClock | None = None
    ) -> None:
        self.failures = list(failures)
        self.calls = 0
        self.result = result

    def __call__(self) -> object:
        self.calls += 1
        if self.failures:
            raise self.failures.pop(0)
        return self.result


def test_success_path_calls_once() -> None:
    f = Flaky()
    assert Guard(clock=FakeClock()).call(f) == "ok" and f.calls == 1


def test_retries_then_succeeds_with_waits_on_fake_clock() -> None:
    clock = FakeClock()
    f = Flaky(ConnectionResetError(), err503())
    g = Guard(retries=2, retry_base=0.5, clock=clock, random=lambda: 0.0)
    out, rec = g.call_with_record(f)
    assert out == "ok" and f.calls == 3
    assert [a.error_code for a in rec.attempts] == ["SUREFOOT-NETWORK", "SUREFOOT-LLM", None]
    # The network error has no delay of its own (backoff: 0.5 * 2**0 / 2 with zero jitter);
    # the 503, a provider server error, floors the backoff at its own 2 s.
    assert clock.sleeps == [0.25, 2.0]
    assert rec.attempts[1].status == 503 and rec.outcome == "success" and rec.retries == 2


def test_gives_up_after_retries_with_attempts_attached() -> None:
    clock = FakeClock()
    f = Flaky(*(err503() for _ in range(5)))
    with pytest.raises(surefoot.LLMError) as ei:
        Guard(retries=2, clock=clock, operation="chat").call(f)
    assert f.calls == 3
    attempts = ei.value.attempts  # type: ignore[attr-defined]
    assert [a.decision.action for a in attempts] == ["retry", "retry", "fail"]
    assert ei.value.context.attempt == 2 and ei.value.context.operation == "chat"


def test_foreign_non_retryable_reraised_unchanged() -> None:
    boom = ValueError("user bug")
    f = Flaky(boom)
    with pytest.raises(ValueError) as ei:
        Guard(clock=FakeClock()).call(f)
    assert ei.value is boom and f.calls == 1


def test_foreign_network_error_translated_keeping_cause() -> None:
    orig = ConnectionRefusedError("nope")
    f = Flaky(orig, ConnectionRefusedError(), ConnectionRefusedError())
    with pytest.raises(surefoot.NetworkError) as ei:
        Guard(retries=2, clock=FakeClock()).call(f)
    assert isinstance(ei.value.__cause__, ConnectionRefusedError)


def test_tier_fail_stops_and_tier_retry_bounded() -> None:
    f = Flaky(err503(), err503())
    with pytest.raises(surefoot.LLMError):
        Guard(retries=5, on_error=lambda i: Tier.FAIL, clock=FakeClock()).call(f)
    assert f.calls == 1
    g = Flaky(*(ValueError() for _ in range(10)))
    with pytest.raises(ValueError):
        Guard(retries=3, on_error=lambda i: Tier.RETRY, retry_base=0.01, clock=FakeClock()).call(g)
    assert g.calls == 4


def test_hook_raising_fails_with_original_and_note() -> None:
    original = err503()

    def hook(info: ErrorInfo) -> Tier:
        raise RuntimeError("hook bug")

    with pytest.raises(surefoot.LLMError) as ei:
        Guard(on_error=hook, clock=FakeClock()).call(Flaky(original))
    assert ei.value is original
    assert any("on_error hook raised RuntimeError" in n for n in ei.value.__notes__)


@pytest.mark.parametrize("exc", [KeyboardInterrupt(), SystemExit()])
def test_cancellation_passes_through_bypassing_on_error(exc: BaseException) -> None:
    seen: list[ErrorInfo] = []
    b = CircuitBreaker("c", failure_threshold=1, clock=FakeClock())
    with pytest.raises(type(exc)):
        Guard(on_error=lambda i: seen.append(i) or Tier.RETRY, breaker=b, clock=FakeClock()).call(
            Flaky(exc)
        )
    assert seen == [] and b.state is BreakerState.CLOSED


def test_server_hint_honoured_exactly_and_long_hint_fails_at_once() -> None:
    clock = FakeClock()
    f = Flaky(surefoot.RateLimitError(retry_after=30.0))
    Guard(max_delay=8.0, clock=clock).call(f)
    assert clock.sleeps == [30.0]
    long = surefoot.RateLimitError(retry_after=500.0)
    g = Flaky(long)
    with pytest.raises(surefoot.RateLimitError) as ei:
        Guard(clock=clock).call(g)
    assert ei.value is long and g.calls == 1


def test_timeout_expiry_raises_run_timeout_with_cause() -> None:
    clock = FakeClock()

    def slow() -> None:
        clock.sleep(2.0)  # the callee takes 2 s of virtual time, then fails
        raise ConnectionResetError

    with pytest.raises(surefoot.RunTimeoutError) as ei:
        Guard(retries=5, timeout=3.0, clock=clock, random=lambda: 0.0).call(slow)
    assert isinstance(ei.value.__cause__, surefoot.NetworkError)
    # A sync callee cannot be preempted: the run ends at the deadline plus at most one callee.
    assert clock.now() <= 3.0 + 2.0
    assert len(clock.sleeps) >= 2  # two 2 s calls and one backoff wait, all virtual


def test_wait_never_ends_past_deadline_fails_with_original() -> None:
    clock = FakeClock()
    f = Flaky(err503(), err503())
    with pytest.raises(surefoot.LLMError):
        Guard(retries=5, timeout=1.5, clock=clock).call(f)  # the 2 s suggested wait does not fit
    assert f.calls == 1 and clock.sleeps == []


def test_time_left_visible_to_callee_and_nested_earliest() -> None:
    clock = FakeClock()
    seen: list[float | None] = []
    inner = Guard(timeout=10.0, clock=clock)
    outer = Guard(timeout=2.0, clock=clock)
    outer.call(lambda: inner.call(lambda: seen.append(time_left())))
    Guard(clock=clock).call(lambda: seen.append(time_left()))
    assert seen == [2.0, None]


def test_breaker_opens_and_rejects_without_calling() -> None:
    clock = FakeClock()
    b = CircuitBreaker("svc", failure_threshold=2, clock=clock)
    g = Guard(retries=0, breaker=b, clock=clock)
    for _ in range(2):
        with pytest.raises(surefoot.LLMError):
            g.call(Flaky(err503()))
    f = Flaky()
    with pytest.raises(surefoot.CircuitOpenError):
        g.call(f)
    assert f.calls == 0
    clock.advance(30)
    assert g.call(f) == "ok" and b.state is BreakerState.CLOSED


def test_budget_empty_turns_retries_into_failures() -> None:
    budget = RetryBudget(capacity=1, success_refill=0)
    g = Guard(retries=3, budget=budget, budget_key="p:m", clock=FakeClock())
    f = Flaky(err503(), err503(), err503())
    with pytest.raises(surefoot.LLMError) as ei:
        g.call(f)
    assert f.calls == 2
    assert ei.value.attempts[-1].decision.reason == "retry budget exhausted"  # type: ignore[attr-defined]
    assert budget.tokens("p:m") == 0 and budget.tokens("other") == 1


def test_hooks_fire_and_a_raising_hook_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    events: list[str] = []

    def bad(rec: object) -> None:
        raise RuntimeError("telemetry bug")

    hooks = GuardHooks(
        on_attempt=lambda r: events.append(f"attempt{r.attempt}"),
        on_retry=bad,
        on_give_up=lambda r, e: events.append("give_up"),
        on_breaker_state_change=lambda n, o, new: events.append(f"{o.value}->{new.value}"),
    )
    b = CircuitBreaker("h", failure_threshold=2, clock=FakeClock())
    g = Guard(retries=1, breaker=b, hooks=hooks, clock=FakeClock())
    with caplog.at_level(logging.ERROR), pytest.raises(surefoot.LLMError):
        g.call(Flaky(err503(), err503()))
    assert events == ["attempt0", "attempt1", "closed->open", "give_up"] or events == [
        "attempt0",
        "closed->open",
        "attempt1",
        "give_up",
    ]
    assert "telemetry hook" in caplog.text


def test_attempts_iterator() -> None:
    clock = FakeClock()
    it = Guard(retries=3, clock=clock).attempts()
    n = 0
    for attempt in it:
        with attempt:
            n += 1
            if attempt.number < 2:
                raise ConnectionResetError
    assert n == 3 and it.record.outcome == "success" and len(it.record.attempts) == 3
    it2 = Guard(retries=1, clock=clock).attempts()
    with pytest.raises(surefoot.NetworkError):
        for attempt in it2:
            with attempt:
                raise ConnectionResetError
    assert it2.record.outcome == "failure"


def test_resilient_decorator_forms() -> None:
    clock = FakeClock()

    @resilient
    def plain(x: int) -> int:
        return x + 1

    f = Flaky(ConnectionResetError())

    @resilient(retries=1, clock=clock)
    def flaky() -> object:
        return f()

    assert plain(1) == 2 and flaky() == "ok" and f.calls == 2
    assert flaky.guard.retries == 1  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="retries"):
        resilient(retries=-1)


@pytest.mark.parametrize(
    ("kw", "error"),
    [
        ({"timeout": 0}, ValueError),
        ({"timeout": -1}, ValueError),
        ({"breaker": 1}, TypeError),
        ({"budget": 2}, TypeError),
        ({"hooks": 5}, TypeError),
    ],
)
def test_guard_bad_settings(kw: dict[str, object], error: type[Exception]) -> None:
    with pytest.raises(error, match="must"):
        Guard(**kw)  # type: ignore[arg-type]


def test_infinite_timeout_means_no_deadline() -> None:
    assert Guard(timeout=float("inf")).timeout is None


@settings(max_examples=60, deadline=None)
@given(
    retries=st.integers(0, 8),
    failures=st.integers(0, 12),
    timeout=st.none() | st.floats(0.1, 50),
    cost=st.floats(0, 3),
)
def test_property_attempts_and_deadline(
    retries: int, failures: int, timeout: float | None, cost: float
) -> None:
    ends: list[float] = []

    class Recording(FakeClock):
        def sleep(self, seconds: float) -> None:
            ends.append(self.now() + seconds)
            super().sleep(seconds)

    clock = Recording()
    f = Flaky(*(err503() for _ in range(failures)))

    def call() -> object:
        clock.advance(cost)
        return f()

    try:
        Guard(retries=retries, timeout=timeout, clock=clock).call(call)
    except (surefoot.LLMError, surefoot.RunTimeoutError):
        pass
    assert f.calls <= retries + 1
    if timeout is not None:
        assert all(end <= timeout for end in ends)  # no sleep ever ends past the deadline
