"""An event log (:mod:`surefoot.telemetry._events`) read back as the demo's report.

:func:`load_events` turns a JSON-lines event log into a :class:`DemoResult` whose steps are the
logged calls, so ``surefoot timeline`` prints the demo's terminal timeline and writes the same
HTML report for a user's own runs. Each call is one lane: its attempts (times, model, error,
kind, decision, wait, outcome), its marks (breaker changes, fallbacks, budget refusals, the
answer), and one check, whether it succeeded. Times are seconds since the log's first event.

Bad input gets a :class:`EventLogError` that names the line and what is wrong; lines of a
newer format version, or of unknown events, are skipped (counted in ``skipped``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from surefoot.demo._records import AttemptRow, Check, DemoResult, Mark, StepResult

__all__ = ["EventLogError", "Loaded", "load_events", "parse_events"]

_VERSION = 1
_KNOWN = frozenset(("call", "attempt", "fallback", "breaker", "budget", "response", "end"))


class EventLogError(ValueError):
    """An event log that cannot be read: the message says which line and why."""


@dataclass(slots=True)
class Loaded:
    """What :func:`parse_events` read: the report, and how many lines it skipped."""

    result: DemoResult
    skipped: int = 0
    calls: int = 0
    notes: list[str] = field(default_factory=list)


def _num(obj: dict[str, Any], key: str, where: str) -> float:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise EventLogError(f"{where}: {key!r} must be a number, got {value!r}")
    return float(value)


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class _Call:
    def __init__(self, number: int, obj: dict[str, Any], t: float) -> None:
        self.number = number
        self.obj = obj
        self.t_start = t
        self.t_end = t
        self.attempts: list[dict[str, Any]] = []
        self.marks: list[tuple[float, str, str]] = []
        self.end: dict[str, Any] | None = None


def parse_events(lines: Iterable[str], *, source: str = "events") -> Loaded:
    """The report of the event log ``lines`` (see the module docstring)."""
    calls: dict[int, _Call] = {}
    skipped = 0
    t0: float | None = None
    for i, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text:
            continue
        where = f"{source}, line {i}"
        try:
            obj = json.loads(text)
        except ValueError as exc:
            raise EventLogError(
                f"{where} is not JSON ({exc}); an event log has one JSON object per line, as "
                "surefoot.telemetry.record_events() writes it"
            ) from None
        if not isinstance(obj, dict):
            raise EventLogError(f"{where}: expected a JSON object, got {type(obj).__name__}")
        version = obj.get("v")
        event = obj.get("event")
        if version != _VERSION or event not in _KNOWN:
            skipped += 1
            continue
        call = obj.get("call")
        if isinstance(call, bool) or not isinstance(call, int):
            raise EventLogError(f"{where}: 'call' must be an integer, got {call!r}")
        t = _num(obj, "t", where)
        t0 = t if t0 is None else min(t0, t)
        c = calls.get(call)
        if c is None:
            c = calls[call] = _Call(call, obj if event == "call" else {}, t)
        c.t_end = max(c.t_end, t)
        if event == "call":
            c.obj = obj
            c.t_start = t
        elif event == "attempt":
            obj["t_start"] = _num(obj, "t_start", where) if "t_start" in obj else t
            t0 = min(t0, obj["t_start"])
            c.attempts.append(obj)
        elif event == "fallback":
            c.marks.append((t, "note", f"fallback {obj.get('from')} → {obj.get('to')}"))
        elif event == "breaker":
            c.marks.append(
                (t, "breaker", f"breaker {obj.get('name')} {obj.get('from')} → {obj.get('to')}")
            )
        elif event == "budget":
            c.marks.append((t, "note", f"retry budget refused a retry ({obj.get('key')})"))
        elif event == "response":
            used = ""
            if obj.get("input_tokens") is not None or obj.get("output_tokens") is not None:
                used = f" · {obj.get('input_tokens')} in, {obj.get('output_tokens')} out"
            c.marks.append((t, "note", f"answered by {obj.get('model')}{used}"))
        else:
            c.end = obj
    base = t0 or 0.0
    steps = [_step(c, base) for c in sorted(calls.values(), key=lambda c: (c.t_start, c.number))]
    end = max((s.t_end for s in steps), default=0.0)
    result = DemoResult(mode="events", base_url=source, style="", steps=steps, wall_time=end)
    return Loaded(result, skipped, len(steps))


def _title(c: _Call) -> str:
    o = c.obj
    op = _str(o.get("operation")) or "call"
    target = _str(o.get("model")) if o.get("entry") in ("llm", "sdk") else _str(o.get("name"))
    return f"{op} {target}" if target else op


def _step(c: _Call, base: float) -> StepResult:
    key = f"call-{c.number}"
    o = c.obj
    story = " · ".join(
        x
        for x in (
            _str(o.get("entry")),
            _str(o.get("provider")),
            "streamed" if o.get("stream") else None,
        )
        if x
    )
    step = StepResult(key=key, title=f"#{c.number} {_title(c)}", story=story or "a logged call")
    step.calls = 1
    step.t_start = c.t_start - base
    step.t_end = c.t_end - base
    for a in c.attempts:
        step.attempts.append(
            AttemptRow(
                step=key,
                t_start=a["t_start"] - base,
                t_end=float(a["t"]) - base,
                model=_str(a.get("model")) or _str(o.get("name")) or "-",
                attempt=_int(a.get("attempt")) or 0,
                status=_int(a.get("status")),
                error_code=_str(a.get("error_code")),
                code=_str(a.get("code")),
                kind=_str(a.get("kind")),
                decision=_str(a.get("decision")),
                reason=_str(a.get("reason")) or "",
                wait=float(a.get("wait") or 0.0),
                outcome="rejected"
                if a.get("why") == "CIRCUIT_OPEN"
                else _str(a.get("outcome")) or "ok",
                why=_str(a.get("why")),
            )
        )
    for t, kind, text in c.marks:
        step.marks.append(Mark(key, t - base, kind, text))  # type: ignore[arg-type]
    end = c.end
    if end is None:
        step.status = "failed"
        step.checks.append(Check("the call ended", False, "no end event (still running?)"))
    elif end.get("ok"):
        step.checks.append(Check("the call succeeded", True, "ok"))
    else:
        step.status = "failed"
        what = _str(end.get("error_code")) or "error"
        why = _str(end.get("kind"))
        msg = _str(end.get("error")) or ""
        step.error = msg or None
        observed = f"{what}{f' ({why})' if why else ''}: {msg}"[:300]
        step.checks.append(Check("the call succeeded", False, observed))
    return step


def load_events(path: str | Path) -> Loaded:
    """:func:`parse_events` of the file at ``path``."""
    p = Path(path)
    try:
        with p.open(encoding="utf-8") as f:
            return parse_events(f, source=str(p))
    except UnicodeDecodeError as exc:
        raise EventLogError(f"{p} is not UTF-8 text ({exc})") from None
