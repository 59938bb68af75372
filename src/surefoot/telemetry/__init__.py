"""Seeing every retry, wait, fallback and breaker change: OpenTelemetry, logs, event logs.

- :func:`instrument` sends OpenTelemetry GenAI spans and metrics for every logical call and
  attempt of ``LLMClient``/``AsyncLLMClient``, the wrapped SDKs (:func:`surefoot.wrap`),
  :class:`surefoot.Guard` (and ``@resilient``) and agent actions. It needs the ``otel`` extra
  (``pip install 'surefoot[otel]'``); without it, or before it is called, nothing is paid
  beyond one test of an empty tuple per call.
- Structured log records, one per attempt decision, go to the ``surefoot`` logger hierarchy
  (quiet until the application configures logging): see :mod:`surefoot.telemetry._logs`.
- :func:`record_events` writes a JSON-lines event log that ``surefoot timeline events.jsonl
  --html report.html`` renders as the demo's report.
- :func:`install` / :func:`uninstall` take any other sink (an object with ``open(info)``).
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING, Any

from surefoot.telemetry._hub import CallInfo, Sink, install, uninstall

if TYPE_CHECKING:
    from pathlib import Path

    from surefoot.telemetry._events import EventLog

__all__ = [
    "CallInfo",
    "EventLog",
    "Sink",
    "install",
    "instrument",
    "is_instrumented",
    "record_events",
    "uninstall",
    "uninstrument",
]

_otel_sink: Any = None


def __getattr__(name: str) -> Any:
    if name == "EventLog":  # loaded when used: the engine imports only the hub
        from surefoot.telemetry._events import EventLog

        return EventLog
    raise AttributeError(f"module 'surefoot.telemetry' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def instrument(*, tracer_provider: Any = None, meter_provider: Any = None) -> None:
    """Emit OpenTelemetry spans and metrics (through the given providers, else the global
    ones). Calling it again replaces the providers."""
    global _otel_sink
    try:
        from surefoot.telemetry._otel import OtelSink
    except ImportError as exc:
        raise ModuleNotFoundError(
            "surefoot.telemetry.instrument() needs the OpenTelemetry API, which is not "
            f"installed ({exc}); install it with: pip install 'surefoot[otel]'"
        ) from exc
    sink = OtelSink(tracer_provider, meter_provider)
    if _otel_sink is not None:
        uninstall(_otel_sink)
    _otel_sink = sink
    install(sink)


def uninstrument() -> None:
    """Stop emitting OpenTelemetry spans and metrics."""
    global _otel_sink
    if _otel_sink is not None:
        uninstall(_otel_sink)
        _otel_sink = None


def is_instrumented() -> bool:
    return _otel_sink is not None


def record_events(target: str | Path | IO[str]) -> EventLog:
    """Start writing the event log to ``target`` (a path, appended to, or an open text file);
    ``close()`` the returned :class:`EventLog` (or use it as a context manager) to stop."""
    from surefoot.telemetry._events import EventLog

    log = EventLog(target)
    install(log)
    return log
