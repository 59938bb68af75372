"""One streamed attempt (pure): open, decode SSE, classify error events, emit deltas exactly once.

:class:`StreamProgress` survives reconnects of one logical request: the accumulator, the last
event id, the ids already seen and how many deltas the caller has seen. A reconnect sends the
same body with ``Last-Event-ID``; events replayed with an id already seen are skipped until the
first new one, so a server that replays inclusively cannot duplicate a delta.

:func:`stream_attempt` returns the completion, or the typed error that ended the attempt.
Whether that failure is retried, resumed with ``Last-Event-ID`` or final is one rule in one
place: :func:`surefoot.policy.stream_decision`.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Generator
from typing import Any

from surefoot._redact import redact
from surefoot.errors import ConnectionFailedError, SurefootError
from surefoot.llm._classify import (
    event_error,
    exception_error,
    http_error,
    not_a_stream,
    truncated_stream,
    withheld_error,
)
from surefoot.llm._ctx import RunCtx
from surefoot.llm._messages import Completion
from surefoot.llm._ops import CLOSE, DeadlineHit, Emit, Observe, Open, Read, ReadAll
from surefoot.llm._options import ModelSpec
from surefoot.llm._result import RestartEvent
from surefoot.llm._wire import StreamEnd, StreamErrorEvent, StreamState, WireFormatError
from surefoot.sse import SSEDecoder, SSEProtocolError

__all__ = ["StreamProgress", "stream_attempt"]

_log = logging.getLogger("surefoot.llm")


class StreamProgress:
    """What one logical streamed request has received and emitted so far, and how many
    connections it has made (``connections``: every attempt and resume, for the stream's
    attempt budget; receiving events does not reset it).

    ``emitted`` counts the deltas the caller has seen of the answer now streaming; ``pending``
    is a :class:`RestartEvent` still to send before the next delta (the caller saw part of an
    answer that failed, and the answer starts over); ``held`` the deltas kept back until the
    end (``stream_rescue="buffer"``); ``bad_chunks`` the events skipped as unreadable;
    ``failure`` the last failure of a connection.
    """

    __slots__ = (
        "background",
        "bad_chunks",
        "connections",
        "emitted",
        "failure",
        "held",
        "last_id",
        "pending",
        "prefill_refused",
        "prefix",
        "seen_ids",
        "state",
    )

    def __init__(self, state: StreamState, background: bool = False) -> None:
        self.state = state
        #: The request made a background response (the Responses API), resumable by its id
        #: and the last ``sequence_number``.
        self.background = background
        self.last_id = ""
        self.seen_ids: set[str] = set()
        self.emitted = 0
        self.connections = 0
        self.pending: RestartEvent | None = None
        self.held: list[Any] = []
        self.bad_chunks = 0
        self.failure: SurefootError | None = None
        #: The text of the answer before the current continuation (assistant prefill), and
        #: whether the model refused a prefilled request.
        self.prefix = ""
        self.prefill_refused = False

    def can_continue(self) -> bool:
        """The answer so far is text only, which a prefilled request can continue."""
        if self.prefill_refused or not self.emitted:
            return False
        partial = self.state.partial()
        return bool(partial.message.content) and not partial.message.tool_calls

    def continue_from(self, ctx: RunCtx, state: StreamState) -> str:
        """The next connection continues the answer (prefill): the text so far, which the
        request ends with; the abandoned attempt's reported usage counts as failed."""
        partial = self.state.partial()
        ctx.failed_usage = ctx.failed_usage + partial.usage
        self.prefix += partial.message.content
        self.state = state
        self.last_id = ""
        self.seen_ids = set()
        return self.prefix

    def refused_prefill(self, ctx: RunCtx, state: StreamState, model: str) -> None:
        """The model rejected the prefilled request: start over, and say so."""
        self.prefill_refused = True
        err = self.failure
        reason = f"{err.kind}: {err.message}" if err is not None else "the stream failed"
        self.pending = RestartEvent(model, redact(reason)[:300], self.prefix)
        self.prefix = ""
        self.emitted = 0
        self.restart(state)

    @property
    def resumable(self) -> bool:
        """A reconnect can continue this answer where it broke off: the events carried ids
        (``Last-Event-ID``), or a background response has an id and a sequence number."""
        if self.last_id:
            return True
        return self.background and self._resume_point() is not None

    def _resume_point(self) -> tuple[str, int] | None:
        rid = getattr(self.state, "response_id", None)
        seq = getattr(self.state, "sequence_number", None)
        return (rid, seq) if isinstance(rid, str) and rid and isinstance(seq, int) else None

    @property
    def owes_restart(self) -> bool:
        """The caller has seen part of an answer that will not be finished."""
        return self.emitted > 0 or self.pending is not None

    def restart(self, state: StreamState) -> None:
        """A retry before the first delta: start the answer over (the connections count on)."""
        self.state = state
        self.last_id = ""
        self.seen_ids = set()
        self.held = []

    def start_over(self, ctx: RunCtx, state: StreamState, model: str) -> None:
        """The next connection starts the answer over: after a delta the caller has seen, a
        restart is owed (sent before the next delta), and what the provider reported for the
        abandoned answer is counted in the run's ``failed_usage``."""
        if self.emitted > 0:
            self._owe(ctx, self, model)
        self.emitted = 0
        self.restart(state)

    def carry(self, ctx: RunCtx, other: StreamProgress, model: str) -> None:
        """This (next) model's answer replaces ``other``'s, of which the caller saw a part."""
        if other.emitted > 0:
            self._owe(ctx, other, model)
        else:
            self.pending = other.pending

    def _owe(self, ctx: RunCtx, source: StreamProgress, model: str) -> None:
        partial = source.state.partial()
        ctx.failed_usage = ctx.failed_usage + partial.usage
        err = source.failure
        reason = f"{err.kind}: {err.message}" if err is not None else "the stream failed"
        # What the caller shows of this answer: its deltas since the last restart event.
        self.pending = RestartEvent(model, redact(reason)[:300], partial.message.content)


def _malformed(exc: Exception, provider: str, model: str) -> SurefootError:
    err = ConnectionFailedError(
        f"the {provider} stream of model {model!r} sent a malformed event: {exc}"
    )
    err.context.metadata["in_stream"] = True
    err.__cause__ = exc
    return err


def stream_attempt(
    ctx: RunCtx,
    spec: ModelSpec,
    headers: dict[str, str],
    body: bytes,
    progress: StreamProgress,
    read: float | None = None,
) -> Generator[Any, Any, Completion | SurefootError]:
    """One connection of a streamed request; see the module docstring. ``read`` is the
    longest silence one read may last (the transport's per-read timeout)."""
    opts = ctx.opts
    provider = opts.style
    model = spec.name
    resuming = bool(progress.last_id)
    url, method = opts.url, "POST"
    if resuming:
        headers = {**headers, "Last-Event-ID": progress.last_id}
    elif progress.emitted and progress.background:
        point = progress._resume_point()
        resume = getattr(opts.wire, "resume_url", None)
        if point is not None and resume is not None:
            # A background response continues after its last event: GET from the provider.
            url, method, body = resume(opts.url, point[0], point[1]), "GET", b""
            headers = {k: v for k, v in headers.items() if k.lower() != "content-type"}
    opened = ctx.now()
    try:
        status, resp_headers = yield Open(url, headers, body, ctx.left(), read, method)
    except DeadlineHit as exc:
        raise ctx.timed_out(exc) from exc
    except Exception as exc:  # after the deadline, the engine's loop makes it a timeout
        err = exception_error(exc, provider=provider, model=model)
        return _silent(err, ctx, opts.first_token_timeout, "first token", model, opened)
    if opts.rate_limiter is not None:
        yield Observe(resp_headers)
    if status >= 300:
        try:
            data = yield ReadAll(ctx.left())
        except DeadlineHit as exc:
            raise ctx.timed_out(exc) from exc
        except Exception:
            data = b""
        yield CLOSE
        return http_error(
            status, resp_headers, data, provider=provider, model=model, in_stream=True
        )
    ctype = resp_headers.get("content-type", "")
    if _not_sse(ctype):
        # A proxy's HTML page, or a JSON body (an error object, or a server that ignored
        # "stream": true): never decoded as SSE, where it would look like an empty stream.
        try:
            data = yield ReadAll(ctx.left())
        except DeadlineHit as exc:
            raise ctx.timed_out(exc) from exc
        except Exception:
            data = b""
        yield CLOSE
        err = not_a_stream(status, ctype, data, provider=provider, model=model)
        return _with_status(err, status)
    decoder = SSEDecoder()
    state = progress.state
    seen = progress.seen_ids
    skipping = resuming
    buffer = opts.stream_rescue == "buffer"
    first_limit, idle_limit = opts.first_token_timeout, opts.idle_timeout
    timed = first_limit is not None or idle_limit is not None
    last_event = now = opened
    while True:
        ctx.check()
        try:
            chunk = yield Read(ctx.left())
        except DeadlineHit as exc:
            raise ctx.timed_out(exc) from exc
        except Exception as exc:
            yield CLOSE
            err = exception_error(exc, provider=provider, model=model)
            err.context.metadata["in_stream"] = True
            if progress.emitted or progress.held:
                err = _silent(err, ctx, idle_limit, "idle", model, last_event)
            else:
                err = _silent(err, ctx, first_limit, "first token", model, opened)
            return _with_status(err, status)
        if not chunk:
            yield CLOSE
            done = _ended_without_final(state)
            if done is not None:  # a clean end after the final finish reason: complete
                return (yield from _finish(ctx, progress, done, status, provider, model))
            return _with_status(truncated_stream(provider, model), status)
        if timed:  # the clock is read per chunk only when a stream limit is set
            now = ctx.now()
            waiting = not (progress.emitted or progress.held)
            if first_limit is not None and waiting and now - opened > first_limit:
                yield CLOSE  # pings, comments, but no delta in time
                return _with_status(_no_token(first_limit, "first token", model), status)
        try:
            events = decoder.feed(chunk)
        except SSEProtocolError as exc:
            yield CLOSE
            return _with_status(_malformed(exc, provider, model), status)
        if timed and events:
            if idle_limit is not None and now - last_event > idle_limit:
                yield CLOSE
                return _with_status(_no_token(idle_limit, "idle", model), status)
            last_event = now
        for ev in events:
            eid = ev.id
            if skipping:
                if eid and eid in seen:
                    continue
                skipping = False
            err_ev = event_error(ev.event, ev.data, provider=provider, model=model)
            if err_ev is not None:
                # Whether it is final or resumed is surefoot.policy.stream_decision's rule.
                yield CLOSE
                err_ev.context.metadata["http_status"] = status
                return err_ev
            try:
                deltas = state.feed(ev.event, ev.data)
            except StreamErrorEvent as exc:
                yield CLOSE
                return _with_status(_malformed(exc, provider, model), status)
            except WireFormatError as exc:
                progress.bad_chunks += 1
                if progress.bad_chunks > opts.max_bad_chunks:
                    yield CLOSE
                    return _with_status(_malformed(exc, provider, model), status)
                _log.warning(
                    "surefoot: skipped an unreadable event of the %s stream of %r (%d so far, "
                    "max_bad_chunks=%d): %s",
                    provider,
                    model,
                    progress.bad_chunks,
                    opts.max_bad_chunks,
                    exc,
                    extra={"surefoot_event": "bad_chunk", "model": model},
                )
                continue
            if eid:
                seen.add(eid)
                progress.last_id = eid
            for d in deltas:
                if type(d) is StreamEnd:
                    yield CLOSE
                    return (
                        yield from _finish(ctx, progress, d.completion, status, provider, model)
                    )
                if buffer:
                    progress.held.append(d)
                    continue
                if progress.pending is not None:
                    pending, progress.pending = progress.pending, None
                    yield Emit(pending)
                progress.emitted += 1
                yield Emit(d)


def _finish(
    ctx: RunCtx,
    progress: StreamProgress,
    completion: Completion,
    status: int,
    provider: str,
    model: str,
) -> Generator[Any, Any, Completion | SurefootError]:
    """The stream's final event came (or a clean end after its finish reason): the answer, or
    the failure withheld in it; held deltas (``stream_rescue="buffer"``) go out now."""
    withheld = withheld_error(completion, provider=provider, model=model)
    if withheld is not None:  # an OpenAI refusal: a final outcome, like an event
        withheld.context.metadata["in_stream"] = True
        return _with_status(withheld, status)
    if progress.prefix:  # a continuation: the answer is the text before it and its own
        message = dataclasses.replace(
            completion.message, content=progress.prefix + completion.message.content
        )
        completion = dataclasses.replace(completion, message=message)
    if progress.held:
        if progress.pending is not None:
            pending, progress.pending = progress.pending, None
            yield Emit(pending)
        held, progress.held = progress.held, []
        for d in held:
            progress.emitted += 1
            yield Emit(d)
    return completion


def _ended_without_final(state: StreamState) -> Completion | None:
    """The answer of a stream that ended at the transport level after its finish reason
    (OpenAI's last chunk without ``data: [DONE]``, Anthropic's ``message_delta`` without
    ``message_stop``): complete; ``None`` when no finish reason came."""
    try:
        partial = state.partial()
    except WireFormatError:
        return None
    return partial if partial.finish_reason is not None else None


def _no_token(limit: float, what: str, model: str) -> SurefootError:
    from surefoot.errors import TimeoutError as SilentTimeout

    said = "no first token" if what == "first token" else "no event"
    err = SilentTimeout(f"{said} from model {model!r} within {limit:g} s ({what} timeout)")
    err.context.metadata["silent"] = what
    err.context.metadata["in_stream"] = True
    return err


def _silent(
    err: SurefootError,
    ctx: RunCtx,
    limit: float | None,
    what: str,
    model: str,
    since: float,
) -> SurefootError:
    """A read that timed out within ``limit`` of ``since``: the typed silent timeout."""
    if limit is None or err.kind != "timeout" or ctx.now() - since > limit + 0.5:
        return err
    silent = _no_token(limit, what, model)
    silent.__cause__ = err
    return silent


def _not_sse(content_type: str) -> bool:
    """A content type that is surely no event stream (HTML, JSON, XML); a missing or
    unusual one (``text/plain``...) is decoded as SSE, leniently."""
    ct = content_type.lower()
    if not ct or "event-stream" in ct:
        return False
    return "html" in ct or "json" in ct or "xml" in ct


def _with_status(err: SurefootError, status: int) -> SurefootError:
    err.context.metadata["http_status"] = status
    if err.context.http_status is None:
        err.context.http_status = status
    return err
