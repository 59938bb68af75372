"""surefoot's engine under the real official SDKs (openai and anthropic on httpx2, groq on httpx;
sync and async), against the fault server on loopback: the SDK's own retries are off and the
engine's decide instead (backoff, server hints, ``max_hint``, ``x-should-retry``, a spent
quota), one deadline over the whole call, the circuit breaker, the retry budget, ``on_error``,
the shared rate limiter, attempt records and hooks, secrets kept out of errors and records, the
idempotency key, and the options checked at ``wrap()`` time.

Waits run on a :class:`~surefoot.testing.FakeClock` (nothing really sleeps) except where a
deadline must cut a real request off; no assertion reads the wall clock.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _sdks import SDKS, Runner, Sdk, _drive_sync

import surefoot
from surefoot import Tier, Why
from surefoot.testing import FakeClock, FaultServer, faults
from surefoot.testing.faults import Rule

F = faults


# -- helpers -------------------------------------------------------------------------------------


def _model(sdk: Sdk) -> str:
    return "claude-test" if sdk.name == "anthropic" else "gpt-test"


async def _acall(
    sdk: Sdk,
    client: Any,
    model: str | None,
    headers: dict[str, str] | None,
    scope: Callable[[], Any] | None,
) -> str:
    msgs = [{"role": "user", "content": "hello there"}]
    extra: dict[str, Any] = {"extra_headers": headers} if headers else {}
    with scope() if scope is not None else contextlib.nullcontext():
        if sdk.name == "anthropic":
            out = client.messages.create(
                model=model or _model(sdk), max_tokens=64, messages=msgs, **extra
            )
        else:
            out = client.chat.completions.create(model=model or _model(sdk), messages=msgs, **extra)
        if inspect.isawaitable(out):
            out = await out
    if sdk.name == "anthropic":
        return str(out.content[0].text)
    return str(out.choices[0].message.content)


def call(
    sdk: Sdk,
    runner: Runner,
    client: Any,
    *,
    model: str | None = None,
    headers: dict[str, str] | None = None,
    scope: Callable[[], Any] | None = None,
) -> str:
    """One chat request through the SDK's own API (``scope``: a context manager factory
    entered around it, on the thread or event loop that runs the request); its text."""
    coro = _acall(sdk, client, model, headers, scope)
    if sdk.is_async:
        return str(runner.run(coro))
    return str(_drive_sync(coro))


def fails(sdk: Sdk, runner: Runner, client: Any, **kwargs: Any) -> Any:
    """The exception one request raises (it must raise)."""
    with pytest.raises(Exception) as info:
        call(sdk, runner, client, **kwargs)
    return info.value


def api(srv: FaultServer) -> list[Any]:
    """The chat requests the server saw."""
    return [r for r in srv.requests if r.path.endswith(("completions", "messages"))]


def whys(err: Any) -> list[Why]:
    return [a.decision.why for a in err.attempts]


def assert_both(err: Any, sdk: Sdk, sdk_name: str, sf_type: type[BaseException]) -> None:
    """One object that is the SDK's exception and surefoot's typed error."""
    assert isinstance(err, getattr(sdk.package, sdk_name)), type(err).__mro__
    assert isinstance(err, sf_type), type(err).__mro__
    assert isinstance(err.surefoot, sf_type)
    assert not isinstance(err.surefoot, sdk.package.APIError)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(1000.0)


@pytest.fixture
def srv() -> Iterator[FaultServer]:
    with FaultServer() as server:
        yield server


# -- the SDK's own retries are off ----------------------------------------------------------------


def test_the_sdk_retries_itself_the_wrapped_client_does_not(
    sdk: Sdk, runner: Runner, srv: FaultServer
) -> None:
    # retry-after-ms: 1 makes the bare SDK's own waits 1 ms.
    fault = F.Status(503, retry_after_ms=1)
    bare = sdk.bare(srv.base_url, max_retries=2)
    srv.enqueue(fault, times=3)
    err = fails(sdk, runner, bare)
    assert len(api(srv)) == 3  # the SDK retried twice on its own
    assert not isinstance(err, surefoot.SurefootError)

    wrapped = surefoot.wrap(bare, retries=0)
    assert wrapped.max_retries == 0
    assert bare.max_retries == 2  # the original is left as it was
    assert type(wrapped).__name__ == type(bare).__name__
    srv.reset()
    srv.enqueue(fault, times=3)
    err = fails(sdk, runner, wrapped)
    assert len(api(srv)) == 1  # neither the SDK nor surefoot retried
    assert_both(err, sdk, "InternalServerError", surefoot.SurefootError)
    assert whys(err) == [Why.EXHAUSTED]

    # The defaults: retries=2, so 3 requests; the waits on the clock are the ones decided,
    # each within max_delay (8 s).
    clock = FakeClock()
    retried: list[surefoot.AttemptRecord] = []
    hooks = surefoot.GuardHooks(on_retry=retried.append)
    default = surefoot.wrap(sdk.bare(srv.base_url), clock=clock, hooks=hooks)
    srv.reset()
    srv.enqueue(F.Status(503), times=3)
    err = fails(sdk, runner, default)
    assert len(api(srv)) == 3
    assert [r.attempt for r in retried] == [0, 1]
    assert clock.sleeps == [r.wait for r in retried]
    assert all(0 < r.wait <= 8.0 for r in retried)
    assert whys(err)[-1] is Why.EXHAUSTED
    assert len(err.attempts) == 3


def test_default_retries_wait_the_backoff_on_the_clock(
    sdk: Sdk, runner: Runner, srv: FaultServer, clock: FakeClock
) -> None:
    retried: list[surefoot.AttemptRecord] = []
    base, cap = 10.0, 11.0  # above every error's own suggested delay (2 s, 5 s)
    client = surefoot.wrap(
        sdk.bare(srv.base_url),
        clock=clock,
        retries=3,
        retry_base=base,
        max_delay=cap,
        hooks=surefoot.GuardHooks(on_retry=retried.append),
    )
    srv.enqueue(F.Status(503), times=3)
    assert call(sdk, runner, client) == "hello there"
    assert len(api(srv)) == 4
    assert [r.attempt for r in retried] == [0, 1, 2]
    assert [r.status for r in retried] == [503, 503, 503]
    assert all(r.decision is not None and r.decision.why is Why.BACKOFF for r in retried)
    waits = [r.wait for r in retried]
    assert waits == [r.decision.delay for r in retried]  # type: ignore[union-attr]
    # Equal jitter: within [c/2, c], c = min(max_delay, retry_base * 2**n).
    for n, wait in enumerate(waits):
        ceiling = min(cap, base * 2**n)
        assert ceiling / 2 <= wait <= ceiling, (n, wait)
    assert waits[2] <= cap  # uncapped, the third would be 20..40 s
    # The engine slept exactly what it decided, on the injected clock.
    assert clock.sleeps == waits
    assert clock.now() == pytest.approx(1000.0 + sum(waits))


# -- server hints ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fault", "wait"),
    [
        (F.Status(429, retry_after=2), 2.0),
        (F.Status(503, retry_after=2), 2.0),
        (F.Status(429, retry_after_ms=1500), 1.5),
        # retry-after-ms wins over Retry-After
        (F.Status(429, retry_after=7, retry_after_ms=250), 0.25),
    ],
    ids=["429-retry-after", "503-retry-after", "retry-after-ms", "ms-over-seconds"],
)
def test_a_server_hint_is_waited_exactly(
    sdk: Sdk, runner: Runner, srv: FaultServer, clock: FakeClock, fault: F.Status, wait: float
) -> None:
    # retry_base/max_delay far from the hint: a backoff could not land on it.
    attempts: list[surefoot.AttemptRecord] = []
    client = surefoot.wrap(
        sdk.bare(srv.base_url),
        clock=clock,
        retry_base=30,
        max_delay=60,
        hooks=surefoot.GuardHooks(on_attempt=attempts.append),
    )
    srv.enqueue(fault)
    assert call(sdk, runner, client) == "hello there"
    assert len(api(srv)) == 2
    assert clock.sleeps == [wait]
    assert attempts[0].decision is not None
    assert attempts[0].decision.why is Why.HINT
    assert attempts[0].wait == wait


def test_a_hint_over_max_hint_fails_at_once(
    sdk: Sdk, runner: Runner, srv: FaultServer, clock: FakeClock
) -> None:
    client = surefoot.wrap(sdk.bare(srv.base_url), clock=clock, max_hint=120)
    srv.enqueue(F.Status(429, retry_after=3600), times=3)
    err = fails(sdk, runner, client)
    assert len(api(srv)) == 1
    assert clock.sleeps == []
    assert_both(err, sdk, "RateLimitError", surefoot.RateLimitError)
    assert err.kind == "rate_limit"
    assert err.retryable is True  # retryable in itself: the hint was too long
    assert err.surefoot.retry_after == 3600
    assert whys(err) == [Why.HINT_TOO_LONG]


def test_a_day_long_retry_after_fails_at_once_as_a_spent_quota(
    sdk: Sdk, runner: Runner, srv: FaultServer, clock: FakeClock
) -> None:
    # anthropic 2.x alone would sleep the day; surefoot reads a wait of a day or more as an
    # exhausted quota (surefoot._classify._build.refine), so it is not even retryable.
    client = surefoot.wrap(sdk.bare(srv.base_url), clock=clock, max_hint=120)
    srv.enqueue(F.Status(429, retry_after=86400), times=3)
    err = fails(sdk, runner, client)
    assert len(api(srv)) == 1
    assert clock.sleeps == []
    assert clock.now() == 1000.0
    assert_both(err, sdk, "RateLimitError", surefoot.LLMError)
    assert err.kind == "quota_exhausted"
    assert err.retryable is False
    assert whys(err) == [Why.NOT_RETRYABLE]


def test_a_hint_past_the_deadline_fails_at_once(
    sdk: Sdk, runner: Runner, srv: FaultServer, clock: FakeClock
) -> None:
    client = surefoot.wrap(sdk.bare(srv.base_url), clock=clock, timeout=5)
    srv.enqueue(F.Status(429, retry_after=10), times=3)
    err = fails(sdk, runner, client)
    assert len(api(srv)) == 1
    assert clock.sleeps == []
    # The service's own error, not a timeout: the deadline has not passed.
    assert_both(err, sdk, "RateLimitError", surefoot.RateLimitError)
    assert not isinstance(err, surefoot.RunTimeoutError)
    assert whys(err) == [Why.HINT_PAST_DEADLINE]


# -- x-should-retry, spent quotas -----------------------------------------------------------------


def test_should_retry_false_stops_a_503(
    sdk: Sdk, runner: Runner, srv: FaultServer, clock: FakeClock
) -> None:
    client = surefoot.wrap(sdk.bare(srv.base_url), clock=clock)
    srv.enqueue(F.Status(503, should_retry=False), times=3)
    err = fails(sdk, runner, client)
    assert len(api(srv)) == 1
    assert err.retryable is False
    assert whys(err) == [Why.NOT_RETRYABLE]
    assert_both(err, sdk, "InternalServerError", surefoot.LLMError)


def test_should_retry_true_retries_a_409(
    sdk: Sdk, runner: Runner, srv: FaultServer, clock: FakeClock
) -> None:
    client = surefoot.wrap(sdk.bare(srv.base_url), clock=clock)
    srv.enqueue(F.Status(409, should_retry=True))
    assert call(sdk, runner, client) == "hello there"
    assert len(api(srv)) == 2
    assert len(clock.sleeps) == 1


def test_a_409_without_the_header_is_not_retried_by_the_openai_dialect(
    runner: Runner, srv: FaultServer, clock: FakeClock
) -> None:
    # The control of the test above (the Anthropic API marks a 409 with x-should-retry: true
    # itself, so only the OpenAI dialect shows it).
    sdk = Sdk("openai", False)
    client = surefoot.wrap(sdk.bare(srv.base_url), clock=clock)
    srv.enqueue(F.Status(409), times=3)
    err = fails(sdk, runner, client)
    assert len(api(srv)) == 1
    assert_both(err, sdk, "ConflictError", surefoot.SurefootError)


@pytest.mark.parametrize("should_retry", [None, True], ids=["no-header", "should-retry-true"])
def test_insufficient_quota_is_not_retried(
    sdk: Sdk, runner: Runner, srv: FaultServer, clock: FakeClock, should_retry: bool | None
) -> None:
    # Deliberate (surefoot._classify._build: _FINAL_DESPITE_HINT): even x-should-retry: true
    # does not make a spent quota retryable.
    client = surefoot.wrap(sdk.bare(srv.base_url), clock=clock)
    srv.enqueue(F.Status(429, error="insufficient_quota", should_retry=should_retry), times=3)
    err = fails(sdk, runner, client)
    assert len(api(srv)) == 1
    assert clock.sleeps == []
    assert_both(err, sdk, "RateLimitError", surefoot.LLMError)
    assert err.kind == "quota_exhausted"
    assert err.retryable is False
    assert whys(err) == [Why.NOT_RETRYABLE]


def test_a_rate_limit_429_is_retried(
    sdk: Sdk, runner: Runner, srv: FaultServer, clock: FakeClock
) -> None:
    client = surefoot.wrap(sdk.bare(srv.base_url), clock=clock)
    srv.enqueue(F.Status(429, error="rate_limit"))
    assert call(sdk, runner, client) == "hello there"
    assert len(api(srv)) == 2
    assert len(clock.sleeps) == 1 and clock.sleeps[0] > 0


# -- one deadline ---------------------------------------------------------------------------------


def _hinted_503_forever() -> FaultServer:
    # Retry-After only carries whole seconds (the fault server sends 0.2 as "1"): the 0.2 s
    # hint goes as retry-after-ms.
    return FaultServer(rules=[Rule(F.Status(503, retry_after_ms=200))])


@pytest.mark.parametrize("how", ["timeout", "scope"])
def test_the_deadline_ends_a_hinted_retry_loop(
    sdk: Sdk, runner: Runner, clock: FakeClock, how: str
) -> None:
    # 503 with a 0.2 s hint forever, 0.5 s for the whole call: tries at 0, 0.2 and 0.4; the
    # third hint would end past the deadline, so the call fails at once with the last 503
    # (the engine never sleeps into the deadline; rule 3 of surefoot.policy._retry).
    with _hinted_503_forever() as srv:
        if how == "timeout":
            client = surefoot.wrap(sdk.bare(srv.base_url), clock=clock, timeout=0.5, retries=50)
            err = fails(sdk, runner, client)
        else:
            client = surefoot.wrap(sdk.bare(srv.base_url), clock=clock, retries=50)
            err = fails(sdk, runner, client, scope=lambda: surefoot.deadline(0.5, clock=clock))
        assert len(api(srv)) == 3
    assert clock.sleeps == [0.2, 0.2]
    assert_both(err, sdk, "InternalServerError", surefoot.SurefootError)
    assert whys(err) == [Why.HINT, Why.HINT, Why.HINT_PAST_DEADLINE]
    assert [a.status for a in err.attempts] == [503, 503, 503]


@pytest.mark.parametrize("how", ["timeout", "scope"])
def test_the_deadline_cuts_an_attempt_off(sdk: Sdk, runner: Runner, how: str) -> None:
    # Real time (a hang is only cut off by the real clock): two hinted 503s, then a hang.
    with FaultServer(rules=[Rule(F.Hang())]) as srv:
        srv.enqueue(F.Status(503, retry_after_ms=20), times=2)
        if how == "timeout":
            client = surefoot.wrap(sdk.bare(srv.base_url), timeout=0.5, retries=50)
            err = fails(sdk, runner, client)
        else:
            client = surefoot.wrap(sdk.bare(srv.base_url), retries=50)
            err = fails(sdk, runner, client, scope=lambda: surefoot.deadline(0.5))
        assert len(api(srv)) == 3
    assert_both(err, sdk, "APITimeoutError", surefoot.RunTimeoutError)
    assert err.kind == "timeout"
    assert [a.status for a in err.attempts] == [503, 503, None]
    assert whys(err) == [Why.HINT, Why.HINT, Why.DEADLINE]
    assert err.attempts[-1].kind == "timeout"


# -- the circuit breaker --------------------------------------------------------------------------


def test_a_shared_breaker_opens_and_fails_fast(
    sdk: Sdk, runner: Runner, srv: FaultServer, clock: FakeClock
) -> None:
    changes: list[tuple[str, surefoot.BreakerState, surefoot.BreakerState]] = []
    hooks = surefoot.GuardHooks(on_breaker_state_change=lambda *a: changes.append(a))
    breaker = surefoot.CircuitBreaker("shared", failure_threshold=2, recovery_timeout=600)
    a = surefoot.wrap(sdk.bare(srv.base_url), clock=clock, retries=0, breaker=breaker)
    b = surefoot.wrap(sdk.bare(srv.base_url), clock=clock, retries=0, breaker=breaker, hooks=hooks)
    srv.enqueue(F.Status(503), times=2)
    fails(sdk, runner, a)
    assert breaker.state is surefoot.BreakerState.CLOSED
    fails(sdk, runner, b)
    assert breaker.state is surefoot.BreakerState.OPEN
    assert changes == [("shared", surefoot.BreakerState.CLOSED, surefoot.BreakerState.OPEN)]
    assert len(api(srv)) == 2
    for client in (a, b):
        err = fails(sdk, runner, client)
        assert_both(err, sdk, "APIConnectionError", surefoot.CircuitOpenError)
        assert whys(err) == [Why.CIRCUIT_OPEN]
        assert err.surefoot.retry_after is not None and err.surefoot.retry_after > 0
    assert len(api(srv)) == 2  # nothing reached the server


def test_a_breaker_per_model_opens_only_the_failing_model(
    sdk: Sdk, runner: Runner, srv: FaultServer, clock: FakeClock
) -> None:
    bad = surefoot.CircuitBreaker("bad", failure_threshold=1, recovery_timeout=600)
    good = surefoot.CircuitBreaker("good", failure_threshold=1, recovery_timeout=600)
    client = surefoot.wrap(
        sdk.bare(srv.base_url), clock=clock, retries=0, breaker={"m-bad": bad, "m-good": good}
    )
    srv.enqueue(F.Status(503))
    fails(sdk, runner, client, model="m-bad")
    assert bad.state is surefoot.BreakerState.OPEN
    err = fails(sdk, runner, client, model="m-bad")
    assert isinstance(err, surefoot.CircuitOpenError)
    assert err.surefoot.name == "bad"
    assert len(api(srv)) == 1
    assert call(sdk, runner, client, model="m-good") == "hello there"
    assert good.state is surefoot.BreakerState.CLOSED
    assert [r.model for r in api(srv)] == ["m-bad", "m-good"]


# -- the retry budget -----------------------------------------------------------------------------


def test_a_spent_budget_stops_retries(
    sdk: Sdk, runner: Runner, srv: FaultServer, clock: FakeClock
) -> None:
    budget = surefoot.RetryBudget(capacity=1, retry_cost=1, success_refill=0)
    client = surefoot.wrap(sdk.bare(srv.base_url), clock=clock, retries=5, budget=budget)
    srv.enqueue(F.Status(503), times=10)
    err = fails(sdk, runner, client)
    assert len(api(srv)) == 2  # one paid retry, then the budget said no
    assert whys(err)[-1] is Why.BUDGET
    assert_both(err, sdk, "InternalServerError", surefoot.LLMError)
    assert err.status_code == 503
    assert budget.tokens(f"{sdk.name}:{_model(sdk)}") == 0
    # The next call gets no retry at all.
    err = fails(sdk, runner, client)
    assert len(api(srv)) == 3
    assert whys(err) == [Why.BUDGET]


# -- on_error -------------------------------------------------------------------------------------


def test_on_error_can_fail_a_retryable_error(
    sdk: Sdk, runner: Runner, srv: FaultServer, clock: FakeClock
) -> None:
    seen: list[surefoot.ErrorInfo] = []

    def on_error(info: surefoot.ErrorInfo) -> Tier:
        seen.append(info)
        return Tier.FAIL

    client = surefoot.wrap(sdk.bare(srv.base_url), clock=clock, on_error=on_error)
    srv.enqueue(F.Status(503), times=3)
    err = fails(sdk, runner, client)
    assert len(api(srv)) == 1
    assert whys(err) == [Why.ON_ERROR_FAIL]
    assert [(i.status, i.attempt, i.retryable) for i in seen] == [(503, 0, True)]
    assert isinstance(seen[0].error, surefoot.SurefootError)


def test_on_error_can_retry_a_final_error(
    sdk: Sdk, runner: Runner, srv: FaultServer, clock: FakeClock
) -> None:
    seen: list[surefoot.ErrorInfo] = []

    def on_error(info: surefoot.ErrorInfo) -> Tier:
        seen.append(info)
        return Tier.RETRY

    client = surefoot.wrap(sdk.bare(srv.base_url), clock=clock, on_error=on_error, retries=2)
    srv.enqueue(F.Status(400), times=3)
    err = fails(sdk, runner, client)
    assert len(api(srv)) == 3
    assert [(i.status, i.attempt, i.retryable) for i in seen] == [
        (400, 0, False),
        (400, 1, False),
        (400, 2, False),
    ]
    assert whys(err) == [Why.BACKOFF, Why.BACKOFF, Why.EXHAUSTED]
    assert_both(err, sdk, "BadRequestError", surefoot.SurefootError)


# Run in a child process: the bug below makes the call spin forever, growing a list without
# bound, which no in-process timeout could stop.
_ON_ERROR_RAISES = """
import os, sys, threading
sys.path.insert(0, sys.argv[1])
import surefoot
from _sdks import SDKS, Runner
from surefoot.testing import FakeClock, FaultServer, faults

def on_error(info):
    raise KeyError("boom")

def check(sdk, runner):
    with FaultServer() as srv:
        client = surefoot.wrap(sdk.bare(srv.base_url), clock=FakeClock(), on_error=on_error)
        srv.enqueue(faults.Status(503), times=3)
        try:
            sdk.ask(runner, client)
        except Exception as exc:
            err = exc
        else:
            return "no error"
        notes = getattr(err, "__notes__", [])
        if len(srv.requests) != 1:
            return f"{len(srv.requests)} requests"
        if [a.decision.why for a in err.attempts] != [surefoot.Why.ON_ERROR_RAISED]:
            return f"decisions {err.attempts}"
        if not isinstance(err, sdk.package.InternalServerError):
            return f"type {type(err).__mro__}"
        if not isinstance(err, surefoot.SurefootError):
            return f"type {type(err).__mro__}"
        if sum("on_error hook raised KeyError" in n for n in notes) != 1:
            return f"notes {notes[:3]}"
    return "ok"

def main():
    runner = Runner()
    for sdk in SDKS:
        print(sdk.id, check(sdk, runner), flush=True)
    os._exit(0)

threading.Thread(target=main, daemon=True).start()
threading.Event().wait(float(sys.argv[2]))
print("hung", flush=True)
os._exit(3)
"""


def test_an_on_error_hook_that_raises_fails_with_the_original_error() -> None:
    here = str(Path(__file__).parent)
    done = subprocess.run(
        [sys.executable, "-c", _ON_ERROR_RAISES, here, "3"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    lines = done.stdout.split("\n")
    assert done.returncode == 0, (done.stdout, done.stderr[-2000:])
    assert [line for line in lines if line] == [f"{s.id} ok" for s in SDKS]


# -- the shared rate limiter ----------------------------------------------------------------------


def test_the_rate_limiter_learns_from_a_429(
    sdk: Sdk, runner: Runner, srv: FaultServer, clock: FakeClock
) -> None:
    limiter = surefoot.SharedRateLimiter(key="lim", clock=clock)
    client = surefoot.wrap(sdk.bare(srv.base_url), clock=clock, rate_limiter=limiter)
    # A 0.1 s hint, and rate-limit headers saying: no request left for 3 s.
    srv.enqueue(F.Status(429, retry_after=3, retry_after_ms=100, ratelimit_headers=True))
    assert call(sdk, runner, client) == "hello there"
    assert len(api(srv)) == 2
    # The hint, then the limiter's wait for its reset before the retry is sent.
    assert clock.sleeps[0] == 0.1
    assert len(clock.sleeps) == 2
    if sdk.name == "anthropic":  # an RFC 3339 reset time, to the second: 2..3 s ahead
        assert 1.8 < clock.sleeps[1] <= 2.9 + 1e-6
    else:  # "3s"
        assert clock.sleeps[1] == pytest.approx(2.9)
    assert clock.now() == pytest.approx(1000.0 + sum(clock.sleeps))


def test_the_rate_limiter_paces_the_next_call(
    sdk: Sdk, runner: Runner, srv: FaultServer, clock: FakeClock
) -> None:
    limiter = surefoot.SharedRateLimiter(key="lim", clock=clock)
    # The 429 is final here (retries=0): the limiter still learns from its headers.
    client = surefoot.wrap(sdk.bare(srv.base_url), clock=clock, rate_limiter=limiter, retries=0)
    srv.enqueue(F.Status(429, retry_after=3, ratelimit_headers=True))
    fails(sdk, runner, client)
    assert clock.sleeps == []
    assert limiter.acquire() > 1.5
    assert call(sdk, runner, client) == "hello there"
    assert len(clock.sleeps) == 1 and clock.sleeps[0] > 1.5  # the next call waited
    assert len(api(srv)) == 2


# -- attempt records and hooks --------------------------------------------------------------------


def test_attempt_records_of_a_retried_success(
    sdk: Sdk, runner: Runner, srv: FaultServer, clock: FakeClock
) -> None:
    attempts: list[surefoot.AttemptRecord] = []
    client = surefoot.wrap(
        sdk.bare(srv.base_url), clock=clock, hooks=surefoot.GuardHooks(on_attempt=attempts.append)
    )
    srv.enqueue(F.Status(503))
    srv.enqueue(F.Status(429, retry_after=1))
    assert call(sdk, runner, client, model="m-records") == "hello there"
    assert [a.attempt for a in attempts] == [0, 1, 2]
    assert [a.model for a in attempts] == ["m-records"] * 3
    assert [a.status for a in attempts] == [503, 429, None]
    overloaded = "server_error" if sdk.name == "anthropic" else "model_overloaded"
    assert [a.kind for a in attempts] == [overloaded, "rate_limit", None]
    assert [a.ok for a in attempts] == [False, False, True]
    assert attempts[1].wait == 1.0
    assert attempts[2].decision is None
    assert [a.started for a in attempts] == sorted(a.started for a in attempts)  # type: ignore[type-var]


def test_attempt_records_of_a_failure(
    sdk: Sdk, runner: Runner, srv: FaultServer, clock: FakeClock
) -> None:
    attempts: list[surefoot.AttemptRecord] = []
    client = surefoot.wrap(
        sdk.bare(srv.base_url),
        clock=clock,
        retries=1,
        hooks=surefoot.GuardHooks(on_attempt=attempts.append),
    )
    srv.enqueue(F.Status(500), times=2)
    err = fails(sdk, runner, client)
    assert len(api(srv)) == 2
    assert err.attempts == tuple(attempts)
    assert err.surefoot.attempts == err.attempts
    assert [a.status for a in err.attempts] == [500, 500]
    assert [a.model for a in err.attempts] == [_model(sdk)] * 2
    assert whys(err)[-1] is Why.EXHAUSTED
    assert err.surefoot.context.attempt == 1


def test_on_give_up_hears_the_last_record_and_the_error(
    sdk: Sdk, runner: Runner, srv: FaultServer, clock: FakeClock
) -> None:
    heard: list[tuple[Any, BaseException]] = []
    hooks = surefoot.GuardHooks(on_give_up=lambda record, error: heard.append((record, error)))
    client = surefoot.wrap(sdk.bare(srv.base_url), clock=clock, retries=1, hooks=hooks)
    srv.enqueue(F.Status(500), times=2)
    err = fails(sdk, runner, client)
    assert len(heard) == 1
    record, error = heard[0]
    assert record == err.attempts[-1]
    assert isinstance(error, surefoot.SurefootError)
    assert error.kind == err.kind


def test_the_api_key_is_never_shown(sdk: Sdk, runner: Runner, srv: FaultServer) -> None:
    # A key shaped like no known credential, new to this process: only wrap()'s registration
    # of the client's key can mask it (surefoot._redact.register_secret).
    key = f"zq{uuid.uuid4().hex}"
    fault = F.Status(401, message=f"Incorrect API key provided: {key}")
    bare = sdk.bare(srv.base_url).with_options(api_key=key)
    srv.enqueue(fault)
    control = fails(sdk, runner, bare)
    assert key in str(control)  # the server echoes it, and the SDK alone shows it

    attempts: list[surefoot.AttemptRecord] = []
    client = surefoot.wrap(bare, hooks=surefoot.GuardHooks(on_attempt=attempts.append))
    srv.enqueue(fault)
    err = fails(sdk, runner, client)
    assert_both(err, sdk, "AuthenticationError", surefoot.LLMError)
    assert err.kind == "auth_failed"
    assert len(attempts) == 1
    shown = [
        str(err),
        repr(err),
        str(err.surefoot),
        repr(err.surefoot),
        err.surefoot.message,
        repr(err.attempts),
        repr(attempts),
        json.dumps(err.surefoot.problem_details.to_dict()),
        err.surefoot.problem_details.to_json(),
        json.dumps(err.problem_details.to_dict()),
    ]
    for text in shown:
        assert key not in text, text
    assert "[REDACTED]" in err.surefoot.message  # masked, not dropped


# -- idempotency ----------------------------------------------------------------------------------


def test_every_retry_resends_the_same_request(
    sdk: Sdk, runner: Runner, srv: FaultServer, clock: FakeClock
) -> None:
    client = surefoot.wrap(sdk.bare(srv.base_url), clock=clock)
    key = f"idem-{uuid.uuid4().hex}"
    srv.enqueue(F.Status(503), times=2)
    assert call(sdk, runner, client, headers={"Idempotency-Key": key}) == "hello there"
    seen = api(srv)
    assert [r.idempotency_key for r in seen] == [key] * 3
    assert [r.attempt for r in seen] == [1, 2, 3]
    assert len({r.body for r in seen}) == 1
    # A second call is another logical request: its own key, attempt 1.
    key2 = f"idem-{uuid.uuid4().hex}"
    call(sdk, runner, client, headers={"Idempotency-Key": key2})
    assert api(srv)[-1].idempotency_key == key2
    assert api(srv)[-1].attempt == 1


def test_retries_carry_one_idempotency_key_without_the_caller_setting_one(
    sdk: Sdk, runner: Runner, srv: FaultServer, clock: FakeClock
) -> None:
    client = surefoot.wrap(sdk.bare(srv.base_url), clock=clock)
    srv.enqueue(F.Status(503), times=2)
    call(sdk, runner, client)
    call(sdk, runner, client)
    keys = [r.idempotency_key for r in api(srv)]
    assert len(keys) == 4
    assert keys[0] is not None
    assert keys[0] == keys[1] == keys[2]
    assert keys[3] is not None and keys[3] != keys[0]


# -- options checked at wrap() time ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "error", "named"),
    [
        ({"timeout": -1}, ValueError, "timeout"),
        ({"retries": "3"}, TypeError, "retries"),
        ({"retries": -1}, ValueError, "retries"),
        ({"breaker": object()}, TypeError, "breaker"),
        ({"breaker": {"gpt-test": object()}}, TypeError, "breaker"),
        ({"budget": 3}, TypeError, "budget"),
        ({"rate_limiter": "redis"}, TypeError, "rate_limiter"),
        ({"first_token_timeout": 0}, ValueError, "first_token_timeout"),
        ({"read_timeout": -5}, ValueError, "read_timeout"),
        ({"max_hint": -1}, ValueError, "max_hint"),
        ({"on_error": "retry"}, TypeError, "on_error"),
        ({"hooks": 42}, TypeError, "hooks"),
        ({"provider": "nope"}, ValueError, "provider"),
        ({"retires": 3}, TypeError, "retires"),
    ],
    ids=lambda v: "-".join(f"{k}={v[k]!r}" for k in v) if isinstance(v, dict) else None,
)
def test_bad_options_raise_at_wrap_time(
    options: dict[str, Any], error: type[Exception], named: str
) -> None:
    sdk = SDKS[0]
    with FaultServer() as srv:
        bare = sdk.bare(srv.base_url)
        with pytest.raises(error) as info:
            surefoot.wrap(bare, **options)
        assert named in str(info.value)
        assert srv.requests == []


@pytest.mark.parametrize("thing", [object(), "openai", None], ids=["object", "str", "None"])
def test_wrap_refuses_what_is_not_an_sdk_client(thing: object) -> None:
    with pytest.raises(TypeError) as info:
        surefoot.wrap(thing)
    message = str(info.value)
    assert "openai.OpenAI()" in message
    assert "anthropic" in message and "groq" in message
    assert "surefoot.sdk.transport()" in message
