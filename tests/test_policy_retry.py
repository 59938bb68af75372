import asyncio
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import surefoot
from surefoot import ProblemDetails
from surefoot._translate import translate
from surefoot.policy import (
    ErrorInfo,
    RetryPolicy,
    Tier,
    backoff_ceiling,
    backoff_delay,
    breaker_counts,
    default_retryable,
)


def http_error(status: int, **kw: object) -> surefoot.SurefootError:
    ctx = surefoot.ErrorContext(http_status=status)
    if status >= 500:
        return surefoot.LLMError(error_type=surefoot.LLMErrorType.SERVER_ERROR, context=ctx, **kw)  # type: ignore[arg-type]
    return surefoot.BusinessError(context=ctx, **kw)  # type: ignore[arg-type]


# -- default classifier ----------------------------------------------------------------------


@pytest.mark.parametrize("status", [408, 429, 500, 502, 503, 504])
def test_default_retries_statuses(status: int) -> None:
    assert default_retryable(None, status)


@pytest.mark.parametrize("status", [400, 401, 402, 403, 404, 409, 422, 501])
def test_default_fails_other_statuses(status: int) -> None:
    assert not default_retryable(None, status)


@pytest.mark.parametrize(
    "exc",
    [
        ConnectionResetError(),
        OSError("x"),
        TimeoutError(),
        surefoot.NetworkError(),
        surefoot.TimeoutError(),
    ],
)
def test_network_errors_are_retryable(exc: BaseException) -> None:
    assert default_retryable(exc, None)


@pytest.mark.parametrize(
    "exc", [asyncio.CancelledError(), KeyboardInterrupt(), SystemExit(), GeneratorExit()]
)
def test_cancellation_never_retryable(exc: BaseException) -> None:
    assert not default_retryable(exc, None)
    assert not breaker_counts(exc)


def test_problem_retryable_false_wins_except_5xx_in_stream() -> None:
    problem = ProblemDetails.parse({"retryable": False, "status": 503})
    err = surefoot.LLMError(
        error_type=surefoot.LLMErrorType.SERVER_ERROR,
        retryable=True,
        problem_details=problem,
        context=surefoot.ErrorContext(http_status=503),
    )
    assert not default_retryable(err, 503)
    assert default_retryable(err, 503, in_stream=True)
    assert not breaker_counts(err)


def test_typed_error_retryable_false_wins_over_status() -> None:
    quota = surefoot.LLMError(
        error_type=surefoot.LLMErrorType.QUOTA_EXHAUSTED,
        context=surefoot.ErrorContext(http_status=429),
    )
    assert not default_retryable(quota)


def test_translate_builtin_rules_keep_cause() -> None:
    orig = ConnectionRefusedError("refused")
    err = translate(orig)
    assert isinstance(err, surefoot.NetworkError) and err.__cause__ is orig
    t = translate(TimeoutError("slow"))
    assert isinstance(t, surefoot.TimeoutError)
    assert translate(ValueError("x")) is None
    assert translate(asyncio.CancelledError()) is None


def test_translation_needs_no_registration() -> None:
    """The engine's boundary knows the HTTP clients' and SDKs' failures by itself; the caller's
    own exceptions pass through it untouched."""
    import httpx

    out = translate(httpx.ConnectError("refused"))
    assert isinstance(out, surefoot.NetworkError) and out.retryable
    assert isinstance(out.__cause__, httpx.ConnectError)

    class Foreign(Exception):
        pass

    assert translate(Foreign()) is None


def test_breaker_counts() -> None:
    assert breaker_counts(ConnectionResetError())
    assert breaker_counts(surefoot.NetworkError())
    assert breaker_counts(http_error(503))
    assert not breaker_counts(http_error(400))
    assert not breaker_counts(ValueError("local"))
    assert not breaker_counts(surefoot.CircuitOpenError(name="x"))
    assert not breaker_counts(surefoot.RunTimeoutError())


# -- backoff ---------------------------------------------------------------------------------


def test_backoff_equal_jitter_bounds() -> None:
    assert backoff_delay(0, 0.5, 8.0, 0.0) == 0.25
    assert backoff_delay(0, 0.5, 8.0, 0.999999) == pytest.approx(0.5, abs=1e-5)
    assert backoff_delay(3, 0.5, 8.0, 0.0) == 2.0
    assert backoff_delay(10, 0.5, 8.0, 0.5) == 6.0
    assert backoff_ceiling(10**9, 0.5, 8.0) == 8.0
    assert backoff_delay(5, 1.0, 8.0, float("nan")) <= 8.0


@given(
    attempt=st.integers(min_value=0, max_value=10**6),
    base=st.floats(min_value=0, max_value=1e6),
    cap=st.floats(min_value=0, max_value=1e6),
    u=st.floats(min_value=0, max_value=1, exclude_max=True),
)
def test_property_every_delay_within_bounds(
    attempt: int, base: float, cap: float, u: float
) -> None:
    d = backoff_delay(attempt, base, cap, u)
    c = backoff_ceiling(attempt, base, cap)
    assert 0 <= c * 0.5 <= d <= c <= cap


# -- RetryPolicy -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kw", "error"),
    [
        ({"retries": -1}, ValueError),
        ({"retries": 10**6}, ValueError),
        ({"retries": 1.5}, TypeError),
        ({"retries": True}, TypeError),
        ({"retry_base": -1}, ValueError),
        ({"retry_base": math.nan}, ValueError),
        ({"max_delay": math.inf}, ValueError),
        ({"max_hint": -0.1}, ValueError),
        ({"on_error": 3}, TypeError),
    ],
)
def test_bad_settings_raise_clear_errors(kw: dict[str, object], error: type[Exception]) -> None:
    """A wrong type is a TypeError, a wrong value a ValueError; both name the option."""
    with pytest.raises(error, match=f"{next(iter(kw))} must"):
        RetryPolicy(**kw)  # type: ignore[arg-type]


def fixed(u: float = 0.0) -> RetryPolicy:
    return RetryPolicy(retries=3, retry_base=0.5, random=lambda: u)


def test_retry_bounded_by_retries_even_when_hook_says_retry() -> None:
    p = RetryPolicy(retries=2, on_error=lambda info: Tier.RETRY, random=lambda: 0.0)
    err = ValueError("x")
    assert p.decide(err, 0, 0.0).retry
    assert p.decide(err, 1, 0.0).retry
    d = p.decide(err, 2, 0.0)
    assert not d.retry and "retries exhausted" in d.reason


def test_hook_sees_error_info() -> None:
    seen: list[ErrorInfo] = []

    def hook(info: ErrorInfo) -> Tier:
        seen.append(info)
        return Tier.FAIL

    p = RetryPolicy(on_error=hook)
    err = http_error(402)
    assert not p.decide(err, 0, 0.0).retry
    assert seen == [ErrorInfo(err, 402, 0, False)]


def test_hook_that_raises_fails_with_hook_error_attached() -> None:
    def hook(info: ErrorInfo) -> Tier:
        raise ZeroDivisionError("oops")

    d = RetryPolicy(on_error=hook).decide(http_error(503), 0, 0.0)
    assert d.action == "fail" and isinstance(d.hook_error, ZeroDivisionError)


def test_hook_returning_garbage_fails() -> None:
    d = RetryPolicy(on_error=lambda i: True).decide(http_error(503), 0, 0.0)  # type: ignore[arg-type,return-value]
    assert d.action == "fail" and isinstance(d.hook_error, TypeError)


def test_error_max_retry_attempts_caps_within_retries() -> None:
    p = RetryPolicy(retries=10, random=lambda: 0.0)
    rl = surefoot.RateLimitError("x", retry_after=1.0)
    assert p.decide(rl, 4, 0.0).retry
    assert not p.decide(rl, 5, 0.0).retry  # a rate limit allows 5 retries
    few = surefoot.NetworkError("x", max_retry_attempts=1)
    assert p.decide(few, 0, 0.0).retry and not p.decide(few, 1, 0.0).retry
    # never raises the caller's budget
    assert not RetryPolicy(retries=1).decide(rl, 1, 0.0).retry


def test_respect_error_attempts_off_makes_retries_the_one_budget() -> None:
    p = RetryPolicy(retries=4, random=lambda: 0.0, respect_error_attempts=False)
    reset = surefoot.ConnectionFailedError("connection reset")
    assert reset.retryable and reset.max_retry_attempts < 4  # its own cap is lower
    assert [p.decide(reset, n, 0.0).retry for n in range(5)] == [True] * 4 + [False]
    assert p.decide(reset, 4, 0.0).reason == "retries exhausted (4)"
    assert not RetryPolicy(retries=4).decide(reset, reset.max_retry_attempts, 0.0).retry
    # it never turns a failure that is not retryable into a retry
    assert not p.decide(surefoot.AuthError("no"), 0, 0.0).retry
    with pytest.raises(TypeError, match="respect_error_attempts must be a bool"):
        RetryPolicy(respect_error_attempts=1)  # type: ignore[arg-type]


def test_server_hint_is_honoured_exactly_not_capped() -> None:
    p = RetryPolicy(retries=3, max_delay=8.0, random=lambda: 0.9)
    d = p.decide(surefoot.RateLimitError("x", retry_after=30.0), 0, 0.0)
    assert d.retry and d.delay == 30.0 and d.reason == "server hint"
    small = p.decide(surefoot.RateLimitError("x", retry_after=0.01), 2, 0.0)
    assert small.delay == 0.01  # not replaced by a longer backoff either


def test_hint_over_max_hint_or_past_deadline_fails_at_once() -> None:
    p = RetryPolicy(retries=3, max_hint=120.0)
    assert not p.decide(surefoot.RateLimitError(retry_after=121.0), 0, 0.0).retry
    d = p.decide(surefoot.RateLimitError(retry_after=10.0), 0, 100.0, deadline=105.0)
    assert not d.retry and "deadline" in d.reason


def test_suggested_delay_is_a_floor_capped_by_max_delay() -> None:
    p = RetryPolicy(retries=3, retry_base=0.001, max_delay=8.0, random=lambda: 0.0)
    overloaded = surefoot.LLMError(error_type=surefoot.LLMErrorType.MODEL_OVERLOADED)
    assert p.decide(overloaded, 0, 0.0).delay == 5.0
    p2 = RetryPolicy(retries=3, retry_base=0.001, max_delay=3.0, random=lambda: 0.0)
    assert p2.decide(overloaded, 0, 0.0).delay == 3.0
    # a non-retryable error retried through on_error has no floor
    p3 = RetryPolicy(retries=3, retry_base=0.001, on_error=lambda i: Tier.RETRY, random=lambda: 0.0)
    assert p3.decide(http_error(402), 0, 0.0).delay == 0.0005


def test_backoff_past_deadline_fails() -> None:
    p = RetryPolicy(retries=3, retry_base=4.0, random=lambda: 0.0)
    d = p.decide(ConnectionResetError(), 0, 0.0, deadline=1.0)
    assert not d.retry and "past the deadline" in d.reason


errors = st.sampled_from(
    [
        ConnectionResetError(),
        surefoot.RateLimitError(retry_after=2.0),
        surefoot.RateLimitError(),
        surefoot.LLMError(error_type=surefoot.LLMErrorType.MODEL_OVERLOADED),
        surefoot.NetworkError(),
        ValueError(),
    ]
)


@given(
    err=errors,
    attempt=st.integers(min_value=0, max_value=2000),
    retries=st.integers(min_value=0, max_value=1000),
    base=st.floats(min_value=0, max_value=100),
    cap=st.floats(min_value=0, max_value=100),
    now=st.floats(min_value=0, max_value=1e6),
    left=st.none() | st.floats(min_value=0, max_value=1e3),
    u=st.floats(min_value=0, max_value=1, exclude_max=True),
    always=st.booleans(),
)
def test_property_decisions_bounded(
    err: BaseException,
    attempt: int,
    retries: int,
    base: float,
    cap: float,
    now: float,
    left: float | None,
    u: float,
    always: bool,
) -> None:
    p = RetryPolicy(
        retries=retries,
        retry_base=base,
        max_delay=cap,
        random=lambda: u,
        on_error=(lambda i: Tier.RETRY) if always else None,
    )
    deadline = None if left is None else now + left
    d = p.decide(err, attempt, now, deadline)
    if d.retry:
        assert attempt < retries  # attempts <= retries + 1
        assert d.delay >= 0 and math.isfinite(d.delay)
        if deadline is not None:
            assert now + d.delay <= deadline  # no sleep ends past the deadline
        hint = getattr(err, "retry_after", None)
        if hint is not None:
            assert d.delay == hint <= p.max_hint
        else:
            assert d.delay <= cap
