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

from collections.abc import Generator
from typing import Any

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
from surefoot.llm._wire import StreamEnd, StreamState, WireFormatError
from surefoot.sse import SSEDecoder, SSEProtocolError

__all__ = ["StreamProgress", "stream_attempt"]


class StreamProgress:
    """What one logical streamed request has received and emitted so far, and how many
    connections it has made (``connections``: every attempt and resume, for the stream's
    attempt budget; receiving events does not reset it)."""

    __slots__ = ("connections", "emitted", "last_id", "seen_ids", "state")

    def __init__(self, state: StreamState) -> None:
        self.state = state
        self.last_id = ""
        self.seen_ids: set[str] = set()
        self.emitted = 0
        self.connections = 0

    def restart(self, state: StreamState) -> None:
        """A retry before the first delta: start the answer over (the connections count on)."""
        self.state = state
        self.last_id = ""
        self.seen_ids = set()


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
) -> Generator[Any, Any, Completion | SurefootError]:
    """One connection of a streamed request; see the module docstring."""
    provider = ctx.opts.style
    model = spec.name
    resuming = bool(progress.last_id)
    if resuming:
        headers = {**headers, "Last-Event-ID": progress.last_id}
    try:
        status, resp_headers = yield Open(ctx.opts.url, headers, body, ctx.left())
    except DeadlineHit as exc:
        raise ctx.timed_out(exc) from exc
    except Exception as exc:  # after the deadline, the engine's loop makes it a timeout
        return exception_error(exc, provider=provider, model=model)
    if ctx.opts.rate_limiter is not None:
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
            return _with_status(err, status)
        if not chunk:
            yield CLOSE
            return _with_status(truncated_stream(provider, model), status)
        try:
            events = decoder.feed(chunk)
        except SSEProtocolError as exc:
            yield CLOSE
            return _with_status(_malformed(exc, provider, model), status)
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
            except WireFormatError as exc:
                yield CLOSE
                return _with_status(_malformed(exc, provider, model), status)
            if eid:
                seen.add(eid)
                progress.last_id = eid
            for d in deltas:
                if type(d) is StreamEnd:
                    yield CLOSE
                    withheld = withheld_error(d.completion, provider=provider, model=model)
                    if withheld is not None:  # an OpenAI refusal: a final outcome, like an event
                        withheld.context.metadata["in_stream"] = True
                        return _with_status(withheld, status)
                    return d.completion
                progress.emitted += 1
                yield Emit(d)


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
