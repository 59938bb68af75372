"""The OpenTelemetry sink: GenAI spans and metrics for every logical call and attempt.

Installed by :func:`surefoot.telemetry.instrument` (the ``surefoot[otel]`` extra brings
``opentelemetry-api``; an SDK and an exporter are the application's). Spans, named and
attributed per the OpenTelemetry GenAI semantic conventions:

- one span per logical call, ``"{gen_ai.operation.name} {gen_ai.request.model}"`` (``chat
  gpt-4o``; ``execute_tool {name}`` for an agent action; ``guard {operation}`` for a guarded
  function), kind ``INTERNAL``, with ``gen_ai.operation.name``, ``gen_ai.provider.name``,
  ``gen_ai.request.model``, ``gen_ai.request.stream``, ``server.address``/``server.port``, and
  on success ``gen_ai.response.model``, ``gen_ai.response.id``,
  ``gen_ai.response.finish_reasons``, ``gen_ai.usage.input_tokens``/``output_tokens``; on
  failure ``error.type`` (surefoot's kind, else the HTTP status, else the exception's class)
  and an ``ERROR`` status; ``surefoot.attempts`` and ``surefoot.retries`` at the end;
- one child span per attempt, kind ``CLIENT``, named like its parent for the model it went to,
  with ``surefoot.attempt`` (zero-based), ``http.request.resend_count`` (from the second
  attempt on), and on failure ``error.type``, ``surefoot.error_code``, ``surefoot.decision``,
  ``surefoot.why`` and ``http.response.status_code``;
- span events on the call span: ``surefoot.wait`` (``surefoot.wait.seconds``,
  ``surefoot.why``, ``surefoot.reason``), ``surefoot.fallback`` (``surefoot.fallback.from``,
  ``surefoot.fallback.to``), ``surefoot.breaker.state_change`` (``surefoot.breaker.name``,
  ``.from``, ``.to``) and ``surefoot.budget.refused``.

While a plain call runs, its span (and each attempt's span, during the attempt) is the current
span, so the HTTP client's own instrumentation nests under it, on the sync and the async
drivers alike. A stream's spans are parented explicitly instead (a stream may be read from
another task).

Metrics: ``gen_ai.client.operation.duration`` (s) and ``gen_ai.client.token.usage``
(``{token}``, by ``gen_ai.token.type``) for model calls; ``surefoot.call.duration`` (s) for
every call; counters ``surefoot.attempts`` (by ``surefoot.outcome``), ``surefoot.retries``
(by ``error.type``), ``surefoot.fallbacks``, ``surefoot.breaker.transitions``,
``surefoot.budget.refusals``; histogram ``surefoot.wait.duration`` (s, by ``surefoot.why``);
gauges ``surefoot.breaker.state`` (0 closed, 1 half-open, 2 open) and
``surefoot.budget.level`` (tokens left in a local retry budget).

Every string attribute passes through :func:`surefoot._redact.redact`.
"""

from __future__ import annotations

import functools
import time
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import metrics as otel_metrics
from opentelemetry import trace as otel_trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from surefoot import _redact
from surefoot._redact import redact
from surefoot._version import __version__
from surefoot.telemetry._hub import CallInfo
from surefoot.telemetry._logs import outcome as attempt_outcome

__all__ = ["OtelSink", "error_type"]

_SCOPE = "surefoot"
_STATE_VALUE = {"closed": 0, "half_open": 1, "open": 2}
_MODEL_CALLS = frozenset(("llm", "sdk"))


def error_type(error: BaseException | None, status: int | None = None) -> str | None:
    """``error.type``: surefoot's kind, else the HTTP status, else the exception's class."""
    if error is None:
        return None
    kind = getattr(error, "kind", None)
    if isinstance(kind, str) and kind:
        return kind
    if status is None:
        ctx = getattr(error, "context", None)
        status = getattr(ctx, "http_status", None)
    if isinstance(status, int):
        return str(status)
    cls = type(error)
    return (
        cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
    )


@functools.lru_cache(maxsize=2048)
def _masked(value: str, registered: int) -> str:
    return redact(value)


def _safe(value: str) -> str:
    """``redact(value)``, remembered: attribute values (models, kinds, reasons, names) repeat
    on every call. The number of registered secrets is part of the key, so a secret registered
    later is never served from an older entry."""
    return _masked(value, _redact_epoch())


def _clean(attrs: dict[str, Any]) -> dict[str, Any]:
    """``attrs`` without ``None`` values, every string redacted."""
    out: dict[str, Any] = {}
    for k, v in attrs.items():
        if v is None:
            continue
        out[k] = _safe(v) if isinstance(v, str) else v
    return out


class OtelSink:
    """Spans and metrics through a tracer and a meter provider (the global ones by default)."""

    def __init__(self, tracer_provider: Any = None, meter_provider: Any = None) -> None:
        self.tracer = otel_trace.get_tracer(_SCOPE, __version__, tracer_provider=tracer_provider)
        meter = otel_metrics.get_meter(_SCOPE, __version__, meter_provider=meter_provider)
        self.op_duration = meter.create_histogram(
            "gen_ai.client.operation.duration", unit="s", description="GenAI operation duration."
        )
        self.token_usage = meter.create_histogram(
            "gen_ai.client.token.usage",
            unit="{token}",
            description="Number of input and output tokens used.",
        )
        self.call_duration = meter.create_histogram(
            "surefoot.call.duration", unit="s", description="Duration of a logical call."
        )
        self.attempts = meter.create_counter(
            "surefoot.attempts", unit="{attempt}", description="Attempts, by outcome."
        )
        self.retries = meter.create_counter(
            "surefoot.retries", unit="{retry}", description="Retries, by the failure's kind."
        )
        self.waits = meter.create_histogram(
            "surefoot.wait.duration", unit="s", description="Waits before a retry."
        )
        self.fallbacks = meter.create_counter(
            "surefoot.fallbacks", unit="{fallback}", description="Moves to the next model."
        )
        self.transitions = meter.create_counter(
            "surefoot.breaker.transitions",
            unit="{transition}",
            description="Circuit breaker state changes.",
        )
        self.breaker_state = meter.create_gauge(
            "surefoot.breaker.state", description="0 closed, 1 half-open, 2 open."
        )
        self.refusals = meter.create_counter(
            "surefoot.budget.refusals",
            unit="{retry}",
            description="Retries the retry budget refused.",
        )
        self.budget_level = meter.create_gauge(
            "surefoot.budget.level", unit="{token}", description="Tokens left in a retry budget."
        )
        #: Attribute sets already built (redacted), by what they are made of: the same calls
        #: repeat, and building them is most of this sink's own cost.
        self._attrs: dict[tuple[Any, ...], dict[str, Any]] = {}

    def attrs(self, key: tuple[Any, ...], build: Any) -> dict[str, Any]:
        """The attribute set of ``key`` (``build()`` the first time); never mutate it."""
        found = self._attrs.get(key)
        if found is None:
            if len(self._attrs) > 4096:
                self._attrs.clear()
            found = self._attrs[key] = build()
        return found

    def open(self, info: CallInfo) -> _Call:
        return _Call(self, info)


def _redact_epoch() -> int:
    """Changes when a secret is registered: cached attribute sets are then built afresh."""
    return len(_redact._registered)


def _base(info: CallInfo) -> dict[str, Any]:
    op = info.operation
    return _clean(
        {
            "gen_ai.operation.name": op,
            "gen_ai.provider.name": info.provider,
            "gen_ai.request.model": info.model,
            "gen_ai.tool.name": info.name if op == "execute_tool" else None,
            "surefoot.entry": info.entry,
            "surefoot.operation": info.name if op == "guard" else None,
        }
    )


def _span_extra(info: CallInfo) -> dict[str, Any]:
    return _clean(
        {
            "gen_ai.request.stream": info.stream if info.entry in _MODEL_CALLS else None,
            "server.address": info.server_address,
            "server.port": info.server_port,
        }
    )


def _span_name(operation: str, target: str | None) -> str:
    return f"{operation} {target}" if target else operation


class _Call:
    """One logical call's spans and metrics."""

    __slots__ = (
        "attempt",
        "attempt_token",
        "attempts",
        "base",
        "ctx",
        "current",
        "info",
        "pending",
        "retries",
        "sink",
        "span",
        "started",
        "token",
    )

    def __init__(self, sink: OtelSink, info: CallInfo) -> None:
        self.sink = sink
        self.info = info
        self.current = info.model
        self.started = time.perf_counter()
        op = info.operation
        key = (info.entry, op, info.name, info.provider, info.model, _redact_epoch())
        self.base = sink.attrs(("base", *key), lambda: _base(info))
        attrs = sink.attrs(
            ("span", *key, info.stream, info.server_address, info.server_port),
            lambda: {**self.base, **_span_extra(info)},
        )
        target = info.model if info.entry in _MODEL_CALLS else info.name
        self.span = sink.tracer.start_span(
            _safe(_span_name(op, target)), kind=SpanKind.INTERNAL, attributes=attrs
        )
        self.ctx = otel_trace.set_span_in_context(self.span)
        self.token = None if info.stream else otel_context.attach(self.ctx)
        self.attempt: Any = None
        self.attempt_token: Any = None
        self.pending: Any = None  # a successful attempt's span, ended with the response
        self.attempts = 0
        self.retries = 0

    # -- attempts ------------------------------------------------------------------------------

    def _attempt_span(self, n: int) -> Any:
        info = self.info
        target = self.current if info.entry in _MODEL_CALLS else info.name
        attrs = dict(self.base)
        attrs["surefoot.attempt"] = n
        if self.current is not None:
            attrs["gen_ai.request.model"] = _safe(self.current)
        if n > 0:
            attrs["http.request.resend_count"] = n
        return self.sink.tracer.start_span(
            _safe(_span_name(info.operation, target)),
            context=self.ctx,
            kind=SpanKind.CLIENT,
            attributes=attrs,
        )

    def attempt_started(self, n: int) -> None:
        self._close_attempt()
        self.attempt = self._attempt_span(n)
        if not self.info.stream:
            self.attempt_token = otel_context.attach(otel_trace.set_span_in_context(self.attempt))

    def _detach_attempt(self) -> None:
        token, self.attempt_token = self.attempt_token, None
        if token is not None:
            otel_context.detach(token)

    def _close_attempt(self) -> None:
        self._detach_attempt()
        span, self.attempt = self.attempt, None
        if span is not None:
            span.end()
        pending, self.pending = self.pending, None
        if pending is not None:
            pending.end()

    def attempt_ended(self, record: Any, error: BaseException | None) -> None:
        self._detach_attempt()
        span, self.attempt = self.attempt, None
        n = getattr(record, "attempt", 0)
        if span is None:  # rejected before it ran, or a deadline that passed during a wait
            span = self._attempt_span(n)
        s = self.sink
        decision = getattr(record, "decision", None)
        outcome = attempt_outcome(record, error)
        if error is None:
            self.pending = span  # the response's attributes land on it too
        else:
            status = getattr(record, "status", None)
            etype = error_type(error, status)
            why = decision.why.name if decision is not None else None
            span.set_attributes(
                _clean(
                    {
                        "error.type": etype,
                        "surefoot.error_code": getattr(record, "error_code", None),
                        "surefoot.decision": decision.action if decision is not None else None,
                        "surefoot.why": why,
                        "surefoot.outcome": outcome,
                        "http.response.status_code": status,
                    }
                )
            )
            span.set_status(Status(StatusCode.ERROR, redact(str(error))[:300]))
            _stamp(error, span)
            span.end()
            if decision is not None and decision.retry:
                self.retries += 1
                s.retries.add(1, _clean({**self.base, "error.type": etype}))
                wait = float(getattr(record, "wait", 0.0) or 0.0)
                self.span.add_event(
                    "surefoot.wait",
                    _clean(
                        {
                            "surefoot.wait.seconds": wait,
                            "surefoot.why": why,
                            "surefoot.reason": decision.reason,
                            "surefoot.attempt": n,
                            "error.type": etype,
                        }
                    ),
                )
                s.waits.record(wait, _clean({**self.base, "surefoot.why": why}))
        self.attempts += 1
        model = getattr(record, "model", None) or self.current
        etype = error_type(error)
        base = self.base
        s.attempts.add(
            1,
            s.attrs(
                ("attempts", id(base), model, outcome, etype, _redact_epoch()),
                lambda: _clean(
                    {
                        **base,
                        "gen_ai.request.model": model,
                        "surefoot.outcome": outcome,
                        "error.type": etype,
                    }
                ),
            ),
        )

    # -- the chain, the breaker, the budget ----------------------------------------------------

    def model(self, name: str) -> None:
        old, self.current = self.current, name
        if old is not None and old != name:
            self.span.add_event(
                "surefoot.fallback",
                _clean({"surefoot.fallback.from": old, "surefoot.fallback.to": name}),
            )
            self.sink.fallbacks.add(
                1,
                _clean(
                    {
                        **self.base,
                        "surefoot.fallback.from": old,
                        "surefoot.fallback.to": name,
                    }
                ),
            )

    def breaker_changed(self, name: str, old: Any, new: Any) -> None:
        attrs = _clean(
            {
                "surefoot.breaker.name": name,
                "surefoot.breaker.from": str(old),
                "surefoot.breaker.to": str(new),
            }
        )
        self.span.add_event("surefoot.breaker.state_change", attrs)
        self.sink.transitions.add(1, attrs)
        value = _STATE_VALUE.get(str(new))
        if value is not None:
            self.sink.breaker_state.set(value, _clean({"surefoot.breaker.name": name}))

    def budget_spent(self, budget: Any, key: str | None, paid: bool) -> None:
        attrs = _clean({"surefoot.budget.key": key})
        if not paid:
            self.span.add_event("surefoot.budget.refused", attrs)
            self.sink.refusals.add(1, attrs)
        store = getattr(budget, "store", None)
        if budget is not None and not getattr(store, "async_io", False):
            try:
                level = budget.tokens(key)
            except Exception:  # a shared store that cannot answer: no reading
                return
            self.sink.budget_level.set(float(level), attrs)

    # -- the end -------------------------------------------------------------------------------

    def response(
        self,
        model: str | None,
        response_id: str | None,
        input_tokens: int | None,
        output_tokens: int | None,
        finish_reason: str | None,
    ) -> None:
        attrs = _clean(
            {
                "gen_ai.response.model": model,
                "gen_ai.response.id": response_id,
                "gen_ai.usage.input_tokens": input_tokens,
                "gen_ai.usage.output_tokens": output_tokens,
            }
        )
        if finish_reason:
            attrs["gen_ai.response.finish_reasons"] = (_safe(finish_reason),)
        self.span.set_attributes(attrs)
        if self.pending is not None:
            self.pending.set_attributes(attrs)
        metric = _clean(
            {
                **self.base,
                "gen_ai.request.model": self.current,
                "gen_ai.response.model": model,
            }
        )
        for kind, count in (("input", input_tokens), ("output", output_tokens)):
            if count is not None:
                self.sink.token_usage.record(count, {**metric, "gen_ai.token.type": kind})

    def end(self, error: BaseException | None) -> None:
        self._close_attempt()
        span = self.span
        etype = error_type(error)
        span.set_attributes({"surefoot.attempts": self.attempts, "surefoot.retries": self.retries})
        if error is not None:
            span.set_attribute("error.type", _safe(etype or "error"))
            span.set_status(Status(StatusCode.ERROR, redact(str(error))[:300]))
            _stamp(error, span)
        elapsed = time.perf_counter() - self.started
        base, model = self.base, self.current
        attrs = self.sink.attrs(
            ("end", id(base), model, etype, _redact_epoch()),
            lambda: _clean({**base, "gen_ai.request.model": model, "error.type": etype}),
        )
        if self.info.entry in _MODEL_CALLS:
            self.sink.op_duration.record(elapsed, attrs)
        self.sink.call_duration.record(elapsed, attrs)
        token, self.token = self.token, None
        if token is not None:
            otel_context.detach(token)
        span.end()


def _stamp(error: BaseException, span: Any) -> None:
    """Put the span's trace and span ids on a surefoot error's context (when it has none)."""
    ctx = getattr(error, "context", None)
    if ctx is None or not hasattr(ctx, "trace_id") or ctx.trace_id is not None:
        return
    sc = span.get_span_context()
    if sc.is_valid:
        try:
            ctx.trace_id = f"{sc.trace_id:032x}"
            ctx.span_id = f"{sc.span_id:016x}"
        except Exception:  # a frozen context: leave it
            return
