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
   freeing a probe. One ``breaker=`` guards the first model and each other model gets its own
   copy (``CircuitBreaker.for_key``), so that one model's outage is never hidden by another's
   successes.
3. Every failure is classified (:mod:`surefoot.llm._classify`) and decided by the retry policy
   (growing backoff, server hints, the error's own attempt limit); a retry spends the retry
   budget and waits on the client's clock. A model that another model follows is held to the
   chain's failover rule (:func:`surefoot.policy._failover.failover_decision`): a silent
   timeout moves on at once, a persistent 429/5xx/overload after ``failover_attempts`` or a
   wait over ``failover_wait``, a quota, an unknown model, a permission or a capability the
   model lacks at once; a bad key, an invalid request or an unknown failure ends the run. One
   attempt of such a model waits at most half the time left for its answer (the rest of the
   chain keeps the other half), and a model is not tried again when it took longer before than
   the time left.
4. Where the run goes after a model gave up is decided by the typed reason
   (:class:`~surefoot.policy.Why`), never by its text: a *final* reason (not retryable,
   ``on_error`` said ``FAIL`` or raised, the retry budget, the deadline) raises the error as is;
   any other (retries exhausted, a wait past the deadline or ``max_hint``, an open circuit,
   ``FAILOVER``) moves on to the next model. A context-too-long answer moves on to the next
   model with a larger window; a content-filtered answer (a ``content_filter`` finish, an
   Anthropic ``refusal``, OpenAI's ``refusal`` field, a provider's filter error) to the next
   model, never retried on the same one.
5. When no model is left: ``CONTENT_FILTERED`` if a model filtered the answer, else, for a
   chain of one model, that model's own final error (a ``RateLimitError`` after the retries, a
   ``CircuitOpenError``, its ``CONTEXT_TOO_LONG``...), else ``LLM_CONFIG_CONTEXT_TOO_SMALL`` if
   every model said the context was too long, and ``LLM_PROVIDERS_UNAVAILABLE`` (retryable)
   otherwise, with the last failure as ``__cause__`` and every model's final error in
   ``context.metadata["causes"]``.
6. Streams follow :func:`surefoot.policy.stream_decision`: before the first delta a failure is
   retried as a plain call's would be (``retries=``). After it, a retryable failure reconnects
   where the answer broke off when it can (``Last-Event-ID`` when the events carry ids; a
   background response of the Responses API from its last ``sequence_number``), within
   ``stream_attempts`` connections; otherwise (``stream_rescue="restart"``, the default) the
   answer starts over, on the same model within ``retries=`` or on the next, and the caller's
   stream gets a :class:`~surefoot.llm.RestartEvent` before the new answer's first delta; a
   ``ModelSpec(prefill=True)`` model continues from the text received instead.
   ``stream_rescue="buffer"`` holds the deltas until the answer is whole (nothing to restart);
   ``"off"`` raises. ``first_token_timeout`` and ``idle_timeout`` bound a stream's silences.
7. With a ``rate_limiter``, every attempt first waits for its slot (``Throttle``, bounded by the
   deadline; no slot in time raises the limiter's ``RateLimitError``), and every response's
   headers are fed back to it (``Observe``), error responses included.

One idempotency key (:mod:`surefoot._idempotency`) is sent as ``Idempotency-Key`` per logical
request: per turn and model, reused by every retry and stream reconnect of it (another model
gets its own key because its body differs).
"""

from __future__ import annotations

import json
import logging
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
from surefoot.policy._failover import failover_decision
from surefoot.policy._records import AttemptRecord
from surefoot.policy._stream import stream_decision
from surefoot.policy._types import Decision, Why
from surefoot.telemetry import _hub, _logs

if TYPE_CHECKING:
    from surefoot.guard._limiter import SharedRateLimiter

__all__ = ["call_model"]

_log = logging.getLogger("surefoot.llm")

Flow = Generator[Any, Any, Any]
#: What a streamed Responses API request adds to be resumable (``background=True``).
_BACKGROUND = {"background": True}
#: Finish reasons of an answer that needs no inspection for an error inside a 200.
_CLEAN = frozenset(("stop", "tool_calls"))


def _post_attempt(
    ctx: RunCtx, spec: ModelSpec, headers: dict[str, str], body: bytes, read: float | None
) -> Generator[Any, Any, Completion | SurefootError]:
    opts = ctx.opts
    provider = opts.style
    try:
        resp = yield Post(opts.url, headers, body, ctx.left(), read)
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

    __slots__ = (
        "body",
        "ctx",
        "has_next",
        "headers",
        "limiter",
        "messages",
        "progress",
        "slowest",
        "spec",
        "tokens",
        "tools",
    )

    def __init__(
        self,
        ctx: RunCtx,
        spec: ModelSpec,
        body: bytes,
        headers: dict[str, str],
        progress: StreamProgress | None,
        tokens: float,
        has_next: bool,
        messages: Sequence[Message] = (),
        tools: Sequence[ToolSpec] = (),
    ) -> None:
        self.ctx = ctx
        self.messages = messages
        self.tools = tools
        self.spec = spec
        self.body = body
        self.headers = headers
        self.progress = progress
        self.limiter = ctx.opts.rate_limiter
        self.tokens = tokens
        #: Another model follows in the chain: the failover rules apply, and one attempt may
        #: take at most half the time left.
        self.has_next = has_next
        #: The longest this model took to answer (or stayed silent) in this request.
        self.slowest = 0.0

    def _silence(self) -> float | None:
        """The longest silence one read of this attempt may last: ``read_timeout``, within
        ``first_token_timeout``/``idle_timeout`` for a stream, and for a model another follows,
        within half the time left (the rest of the chain keeps the other half)."""
        opts = self.ctx.opts
        limit = opts.read_timeout
        if self.progress is not None:
            for extra in (opts.first_token_timeout, opts.idle_timeout):
                if extra is not None:
                    limit = extra if limit is None else min(limit, extra)
        if self.has_next and self.ctx.deadline is not None:
            share = max(0.0, (self.ctx.deadline - self.ctx.now()) / 2)
            limit = share if limit is None else min(limit, share)
        return limit

    def attempt(self, n: int) -> Generator[Any, Any, Completion | Failed]:
        """One attempt; a failure it observed is returned as :class:`Failed`, while what it
        raises (the deadline, a stop, the rate limiter's refusal) ends the run."""
        ctx = self.ctx
        left = ctx.check()
        if left is not None and n > 0 and self.slowest > left:
            # It could not answer before the deadline: never start it.
            if not self.has_next:
                raise ctx.timed_out(None)
            return Failed(ctx.error_context(_not_started(self.spec, left, self.slowest), attempt=n))
        if self.limiter is not None:
            yield from _throttle(ctx, self.limiter, self.tokens, self.spec, n)
        progress = self.progress
        outcome: Completion | SurefootError
        read = self._silence()
        started = ctx.now()
        if progress is not None:
            wire = ctx.opts.wire
            progress.connections += 1
            if n > 0 and self.spec.prefill and not progress.resumable and progress.can_continue():
                outcome = yield from self._continue(progress, read)
            else:
                if n > 0 and (progress.emitted == 0 or not progress.resumable):
                    progress.start_over(ctx, wire.new_stream_state(), self.spec.name)
                outcome = yield from stream_attempt(
                    ctx, self.spec, self.headers, self.body, progress, read
                )
        else:
            outcome = yield from _post_attempt(ctx, self.spec, self.headers, self.body, read)
        # How long this model takes to answer at all: a plain answer's time, or a silence that
        # timed out before anything came (a stream's length says nothing about it).
        if isinstance(outcome, SurefootError):
            if outcome.kind == "timeout" and (progress is None or not progress.emitted):
                self.slowest = max(self.slowest, ctx.now() - started)
            if progress is not None:
                progress.failure = outcome
            return Failed(ctx.error_context(outcome, attempt=n))
        if progress is None:
            self.slowest = max(self.slowest, ctx.now() - started)
        return outcome

    def _continue(
        self, progress: StreamProgress, read: float | None
    ) -> Generator[Any, Any, Completion | SurefootError]:
        """A connection that continues the cut answer from its text (assistant prefill); a
        model that rejects the prefilled request starts the answer over instead, in this same
        attempt (the cut stays the failure on record; the rejection is logged)."""
        ctx, spec = self.ctx, self.spec
        wire = ctx.opts.wire
        # The Anthropic API rejects a prefill that ends in whitespace: the model continues it.
        prefix = progress.continue_from(ctx, wire.new_stream_state()).rstrip()
        progress.prefix = prefix
        body = wire.build_request(
            [*self.messages, Message("assistant", prefix)],
            model=spec.name,
            tools=self.tools or None,
            stream=True,
            max_tokens=spec.max_tokens,
        )
        emitted = progress.emitted
        outcome = yield from stream_attempt(ctx, spec, self.headers, body, progress, read)
        refused = (
            isinstance(outcome, SurefootError)
            and outcome.kind in ("invalid_request", "capability_mismatch")
            and progress.emitted == emitted
        )
        if not refused:
            return outcome
        assert isinstance(outcome, SurefootError)
        _log.warning(
            "surefoot: model %r rejected the prefilled continuation (%s); starting over",
            spec.name,
            outcome.message,
            extra={"surefoot_event": "prefill_refused", "model": spec.name},
        )
        progress.refused_prefill(ctx, wire.new_stream_state(), spec.name)
        progress.connections += 1
        return (yield from stream_attempt(ctx, spec, self.headers, self.body, progress, read))

    def decide(
        self, err: BaseException, n: int, now: float, deadline: float | None, streak: int
    ) -> Decision:
        opts = self.ctx.opts
        progress = self.progress
        if progress is not None and progress.emitted:
            if isinstance(err, SurefootError):
                err.context.last_event_id = progress.last_id or None
            decision = stream_decision(
                err,
                emitted=True,
                has_ids=progress.resumable,
                attempt=n,
                connection=progress.connections - 1,
                now=now,
                deadline=deadline,
                policy=opts.policy,
                resume=opts.resume_policy,
                streak=streak,
                restart=opts.stream_rescue == "restart",
            )
            if progress.resumable or opts.stream_rescue != "restart":
                return decision  # a resume with Last-Event-ID stays on this model
            return self._failover(err, decision, n, now, deadline)
        if isinstance(err, SurefootError):
            if err.kind == "context_too_long":
                return Decision.fail(Why.CONTEXT_TOO_LONG)
            if err.kind == "content_filtered" or err.code == "CONTENT_FILTERED":
                return Decision.fail(Why.CONTENT_FILTERED)
        decision = opts.policy.decide(
            err, n, now, deadline, streak=streak, in_stream=progress is not None
        )
        return self._failover(err, decision, n, now, deadline)

    def _failover(
        self, err: BaseException, decision: Decision, n: int, now: float, deadline: float | None
    ) -> Decision:
        if not self.has_next:
            return decision
        opts = self.ctx.opts
        return failover_decision(
            decision,
            err.kind if isinstance(err, SurefootError) else None,
            n,
            now,
            deadline,
            attempts=opts.failover_attempts,
            max_wait=opts.failover_wait,
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
        progress = self.progress
        emitted = progress is not None and progress.emitted > 0
        resumable = emitted and progress is not None and progress.resumable
        if error is None or decision is None:
            outcome, reason = "ok", ""
        elif decision.retry:
            if resumable:
                outcome = "reconnect"
            elif emitted:
                cont = self.spec.prefill and progress is not None and progress.can_continue()
                outcome = "continue" if cont else "restart"
            else:
                outcome = "retry"
            reason = decision.reason
        else:
            final = decision.why.final or (emitted and not self._restarts())
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

    def _restarts(self) -> bool:
        """A failure after the first delta may start the answer over on another model."""
        progress = self.progress
        return (
            progress is not None
            and not progress.resumable
            and self.ctx.opts.stream_rescue == "restart"
        )


def _not_started(spec: ModelSpec, left: float, slowest: float) -> SurefootError:
    from surefoot.errors import TimeoutError as SilentTimeout

    err = SilentTimeout(
        f"model {spec.name!r} was not tried again: it took {slowest:.3g} s before, and "
        f"{left:.3g} s are left before the deadline"
    )
    err.context.metadata["not_started"] = True
    return err


def call_model(
    ctx: RunCtx,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec],
    *,
    stream: bool = False,
) -> Generator[Any, Any, tuple[Completion, ModelSpec]]:
    """One model call through the fallback chain (see the module docstring). Without a
    telemetry sink it is the chain itself: no generator in between for every op to pass."""
    if not _hub.SINKS:
        return _chain(ctx, messages, tools, stream, None)
    return _traced(ctx, messages, tools, stream)


def _traced(
    ctx: RunCtx, messages: Sequence[Message], tools: Sequence[ToolSpec], stream: bool
) -> Generator[Any, Any, tuple[Completion, ModelSpec]]:
    trace = _trace(ctx, stream)
    if trace is None:
        return (yield from _chain(ctx, messages, tools, stream, None))
    try:
        completion, spec = yield from _chain(ctx, messages, tools, stream, trace)
    except BaseException as exc:
        trace.end(exc)
        raise
    usage = completion.usage
    trace.response(
        completion.model or spec.name,
        completion.id,
        usage.input_tokens,
        usage.output_tokens,
        completion.raw_finish_reason or completion.finish_reason,
    )
    trace.end(None)
    return completion, spec


def _trace(ctx: RunCtx, stream: bool) -> _hub.Trace | None:
    from urllib.parse import urlsplit

    opts = ctx.opts
    where = urlsplit(opts.url)
    return _hub.start(
        "llm",
        "chat",
        provider=opts.style,
        model=opts.models[0].name,
        stream=stream,
        server_address=where.hostname,
        server_port=where.port or (443 if where.scheme == "https" else 80),
    )


def _chain(
    ctx: RunCtx,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec],
    stream: bool,
    trace: _hub.Trace | None,
) -> Generator[Any, Any, tuple[Completion, ModelSpec]]:
    opts = ctx.opts
    wire = opts.wire
    base_headers = opts.stream_headers if stream else opts.headers
    tokens = float(estimate_tokens(messages, tools)) if opts.rate_limiter is not None else 0.0
    last: SurefootError | None = None
    causes: list[dict[str, str | None]] = []
    filtered: SurefootError | None = None
    only_too_long = True
    too_long_at: int | None = None
    carried: StreamProgress | None = None  # an answer that failed mid-stream, to start over
    candidates = _candidates(ctx, messages, tools)
    for i, spec in enumerate(candidates):
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
            extra=_BACKGROUND if stream and opts.background else None,
        )
        headers = dict(base_headers)
        headers["Idempotency-Key"] = idempotency_key()
        budget, budget_key = unbind(opts.budget, f"{opts.style}:{spec.name}")
        progress = StreamProgress(wire.new_stream_state(), opts.background) if stream else None
        if progress is not None and carried is not None:
            progress.carry(ctx, carried, spec.name)
        has_next = i + 1 < len(candidates)
        model = _Model(ctx, spec, body, headers, progress, tokens, has_next, messages, tools)
        if trace is not None:
            trace.model(spec.name)
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
            timed=opts.hooks is not None or ctx.deadline is not None or trace is not None,
            trace=trace,
            log=_logs.LLM,
        )
        out = yield from run(plan)
        if type(out) is not GaveUp:
            return out, spec
        err, why = out.error, out.why
        if isinstance(err, SurefootError):
            ctx.error_context(err, attempt=out.attempt)
        if why is Why.DEADLINE:
            raise err
        if progress is not None and progress.emitted and (why.final or not model._restarts()):
            # After the first delta another model would repeat the answer unannounced.
            if isinstance(err, SurefootError):
                err.context.last_event_id = progress.last_id or None
            raise err
        # The next model starts the answer over, and says so before its first delta, when
        # the caller has seen part of this answer (or of an earlier one still to restart).
        carried = progress if progress is not None and progress.owes_restart else None
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
        if len(opts.models) == 1:
            raise last  # one model: the provider's own context-length error, as it said it
        raise context_too_small(estimate_tokens(messages, tools), ctx) from last
    if last is not None and len(opts.models) == 1:
        # A chain of one model: its own final error (a RateLimitError after the retries, a
        # CircuitOpenError...), so `except RateLimitError` works as the caller expects.
        raise last
    raise providers_unavailable(last, ctx, causes)
