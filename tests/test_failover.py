"""Failover that rescues the hard cases, against the fault server: a silent provider, a slow
first token, a stream cut or stalled after 40 of 60 tokens on a server without event ids, a
malformed chunk, a stream without ``[DONE]``, a flapping primary, a persistent 429 or 503, and
a context too long for the only model. Streamed and not, sync and async: the caller gets the
whole answer from some model (or the right typed error) within the deadline, and the requests
the server saw are asserted. Waits run on the fake clock; a silent server takes real time,
bounded by the client's silence limits (never asserted as a duration).
"""

from __future__ import annotations

from typing import Any

import pytest

import surefoot
from surefoot.errors import LLMError
from surefoot.llm import ModelSpec
from surefoot.testing.faults import (
    FaultServer,
    Hang,
    Latency,
    MalformedChunk,
    Match,
    Model,
    NoDone,
    Rule,
    SlowFirstToken,
    Status,
    Truncate,
)
from test_client_helpers import Harness, text_of

MODES = ["sync", "async"]
STYLES = ["openai", "anthropic"]
WORDS = " ".join(f"w{i}" for i in range(60))  # 60 tokens, one event each
CHAIN = ["primary", "backup"]

modes = pytest.mark.parametrize("mode", MODES)
styles = pytest.mark.parametrize("style", STYLES)
streamed = pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])


def _server(rules: list[Rule], **kw: Any) -> FaultServer:
    return FaultServer(models=[Model("*", reply=WORDS)], rules=rules, event_ids=False, **kw)


def _on_primary(fault: Any, **match: Any) -> Rule:
    return Rule(fault=fault, match=Match(model="primary", **match))


def _ask(h: Harness, stream: bool) -> tuple[str, Any, list[Any]]:
    """(the text as a consumer shows it, the result, the stream's events)."""
    if not stream:
        r = h.run("hi")
        return r.text, r, []
    events, exc = h.stream("hi")
    if exc is not None:
        raise exc
    return text_of(events), events[-1].result, events


def _by_model(srv: FaultServer) -> list[str | None]:
    return [r.model for r in srv.requests]


# -- a silent provider, a slow first token --------------------------------------------------


@modes
@streamed
def test_a_silent_primary_fails_over_at_once(mode: str, stream: bool) -> None:
    """Accepts the connection, never answers: one attempt on it (its silence bounded by half
    the time left), then the backup answers, well within the deadline."""
    with _server([_on_primary(Hang())]) as srv:
        h = Harness(mode, srv, "openai", model=CHAIN, timeout=3.0, retries=2)
        text, result, _ = _ask(h, stream)
        assert text == WORDS and result.model == "backup"
        assert _by_model(srv) == ["primary", "backup"]
        (first, *_rest) = result.attempts
        assert first.model == "primary" and first.kind == "timeout"
        assert first.outcome == "fallback" and first.decision.why is surefoot.Why.FAILOVER


@modes
@streamed
def test_first_token_timeout_moves_a_slow_model_on(mode: str, stream: bool) -> None:
    """No deadline at all: ``first_token_timeout`` bounds the wait for the first delta (a
    stream that pings, or a plain answer that is late, waiting before its headers)."""
    slow = SlowFirstToken(seconds=30, ping_every=0.05) if stream else Latency(seconds=30)
    with _server([_on_primary(slow)]) as srv:
        h = Harness(mode, srv, "openai", model=CHAIN, first_token_timeout=0.4, read_timeout=0.4)
        text, result, _ = _ask(h, stream)
        assert text == WORDS and result.model == "backup"
        assert _by_model(srv) == ["primary", "backup"]
        assert result.attempts[0].kind == "timeout"


@modes
def test_a_slow_first_token_is_a_typed_silent_timeout(mode: str) -> None:
    with _server([_on_primary(SlowFirstToken(seconds=30, ping_every=0.05))]) as srv:
        h = Harness(mode, srv, "openai", model="primary", first_token_timeout=0.3, retries=0)
        _events, exc = h.stream("hi")
        assert isinstance(exc, surefoot.TimeoutError) and exc.retryable
        assert exc.context.metadata["silent"] == "first token"
        assert "no first token" in str(exc) and "0.3 s" in str(exc)


# -- cut and stalled streams without ids ------------------------------------------------------


@modes
@styles
@streamed
def test_a_cut_answer_is_rescued_by_the_backup(mode: str, style: str, stream: bool) -> None:
    """Cut after 40 of 60 events on every try of the primary, on a server without event ids:
    the answer starts over (announced by a restart event), then on the backup, whole."""
    with _server([_on_primary(Truncate(after_events=40))]) as srv:
        h = Harness(mode, srv, style, model=CHAIN, retry_base=0.01)
        text, result, events = _ask(h, stream)
        assert text == WORDS and result.model == "backup"
        assert _by_model(srv) == ["primary", "primary", "backup"]  # failover_attempts=2
        first = "restart" if stream else "retry"
        assert [a.outcome for a in result.attempts] == [first, "fallback", "ok"]
        if stream:
            restarts = [e for e in events if e.type == "restart"]
            assert [r.model for r in restarts] == ["primary", "backup"]
            assert all(r.discarded and WORDS.startswith(r.discarded) for r in restarts)
            # Nothing of a cut answer is ever shown after its restart: the text reads once.
            assert text.count("w0 ") == 1
            if style == "anthropic":  # message_start reported the prompt of each cut answer
                assert result.failed_usage.input_tokens == 2 * result.usage.input_tokens
        assert result.usage.output_tokens == 60


@modes
@streamed
def test_a_stalled_answer_is_rescued_by_the_backup(mode: str, stream: bool) -> None:
    """Stalled after 40 events with the connection open (streamed), or never answering (not
    streamed): ``idle_timeout`` (or half the deadline) ends the wait; the backup answers."""
    fault = Hang(after_events=40) if stream else Hang()
    with _server([_on_primary(fault)]) as srv:
        h = Harness(mode, srv, "openai", model=CHAIN, idle_timeout=0.3, timeout=3.0)
        text, result, events = _ask(h, stream)
        assert text == WORDS and result.model == "backup"
        assert _by_model(srv) == ["primary", "backup"]  # silence: the next model at once
        if stream:
            assert [e.type for e in events].count("restart") == 1
            assert result.attempts[0].kind == "timeout"


@modes
def test_buffered_streams_never_show_a_cut_answer(mode: str) -> None:
    with _server([_on_primary(Truncate(after_events=40))]) as srv:
        h = Harness(mode, srv, "openai", model=CHAIN, retry_base=0.01, stream_rescue="buffer")
        text, result, events = _ask(h, True)
        assert text == WORDS and result.model == "backup"
        assert "restart" not in [e.type for e in events]
        assert "".join(e.text for e in events if e.type == "text") == WORDS


@modes
def test_rescue_off_keeps_the_old_rule(mode: str) -> None:
    with _server([_on_primary(Truncate(after_events=40))]) as srv:
        h = Harness(mode, srv, "openai", model=CHAIN, stream_rescue="off")
        events, exc = h.stream("hi")
        assert isinstance(exc, surefoot.ConnectionFailedError)
        assert _by_model(srv) == ["primary"]
        shown = "".join(e.text for e in events if e.type == "text")
        assert WORDS.startswith(shown) and shown.count(" ") == 38  # the 39 deltas before the cut


# -- tolerant parsing ---------------------------------------------------------------------------


@modes
@styles
def test_a_malformed_chunk_is_skipped(mode: str, style: str, caplog: Any) -> None:
    with _server([_on_primary(MalformedChunk(after_events=5, count=2))]) as srv:
        h = Harness(mode, srv, style, model="primary")
        text, _result, _ = _ask(h, True)
        assert text == WORDS and len(srv.requests) == 1
    skipped = [r for r in caplog.records if getattr(r, "surefoot_event", "") == "bad_chunk"]
    assert len(skipped) == 2


@modes
def test_too_many_malformed_chunks_fail_the_attempt(mode: str) -> None:
    with _server([_on_primary(MalformedChunk(after_events=5, count=4), times=1)]) as srv:
        h = Harness(mode, srv, "openai", model="primary", retry_base=0.01)
        text, _result, events = _ask(h, True)  # max_bad_chunks=3: restarted, then whole
        assert text == WORDS and len(srv.requests) == 2
        assert [e.type for e in events].count("restart") == 1


@modes
def test_a_plain_body_that_is_not_json_is_retried(mode: str) -> None:
    with _server([_on_primary(MalformedChunk(), times=1)]) as srv:
        h = Harness(mode, srv, "openai", model="primary", retry_base=0.01)
        text, _result, _ = _ask(h, False)
        assert text == WORDS and len(srv.requests) == 2


@modes
@styles
@streamed
def test_a_stream_without_its_terminator_is_complete(mode: str, style: str, stream: bool) -> None:
    """``finish_reason``/``stop_reason`` and usage, then the end of the body without ``[DONE]``
    or ``message_stop``: a whole answer, with its usage, in one request."""
    with _server([_on_primary(NoDone())]) as srv:
        h = Harness(mode, srv, style, model="primary")
        text, result, _ = _ask(h, stream)
        assert text == WORDS and len(srv.requests) == 1
        assert result.usage.output_tokens == 60 and result.usage.input_tokens > 0


# -- a flapping primary, persistent 429s and 503s -------------------------------------------


@modes
@streamed
def test_a_flapping_primary_opens_its_own_breaker_and_gets_traffic_back(
    mode: str, stream: bool
) -> None:
    """Down for its first second, then healthy. One breaker given: the primary's own (the
    backup gets its own copy), so the backup's successes never hide the outage; a probe
    returns traffic to the primary once it recovers."""
    import time

    harness_clock: Any = None
    with _server([_on_primary(Status(503), end=1.0)]) as srv:
        h = Harness(mode, srv, "openai", model=CHAIN, retry_base=0.01)
        harness_clock = h.clock
        breaker = surefoot.CircuitBreaker(
            "primary", failure_threshold=2, recovery_timeout=5.0, clock=harness_clock
        )
        h.options["breaker"] = breaker
        models = [_ask(h, stream)[1].model for _ in range(3)]
        assert models == ["backup", "backup", "backup"]
        # An overload fails over at once; after two, the primary's breaker is open: the
        # third call goes straight to the backup.
        assert _by_model(srv) == ["primary", "backup", "primary", "backup", "backup"]
        assert breaker.state is surefoot.BreakerState.OPEN
        backup_breaker = breaker.for_key(f"127.0.0.1:{srv.port}/backup")
        assert backup_breaker.state is surefoot.BreakerState.CLOSED
        while srv.uptime < 1.05:  # the primary recovers
            time.sleep(0.05)
        harness_clock.offset += 5.0  # the recovery timeout passes
        models = [_ask(h, stream)[1].model for _ in range(2)]
        assert models == ["primary", "primary"]
        assert breaker.state is surefoot.BreakerState.CLOSED
    assert harness_clock.slept == []  # an overload is never waited for with a backup there


@modes
@streamed
def test_a_persistent_429_with_a_long_hint_fails_over_at_once(mode: str, stream: bool) -> None:
    with _server([_on_primary(Status(429, retry_after=20))]) as srv:
        h = Harness(mode, srv, "openai", model=CHAIN)
        text, result, _ = _ask(h, stream)
        assert text == WORDS and result.model == "backup"
        assert _by_model(srv) == ["primary", "backup"]
        assert h.clock.slept == []  # a 20 s hint is over failover_wait: no wait at all


@modes
@streamed
def test_a_persistent_500_costs_two_attempts_and_one_short_wait(mode: str, stream: bool) -> None:
    with _server([_on_primary(Status(500))]) as srv:
        h = Harness(mode, srv, "openai", model=CHAIN)
        text, result, _ = _ask(h, stream)
        assert text == WORDS and result.model == "backup"
        assert _by_model(srv) == ["primary", "primary", "backup"]
        assert len(h.clock.slept) == 1 and h.clock.slept[0] <= 2.0  # vs 21-33 s before


@modes
@streamed
def test_a_persistent_overload_fails_over_without_waiting(mode: str, stream: bool) -> None:
    with _server([_on_primary(Status(529))]) as srv:
        h = Harness(mode, srv, "anthropic", model=CHAIN)
        text, result, _ = _ask(h, stream)
        assert text == WORDS and result.model == "backup"
        assert _by_model(srv) == ["primary", "backup"]
        assert h.clock.slept == []  # its 5 s suggested wait is over failover_wait


@modes
def test_no_model_can_serve_a_bad_key(mode: str) -> None:
    with _server([Rule(fault=Status(401))]) as srv:
        h = Harness(mode, srv, "openai", model=CHAIN)
        with pytest.raises(LLMError) as ei:
            h.run("hi")
        assert ei.value.kind == "auth_failed"
        assert _by_model(srv) == ["primary"]  # the backup has the same key: not tried


@modes
def test_a_quota_on_one_model_moves_to_the_next(mode: str) -> None:
    with _server([_on_primary(Status(429, error="insufficient_quota"))]) as srv:
        h = Harness(mode, srv, "openai", model=CHAIN)
        assert h.run("hi").model == "backup"
        assert _by_model(srv) == ["primary", "backup"]


# -- the context window -----------------------------------------------------------------------


@modes
@styles
@streamed
def test_one_model_gives_its_own_context_length_error(mode: str, style: str, stream: bool) -> None:
    with FaultServer(models=[Model("m1", reply="ok", context_window=3)]) as srv:
        h = Harness(mode, srv, style, model="m1")
        with pytest.raises(LLMError) as ei:
            if stream:
                _events, exc = h.stream("a prompt far longer than three tokens")
                assert exc is not None
                raise exc
            h.run("a prompt far longer than three tokens")
        err = ei.value
        assert err.kind == "context_too_long" and err.code == "CONTEXT_TOO_LONG"
        assert err.context.http_status == 400 and not err.retryable
        assert len(srv.requests) == 1


@modes
def test_a_chain_still_skips_to_a_larger_window(mode: str) -> None:
    models = [Model("small", reply="ok", context_window=3), Model("large", reply="big")]
    with FaultServer(models=models) as srv:
        h = Harness(mode, srv, "openai", model=[ModelSpec("small"), ModelSpec("large")])
        assert h.run("a prompt far longer than three tokens").text == "big"


# -- assistant prefill, and attempts that cannot answer in time -----------------------------


@modes
@pytest.mark.parametrize("accepts", [True, False], ids=["continues", "rejected"])
def test_a_prefill_model_continues_a_cut_answer(mode: str, accepts: bool) -> None:
    """``ModelSpec(prefill=True)``: the cut answer continues from its text (no restart); a
    model that rejects the prefilled request starts over, and the cut stays on record."""
    models = [Model("*", reply=WORDS, prefill=accepts)]
    with FaultServer(models=models, event_ids=False) as srv:
        srv.enqueue(Truncate(after_events=20))
        spec = ModelSpec("primary", prefill=True)
        h = Harness(mode, srv, "anthropic", model=spec, retry_base=0.01)
        events, exc = h.stream("hi")
        assert exc is None
        result = events[-1].result
        assert result.text == WORDS and text_of(events) == WORDS
        sent = [r.json["messages"][-1] for r in srv.requests]
        assert sent[0]["role"] == "user" and sent[1]["role"] == "assistant"
        assert WORDS.startswith(sent[1]["content"]) and sent[1]["content"]
        restarts = [e for e in events if e.type == "restart"]
        assert result.attempts[0].kind == "network"  # the cut, whatever came after
        if accepts:
            assert restarts == [] and len(srv.requests) == 2
            assert "".join(e.text for e in events if e.type == "text") == WORDS
            assert result.attempts[0].outcome == "continue"
        else:
            assert [r.status for r in srv.requests] == [200, 400, 200]
            assert len(restarts) == 1 and WORDS.startswith(restarts[0].discarded)


@modes
def test_an_attempt_that_cannot_answer_before_the_deadline_is_not_started(mode: str) -> None:
    with _server([Rule(fault=Hang())]) as srv:
        h = Harness(
            mode,
            srv,
            "openai",
            model="only",
            timeout=1.0,
            read_timeout=0.4,
            retries=5,
            retry_base=0.01,
            max_delay=0.01,
        )
        with pytest.raises(surefoot.RunTimeoutError):
            h.run("hi")
        # 0.4 s of silence each: the third would end past the deadline, and is never sent.
        assert len(srv.requests) == 2
