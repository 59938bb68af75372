"""One SDK request on the engine's attempt loop (pure): what an attempt sends and how its answer
is judged.

An attempt yields :class:`Send`; the transport's driver sends the request through the SDK's
own transport and answers with an :class:`Answer`: the status and headers, and

- ``"json"``: the whole body (an error status, or a JSON answer), read and closed;
- ``"sse"``: an event stream read up to its first event that carries part of the answer (or
  its error, or its end), the bytes kept to hand on unchanged, the connection still open;
- ``"other"``: anything else (a file download...), untouched and unread.

The attempt judges it: an error status is classified like any HTTP failure, a JSON body whose
object is an error (an error inside a 200) too, an event stream whose error event or end is
read before anything was handed on (even in the same read as the first tokens) is a failure
nothing has seen yet (so it is retried), and a first part that does not come within
``first_token_timeout`` or ``read_timeout`` is a retryable timeout. The engine
(:func:`surefoot.policy._attempts.run`) decides the rest: retries, server hints and
``max_hint``, the breaker, the budget, the deadline, records and hooks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Generator
from typing import Any

from surefoot.errors import RateLimitError, RunTimeoutError, SurefootError
from surefoot.llm._classify import (
    body_error,
    event_error,
    exception_error,
    http_error,
    response_error,
    truncated_stream,
)
from surefoot.llm._ops import Observe, Throttle
from surefoot.policy._attempts import SLACK, DeadlineHit, Failed, Plan
from surefoot.policy._records import AttemptRecord, describe
from surefoot.policy._types import Decision
from surefoot.sdk._config import SdkConfig
from surefoot.sdk._watch import StreamWatch
from surefoot.telemetry import _hub, _logs

__all__ = ["Answer", "Exchange", "Send"]

_MODEL = re.compile(rb'"model"\s*:\s*"([^"\\]{1,200})"')
_STREAM = re.compile(rb'"stream"\s*:\s*true')


class Send:
    """Send the request once; ``timeout`` is the time left before the deadline (``None``:
    none), ``first_token`` the longest wait for the first part of a streamed answer."""

    __slots__ = ("first_token", "timeout")

    def __init__(self, timeout: float | None, first_token: float | None) -> None:
        self.timeout = timeout
        self.first_token = first_token


class Answer:
    """What one attempt received (see the module docstring)."""

    __slots__ = (
        "body",
        "chunks",
        "eof",
        "headers",
        "kind",
        "live",
        "raw",
        "reader",
        "response",
        "status",
        "timer",
        "watch",
    )

    def __init__(self, status: int, headers: Any, kind: str, response: Any) -> None:
        self.status = status
        self.headers = headers
        self.kind = kind
        #: The SDK transport's response: handed on with its body replaced by what was read.
        self.response = response
        #: ``"json"``: the body as sent (``raw``) and with its content encoding undone (``body``).
        self.raw = b""
        self.body = b""
        #: ``"sse"`` and ``"other"``: the response's open body stream and its chunk iterator.
        self.live: Any = None
        self.reader: Any = None
        #: ``"sse"``: the chunks read so far, what they said, and whether the stream ended.
        self.chunks: list[bytes] = []
        self.watch: StreamWatch | None = None
        self.eof = False
        #: Sync: the timer that shuts the socket at the deadline while the body is read.
        self.timer: Any = None


class Exchange:
    """One request of the SDK through the engine: the :class:`Plan`'s ``attempt``, ``decide``
    and ``make_record``, and what the transport needs to hand the outcome back."""

    __slots__ = (
        "_model",
        "body",
        "cfg",
        "deadline",
        "event_failure",
        "last",
        "now",
        "operation",
        "records",
        "sdk_timeouts",
        "status_failure",
        "trace",
    )

    def __init__(
        self, cfg: SdkConfig, body: bytes, method: str, path: str, deadline: float | None
    ) -> None:
        self.cfg = cfg
        self.body = body
        self.deadline = deadline
        self.now = cfg.clock.now
        self.operation = cfg.operation or f"{cfg.provider} {method} {path}"
        self._model: str | None = None
        self.records: list[AttemptRecord] = []
        self.last: Answer | None = None
        #: The failure an error status gave, and the one an early error event gave: the
        #: transport raises them as the SDK's own status / stream errors.
        self.status_failure: SurefootError | None = None
        self.event_failure: SurefootError | None = None
        #: The request's own timeouts as the SDK set them (the transport bounds them).
        self.sdk_timeouts: dict[str, Any] = {}
        #: The telemetry trace of this logical request, when a sink listens.
        self.trace: _hub.Trace | None = None

    def start_trace(self, path: str, host: str | None, port: int | None) -> None:
        """Begin this request's telemetry trace (when a sink listens)."""
        model = self.model
        self.trace = _hub.start(
            "sdk",
            "embeddings" if path.endswith("/embeddings") else "chat",
            provider=self.cfg.provider,
            model=None if model == "-" else model,
            stream=self.streaming,
            server_address=host,
            server_port=port,
        )

    def end_trace(self, error: BaseException | None, raw: bytes | None = None) -> None:
        """End the trace: with ``error``, or a success whose JSON body ``raw`` is read for the
        response's model, id, usage and finish reason."""
        trace = self.trace
        if trace is None:
            return
        if error is None and raw:
            trace.response(*response_facts(raw))
        trace.end(error)

    @property
    def model(self) -> str:
        """The request's ``model`` (``"-"`` when it names none), read once from its body."""
        if self._model is None:
            m = _MODEL.search(self.body)
            self._model = m.group(1).decode("utf-8", "replace") if m else "-"
        return self._model

    @property
    def streaming(self) -> bool:
        """Whether the request asks for a streamed answer (``"stream": true``)."""
        return b'"stream"' in self.body and _STREAM.search(self.body) is not None

    def plan(self) -> Plan:
        cfg = self.cfg
        budget, key = cfg.budget_for(self.model) if cfg.budget is not None else (None, None)
        breaker = cfg.breaker_for(self.model) if (cfg.breaker or cfg.breakers) else None
        return Plan(
            decide=self.decide,
            timed_out=self.timed_out,
            deadline=self.deadline,
            breaker=breaker,
            budget=budget,
            budget_key=key,
            hooks=cfg.hooks,
            attempt=self.attempt,
            passthrough=(RunTimeoutError,),
            make_record=self.record,
            records=self.records,
            record_success=False,
            timed=cfg.hooks is not None or self.deadline is not None or self.trace is not None,
            trace=self.trace,
            log=_logs.SDK,
        )

    def left(self) -> float | None:
        if self.deadline is None:
            return None
        left = self.deadline - self.now()
        return left if left > 0.0 else 0.0

    def expired(self) -> bool:
        """Whether the deadline has passed (within the engine's :data:`SLACK`)."""
        if self.deadline is None:
            return False
        return self.deadline - self.now() <= SLACK

    # -- the Plan's rules ----------------------------------------------------------------------

    def attempt(self, n: int) -> Generator[Any, Any, Answer | Failed]:
        cfg = self.cfg
        provider = cfg.provider
        self.last = None
        limiter = cfg.rate_limiter
        if limiter is not None:
            try:
                yield Throttle(limiter, 0.0, self.left())
            except RateLimitError as exc:  # no slot before max_wait or the deadline: not sent
                exc.context.metadata["rate_limiter"] = limiter.key
                return Failed(exc)
        try:
            first = cfg.first_token_timeout if self.streaming else None
            answer: Answer = yield Send(self.left(), first)
        except DeadlineHit:
            raise
        except Exception as exc:
            err = exception_error(exc, provider=provider, model=self.model)
            return Failed(self._context(err, n))
        self.last = answer
        if limiter is not None:
            yield Observe(answer.headers)
        status = answer.status
        if status >= 400:
            err = http_error(
                status, answer.headers, answer.body, provider=provider, model=self.model
            )
            self.status_failure = self._context(err, n)
            return Failed(err)
        if answer.kind == "json":
            err2 = self._error_in_200(answer) or self._not_json(answer)
            if err2 is not None:
                self.status_failure = self._context(err2, n)
                return Failed(err2)
            return answer
        watch = answer.watch
        if answer.kind == "sse" and watch is not None:
            if watch.error is not None:
                name, data = watch.error
                found = event_error(name, data, provider=provider, model=self.model)
                if found is None:  # an error event the classifier cannot read
                    found = truncated_stream(provider, self.model)
                self.event_failure = self._context(found, n)
                return Failed(found)
            if answer.eof and not watch.started:
                return Failed(self._context(truncated_stream(provider, self.model), n))
        return answer

    def decide(
        self, err: BaseException, n: int, now: float, deadline: float | None, streak: int
    ) -> Decision:
        return self.cfg.policy.decide(err, n, now, deadline, streak=streak)

    def record(
        self,
        n: int,
        error: BaseException | None,
        decision: Decision | None,
        wait: float,
        started: float | None,
        ended: float,
    ) -> AttemptRecord:
        if error is None:
            return AttemptRecord(n, None, None, None, None, 0.0, None, started, ended, self.model)
        return describe(error, n, decision, wait, started, ended, model=self.model)

    def timed_out(self, cause: BaseException | None, attempt: int) -> RunTimeoutError:
        t = self.cfg.timeout
        what = f"the call's {t:g}s deadline" if t is not None else "the deadline"
        err = RunTimeoutError(
            f"{what} elapsed during attempt {attempt + 1} of {self.operation}",
            timeout=t,
            operation=self.operation,
        )
        err.__cause__ = cause
        return err

    # -- helpers -------------------------------------------------------------------------------

    def _context(self, err: SurefootError, n: int) -> SurefootError:
        ctx = err.context
        if ctx.attempt is None:
            ctx.attempt = n
        if ctx.operation is None:
            ctx.operation = self.operation
        answer = self.last
        if answer is not None and ctx.request_id is None:
            rid = answer.headers.get("x-request-id") or answer.headers.get("request-id")
            if rid:
                ctx.request_id = rid
        return err

    def _not_json(self, answer: Answer) -> SurefootError | None:
        """A 2xx JSON answer that is visibly not whole (cut before its closing brace): a
        retryable failure, never handed to the SDK (which would raise a bare
        ``JSONDecodeError``). Only its ends are looked at: no parse on the answer's path."""
        body = answer.body.strip()
        if body[:1] in (b"{", b"[") and body[-1:] in (b"}", b"]"):
            return None
        return body_error(
            answer.status,
            answer.body,
            provider=self.cfg.provider,
            model=self.model,
            why="the JSON answer is incomplete",
            content_type=answer.headers.get("content-type"),
        )

    def _error_in_200(self, answer: Answer) -> SurefootError | None:
        """The provider's error object sent with a 2xx status, or ``None``."""
        body = answer.body
        if b'"error"' not in body:
            return None
        try:
            obj = json.loads(body)
        except ValueError:
            return None
        if not isinstance(obj, dict):
            return None
        if not (isinstance(obj.get("error"), dict) or obj.get("type") == "error"):
            return None
        err = response_error(obj, provider=self.cfg.provider, model=self.model)
        if err is not None and err.context.http_status is None:
            err.context.http_status = answer.status
        return err


def response_facts(
    raw: bytes,
) -> tuple[str | None, str | None, int | None, int | None, str | None]:
    """``(model, id, input tokens, output tokens, finish reason)`` of a JSON answer of the
    OpenAI (chat or Responses) or Anthropic APIs; ``None`` for what it does not say."""
    try:
        obj = json.loads(raw)
    except ValueError:
        return None, None, None, None, None
    if not isinstance(obj, dict):
        return None, None, None, None, None
    usage = obj.get("usage") if isinstance(obj.get("usage"), dict) else {}
    assert isinstance(usage, dict)
    tin = usage.get("input_tokens", usage.get("prompt_tokens"))
    tout = usage.get("output_tokens", usage.get("completion_tokens"))
    finish = obj.get("stop_reason")
    choices = obj.get("choices")
    if finish is None and isinstance(choices, list) and choices and isinstance(choices[0], dict):
        finish = choices[0].get("finish_reason")
    if finish is None and obj.get("object") == "response":
        finish = obj.get("status")
    model, rid = obj.get("model"), obj.get("id")
    return (
        model if isinstance(model, str) else None,
        rid if isinstance(rid, str) else None,
        tin if isinstance(tin, int) else None,
        tout if isinstance(tout, int) else None,
        finish if isinstance(finish, str) else None,
    )
