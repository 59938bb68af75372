"""run(): retries, fallbacks, breaker, budget, hooks, secrets — against a real loopback server,
in both wire formats, through the sync and the async client."""

from __future__ import annotations

import json
from typing import Any

import pytest

import surefoot
from surefoot import CircuitBreaker, RetryBudget
from surefoot.errors import CircuitOpenError, LLMError, RateLimitError
from surefoot.guard import AttemptRecord, GuardHooks
from surefoot.llm import ModelAttempt, ModelSpec
from surefoot.policy import Tier
from surefoot.testing.faults import (
    ErrorIn200,
    FaultServer,
    Hang,
    HugeBody,
    Match,
    Model,
    Reset,
    Rule,
    Status,
)
from test_client_helpers import API_KEY, MODES, STYLES, FakeClock, Harness, server  # noqa: F401

both = pytest.mark.parametrize("style", STYLES)
modes = pytest.mark.parametrize("mode", MODES)


@modes
@both
def test_basic_run(mode: str, style: str) -> None:
    with FaultServer(models=[Model("m1", reply="hello there")]) as srv:
        r = Harness(mode, srv, style).run("hi", task_id="t-1")
        assert r.text == "hello there"
        assert r.status == "completed"
        assert r.model == "m1" and r.task_id == "t-1"
        assert r.usage.output_tokens == 2
        assert [m.role for m in r.messages] == ["user", "assistant"]
        (req,) = srv.requests
        assert req.idempotency_key
        assert API_KEY not in json.dumps(dict(req.headers))


@modes
@both
def test_retry_then_success_same_idempotency_key(mode: str, style: str) -> None:
    seen: list[Any] = []

    class Hooks:
        def on_attempt(self, rec: Any) -> None:
            seen.append(rec)

    with FaultServer(models=[Model("m1", reply="ok")]) as srv:
        srv.enqueue(Status(500), times=2)
        h = Harness(mode, srv, style, hooks=Hooks())
        r = h.run("hi")
        assert r.text == "ok"
        assert [a.outcome for a in r.attempts] == ["retry", "retry", "ok"]
        assert [a.model for a in r.attempts] == ["m1"] * 3
        assert r.attempts[0].code == "SERVER_ERROR" and r.attempts[0].status == 500
        assert len(seen) == 3
        keys = {req.idempotency_key for req in srv.requests}
        assert len(keys) == 1 and [req.attempt for req in srv.requests] == [1, 2, 3]
        assert len(h.clock.slept) == 2  # waited on the injected clock only
        for a in r.attempts:
            assert API_KEY not in repr(a)


@modes
@both
def test_retry_after_is_honoured(mode: str, style: str) -> None:
    with FaultServer(models=[Model("m1", reply="ok")]) as srv:
        srv.enqueue(Status(429, retry_after=3))
        h = Harness(mode, srv, style)
        r = h.run("hi")
        assert r.attempts[0].code == "RATE_LIMIT_EXCEEDED"
        assert r.attempts[0].wait == 3
        assert h.clock.slept == [3]


@modes
@both
def test_one_model_surfaces_its_own_final_error(mode: str, style: str) -> None:
    """A chain of one model: the model's own final error, so `except RateLimitError` fires."""
    with FaultServer(models=[Model("m1", reply="ok")]) as srv:
        srv.enqueue(Status(503), times=10)
        with pytest.raises(LLMError) as ei:
            Harness(mode, srv, style, retries=2).run("hi", task_id="t-503")
        err = ei.value
        assert err.code != "LLM_PROVIDERS_UNAVAILABLE" and err.retryable
        assert err.kind in ("server_error", "model_overloaded")
        assert err.context.http_status == 503 and err.context.task_id == "t-503"
        assert err.context.attempt == 2
        assert len(srv.requests) == 3
    with FaultServer(models=[Model("m1", reply="ok")]) as srv:
        srv.enqueue(Status(429, retry_after=1), times=10)
        with pytest.raises(RateLimitError) as ri:
            Harness(mode, srv, style, retries=1).run("hi")
        assert ri.value.code == "RATE_LIMIT_EXCEEDED" and ri.value.retry_after == 1
        assert len(srv.requests) == 2


@modes
@both
def test_several_models_exhausted_raise_providers_unavailable(mode: str, style: str) -> None:
    rules = [  # a 500 is retried within failover_attempts (a 503's 5 s wait is not)
        Rule(fault=Status(500), match=Match(model="a")),
        Rule(fault=Status(429, retry_after=1), match=Match(model="b")),
    ]
    with FaultServer(models=[Model("*", reply="ok")], rules=rules) as srv:
        with pytest.raises(LLMError) as ei:
            Harness(mode, srv, style, model=["a", "b"], retries=1).run("hi")
        err = ei.value
        assert err.code == "LLM_PROVIDERS_UNAVAILABLE" and err.retryable
        assert isinstance(err.__cause__, RateLimitError)  # the last failure
        assert err.__cause__.context.http_status == 429
        causes = err.context.metadata["causes"]
        assert [c["model"] for c in causes] == ["a", "b"]
        assert causes[0]["kind"] in ("server_error", "model_overloaded")
        assert causes[1] == {
            "model": "b",
            "error_code": "SUREFOOT-RATELIMIT",
            "code": "RATE_LIMIT_EXCEEDED",
            "kind": "rate_limit",
        }
        assert len(srv.requests) == 4


@modes
@both
def test_fallback_to_next_model(mode: str, style: str) -> None:
    rules = [Rule(fault=Status(500), match=Match(model="a"))]
    with FaultServer(models=[Model("*", reply="from b")], rules=rules) as srv:
        r = Harness(mode, srv, style, model=["a", "b"], retries=1).run("hi")
        assert r.text == "from b" and r.model == "b"
        assert [(a.model, a.outcome) for a in r.attempts] == [
            ("a", "retry"),
            ("a", "fallback"),
            ("b", "ok"),
        ]
        assert [req.model for req in srv.requests] == ["a", "a", "b"]


@modes
@both
def test_on_error_fail_stops_at_once(mode: str, style: str) -> None:
    infos: list[Any] = []

    def on_error(info: Any) -> Tier:
        infos.append(info)
        return Tier.FAIL

    with FaultServer(models=[Model("m1", reply="ok")]) as srv:
        srv.enqueue(Status(500), times=5)
        with pytest.raises(LLMError) as ei:
            Harness(mode, srv, style, retries=5, on_error=on_error).run("hi")
        assert ei.value.code == "SERVER_ERROR"
        assert len(srv.requests) == 1
        assert infos[0].status == 500 and infos[0].attempt == 0 and infos[0].retryable


@modes
@both
def test_on_error_retry_a_status_the_default_fails(mode: str, style: str) -> None:
    def on_error(info: Any) -> Tier:
        return Tier.RETRY if info.status == 402 else Tier.FAIL

    with FaultServer(models=[Model("m1", reply="topped up")]) as srv:
        srv.enqueue(Status(402))
        r = Harness(mode, srv, style, on_error=on_error).run("hi")
        assert r.text == "topped up" and len(srv.requests) == 2


@modes
@both
def test_auth_error_not_retried_and_key_never_shown(mode: str, style: str) -> None:
    with FaultServer(models=[Model("m1", reply="ok")]) as srv:
        srv.enqueue(Status(401))
        h = Harness(mode, srv, style)
        with pytest.raises(surefoot.SurefootError) as ei:
            h.run("hi")
        err = ei.value
        assert err.kind == "auth_failed" and not err.retryable
        assert len(srv.requests) == 1
        for text in (str(err), repr(err), repr(h.client()), repr(err.context)):
            assert API_KEY not in text
        assert "base_url" in repr(h.client()) and "m1" in repr(h.client())


@modes
@both
def test_reset_is_retried(mode: str, style: str) -> None:
    with FaultServer(models=[Model("m1", reply="ok")]) as srv:
        srv.enqueue(Reset())
        r = Harness(mode, srv, style).run("hi")
        assert r.text == "ok"
        assert r.attempts[0].kind == "network"


@modes
@both
def test_error_inside_200_is_classified_and_retried(mode: str, style: str) -> None:
    with FaultServer(models=[Model("m1", reply="ok")]) as srv:
        srv.enqueue(ErrorIn200(error="server"))
        r = Harness(mode, srv, style).run("hi")
        assert r.text == "ok"
        assert r.attempts[0].outcome == "retry"


@modes
@both
def test_huge_body_is_a_typed_error(mode: str, style: str) -> None:
    with FaultServer(models=[Model("m1", reply="ok")]) as srv:
        srv.enqueue(HugeBody(megabytes=2))
        with pytest.raises(LLMError) as ei:
            Harness(mode, srv, style, max_body=64 * 1024).run("hi")
        assert ei.value.code == "REQUEST_BODY_TOO_LARGE"
        assert len(srv.requests) == 1


@modes
@both
def test_context_too_small_sends_nothing(mode: str, style: str) -> None:
    with FaultServer(models=[Model("m1", reply="ok")]) as srv:
        models = [ModelSpec("small", context_window=10), ModelSpec("medium", context_window=20)]
        with pytest.raises(LLMError) as ei:
            Harness(mode, srv, style, model=models).run("word " * 200)
        # The same type as the provider's own context-too-long answer.
        assert ei.value.error_type is surefoot.LLMErrorType.CONTEXT_TOO_LONG
        assert ei.value.kind == "context_too_long" and not ei.value.retryable
        assert ei.value.code == "LLM_CONFIG_CONTEXT_TOO_SMALL"
        assert not isinstance(ei.value, surefoot.ConfigurationError)
        assert srv.requests == []


@modes
@both
def test_estimate_skips_small_model(mode: str, style: str) -> None:
    with FaultServer(models=[Model("*", reply="big one")]) as srv:
        models = [ModelSpec("small", context_window=10), ModelSpec("big", context_window=10_000)]
        r = Harness(mode, srv, style, model=models).run("word " * 200)
        assert r.model == "big" and [q.model for q in srv.requests] == ["big"]


@modes
@both
def test_context_too_long_moves_to_larger_model(mode: str, style: str) -> None:
    server_models = [Model("small", reply="s", context_window=5), Model("big", reply="b")]
    with FaultServer(models=server_models) as srv:
        models = ["small", ModelSpec("big", context_window=100_000)]
        r = Harness(mode, srv, style, model=models).run("one two three four five six seven")
        assert r.text == "b"
        assert next((a.model, a.outcome, a.kind) for a in r.attempts) == (
            "small",
            "fallback",
            "context_too_long",
        )


@modes
@both
def test_breaker_open_moves_to_next_model(mode: str, style: str) -> None:
    breaker_a = CircuitBreaker("a", failure_threshold=1)
    with breaker_a.acquire() as permit:
        permit.failure(RateLimitError("x"))  # a counted failure: the circuit opens
    with FaultServer(models=[Model("*", reply="from b")]) as srv:
        h = Harness(mode, srv, style, model=["a", "b"], breaker={"a": breaker_a})
        r = h.run("hi")
        assert r.model == "b"
        assert r.attempts[0].error_code == "SUREFOOT-CIRCUITOPEN"
        assert [q.model for q in srv.requests] == ["b"]


@modes
def test_breaker_counts_failures_then_rejects(mode: str) -> None:
    breaker = CircuitBreaker("all", failure_threshold=2)
    with FaultServer(models=[Model("m1", reply="ok")]) as srv:
        srv.enqueue(Status(503), times=10)
        with pytest.raises(CircuitOpenError) as ei:  # one model: its breaker's own error
            Harness(mode, srv, "openai", retries=5, breaker=breaker).run("hi", task_id="b")
        assert ei.value.context.task_id == "b" and ei.value.context.attempt == 2
        assert len(srv.requests) == 2


@modes
@both
def test_breaker_state_changes_reach_the_hooks(mode: str, style: str) -> None:
    changes: list[tuple[str, str, str]] = []

    class Hooks:
        def on_breaker_state_change(self, name: str, old: Any, new: Any) -> None:
            changes.append((name, old.value, new.value))

    clock = FakeClock()
    breaker = CircuitBreaker("llm", failure_threshold=1, recovery_timeout=10, clock=clock)
    with FaultServer(models=[Model("m1", reply="ok")]) as srv:
        srv.enqueue(Status(503))
        h = Harness(mode, srv, style, retries=0, breaker=breaker, hooks=Hooks(), clock=clock)
        with pytest.raises(LLMError):
            h.run("hi")
        assert changes == [("llm", "closed", "open")]
        with pytest.raises(CircuitOpenError):  # open: rejected without a request
            h.run("hi")
        assert len(srv.requests) == 1
        clock.sleep(10)
        assert h.run("hi").text == "ok"  # the probe
    assert changes == [
        ("llm", "closed", "open"),
        ("llm", "open", "half_open"),
        ("llm", "half_open", "closed"),
    ]


@modes
def test_abandoned_probe_is_released(mode: str) -> None:
    """A probe cut off by the deadline reports nothing: the next call may probe at once."""
    clock = FakeClock()
    breaker = CircuitBreaker("p", failure_threshold=1, recovery_timeout=5, clock=clock)
    with breaker.acquire() as permit:
        permit.failure(RateLimitError("x"))
    clock.sleep(5)
    with FaultServer(models=[Model("m1", reply="ok")]) as srv:
        srv.enqueue(Hang())
        h = Harness(mode, srv, "openai", breaker=breaker, clock=clock)
        with pytest.raises(surefoot.RunTimeoutError):
            h.run("hi", timeout=0.3)
        assert h.run("hi").text == "ok"
    assert breaker.state.value == "closed"


@modes
@both
def test_attempts_are_attempt_records_with_the_model(mode: str, style: str) -> None:
    seen: list[Any] = []
    hooks = GuardHooks(on_attempt=seen.append)  # the guard's hooks type works as is
    with FaultServer(models=[Model("*", reply="ok")]) as srv:
        srv.add_rule(Rule(Status(500), Match(model="a")))
        r = Harness(mode, srv, style, model=["a", "b"], retries=1, hooks=hooks).run("hi")
        assert [(a.model, a.outcome) for a in r.attempts] == [
            ("a", "retry"),
            ("a", "fallback"),
            ("b", "ok"),
        ]
        for a in r.attempts:
            assert isinstance(a, AttemptRecord) and isinstance(a, ModelAttempt)
            assert a.record is a  # the old wrapper's accessor still answers
        assert r.attempts[0].status == 500 and r.attempts[0].code == "SERVER_ERROR"
        assert r.attempts[-1].ok and r.attempts[-1].error_code is None
        assert seen == r.attempts


@modes
@both
def test_budget_spent_by_retries(mode: str, style: str) -> None:
    budget = RetryBudget(capacity=1, retry_cost=1, success_refill=0)
    with FaultServer(models=[Model("m1", reply="ok")]) as srv:
        srv.enqueue(Status(500), times=10)
        with pytest.raises(LLMError) as ei:
            Harness(mode, srv, style, retries=5, budget=budget).run("hi")
        assert ei.value.code == "SERVER_ERROR"  # the original error: the budget said no
        assert len(srv.requests) == 2
        assert budget.tokens(f"{style}:m1") == 0
