# GENERATED from src/surefoot/sdk/_transport_async.py by scripts/unasync.py: do not edit.
# Edit the async source, then run `make generate` (CI fails when this file is stale).
"""The transport a wrapped SDK sends through (async): the engine around the SDK's own transport.

Written once: the sync twin ``_transport_sync.py`` is generated from this file by
``scripts/unasync.py``. :class:`SyncDriver` is mixed into the ``AsyncBaseTransport`` of the SDK's
HTTP package (``httpx`` or ``httpx2``: the same API, other classes) by :func:`async_transport`.

Each request runs the engine's attempt loop (:class:`~surefoot.sdk._exchange.Exchange`). The
deadline (``timeout=`` within any deadline in force) bounds every attempt, wait and read of the
answer, its stream included: the async driver runs each step inside ``asyncio.timeout`` of the
time left; the sync one gives the time left to the SDK transport's timeouts and, once the
headers are in, arms a timer that shuts the connection's socket at the deadline (a blocking read
cannot be interrupted otherwise). ``read_timeout`` is the longest silence on a stream (and the
read timeout before the headers), ``first_token_timeout`` the longest wait for the first part of
a streamed answer; both raise retryable timeouts, retried while nothing has reached the caller.

After the first part of a streamed answer has been handed on, nothing is retried (the SDK has
already yielded it): an error event, a connection that breaks or falls silent, a stream that
ends without its final event, or the deadline raise the typed error at once.
"""

from __future__ import annotations

import builtins
import contextlib
from collections.abc import Generator, Iterator
from typing import Any

from surefoot._backends._shutter import shut_at
from surefoot._idempotency import idempotency_key
from surefoot._redact import redact
from surefoot._scope import deadline, effective
from surefoot.clock import SystemClock
from surefoot.errors import ConnectionFailedError, SurefootError
from surefoot.errors import TimeoutError as StreamTimeout
from surefoot.guard._hooks import safe_call
from surefoot.guard._io_sync import drive, observe, throttle
from surefoot.llm._classify import event_error, exception_error, truncated_stream
from surefoot.llm._ops import Observe, Throttle
from surefoot.policy._attempts import SLACK, GaveUp, run
from surefoot.policy._records import attach_attempts
from surefoot.sdk._config import SdkConfig
from surefoot.sdk._exchange import Answer, Exchange, Send
from surefoot.sdk._families import Family
from surefoot.sdk._watch import StreamWatch
from surefoot.telemetry import _hub

__all__ = ["SyncDriver", "SyncWatchedStream"]


def _timeouts(request: Any, sdk: dict[str, Any], left: float | None, read: float | None) -> None:
    """Set the request's timeouts for the SDK transport: the SDK's own (``sdk``), each bounded
    by the time left (``left``), the read timeout also by the stream limit in force (``read``).
    Computed from the SDK's values every time, so a limit can be lifted again (the first
    token's, once the headers are in)."""
    read = _min(read, left)
    current = dict(sdk)
    for key in ("connect", "read", "write", "pool"):
        bound = read if key == "read" else left
        value = sdk.get(key)
        if bound is not None and (value is None or bound < value):
            current[key] = bound
    request.extensions["timeout"] = current


def _watchdog(response: Any, left: float | None, clock: Any) -> Any:
    """Sync only: shut the connection's socket when the deadline passes, so that a blocking
    read of a slow body or a stalled stream ends at the deadline (async reads are cancelled
    instead). ``None`` without a deadline, on another clock than the system's, or without a
    socket to shut."""
    if left is None or type(clock) is not SystemClock:
        return None
    stream = response.extensions.get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    return None if sock is None else shut_at(left, sock)


def _disarm(answer: Answer) -> None:
    timer, answer.timer = answer.timer, None
    if timer is not None:
        timer.disarm()


def _masked_body(answer: Answer) -> bytes:
    """The error body handed to the SDK, with a secret the server echoed masked (decoded, and
    its headers made to match, when masking changed it)."""
    try:
        text = answer.body.decode("utf-8")
    except UnicodeDecodeError:
        return answer.raw
    masked = redact(text)
    if masked == text:
        return answer.raw
    headers = answer.headers
    headers.pop("content-encoding", None)
    data = masked.encode("utf-8")
    headers["content-length"] = str(len(data))
    return data


def _silent(what: str, seconds: float, provider: str) -> StreamTimeout:
    return StreamTimeout(
        f"the {provider} stream sent nothing for {seconds:g}s ({what}); raise "
        f"{'first_token_timeout' if what == 'first token' else 'read_timeout'}= if the model "
        "is legitimately slow",
        timeout=seconds,
        kind="timeout",
        retryable=True,
    )


def _min(a: float | None, b: float | None) -> float | None:
    if a is None:
        return b
    if b is None:
        return a
    return a if a < b else b


class SyncDriver:
    """The engine as an SDK transport (mixed into the HTTP package's ``AsyncBaseTransport``)."""

    _http: Any  # the HTTP package (httpx or httpx2), set by the class factory
    _stream_type: Any  # its SyncWatchedStream class

    def __init__(self, inner: Any, cfg: SdkConfig, family: Family) -> None:
        self._inner = inner
        self._cfg = cfg
        self._family = family
        self._limiter: Any = cfg.rate_limiter

    @property
    def _surefoot_inner(self) -> Any:
        """The SDK transport this one sends through."""
        return self._inner

    def __repr__(self) -> str:
        return f"<surefoot transport over {type(self._inner).__name__} ({self._cfg.provider})>"

    def close(self) -> None:
        self._inner.close()

    def handle_request(self, request: Any) -> Any:
        cfg = self._cfg
        body = request.read()
        if request.method == "POST" and "idempotency-key" not in request.headers:
            # One key per logical request, resent by every retry (the caller's own is kept).
            request.headers["Idempotency-Key"] = idempotency_key()
        ex = Exchange(
            cfg,
            body,
            request.method,
            request.url.path,
            effective(cfg.timeout, cfg.clock),
        )
        ex.sdk_timeouts = dict(request.extensions.get("timeout") or {})
        if _hub.SINKS:
            url = request.url
            ex.start_trace(url.path, url.host, url.port or (443 if url.scheme == "https" else 80))
        try:
            out = self._drive(run(ex.plan()), ex, request)
        except BaseException as exc:
            ex.end_trace(exc)
            raise
        if type(out) is GaveUp:
            return self._failure(out, ex, request)
        response = self._deliver(out, ex, request)
        if ex.trace is not None and out.kind != "sse":  # a stream's trace ends with it
            ex.end_trace(None, out.raw if out.kind == "json" else None)
        return response

    # -- the engine's loop ---------------------------------------------------------------------

    def _drive(self, gen: Generator[Any, Any, Any], ex: Exchange, request: Any) -> Any:
        def perform(op: Any) -> Any:
            t = type(op)
            if t is Send:
                return self._send(request, op, ex)
            if t is Throttle:
                if op.timeout is None:
                    throttle(op.limiter, op.tokens)
                else:
                    with deadline(op.timeout, clock=op.limiter.clock):
                        throttle(op.limiter, op.tokens)
                return None
            if t is Observe:
                with contextlib.suppress(Exception):  # a limiter must not fail the call
                    observe(self._limiter, op.headers)
                return None
            raise AssertionError(f"not an op of the SDK transport: {op!r}")

        try:
            return drive(gen, self._cfg.clock, None, perform)
        finally:
            gen.close()

    def _send(self, request: Any, op: Send, ex: Exchange) -> Answer:
        cfg = self._cfg
        left = op.timeout
        # Until the headers, a streamed request's read timeout is also its first token's limit.
        _timeouts(request, ex.sdk_timeouts, left, _min(cfg.read_timeout, op.first_token))
        return self._exchange(request, op, ex)

    def _exchange(self, request: Any, op: Send, ex: Exchange) -> Answer:
        sent = ex.now()
        response = self._inner.handle_request(request)
        if op.first_token is not None:
            # The body's reads: only the idle limit and the deadline (the SDK transport reads
            # the read timeout when the body starts); the first token is watched by _peek.
            left = ex.left() if op.timeout is not None else None
            _timeouts(request, ex.sdk_timeouts, left, self._cfg.read_timeout)
        timer = _watchdog(response, ex.left() if op.timeout is not None else None, ex.cfg.clock)
        try:
            answer = self._read(response, op, ex, sent)
        except BaseException:
            if timer is not None:
                timer.disarm()
            raise
        answer.timer = timer
        if answer.kind != "sse" or answer.live is None:
            _disarm(answer)  # only a stream being handed on stays under the timer
        return answer

    def _read(self, response: Any, op: Send, ex: Exchange, sent: float) -> Answer:
        status = response.status_code
        headers = response.headers
        ctype = headers.get("content-type", "")
        encoded = headers.get("content-encoding", "identity").lower() not in ("", "identity")
        if status >= 400 or "json" in ctype:
            answer = Answer(status, headers, "json", response)
            source = response.stream
            try:
                buf = bytearray()
                for chunk in source:
                    buf += chunk
                answer.raw = bytes(buf)
            finally:
                source.close()  # the connection goes back to the pool
            answer.body = self._decoded(answer.raw, headers) if encoded else answer.raw
            return answer
        answer = Answer(
            status, headers, "other" if "event-stream" not in ctype or encoded else "sse", response
        )
        answer.live = response.stream
        if answer.kind == "other":
            return answer
        answer.reader = response.stream.__iter__()
        try:
            self._peek(answer, op, ex, sent)
        except BaseException:
            answer.live.close()
            raise
        if answer.eof or (answer.watch is not None and answer.watch.error is not None):
            answer.live.close()
            answer.live = None
        return answer

    def _peek(self, answer: Answer, op: Send, ex: Exchange, sent: float) -> None:
        """Read the stream up to its first part of the answer, its error or its end; the first
        token's limit counts from when the request was sent."""
        cfg = self._cfg
        watch = answer.watch = StreamWatch()
        first = op.first_token
        started = sent
        shut = None
        if first is not None:
            shut = _watchdog(answer.response, first - (ex.now() - sent), cfg.clock)
        try:
            self._peek_loop(answer, watch, first, started, ex)
        except Exception as e:
            if first is not None and ex.now() - started >= first - SLACK:
                raise _silent("first token", first, cfg.provider) from e  # sync: the shutter's
            raise
        finally:
            if shut is not None:
                shut.disarm()

    def _peek_loop(
        self, answer: Answer, watch: StreamWatch, first: float | None, started: float, ex: Exchange
    ) -> None:
        cfg = self._cfg
        held = 0
        while not (watch.started or watch.done or watch.error is not None):
            if held > watch.max_event:
                # A preamble without end (keep-alives, forever): hand it on rather than hold
                # it all; what follows is watched as usual.
                watch.started = True
                return
            wait, what = cfg.read_timeout, "idle"
            if first is not None:
                left = first - (ex.now() - started)
                if wait is None or left <= wait:
                    wait, what = left, "first token"
                if left <= 0:
                    raise _silent("first token", first, cfg.provider)
            try:
                chunk = self._next(answer.reader, wait)
            except StopIteration:
                answer.eof = True
                return
            except builtins.TimeoutError as e:
                limit = first if what == "first token" else cfg.read_timeout
                raise _silent(what, limit or 0.0, cfg.provider) from e
            answer.chunks.append(chunk)
            held += len(chunk)
            watch.feed(chunk)

    def _next(self, chunks: Iterator[bytes], wait: float | None) -> bytes:
        return next(chunks)

    def _decoded(self, raw: bytes, headers: Any) -> bytes:
        """The body as the SDK will read it (its content encoding undone), for classification."""
        try:
            return bytes(self._http.Response(200, headers=headers, content=raw).content)
        except Exception:
            return raw

    # -- outcomes ------------------------------------------------------------------------------

    def _deliver(self, answer: Answer, ex: Exchange, request: Any) -> Any:
        response = answer.response
        if answer.kind == "json":
            response.stream = self._http.ByteStream(answer.raw)
        elif answer.kind == "sse":
            response.stream = self._stream_type(self, ex, answer, request)
            answer.response = None  # no cycle response → stream → answer → response
        return response

    def _failure(self, out: GaveUp, ex: Exchange, request: Any) -> Any:
        """The outcome of a call the engine gave up on: raise the SDK's exception that is
        also surefoot's typed error (or, without a known SDK, hand an error response back)."""
        err = out.error
        attach_attempts(err, ex.records, ex.operation)
        if not isinstance(err, SurefootError):  # pragma: no cover - the exchange types them
            raise err
        ex.end_trace(err)
        family = self._family
        answer = ex.last
        raised: BaseException
        if answer is not None and err is ex.status_failure:
            response = answer.response
            response.stream = self._http.ByteStream(_masked_body(answer))
            response.request = request
            if not family.raises_own_status_errors:
                self._gave_up(ex, err)
                return response  # the SDK raises its own error for it
            response.read()  # in memory: the SDK reads the body of the error it makes
            raised = family.status_error(err, response)
        elif answer is not None and err is ex.event_failure and answer.watch is not None:
            assert answer.watch.error is not None
            response = answer.response
            response.stream = self._http.ByteStream(b"")
            response.request = request
            response.read()
            raised = family.stream_error(err, response, answer.watch.error[1])
        else:
            raised = family.transport_error(err, request)
        self._gave_up(ex, raised)
        raise raised from None

    def _gave_up(self, ex: Exchange, error: BaseException) -> None:
        """``on_give_up(last record, the error the caller sees)``, as ``Guard`` calls it."""
        hooks = self._cfg.hooks
        if hooks is not None and hooks.on_give_up is not None and ex.records:
            safe_call(hooks.on_give_up, ex.records[-1], error)


class SyncWatchedStream:
    """The body of a streamed answer as the SDK reads it: the bytes read while waiting for the
    first part, then the rest, watched (mixed into the HTTP package's ``AsyncByteStream``)."""

    def __init__(
        self,
        driver: SyncDriver,
        ex: Exchange,
        answer: Answer,
        request: Any,
    ) -> None:
        self._driver = driver
        self._ex = ex
        self._answer = answer
        self._request = request
        self._closed = False

    def __iter__(self) -> Iterator[bytes]:
        answer = self._answer
        watch = answer.watch
        assert watch is not None
        pos = 0
        for chunk in answer.chunks:
            pos += len(chunk)
            yield chunk
        answer.chunks = []
        if answer.eof:
            if not watch.done:
                self._fail(self._truncated())
            return
        cfg = self._driver._cfg
        ex = self._ex
        while True:
            left = ex.left()
            if ex.expired():
                self._fail(self._deadline(None))
            wait = _min(cfg.read_timeout, left)
            try:
                chunk = self._driver._next(answer.reader, wait)
            except StopIteration:
                break
            except builtins.TimeoutError as e:
                if ex.expired():
                    self._fail(self._deadline(e))
                silent = _silent("idle", cfg.read_timeout or 0.0, cfg.provider)
                self._fail(self._mid(silent, e))
            except Exception as e:
                if ex.expired():
                    self._fail(self._deadline(e))
                err = exception_error(e, provider=cfg.provider, model=ex.model)
                self._fail(self._mid(err, e))
            start = pos
            pos += len(chunk)
            watch.feed(chunk)
            if watch.error is not None:
                cut = watch.error_at - start
                if cut > 0:
                    yield chunk[:cut]
                self._fail(self._event_error())
            yield chunk
        _disarm(answer)
        if not watch.done:
            self._fail(self._truncated())
        ex.end_trace(None)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._ex.end_trace(None)  # read to its end, or closed early by the caller
            _disarm(self._answer)
            live = self._answer.live
            if live is not None:
                live.close()

    def _fail(self, err: BaseException) -> None:
        self._ex.end_trace(err)
        self.close()
        raise err

    # -- the errors of a stream already handed on ------------------------------------------

    def _mid(self, err: SurefootError, cause: BaseException | None) -> BaseException:
        err.context.metadata["in_stream"] = True
        err.context.operation = self._ex.operation
        if cause is not None and err.__cause__ is None:
            err.__cause__ = cause
        return self._driver._family.transport_error(err, self._request)

    def _deadline(self, cause: BaseException | None) -> BaseException:
        err = self._ex.timed_out(cause, len(self._ex.records))
        err.context.metadata["in_stream"] = True
        return self._driver._family.transport_error(err, self._request)

    def _truncated(self) -> BaseException:
        cfg = self._driver._cfg
        err: SurefootError = truncated_stream(cfg.provider, self._ex.model)
        return self._mid(err, None)

    def _event_error(self) -> BaseException:
        cfg = self._driver._cfg
        watch = self._answer.watch
        assert watch is not None and watch.error is not None
        name, data = watch.error
        err = event_error(name, data, provider=cfg.provider, model=self._ex.model)
        if err is None:
            err = ConnectionFailedError(
                f"the {cfg.provider} stream sent an error event: {data[:200]!r}"
            )
        err.context.operation = self._ex.operation
        # What the SDK would have had: the stream's 200 response (rebuilt: the stream keeps no
        # reference to its own response, so that the two do not form a cycle).
        http = self._driver._http
        answer = self._answer
        response = http.Response(answer.status, headers=answer.headers, request=self._request)
        return self._driver._family.stream_error(err, response, data)
