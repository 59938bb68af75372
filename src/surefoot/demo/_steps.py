"""The scenario's steps: what each one injects, calls, and expects.

Each :class:`Step` has a body that runs its calls through the client and returns its
:class:`~surefoot.demo._records.Check` list: explicit expectations against what happened (the
client's attempt records, the fault server's request log, the text received). ``params`` are
the step's knobs (how many faults, how long a Retry-After); the expectations are fixed, so a
changed knob that makes the client behave differently fails the step.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field

from surefoot.demo._env import StepEnv
from surefoot.demo._records import Check
from surefoot.demo._scenario import (
    AGENT,
    AGENT_PROMPT,
    ANSWER,
    LARGE,
    LARGE_WINDOW,
    LONG_PROMPT,
    SMALL,
    STORY,
    SUMMARY,
    WRITER,
    WRITER_BACKUP,
    WRITER_PRIMARY,
    WRITER_PROMPT,
)
from surefoot.errors import CircuitOpenError, LLMError, RunTimeoutError
from surefoot.guard import CircuitBreaker
from surefoot.llm import ModelSpec
from surefoot.policy import BreakerState
from surefoot.testing.faults import (
    Hang,
    Match,
    RecordedRequest,
    Rule,
    Status,
    StreamError,
    Truncate,
)

__all__ = ["STEPS", "Step"]

Body = Callable[[StepEnv, Mapping[str, float]], Awaitable[list[Check]]]
#: Slack allowed between a wait the client decided and the gap the server saw.
_SLACK = 0.02
#: The decisions of a backoff wait (the growing backoff, from the error's own delay or not).
_BACKOFF = ("BACKOFF", "SUGGESTED")


@dataclass(frozen=True)
class Step:
    """One step: ``title`` for the timeline, ``story`` in one sentence, its ``body``.

    ``needs_server``: the step injects faults, so it is skipped against a real endpoint.
    """

    key: str
    title: str
    story: str
    body: Body
    params: Mapping[str, float] = field(default_factory=dict)
    needs_server: bool = True


def _one_key(reqs: Sequence[RecordedRequest]) -> bool:
    """True when ``reqs`` all carry the same idempotency key (one logical request)."""
    keys = {r.idempotency_key for r in reqs}
    return len(keys) == 1 and None not in keys


async def _tools(env: StepEnv, p: Mapping[str, float]) -> list[Check]:
    async with env.client(env.model(AGENT)) as client:
        env.call()
        result = await client.run(AGENT_PROMPT, tools=env.tools())
    if not env.scripted:
        return [
            Check("the run completes with an answer", bool(result.text.strip()), result.text[:80]),
            Check(
                "every attempt is recorded",
                bool(result.attempts),
                f"{len(result.attempts)} attempt(s), {result.turns} turn(s)",
            ),
        ]
    called = sorted(env.tool_calls)
    return [
        Check(
            "the agent calls get_weather and get_flights, once each",
            called == ["get_flights", "get_weather"],
            ", ".join(called) or "no tool call",
        ),
        Check(
            "two model turns, no retry",
            result.turns == 2 and not env.rows("retry", "reconnect", "fail"),
            f"{result.turns} turns, {len(env.rows())} attempts",
        ),
        Check("the answer is the scripted one", result.text == ANSWER, result.text[:60] + "..."),
    ]


async def _rate_limit(env: StepEnv, p: Mapping[str, float]) -> list[Check]:
    assert env.server is not None
    hint = p["retry_after"]
    env.server.enqueue(Status(429, retry_after=hint), times=int(p["hits"]))
    async with env.client(AGENT) as client:
        env.call()
        result = await client.run(AGENT_PROMPT, tools=env.tools())
    retries = env.rows("retry")
    reqs = env.requests()
    gap = reqs[1].timestamp - reqs[0].timestamp if len(reqs) > 1 else 0.0
    return [
        Check("exactly one retry", len(retries) == 1, f"{len(retries)} retries"),
        Check(
            f"the wait equals Retry-After ({hint:g} s)",
            bool(retries) and all(r.wait == hint and r.why == "HINT" for r in retries),
            ", ".join(f"{r.wait:g} s ({r.reason})" for r in retries) or "no wait",
        ),
        Check(
            f"the retry reaches the server {hint:g} s later, not sooner",
            gap >= hint - _SLACK,
            f"{gap:.3f} s between the 429 and the retry",
        ),
        Check(
            "the retry reuses the idempotency key",
            _one_key(reqs[:2]),
            f"{len({r.idempotency_key for r in reqs[:2]})} key(s) on the first 2 requests",
        ),
        Check("the task completes as scripted", result.text == ANSWER, f"{result.turns} turns"),
    ]


async def _burst(env: StepEnv, p: Mapping[str, float]) -> list[Check]:
    assert env.server is not None
    burst = int(p["burst"])
    cap = p["max_delay"]
    env.server.enqueue(Status(503, error="server"), times=burst)
    async with env.client(AGENT, retries=3, max_delay=cap) as client:
        env.call()
        result = await client.run(AGENT_PROMPT, tools=env.tools())
    retries = env.rows("retry")
    reqs = env.requests()[: burst + 1]
    gaps = [b.timestamp - a.timestamp for a, b in itertools.pairwise(reqs)]
    waits = [r.wait for r in retries]
    return [
        Check(f"{burst} retries, then success", len(retries) == burst, f"{len(retries)} retries"),
        Check(
            f"each wait is the retry policy's (backoff, or the error's own floor), at most "
            f"max_delay={cap:g} s",
            bool(retries) and all(r.why in _BACKOFF and 0 < r.wait <= cap for r in retries),
            ", ".join(f"{r.wait:.2f} s ({r.reason})" for r in retries) or "no wait",
        ),
        Check(
            "the server sees each retry only after its wait",
            len(gaps) == len(waits)
            and all(g >= w - _SLACK for g, w in zip(gaps, waits, strict=False)),
            ", ".join(f"{g:.2f} s" for g in gaps) or "no gap",
        ),
        Check(
            "one idempotency key for the burst and its retries",
            _one_key(reqs),
            f"{len({r.idempotency_key for r in reqs})} key(s) on {len(reqs)} requests",
        ),
        Check("the task completes as scripted", result.text == ANSWER, f"{result.turns} turns"),
    ]


async def _stream(env: StepEnv, p: Mapping[str, float]) -> list[Check]:
    assert env.server is not None
    after = int(p["after_deltas"])
    env.server.enqueue(StreamError(after_deltas=after, error="overloaded"))
    parts: list[str] = []
    final = ""
    async with env.client(WRITER) as client:
        env.call()
        async for event in client.stream(WRITER_PROMPT):
            if event.type == "text":
                parts.append(event.text)
            elif event.type == "result":
                final = event.result.text
    text = "".join(parts)
    reqs = env.requests()
    resumed = [r.last_event_id for r in reqs if r.last_event_id]
    reconnects = env.rows("reconnect")
    same = len(reqs) == 2 and reqs[0].body == reqs[1].body and _one_key(reqs)
    return [
        Check(
            f"an overload error event after {after} deltas, resumed once with Last-Event-ID",
            len(reconnects) == 1
            and reconnects[0].kind == "model_overloaded"
            and len(resumed) == 1
            and reqs[-1].last_event_id == resumed[0],
            f"reconnects: {len(reconnects)} "
            f"({', '.join(r.code or '-' for r in reconnects) or 'none'}), "
            f"Last-Event-ID sent: {resumed}",
        ),
        Check(
            "the assembled text equals the scripted text exactly (nothing lost or repeated)",
            text == STORY,
            f"{len(parts)} deltas, {len(text)} of {len(STORY)} characters",
        ),
        Check("the result's text equals the streamed text", final == text, f"{len(final)} chars"),
        Check("the resumed request is the same request (body and key)", same, f"{len(reqs)} req"),
    ]


async def _cut(env: StepEnv, p: Mapping[str, float]) -> list[Check]:
    assert env.server is not None
    after = int(p["after_events"])
    env.server.add_rule(Rule(Truncate(after_events=after), Match(model=WRITER_PRIMARY)))
    shown: list[str] = []  # what a consumer shows: a restart event clears it
    restarts = 0
    final = model = ""
    async with env.client([WRITER_PRIMARY, WRITER_BACKUP]) as client:
        env.call()
        async for event in client.stream(WRITER_PROMPT):
            if event.type == "restart":
                restarts += 1
                shown = []
                env.mark("note", f"restart: {event.model} starts the answer over")
            elif event.type == "text":
                shown.append(event.text)
            elif event.type == "result":
                final, model = event.result.text, event.result.model or ""
    text = "".join(shown)
    reqs = env.requests()
    went = [r.model for r in reqs]
    return [
        Check(
            f"the primary's stream is cut after {after} events twice (no event ids), then the "
            "backup answers",
            went == [WRITER_PRIMARY, WRITER_PRIMARY, WRITER_BACKUP] and model == WRITER_BACKUP,
            f"requests: {', '.join(m or '-' for m in went)}; answered by {model or 'nobody'}",
        ),
        Check(
            "each restart is announced to the caller before the new answer's first delta",
            restarts == 2 and len(env.rows("restart")) == 1,
            f"{restarts} restart event(s)",
        ),
        Check(
            "the text shown equals the scripted text exactly (no truncated or repeated part)",
            text == STORY and final == STORY,
            f"{len(text)} of {len(STORY)} characters",
        ),
    ]


async def _context(env: StepEnv, p: Mapping[str, float]) -> list[Check]:
    models = [ModelSpec(SMALL), ModelSpec(LARGE, context_window=LARGE_WINDOW)]
    async with env.client(models) as client:
        env.call()
        result = await client.run(LONG_PROMPT)
    small = [a for a in env.rows() if a.model == SMALL]
    return [
        Check(
            f"{SMALL} answers context too long, once",
            len(small) == 1 and small[0].kind == "context_too_long",
            ", ".join(f"{a.status} {a.code} ({a.kind})" for a in small) or "not called",
        ),
        Check(
            f"the run falls back to {LARGE}, which answers",
            result.model == LARGE
            and result.text == SUMMARY
            and small[:1] != []
            and small[0].outcome == "fallback",
            f"answered by {result.model}",
        ),
        Check("no retry of a request that cannot fit", not env.rows("retry"), "no retry"),
    ]


async def _breaker(env: StepEnv, p: Mapping[str, float]) -> list[Check]:
    assert env.server is not None
    threshold, n_rejected = int(p["threshold"]), int(p["rejected"])
    breaker = CircuitBreaker("demo", failure_threshold=threshold, recovery_timeout=p["recovery"])
    changes = env.breaker_changes  # reported by the client's on_breaker_state_change hook
    env.server.enqueue(Status(503), times=int(p["outage"]))
    failed = rejected = 0
    async with env.client(AGENT, retries=0, breaker=breaker) as client:
        for i in range(threshold):
            if i:
                await asyncio.sleep(p["spacing"])
            env.call()
            try:
                await client.run(AGENT_PROMPT, tools=env.tools())
            except LLMError:
                failed += 1
        seen = len(env.requests())
        for _ in range(n_rejected):
            await asyncio.sleep(p["spacing"])
            env.call()
            try:
                await client.run(AGENT_PROMPT, tools=env.tools())
            except CircuitOpenError:  # one model: the breaker's own error reaches the caller
                rejected += 1
        reached = len(env.requests()) - seen
        await asyncio.sleep(breaker.snapshot().retry_after + 0.01)
        env.call()
        result = await client.run(AGENT_PROMPT, tools=env.tools())
    opened = (BreakerState.CLOSED, BreakerState.OPEN)
    probe = [
        (BreakerState.OPEN, BreakerState.HALF_OPEN),
        (BreakerState.HALF_OPEN, BreakerState.CLOSED),
    ]
    names = " → ".join([changes[0][0].value, *(new.value for _, new in changes)]) if changes else ""
    return [
        Check(
            f"{threshold} failed calls open the breaker",
            failed == threshold and changes[:1] == [opened],
            f"{failed} failed; {names or 'no state change'}",
        ),
        Check(
            f"the next {n_rejected} calls are rejected with CircuitOpenError",
            rejected == n_rejected and len(env.rows("rejected")) == n_rejected,
            f"{rejected} rejected",
        ),
        Check("no rejected call reaches the server", reached == 0, f"{reached} requests"),
        Check(
            "after the recovery timeout one probe is admitted, succeeds and closes the breaker",
            changes[1:] == probe and result.text == ANSWER and breaker.state is BreakerState.CLOSED,
            f"state now {breaker.state.value}",
        ),
    ]


async def _deadline(env: StepEnv, p: Mapping[str, float]) -> list[Check]:
    assert env.server is not None
    limit = p["timeout"]
    env.server.enqueue(Hang())
    error: BaseException | None = None
    async with env.client(AGENT, timeout=limit) as client:
        started = env.call()
        try:
            await client.run(AGENT_PROMPT, tools=env.tools())
        except RunTimeoutError as exc:
            error = exc
            env.deadline_row(exc, AGENT, started)
    elapsed = env.now() - started
    code = getattr(error, "code", None)
    return [
        Check(
            "the stalled run ends with RunTimeoutError (TASK_DEADLINE_EXCEEDED)",
            isinstance(error, RunTimeoutError) and code == "TASK_DEADLINE_EXCEEDED",
            type(error).__name__ if error is not None else "no error",
        ),
        Check(
            f"it ends at the deadline ({limit:g} s), not later",
            limit - _SLACK <= elapsed <= limit + 0.25,
            f"after {elapsed:.2f} s",
        ),
        Check("one request, abandoned cleanly", len(env.requests()) == 1, f"{len(env.requests())}"),
    ]


STEPS: tuple[Step, ...] = (
    Step(
        "tools",
        "agent task with tool calls",
        "The travel agent calls get_weather and get_flights, then answers.",
        _tools,
        needs_server=False,
    ),
    Step(
        "rate_limit",
        "429 with Retry-After",
        "The provider rate-limits the first call and says Retry-After: 1.",
        _rate_limit,
        {"retry_after": 1.0, "hits": 1},
    ),
    Step(
        "burst",
        "503 burst",
        "Two 503s in a row; the client waits as its retry policy says (capped by "
        "max_delay=0.5 s) and retries with the same idempotency key.",
        _burst,
        {"burst": 2, "max_delay": 0.5},
    ),
    Step(
        "stream",
        "overload mid-stream",
        "The provider sends an overloaded error event after 6 deltas; the client reconnects "
        "with Last-Event-ID and the caller gets every token exactly once.",
        _stream,
        {"after_deltas": 6},
    ),
    Step(
        "cut",
        "cut stream → backup model",
        "The primary's stream, which carries no event ids, is cut after 8 events, twice; the "
        "caller is told to restart and gets the whole answer from the backup model.",
        _cut,
        {"after_events": 8},
    ),
    Step(
        "context",
        "context too long → bigger model",
        f"A long booking log overflows {SMALL}; the run falls back to {LARGE}.",
        _context,
    ),
    Step(
        "breaker",
        "outage → breaker opens, closes",
        "Calls every 0.2 s: three fail in an outage and open the breaker, three are rejected "
        "without a request, and after 2 s a probe succeeds and closes it.",
        _breaker,
        {"threshold": 3, "outage": 3, "rejected": 3, "spacing": 0.2, "recovery": 2.0},
    ),
    Step(
        "deadline",
        "deadline ends a stalled run",
        "The provider stalls; the run's 1.5 s timeout ends it cleanly with RunTimeoutError.",
        _deadline,
        {"timeout": 1.5},
    ),
)
