"""The telemetry hub: custom sinks, a sink that raises, what a missing OpenTelemetry says."""

from __future__ import annotations

import io
import json
import logging
import subprocess
import sys
import textwrap
from typing import Any

import pytest

import surefoot
import surefoot.telemetry as telemetry
from surefoot.telemetry import _hub
from surefoot.testing.clock import FakeClock


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []

    def open(self, info: telemetry.CallInfo) -> Recorder:
        self.events.append(("open", info.entry, info.operation, info.name))
        return self

    def attempt_started(self, n: int) -> None:
        self.events.append(("start", n))

    def attempt_ended(self, record: Any, error: BaseException | None) -> None:
        self.events.append(("end", record.attempt, type(error).__name__ if error else None))

    def end(self, error: BaseException | None) -> None:
        self.events.append(("done", type(error).__name__ if error else None))


class Raising:
    def open(self, info: telemetry.CallInfo) -> Raising:
        return self

    def attempt_started(self, n: int) -> None:
        raise RuntimeError("sink bug")


def _flaky() -> Any:
    calls = iter([ConnectionResetError("reset"), "ok"])

    def fn() -> str:
        v = next(calls)
        if isinstance(v, Exception):
            raise v
        return v

    return fn


def test_a_custom_sink_hears_every_event_in_order() -> None:
    rec = Recorder()
    telemetry.install(rec)
    telemetry.install(rec)  # once, however often
    try:
        assert (rec,) == _hub.SINKS
        guard = surefoot.Guard(retries=1, clock=FakeClock(), operation="op")
        assert guard.call(_flaky()) == "ok"
    finally:
        telemetry.uninstall(rec)
    assert _hub.SINKS == ()
    assert rec.events == [
        ("open", "guard", "guard", "op"),
        ("start", 0),
        ("end", 0, "NetworkError"),
        ("start", 1),
        ("end", 1, None),
        ("done", None),
    ]


def test_a_sink_that_raises_never_breaks_the_call(caplog: pytest.LogCaptureFixture) -> None:
    bad = Raising()
    telemetry.install(bad)
    try:
        with caplog.at_level(logging.ERROR, logger="surefoot.telemetry"):
            assert surefoot.Guard(retries=1, clock=FakeClock()).call(_flaky()) == "ok"
    finally:
        telemetry.uninstall(bad)
    assert any("sink bug" in (r.exc_text or "") for r in caplog.records)


def test_a_sink_without_open_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="needs an open"):
        telemetry.install(object())  # type: ignore[arg-type]


def test_the_event_log_writes_to_an_open_file_and_stops_when_closed() -> None:
    out = io.StringIO()
    with telemetry.record_events(out) as log:
        assert "EventLog" in repr(log)
        surefoot.Guard(retries=1, clock=FakeClock()).call(_flaky())
    surefoot.Guard(retries=1, clock=FakeClock()).call(_flaky())  # after close: not logged
    lines = [json.loads(x) for x in out.getvalue().splitlines()]
    assert [x["event"] for x in lines] == ["call", "attempt", "attempt", "end"]
    with pytest.raises(TypeError, match="needs a path or an open text file"):
        telemetry.record_events(42)  # type: ignore[arg-type]


def test_instrument_without_opentelemetry_says_what_to_install() -> None:
    code = textwrap.dedent(
        """
        import sys
        sys.modules["opentelemetry"] = None  # as if not installed
        import surefoot.telemetry
        try:
            surefoot.telemetry.instrument()
        except ModuleNotFoundError as exc:
            print(exc)
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert "pip install 'surefoot[otel]'" in proc.stdout, proc.stderr


def test_importing_surefoot_loads_no_opentelemetry() -> None:
    code = (
        "import sys, surefoot; surefoot.Guard(retries=1).call(lambda: 1); "
        "print(any(m.startswith('opentelemetry') for m in sys.modules))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.stdout.strip() == "False", proc.stderr
