"""The event log: every logical call's events as JSON lines, for ``surefoot timeline``.

Switched on with :func:`surefoot.telemetry.record_events` (or ``SUREFOOT_EVENTS=path`` in the
environment, read when ``surefoot`` is imported). One object per line, each with ``v``
(the format's version, 1), ``event``, ``call`` (the call's number in the process) and ``t``
(Unix time, seconds):

- ``call``: ``entry``, ``operation``, ``name``, ``provider``, ``model``, ``stream``;
- ``attempt``: ``t_start``, ``attempt`` (zero-based), ``model``, ``status``, ``error_code``,
  ``code``, ``kind``, ``decision``, ``why``, ``reason``, ``wait``, ``outcome``, ``request_id``;
- ``fallback``: ``from``, ``to``; ``breaker``: ``name``, ``from``, ``to``; ``budget``: ``key``,
  ``paid``;
- ``response``: ``model``, ``response_id``, ``input_tokens``, ``output_tokens``,
  ``finish_reason``;
- ``end``: ``ok``, and for a failure ``error_code``, ``kind`` and ``error`` (the message).

Lines are written whole and flushed as they happen (a crashed program leaves a readable log),
under a lock (threads share one file), and every string is redacted.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from surefoot._redact import redact
from surefoot.telemetry import _hub
from surefoot.telemetry._hub import CallInfo
from surefoot.telemetry._logs import fields, outcome

__all__ = ["FORMAT_VERSION", "EventLog"]

FORMAT_VERSION = 1


def _scrub(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    return value


class EventLog:
    """A sink writing JSON lines to ``path`` (appended to) or to an open text file.

    Use it as a context manager, or call :meth:`close`; either uninstalls it.
    """

    def __init__(self, target: str | Path | IO[str]) -> None:
        if isinstance(target, (str, Path)):
            self.path: Path | None = Path(target)
            self._file: IO[str] = self.path.open("a", encoding="utf-8")
            self._owned = True
        elif callable(getattr(target, "write", None)):
            self.path = None
            self._file = target
            self._owned = False
        else:
            raise TypeError(
                f"record_events() needs a path or an open text file, got {type(target).__name__}"
            )
        self._lock = threading.Lock()
        self.closed = False

    def __repr__(self) -> str:
        return f"EventLog({str(self.path) if self.path else self._file!r})"

    def write(self, event: str, call: int, **data: Any) -> None:
        """One line (a no-op once closed)."""
        line = {"v": FORMAT_VERSION, "event": event, "call": call, "t": round(time.time(), 6)}
        line.update({k: _scrub(v) for k, v in data.items()})
        text = json.dumps(line, ensure_ascii=False, default=str) + "\n"
        with self._lock:
            if self.closed:
                return
            self._file.write(text)
            self._file.flush()

    def open(self, info: CallInfo) -> _CallLog:
        self.write(
            "call",
            info.id,
            entry=info.entry,
            operation=info.operation,
            name=info.name,
            provider=info.provider,
            model=info.model,
            stream=info.stream,
        )
        return _CallLog(self, info.id)

    def close(self) -> None:
        """Uninstall and close the file (when this log opened it)."""
        _hub.uninstall(self)
        with self._lock:
            if self.closed:
                return
            self.closed = True
            if self._owned:
                self._file.close()

    def __enter__(self) -> EventLog:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class _CallLog:
    __slots__ = ("call", "current", "log", "t_start")

    def __init__(self, log: EventLog, call: int) -> None:
        self.log = log
        self.call = call
        self.t_start: float | None = None
        self.current: str | None = None

    def attempt_started(self, n: int) -> None:
        self.t_start = time.time()

    def attempt_ended(self, record: Any, error: BaseException | None) -> None:
        f = fields(record, error)
        del f["surefoot_event"]
        if f["model"] is None:
            f["model"] = self.current
        f["outcome"] = outcome(record, error)
        now = time.time()
        start, self.t_start = self.t_start, None
        self.log.write("attempt", self.call, t_start=round(start or now, 6), **f)

    def model(self, name: str) -> None:
        old, self.current = self.current, name
        if old is not None and old != name:
            self.log.write("fallback", self.call, **{"from": old, "to": name})

    def breaker_changed(self, name: str, old: Any, new: Any) -> None:
        self.log.write("breaker", self.call, name=name, **{"from": str(old), "to": str(new)})

    def budget_spent(self, budget: Any, key: str | None, paid: bool) -> None:
        if not paid:
            self.log.write("budget", self.call, key=key, paid=False)

    def response(
        self,
        model: str | None,
        response_id: str | None,
        input_tokens: int | None,
        output_tokens: int | None,
        finish_reason: str | None,
    ) -> None:
        self.log.write(
            "response",
            self.call,
            model=model,
            response_id=response_id,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            finish_reason=finish_reason,
        )

    def end(self, error: BaseException | None) -> None:
        if error is None:
            self.log.write("end", self.call, ok=True)
            return
        self.log.write(
            "end",
            self.call,
            ok=False,
            error_code=getattr(error, "error_code", None) or type(error).__qualname__,
            kind=getattr(error, "kind", None),
            error=str(error)[:500],
        )
