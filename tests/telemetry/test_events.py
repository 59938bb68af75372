"""The event log and ``surefoot timeline``: a user's own run rendered as the demo's report,
in the terminal, as JSON and as HTML checked in headless Chromium."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import surefoot
import surefoot.telemetry as telemetry
from surefoot.demo._events import EventLogError, parse_events
from surefoot.llm import AsyncLLMClient, LLMClient
from surefoot.telemetry import _hub
from surefoot.testing.clock import FakeClock
from surefoot.testing.faults import FaultServer, Match, Model, Rule, Status

KEY = "sk-ant-api03-Ev3ntLogSecret0123456789abcdefghijklmn"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "160"}
    return subprocess.run(
        [sys.executable, "-m", "surefoot", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def _bad_day(mode: str, log: Path) -> None:
    """A 429, a fallback and a breaker that opens, then a call it rejects, then a failure."""
    rules = [Rule(fault=Status(503), match=Match(model="primary"))]
    breaker = surefoot.CircuitBreaker(failure_threshold=2, name="primary")
    with (
        telemetry.record_events(log),
        FaultServer(models=[Model("*", reply="ok")], rules=rules) as srv,
    ):
        assert _hub.SINKS
        srv.enqueue(Status(429, retry_after=0))
        kw: dict[str, Any] = {
            "base_url": srv.base_url + "/v1",
            "api_key": KEY,
            "model": ["primary", "backup"],
            "retries": 1,
            "retry_base": 0.01,
            "breaker": {"primary": breaker},
        }
        if mode == "sync":
            client = LLMClient(**kw)
            client.run("hi")
            client.run("hi")
        else:

            async def go() -> None:
                async with AsyncLLMClient(**kw) as c:
                    await c.run("hi")
                    await c.run("hi")

            asyncio.run(go())
        with pytest.raises(surefoot.NetworkError):
            surefoot.Guard(retries=1, clock=FakeClock(), operation="sync files").call(
                _raises(f"refused, key {KEY}")
            )
    assert _hub.SINKS == ()


def _raises(message: str):  # type: ignore[no-untyped-def]
    def fn() -> None:
        raise ConnectionRefusedError(message)

    return fn


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_the_event_log_has_every_event_in_order(tmp_path: Path, mode: str) -> None:
    log = tmp_path / "events.jsonl"
    _bad_day(mode, log)
    lines = _lines(log)
    assert KEY not in log.read_text() and "[REDACTED]" in log.read_text()
    first = [x["event"] for x in lines if x["call"] == lines[0]["call"]]
    assert first == [
        "call",
        "attempt",
        "breaker",
        "attempt",
        "fallback",
        "attempt",
        "response",
        "end",
    ]
    assert all(x["v"] == 1 and isinstance(x["t"], float) for x in lines)
    attempts = [x for x in lines if x["event"] == "attempt"]
    assert [a["outcome"] for a in attempts[:3]] == ["retry", "fallback", "ok"]
    assert attempts[3]["why"] == "CIRCUIT_OPEN"
    ends = [x for x in lines if x["event"] == "end"]
    assert [e["ok"] for e in ends] == [True, True, False]
    assert ends[2]["error_code"] == "SUREFOOT-NETWORK"


def test_timeline_renders_the_log_in_the_terminal_json_and_html(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    _bad_day("sync", log)
    proc = _cli("timeline", str(log), "--html", str(tmp_path / "report.html"))
    assert proc.returncode == 1, proc.stderr  # one logged call failed
    out = proc.stdout
    assert "surefoot timeline · 3 logged call(s)" in out
    assert re.search(r"#\d+ chat primary", out) and re.search(r"#\d+ guard sync files", out)
    assert "429 RATE_LIMIT_EXCEEDED" in out and "breaker primary closed → open" in out
    assert "fallback primary → backup" in out and "rejected" in out
    assert "FAILED 2/3 logged calls succeeded" in out
    page = (tmp_path / "report.html").read_text()
    assert "<h1>surefoot timeline</h1>" in page and "2/3 calls succeeded" in page
    assert KEY not in page and KEY not in out

    js = _cli("timeline", str(log), "--json")
    doc = json.loads(js.stdout)
    assert doc["mode"] == "events" and doc["summary"]["calls"] == 3
    assert doc["summary"]["breaker_saved"] == 1
    steps = doc["steps"]
    assert [a["outcome"] for a in steps[0]["attempts"]] == ["retry", "fallback", "ok"]
    assert steps[2]["passed"] is False


@pytest.mark.browser
def test_timeline_html_renders_in_headless_chromium(tmp_path: Path) -> None:
    from test_demo import _browser, _png_pixels

    log = tmp_path / "events.jsonl"
    _bad_day("async", log)
    report = tmp_path / "report.html"
    assert _cli("timeline", str(log), "--html", str(report)).returncode == 1
    dom = _browser(tmp_path, "--dump-dom", report.resolve().as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert 'id="timeline"' in dom.stdout and re.search(r"#\d+ chat primary", dom.stdout)
    shot = tmp_path / "shot.png"
    proc = _browser(
        tmp_path, f"--screenshot={shot}", "--window-size=1280,1200", report.resolve().as_uri()
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    width, height, colors = _png_pixels(shot)
    assert (width, height) == (1280, 1200) and len(colors) > 20


def test_the_environment_switches_the_log_on(tmp_path: Path) -> None:
    log = tmp_path / "env.jsonl"
    code = textwrap.dedent(
        """
        import surefoot
        from surefoot.testing.clock import FakeClock
        calls = iter([TimeoutError("slow"), "ok"])
        def fn():
            v = next(calls)
            if isinstance(v, Exception):
                raise v
            return v
        print(surefoot.Guard(retries=1, clock=FakeClock()).call(fn))
        """
    )
    env = {**os.environ, "SUREFOOT_EVENTS": str(log)}
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr
    assert [x["event"] for x in _lines(log)] == ["call", "attempt", "attempt", "end"]


def test_bad_event_logs_get_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(EventLogError, match=r"line 2 is not JSON"):
        parse_events(['{"v":1,"event":"call","call":1,"t":1.0}', "{oops"])
    with pytest.raises(EventLogError, match=r"'call' must be an integer"):
        parse_events(['{"v":1,"event":"end","call":"x","t":1.0}'])
    with pytest.raises(EventLogError, match=r"'t' must be a number"):
        parse_events(['{"v":1,"event":"end","call":1}'])
    loaded = parse_events(['{"v":2,"event":"call","call":1,"t":1}', '{"v":1,"event":"x"}'])
    assert loaded.skipped == 2 and loaded.calls == 0
    missing = _cli("timeline", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    proc = _cli("timeline", str(bad))
    assert proc.returncode == 2 and "line 1 is not JSON" in proc.stderr


def test_a_call_without_an_end_is_shown_unfinished() -> None:
    lines = [
        '{"v":1,"event":"call","call":7,"t":10.0,"entry":"llm","operation":"chat","model":"m"}',
        '{"v":1,"event":"attempt","call":7,"t":10.5,"t_start":10.0,"attempt":0,"model":"m",'
        '"status":500,"kind":"server_error","decision":"retry","wait":1.0,"outcome":"retry"}',
    ]
    result = parse_events(lines).result
    (step,) = result.steps
    assert step.status == "failed" and not result.passed
    assert step.checks[0].observed.startswith("no end event")
    assert step.attempts[0].t_end == pytest.approx(0.5)
