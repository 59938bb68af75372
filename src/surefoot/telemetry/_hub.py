"""Where the engine's runs meet the installed sinks: :class:`CallInfo`, :class:`Trace` and the
registry.

Every entry point (``Guard``, the LLM clients, the wrapped SDKs' transport, agent actions) asks
:func:`start` for a trace when a logical call begins. With no sink installed it gets ``None``
and does nothing more: the cost of telemetry switched off is one truthiness test of a module
global. With sinks installed the trace hands each of them the call's events, in order:

``attempt_started(n)`` · ``attempt_ended(record, error)`` · ``breaker_changed(name, old, new)`` ·
``budget_spent(budget, key, paid)`` · ``model(name)`` (the model a chain moves to) ·
``response(model, response_id, input_tokens, output_tokens, finish_reason)`` · ``end(error)``.

A sink is any object with ``open(info) -> handle``; the handle has those methods (each
optional). A sink that raises is logged once per call on ``surefoot.telemetry`` and never
breaks the run. The events are emitted from the driver's context (the engine's loop yields
them as :class:`~surefoot.policy._attempts.Notify` ops), so a sink may set context variables
(an OpenTelemetry span made current) in ``attempt_started`` and reset them in
``attempt_ended``.
"""

from __future__ import annotations

import _thread
import itertools
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["SINKS", "CallInfo", "Sink", "Trace", "install", "start", "uninstall"]


def _logger() -> Any:
    import logging

    return logging.getLogger("surefoot.telemetry")


@dataclass(frozen=True, slots=True)
class CallInfo:
    """What a logical call is, for the sinks.

    - ``entry``: the entry point: ``"guard"``, ``"llm"``, ``"sdk"`` or ``"agent"``.
    - ``operation``: the GenAI operation name (``"chat"``, ``"embeddings"``,
      ``"execute_tool"``), or ``"guard"`` for a guarded function.
    - ``name``: the guard's ``operation`` or the agent action's name.
    - ``provider``: ``"openai"``, ``"anthropic"``... when known; ``model`` the requested model
      (the first of a chain); ``stream`` whether the answer streams.
    - ``server_address`` / ``server_port``: the endpoint, when there is one.
    - ``id``: a number unique in the process, for event logs.
    """

    entry: str
    operation: str
    name: str | None = None
    provider: str | None = None
    model: str | None = None
    stream: bool = False
    server_address: str | None = None
    server_port: int | None = None
    id: int = 0


class Sink(Protocol):
    """What :func:`install` accepts: ``open(info)`` returns the call's handle (or ``None`` to
    ignore the call)."""

    def open(self, info: CallInfo) -> object: ...


#: The installed sinks (a tuple, replaced whole: readers never lock).
SINKS: tuple[Sink, ...] = ()
_lock = _thread.allocate_lock()  # not threading: importing the engine stays light
_ids = itertools.count(1)


def install(sink: Sink) -> None:
    """Send every logical call's events to ``sink`` from now on (once, however often)."""
    global SINKS
    if not callable(getattr(sink, "open", None)):
        raise TypeError(f"a telemetry sink needs an open(info) method, got {type(sink).__name__}")
    with _lock:
        if not any(s is sink for s in SINKS):
            SINKS = (*SINKS, sink)


def uninstall(sink: Sink) -> None:
    """Stop sending events to ``sink`` (a no-op for a sink not installed)."""
    global SINKS
    with _lock:
        SINKS = tuple(s for s in SINKS if s is not sink)


class Trace:
    """One logical call's events, handed to every sink's handle. Never raises."""

    __slots__ = ("_ended", "_handles", "info")

    def __init__(self, info: CallInfo, handles: list[object]) -> None:
        self.info = info
        self._ended = False
        self._handles = handles

    def _emit(self, method: str, *args: Any) -> None:
        for h in self._handles:
            fn = getattr(h, method, None)
            if fn is None:
                continue
            try:
                fn(*args)
            except Exception:
                _logger().exception("surefoot: telemetry sink %r raised in %s; ignored", h, method)

    def attempt_started(self, n: int) -> None:
        self._emit("attempt_started", n)

    def attempt_ended(self, record: Any, error: BaseException | None) -> None:
        self._emit("attempt_ended", record, error)

    def breaker_changed(self, name: str, old: Any, new: Any) -> None:
        self._emit("breaker_changed", name, old, new)

    def budget_spent(self, budget: Any, key: str | None, paid: bool) -> None:
        """A retry asked the retry budget for a token (``paid`` false: refused)."""
        self._emit("budget_spent", budget, key, paid)

    def model(self, name: str) -> None:
        self._emit("model", name)

    def response(
        self,
        model: str | None,
        response_id: str | None,
        input_tokens: int | None,
        output_tokens: int | None,
        finish_reason: str | None,
    ) -> None:
        self._emit("response", model, response_id, input_tokens, output_tokens, finish_reason)

    def end(self, error: BaseException | None) -> None:
        """The call ended (with ``error``, or ``None`` for a success). Only the first call
        counts: a driver may end a trace from a ``finally`` as well."""
        if self._ended:
            return
        self._ended = True
        self._emit("end", error)


def start(
    entry: str,
    operation: str,
    *,
    name: str | None = None,
    provider: str | None = None,
    model: str | None = None,
    stream: bool = False,
    server_address: str | None = None,
    server_port: int | None = None,
) -> Trace | None:
    """A trace of a new logical call, or ``None`` when no sink is installed."""
    sinks = SINKS
    if not sinks:
        return None
    info = CallInfo(
        entry,
        operation,
        name,
        provider,
        model,
        stream,
        server_address,
        server_port,
        next(_ids),
    )
    handles: list[object] = []
    for sink in sinks:
        try:
            handle = sink.open(info)
        except Exception:
            _logger().exception("surefoot: telemetry sink %r raised in open; ignored", sink)
            continue
        if handle is not None:
            handles.append(handle)
    return Trace(info, handles) if handles else None
