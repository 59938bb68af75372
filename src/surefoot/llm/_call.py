"""One logical model call: the fallback chain, the retries, the breaker and the budget (pure).

:func:`call_model` is a generator of :mod:`~surefoot.llm._ops` that returns the
:class:`~surefoot.llm._messages.Completion` and the model that gave it. The rules:

1. Before anything is sent the prompt is estimated (:func:`estimate_tokens`); the models whose
   ``context_window`` it exceeds are skipped, and when none is left the call fails with
   ``LLM_CONFIG_CONTEXT_TOO_SMALL`` without sending a request.
2. Each model is tried in order. Before each attempt its breaker (if any) admits the call; an
   open circuit moves on to the next model. The attempt's outcome is reported to the breaker
   (an attempt abandoned by the deadline, a stop or a cancellation reports none, freeing a
   probe), and each state change it causes goes to ``hooks.on_breaker_state_change``.
3. Every failure is classified (:mod:`surefoot.llm._classify`) and given to the retry policy.
   A retry spends the retry budget (if any) and waits on the client's clock.
4. A failure the policy does not retry because it is not retryable (or ``on_error`` said
   ``FAIL``) is raised as is. A retryable failure that exhausted the retries (or whose wait
   would pass the deadline) moves on to the next model. A context-too-long answer moves on to
   the next model with a larger window; a content-filtered answer (a ``content_filter``
   finish, an Anthropic ``refusal``, OpenAI's ``refusal`` field, a provider's filter error)
   to the next model, never retried on the same one.
5. When no model is left: ``CONTENT_FILTERED`` if a model filtered the answer, else
   ``LLM_CONFIG_CONTEXT_TOO_SMALL`` if every model said the context was too long, else, for a
   chain of one model, that model's own final error (a ``RateLimitError`` after the retries, a
   ``CircuitOpenError``...), and for a chain of several ``LLM_PROVIDERS_UNAVAILABLE``
   (retryable), with the last failure as ``__cause__`` and every model's final error in
   ``context.metadata["causes"]``.
6. Streams: after the first delta the call never moves to another model (the caller saw part
   of this model's answer). A retryable failure reconnects with ``Last-Event-ID`` when the
   events carry ids, within the stream's one attempt budget; a final error event, or a stream
   without ids, raises the typed error with its stream context.
7. With a ``rate_limiter``, every attempt first waits for its slot (``Throttle``, bounded by the
   deadline; no slot in time raises the limiter's ``RateLimitError``), and every response's
   headers are fed back to it (``Observe``), error responses included.

One idempotency key is sent as ``Idempotency-Key`` per logical request: per turn and model,
reused by every retry and stream reconnect of it (another model gets its own key because its
body differs). A key is 32 hex digits: 80 random bits drawn once per process (again in a forked
child) and a 48-bit counter, as unique across processes and restarts as a uuid4 and much cheaper
than ``os.urandom`` plus a ``UUID`` per request.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable, Generator, Sequence
from typing import Any

from surefoot.errors import CircuitOpenError, RateLimitError, SurefootError
from surefoot.llm._classify import (
    body_error,
    exception_error,
    http_error,
    response_error,
    withheld_error,
)
from surefoot.llm._ctx import (
    RunCtx,
    cause_summary,
    content_filtered,
    context_too_small,
    providers_unavailable,
)
from surefoot.llm._messages import Completion, Message
from surefoot.llm._ops import DeadlineHit, Observe, Op, Post, Sleep, Throttle
from surefoot.llm._options import ModelSpec
from surefoot.llm._stream import StreamProgress, stream_attempt
from surefoot.llm._tokens import estimate_tokens
from surefoot.llm._tools import ToolSpec
from surefoot.llm._wire import WireFormatError
from surefoot.policy import BoundBudget, CircuitBreaker, Decision, SharedRateLimiter
from surefoot.stores._base import NEUTRAL, BreakerState

__all__ = ["call_model"]

Flow = Generator[Op, Any, Any]

#: Decision reasons after which the error is raised as is rather than trying the next model.
_FINAL_REASONS = ("not retryable", "on_error", "retry budget")
#: Finish reasons of an answer that needs no inspection for an error inside a 200.
_CLEAN = frozenset(("stop", "tool_calls"))

_key_prefix = ""
_key_counter = itertools.count()


def _new_key_prefix() -> None:
    global _key_prefix, _key_counter
    _key_prefix = os.urandom(10).hex()
    _key_counter = itertools.count()


_new_key_prefix()
if hasattr(os, "register_at_fork"):  # no fork on Windows
    os.register_at_fork(after_in_child=_new_key_prefix)


def idempotency_key() -> str:
    """A new idempotency key (see the module docstring); thread-safe."""
    return f"{_key_prefix}{next(_key_counter):012x}"


def _post_attempt(
    ctx: RunCtx, spec: ModelSpec, headers: dict[str, str], body: bytes
) -> Generator[Op, Any, Completion | SurefootError]:
    opts = ctx.opts
    provider = opts.style
    try:
        resp = yield Post(opts.url, headers, body, ctx.left())
    except DeadlineHit as exc:
        raise ctx.timed_out(exc) from exc
    except Exception as exc:
        if ctx.past_deadline():
            raise ctx.timed_out(exc) from exc
        return exception_error(exc, provider=provider, model=spec.name)
    if opts.rate_limiter is not None:
        yield Observe(resp.headers)
    status = resp.status
    if status >= 300:
        return http_error(status, resp.headers, resp.body, provider=provider, model=spec.name)
    try:
        obj = _loads(resp.body)
    except ValueError as exc:
        return body_error(
            status,
            resp.body,
            provider=provider,
            model=spec.name,
            why=f"not JSON: {exc}",
            content_type=resp.headers.get("content-type"),
        )
    try:
        completion = opts.wire.parse_response(obj)
    except WireFormatError as exc:
        completion, why = None, str(exc)
    # The fast path: a well-formed answer that stopped normally has no error inside it. What
    # inspect_response could still find there needs no action: an OpenAI refusal is normalized
    # to the finish reason "refusal" (never clean), bad tool-call arguments are the loop's, and
    # choices past the first are never read.
    if completion is not None and completion.finish_reason in _CLEAN and "error" not in obj:
        return completion
    err = response_error(obj, provider=provider, model=spec.name)
    # Bad tool-call arguments are the run loop's to send back to the model, not a failure.
    if err is None and completion is not None:
        err = withheld_error(completion, provider=provider, model=spec.name)
    if err is not None and err.kind != "malformed_tool_call":
        if err.context.http_status is None:
            err.context.http_status = status
        return err
    if completion is None:
        return body_error(
            status,
            resp.body,
            provider=provider,
            model=spec.name,
            why=why,
            content_type=resp.headers.get("content-type"),
        )
    return completion


#: The scanner of ``json.loads``'s decoder (a default JSONDecoder): one JSON value at an index.
_scan_json: Callable[[str, int], tuple[Any, int]]
_scan_json = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def _loads(body: bytes) -> Any:
    """``json.loads(body)``, with a fast path for a body that opens with ``{`` and then a byte
    other than NUL: UTF-8 for ``json.detect_encoding``, so decoded without sniffing, and
    scanned as ``JSONDecoder.decode`` does without its set-up. Any failure of the fast path
    re-parses with ``json.loads`` for its exact error."""
    if body[:1] != b"{" or body[1:2] == b"\x00":
        return json.loads(body)
    text = body.decode("utf-8", "surrogatepass")
    try:
        obj, end = _scan_json(text, 0)
    except StopIteration:
        return json.loads(text)
    if end != len(text) and text[end:].lstrip(" \t\n\r"):
        return json.loads(text)  # "Extra data"
    return obj


def _admit(ctx: RunCtx, breaker: CircuitBreaker) -> int:
    """A breaker ticket for one attempt (or :class:`CircuitOpenError`); tells the hooks when
    this attempt is the probe that moved the circuit from open to half-open."""
    ticket = breaker._admit()
    if ticket & 1 and ctx.opts.hooks is not None:
        ctx.breaker_changed(breaker.name, BreakerState.OPEN, BreakerState.HALF_OPEN)
    return ticket


def _report(ctx: RunCtx, breaker: CircuitBreaker, ticket: int, error: BaseException | None) -> None:
    """The attempt's outcome to the breaker; a state change it causes to the hooks."""
    tr = breaker._record(ticket, error)
    if tr is not None and ctx.opts.hooks is not None:
        ctx.breaker_changed(breaker.name, tr[0], tr[1])


def _spend(ctx: RunCtx, key: str) -> bool:
    budget = ctx.opts.budget
    if budget is None:
        return True
    if isinstance(budget, BoundBudget):
        return budget.try_spend()
    return budget.try_spend(key)


def _refill(ctx: RunCtx, key: str) -> None:
    budget = ctx.opts.budget
    if budget is None:
        return
    if isinstance(budget, BoundBudget):
        budget.on_success()
    else:
        budget.on_success(key)


def _candidates(
    ctx: RunCtx, messages: Sequence[Message], tools: Sequence[ToolSpec]
) -> Sequence[ModelSpec]:
    models = ctx.opts.models
    if len(models) == 1 and models[0].context_window is None:
        return models
    need = estimate_tokens(messages, tools)
    fits = [m for m in models if m.context_window is None or need <= m.context_window]
    if not fits:
        raise context_too_small(need, ctx)
    return fits


def _throttle(
    ctx: RunCtx, limiter: SharedRateLimiter, tokens: float, spec: ModelSpec, attempt: int
) -> Generator[Op, Any, None]:
    """Wait for the shared rate limiter's slot, never past the run's deadline."""
    try:
        yield Throttle(limiter, tokens, ctx.check())
    except DeadlineHit as exc:
        raise ctx.timed_out(exc) from exc
    except RateLimitError as exc:  # no slot before max_wait or the deadline: nothing was sent
        err = ctx.error_context(exc, attempt=attempt)
        err.context.metadata["rate_limiter"] = limiter.key
        ctx.record(spec.name, attempt, err, None, "fail", reason="rate limiter: no slot in time")
        raise err from None


def call_model(
    ctx: RunCtx,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec],
    *,
    stream: bool = False,
) -> Generator[Op, Any, tuple[Completion, ModelSpec]]:
    """One model call through the fallback chain (see the module docstring)."""
    opts = ctx.opts
    wire = opts.wire
    policy = opts.stream_policy if stream else opts.policy
    base_headers = opts.stream_headers if stream else opts.headers
    limiter = opts.rate_limiter
    tokens = float(estimate_tokens(messages, tools)) if limiter is not None else 0.0
    last: SurefootError | None = None
    causes: list[dict[str, str | None]] = []
    filtered: SurefootError | None = None
    only_too_long = True
    too_long_at: int | None = None
    for spec in _candidates(ctx, messages, tools):
        if too_long_at is not None and (
            spec.context_window is not None and spec.context_window <= too_long_at
        ):
            continue
        body = wire.build_request(
            messages,
            model=spec.name,
            tools=tools or None,
            stream=stream,
            max_tokens=spec.max_tokens,
        )
        headers = dict(base_headers)
        headers["Idempotency-Key"] = idempotency_key()
        budget_key = f"{opts.style}:{spec.name}"
        breaker = opts.breakers.get(spec.name) if opts.breakers else None
        progress = StreamProgress(wire.new_stream_state()) if stream else None
        attempt = 0
        while True:
            ctx.check()
            if limiter is not None:
                yield from _throttle(ctx, limiter, tokens, spec, attempt)
            started = ctx.now() if opts.hooks is not None or ctx.deadline is not None else None
            ticket = -1
            if breaker is not None:
                try:
                    ticket = _admit(ctx, breaker)
                except CircuitOpenError as exc:
                    ctx.error_context(exc, attempt=attempt)
                    if progress is not None and progress.emitted:
                        # After the first delta another model would repeat the answer: raise.
                        exc.context.last_event_id = progress.last_id or None
                        ctx.record(spec.name, attempt, exc, None, "fail", reason="circuit open")
                        raise
                    ctx.record(spec.name, attempt, exc, None, "fallback", reason="circuit open")
                    last, only_too_long = exc, False
                    causes.append(cause_summary(spec.name, exc))
                    break
            outcome: Completion | SurefootError
            try:
                if progress is not None:
                    if progress.emitted == 0 and attempt > 0:
                        progress = StreamProgress(wire.new_stream_state())
                    outcome = yield from stream_attempt(ctx, spec, headers, body, progress)
                else:
                    outcome = yield from _post_attempt(ctx, spec, headers, body)
            except BaseException:
                # The deadline, a stop, a cancellation or a closed stream: no outcome for the
                # breaker, and a probe reservation is freed for the next caller.
                if breaker is not None and ticket >= 0:
                    breaker._record_outcome(ticket, NEUTRAL)
                raise
            if isinstance(outcome, Completion):
                if breaker is not None:
                    _report(ctx, breaker, ticket, None)
                if opts.budget is not None:
                    _refill(ctx, budget_key)
                if opts.hooks is not None or ctx.attempts:
                    ctx.record(spec.name, attempt, None, None, "ok", started=started)
                return outcome, spec
            err = ctx.error_context(outcome, attempt=attempt)
            if breaker is not None:
                _report(ctx, breaker, ticket, err)
            if progress is not None and progress.emitted:
                # After the first delta: resume with Last-Event-ID, or raise (never fall back).
                # A retryable failure (a cut, a reset, a 5xx-class error event such as an
                # overload) reconnects within the stream's one attempt budget; a final error
                # event (content filter, invalid request...) does not.
                err.context.last_event_id = progress.last_id or None
                if progress.final_error or not progress.last_id:
                    why = "final error event" if progress.final_error else "after first delta"
                    ctx.record(spec.name, attempt, err, None, "fail", reason=why)
                    raise err
                decision = _decide(
                    ctx, policy.decide(err, attempt, ctx.now(), ctx.deadline), key=budget_key
                )
                if not decision.retry:
                    ctx.record(spec.name, attempt, err, decision, "fail", reason=decision.reason)
                    raise err
                ctx.record(
                    spec.name,
                    attempt,
                    err,
                    decision,
                    "reconnect",
                    wait=decision.delay,
                    reason=decision.reason,
                    started=started,
                )
                yield Sleep(decision.delay)
                attempt += 1
                continue
            kind = err.kind
            if kind == "context_too_long":
                ctx.record(spec.name, attempt, err, None, "fallback", reason="context too long")
                last = err
                causes.append(cause_summary(spec.name, err))
                too_long_at = spec.context_window if spec.context_window is not None else 0
                break
            only_too_long = False
            if kind == "content_filtered" or err.code == "CONTENT_FILTERED":
                ctx.record(spec.name, attempt, err, None, "fallback", reason="content filtered")
                filtered = last = err
                causes.append(cause_summary(spec.name, err))
                break
            decision = _decide(
                ctx, policy.decide(err, attempt, ctx.now(), ctx.deadline), key=budget_key
            )
            if decision.retry:
                ctx.record(
                    spec.name,
                    attempt,
                    err,
                    decision,
                    "retry",
                    wait=decision.delay,
                    reason=decision.reason,
                    started=started,
                )
                yield Sleep(decision.delay)
                attempt += 1
                continue
            if decision.reason.startswith(_FINAL_REASONS):
                ctx.record(spec.name, attempt, err, decision, "fail", reason=decision.reason)
                if decision.hook_error is not None:
                    err.add_note(f"on_error raised {decision.hook_error!r}")
                raise err
            ctx.record(spec.name, attempt, err, decision, "fallback", reason=decision.reason)
            last = err
            causes.append(cause_summary(spec.name, err))
            break
    if filtered is not None:
        raise content_filtered(last, ctx)
    if last is not None and only_too_long:
        raise context_too_small(estimate_tokens(messages, tools), ctx) from last
    if last is not None and len(opts.models) == 1:
        # A chain of one model: its own final error (a RateLimitError after the retries, a
        # CircuitOpenError...), so `except RateLimitError` works as the caller expects.
        raise last
    raise providers_unavailable(last, ctx, causes)


def _decide(ctx: RunCtx, decision: Decision, *, key: str) -> Decision:
    """``decision``, turned into a failure when the retry budget cannot pay for it."""
    if decision.retry and not _spend(ctx, key):
        return Decision("fail", 0.0, "retry budget exhausted")
    return decision
