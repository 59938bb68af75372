"""One logical model call: the fallback chain on the engine's attempt loop (pure).

:func:`call_model` is a generator of ops (:mod:`~surefoot.llm._ops` and the engine's) that
returns the :class:`~surefoot.llm._messages.Completion` and the model that gave it. Each model
of the chain runs the engine's one attempt loop (:mod:`surefoot.policy._attempts`): breaker
admission and outcomes, the retry decision, the budget, the waits and the deadline are the same
rules as :class:`surefoot.Guard`'s, carried out by the client's driver (which awaits an async
store on the async client). The chain's own rules:

1. Before anything is sent the prompt is estimated (:func:`estimate_tokens`); the models whose
   ``context_window`` it exceeds are skipped, and when none is left the call fails with
   ``LLM_CONFIG_CONTEXT_TOO_SMALL`` without sending a request.
2. Each model is tried in order. An open circuit moves on to the next model. An attempt
   abandoned by the deadline, a stop or a cancellation reports no outcome to the breaker,
   freeing a probe.
3. Every failure is classified (:mod:`surefoot.llm._classify`) and decided by the retry policy
   (growing backoff, server hints, the error's own attempt limit); a retry spends the retry
   budget and waits on the client's clock.
4. Where the run goes after a model gave up is decided by the typed reason
   (:class:`~surefoot.policy.Why`), never by its text: a *final* reason (not retryable,
   ``on_error`` said ``FAIL`` or raised, the retry budget, the deadline) raises the error as is;
   any other (retries exhausted, a wait past the deadline or ``max_hint``, an open circuit)
   moves on to the next model. A context-too-long answer moves on to the next model with a
   larger window; a content-filtered answer (a ``content_filter`` finish, an Anthropic
   ``refusal``, OpenAI's ``refusal`` field, a provider's filter error) to the next model,
   never retried on the same one.
5. When no model is left: ``CONTENT_FILTERED`` if a model filtered the answer, else
   ``LLM_CONFIG_CONTEXT_TOO_SMALL`` if every model said the context was too long, else, for a
   chain of one model, that model's own final error (a ``RateLimitError`` after the retries, a
   ``CircuitOpenError``...), and for a chain of several ``LLM_PROVIDERS_UNAVAILABLE``
   (retryable), with the last failure as ``__cause__`` and every model's final error in
   ``context.metadata["causes"]``.
6. Streams follow :func:`surefoot.policy.stream_decision`: before the first delta a failure is
   retried as a plain call's would be (``retries=``); after it the call never moves to another
   model, and a retryable failure reconnects with ``Last-Event-ID`` when the events carry ids,
   within ``stream_attempts`` connections in all.
7. With a ``rate_limiter``, every attempt first waits for its slot (``Throttle``, bounded by the
   deadline; no slot in time raises the limiter's ``RateLimitError``), and every response's
   headers are fed back to it (``Observe``), error responses included.

One idempotency key (:mod:`surefoot._idempotency`) is sent as ``Idempotency-Key`` per logical
request: per turn and model, reused by every retry and stream reconnect of it (another model
gets its own key because its body differs).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Sequence
from typing import TYPE_CHECKING, Any

from surefoot._idempotency import idempotency_key
from surefoot.errors import RateLimitError, SurefootError
from surefoot.guard._budget import unbind
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
from surefoot.llm._ops import DeadlineHit, Observe, Post, Throttle
from surefoot.llm._options import ModelSpec
from surefoot.llm._stream import StreamProgress, stream_attempt
from surefoot.llm._tokens import estimate_tokens
from surefoot.llm._tools import ToolSpec
from surefoot.llm._wire import WireFormatError
from surefoot.policy._attempts import Failed, GaveUp, Plan, run
from surefoot.policy._records import AttemptRecord
from surefoot.policy._stream import stream_decision
from surefoot.policy._types import Decision, Why

if TYPE_CHECKING:
    from surefoot.guard._limiter import SharedRateLimiter

__all__ = ["call_model"]

Flow = Generator[Any, Any, Any]
#: Finish reasons of an answer that needs no inspection for an error inside a 200.
_CLEAN = frozenset(("stop", "tool_calls"))


def _post_attempt(
    ctx: RunCtx, spec: ModelSpec, headers: dict[str, str], body: bytes
) -> Generator[Any, Any, Completion | SurefootError]:
    opts = ctx.opts
    provider = opts.style
    try:
        resp = yield Post(opts.url, headers, body, ctx.left())
    except DeadlineHit as exc:
        raise ctx.timed_out(exc) from exc
    except Exception as exc:  # after the deadline, the engine's loop makes it a timeout
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
) -> Generator[Any, Any, None]:
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


class _Model:
    """One model of the chain for one logical request: what its attempts send, and the rules
    the engine's loop applies to its failures (a :class:`Plan`'s ``attempt``, ``decide`` and
    ``make_record``)."""

    __slots__ = ("body", "ctx", "headers", "limiter", "progress", "spec", "tokens")

    def __init__(
        self,
        ctx: RunCtx,
        spec: ModelSpec,
        body: bytes,
        headers: dict[str, str],
        progress: StreamProgress | None,
        tokens: float,
    ) -> None:
        self.ctx = ctx
        self.spec = spec
        self.body = body
        self.headers = headers
        self.progress = progress
        self.limiter = ctx.opts.rate_limiter
        self.tokens = tokens

    def attempt(self, n: int) -> Generator[Any, Any, Completion | Failed]:
        """One attempt; a failure it observed is returned as :class:`Failed`, while what it
        raises (the deadline, a stop, the rate limiter's refusal) ends the run."""
        ctx = self.ctx
        ctx.check()
        if self.limiter is not None:
            yield from _throttle(ctx, self.limiter, self.tokens, self.spec, n)
        progress = self.progress
        outcome: Completion | SurefootError
        if progress is not None:
            if progress.emitted == 0 and n > 0:
                progress.restart(ctx.opts.wire.new_stream_state())
            progress.connections += 1
            outcome = yield from stream_attempt(ctx, self.spec, self.headers, self.body, progress)
        else:
            outcome = yield from _post_attempt(ctx, self.spec, self.headers, self.body)
        if isinstance(outcome, SurefootError):
            return Failed(ctx.error_context(outcome, attempt=n))
        return outcome

    def decide(
        self, err: BaseException, n: int, now: float, deadline: float | None, streak: int
    ) -> Decision:
        opts = self.ctx.opts
        progress = self.progress
        if progress is not None and progress.emitted:
            if isinstance(err, SurefootError):
                err.context.last_event_id = progress.last_id or None
            return stream_decision(
                err,
                emitted=True,
                has_ids=bool(progress.last_id),
                attempt=n,
                connection=progress.connections - 1,
                now=now,
                deadline=deadline,
                policy=opts.policy,
                resume=opts.resume_policy,
                streak=streak,
            )
        if isinstance(err, SurefootError):
            if err.kind == "context_too_long":
                return Decision.fail(Why.CONTEXT_TOO_LONG)
            if err.kind == "content_filtered" or err.code == "CONTENT_FILTERED":
                return Decision.fail(Why.CONTENT_FILTERED)
        return opts.policy.decide(
            err, n, now, deadline, streak=streak, in_stream=progress is not None
        )

    def record(
        self,
        n: int,
        error: BaseException | None,
        decision: Decision | None,
        wait: float,
        started: float | None,
        ended: float,
    ) -> AttemptRecord:
        ctx = self.ctx
        emitted = self.progress is not None and self.progress.emitted > 0
        if error is None or decision is None:
            outcome, reason = "ok", ""
        elif decision.retry:
            outcome, reason = ("reconnect" if emitted else "retry"), decision.reason
        else:
            final = decision.why.final or emitted
            outcome, reason = ("fail" if final else "fallback"), decision.reason
        return ctx.make_record(
            self.spec.name,
            n,
            error,
            decision,
            outcome,
            wait=wait,
            reason=reason,
            started=started,
            ended=ended,
        )


def call_model(
    ctx: RunCtx,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec],
    *,
    stream: bool = False,
) -> Generator[Any, Any, tuple[Completion, ModelSpec]]:
    """One model call through the fallback chain (see the module docstring)."""
    opts = ctx.opts
    wire = opts.wire
    base_headers = opts.stream_headers if stream else opts.headers
    tokens = float(estimate_tokens(messages, tools)) if opts.rate_limiter is not None else 0.0
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
        budget, budget_key = unbind(opts.budget, f"{opts.style}:{spec.name}")
        progress = StreamProgress(wire.new_stream_state()) if stream else None
        model = _Model(ctx, spec, body, headers, progress, tokens)
        plan = Plan(
            decide=model.decide,
            timed_out=ctx.timed_out,
            deadline=ctx.deadline,
            breaker=opts.breakers.get(spec.name) if opts.breakers else None,
            budget=budget,
            budget_key=budget_key,
            hooks=opts.hooks,
            attempt=model.attempt,
            passthrough=(Exception,),
            make_record=model.record,
            records=ctx.attempts,
            record_success=False,
            timed=opts.hooks is not None or ctx.deadline is not None,
        )
        out = yield from run(plan)
        if type(out) is not GaveUp:
            return out, spec
        err, why = out.error, out.why
        if isinstance(err, SurefootError):
            ctx.error_context(err, attempt=out.attempt)
        if why is Why.DEADLINE:
            raise err
        if progress is not None and progress.emitted:
            # After the first delta another model would repeat the answer: raise.
            if isinstance(err, SurefootError):
                err.context.last_event_id = progress.last_id or None
            raise err
        assert isinstance(err, SurefootError)
        if why is Why.CONTEXT_TOO_LONG:
            last = err
            causes.append(cause_summary(spec.name, err))
            too_long_at = spec.context_window if spec.context_window is not None else 0
            continue
        only_too_long = False
        if why is Why.CONTENT_FILTERED:
            filtered = last = err
            causes.append(cause_summary(spec.name, err))
            continue
        if why.final:
            raise err
        last = err
        causes.append(cause_summary(spec.name, err))
    if filtered is not None:
        raise content_filtered(last, ctx)
    if last is not None and only_too_long:
        raise context_too_small(estimate_tokens(messages, tools), ctx) from last
    if last is not None and len(opts.models) == 1:
        # A chain of one model: its own final error (a RateLimitError after the retries, a
        # CircuitOpenError...), so `except RateLimitError` works as the caller expects.
        raise last
    raise providers_unavailable(last, ctx, causes)
