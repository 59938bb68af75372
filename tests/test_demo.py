"""``surefoot demo`` end to end, in process: every step passes with the counts the scenario
expects, the JSON document is complete, the non-TTY timeline is plain text, and the HTML report
renders in headless Chromium."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import shutil
import struct
import subprocess
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from surefoot.cli import _demo

CHROMIUM = "/usr/bin/chromium"
STEP_KEYS = [
    "tools",
    "rate_limit",
    "burst",
    "stream",
    "cut",
    "context",
    "breaker",
    "deadline",
]


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    html: Path

    @property
    def doc(self) -> dict[str, Any]:
        doc: dict[str, Any] = json.loads(self.stdout)
        return doc


def call_demo(*argv: str) -> tuple[int, str, str]:
    """Run ``surefoot demo ARGV`` through the command's own handler, in process."""
    parser = argparse.ArgumentParser(prog="surefoot")
    _demo.register(parser.add_subparsers())
    args = parser.parse_args(["demo", *argv])
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = args.handler(args)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    html = tmp_path_factory.mktemp("demo") / "report.html"
    code, out, err = call_demo("--json", "--html", str(html))
    return Run(code, out, err, html)


def step(doc: dict[str, Any], key: str) -> dict[str, Any]:
    found: dict[str, Any] = next(s for s in doc["steps"] if s["key"] == key)
    return found


def outcomes(s: dict[str, Any]) -> list[str]:
    return [a["outcome"] for a in s["attempts"]]


def test_demo_passes_end_to_end(run: Run) -> None:
    assert run.code == 0, run.stderr
    doc = run.doc
    assert doc["passed"] is True
    assert doc["mode"] == "fault-server" and doc["schema"] == 1
    assert [s["key"] for s in doc["steps"]] == STEP_KEYS
    for s in doc["steps"]:
        assert s["status"] == "passed", s
        assert s["checks"] and all(c["ok"] for c in s["checks"]), s["checks"]
    assert doc["wall_time"] < 12  # about 6.6 s of real waits and stalls


def test_demo_counts(run: Run) -> None:
    doc = run.doc
    summary = doc["summary"]
    assert summary == {
        "calls": 14,
        "attempts": 22,
        "retries": 5,
        "waited": summary["waited"],
        "breaker_saved": 3,
        "server_requests": 22,
        "steps_passed": 8,
        "steps_failed": 0,
        "steps_skipped": 0,
    }
    # Retry-After 1 s + 2 x 0.5 s + one 0.5 s reconnect + the cut stream's one backoff wait.
    assert 2.5 <= summary["waited"] <= 3.1

    rl = step(doc, "rate_limit")
    assert outcomes(rl) == ["retry", "ok", "ok"]
    first = rl["attempts"][0]
    assert (first["status"], first["code"], first["error_code"]) == (
        429,
        "RATE_LIMIT_EXCEEDED",
        "SUREFOOT-RATELIMIT",
    )
    assert first["kind"] == "rate_limit" and first["decision"] == "retry"
    assert first["wait"] == 1.0 and first["reason"] == "server hint"

    burst = step(doc, "burst")
    assert outcomes(burst) == ["retry", "retry", "ok", "ok"]
    assert [a["status"] for a in burst["attempts"][:2]] == [503, 503]
    assert all(0 < a["wait"] <= 0.5 for a in burst["attempts"][:2])  # max_delay=0.5

    stream = step(doc, "stream")
    assert outcomes(stream) == ["reconnect", "ok"]
    cut = stream["attempts"][0]
    assert (cut["code"], cut["kind"], cut["decision"]) == (
        "MODEL_OVERLOADED",
        "model_overloaded",
        "retry",
    )
    assert 0 < cut["wait"] <= 0.5  # the overload's own 5 s, capped by max_delay
    assert stream["server_requests"] == 2

    cut_step = step(doc, "cut")
    assert [(a["model"], a["outcome"]) for a in cut_step["attempts"]] == [
        ("writer-eu", "restart"),
        ("writer-eu", "fallback"),
        ("writer-us", "ok"),
    ]
    assert cut_step["server_requests"] == 3
    assert [m["text"] for m in cut_step["marks"]] == [
        "restart: writer-eu starts the answer over",
        "restart: writer-us starts the answer over",
    ]

    ctx = step(doc, "context")
    assert [(a["model"], a["outcome"]) for a in ctx["attempts"]] == [
        ("surefoot-mini", "fallback"),
        ("surefoot-max", "ok"),
    ]
    assert ctx["attempts"][0]["kind"] == "context_too_long"

    br = step(doc, "breaker")
    assert outcomes(br) == ["fail"] * 3 + ["rejected"] * 3 + ["ok", "ok"]
    assert br["rejected_by_breaker"] == 3 and br["calls"] == 7
    assert br["server_requests"] == 5  # 3 failures + the probe's two turns: none rejected
    assert [m["text"] for m in br["marks"] if m["kind"] == "breaker"] == [
        "breaker closed → open",
        "breaker open → half_open",
        "breaker half_open → closed",
    ]

    dl = step(doc, "deadline")
    assert outcomes(dl) == ["deadline"]
    assert dl["attempts"][0]["code"] == "TASK_DEADLINE_EXCEEDED"
    assert 1.4 <= dl["duration"] <= 2.0

    tools = step(doc, "tools")
    assert sorted(m["text"].split("(")[0] for m in tools["marks"]) == [
        "get_flights",
        "get_weather",
    ]


def test_json_attempt_fields(run: Run) -> None:
    fields = {"error_code", "code", "kind", "decision", "reason", "wait", "outcome", "status"}
    for s in run.doc["steps"]:
        for a in s["attempts"]:
            assert fields <= a.keys()
            assert a["t_start"] <= a["t_end"]


def test_timeline_on_a_pipe_is_plain_text(run: Run) -> None:
    text = run.stderr  # with --json the timeline goes to stderr
    assert "\x1b[" not in text and "\r" not in text
    for title in (
        "429 with Retry-After",
        "503 burst",
        "overload mid-stream",
        "deadline ends a stalled run",
    ):
        assert title in text
    assert re.search(r"429 RATE_LIMIT_EXCEEDED\s+rate_limit\s+retry · server hint\s+1\.00s", text)
    assert "breaker closed → open" in text
    assert "PASSED every step behaved as the scenario expects" in text
    assert "calls the breaker saved" in text


def test_html_is_self_contained(run: Run) -> None:
    page = run.html.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "<svg" in page and 'id="timeline"' in page
    assert not re.search(r"\b(src|href)\s*=", page)
    assert "<script" not in page and "<link" not in page and "@import" not in page
    assert "url(http" not in page


def test_the_reports_keep_ordinary_words_that_look_like_credentials(run: Run) -> None:
    # "token exactly" once matched the credential pattern and lost its second word.
    said = "the caller gets every token exactly once"
    assert said in run.html.read_text(encoding="utf-8")
    assert any(said in step["story"] for step in run.doc["steps"])
    assert "[REDACTED]" not in run.html.read_text(encoding="utf-8")


# -- the report in a real browser ------------------------------------------------------------


def _chromium() -> str:
    if os.path.exists(CHROMIUM):
        return CHROMIUM
    if os.environ.get("SUREFOOT_REQUIRE_BROWSER") == "1":
        pytest.fail("chromium is required (SUREFOOT_REQUIRE_BROWSER=1) but not installed")
    pytest.skip("chromium not installed: apt-get install chromium")


def _browser(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [
        _chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp / 'profile'}",
        *args,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


def _png_pixels(path: Path) -> tuple[int, int, set[bytes]]:
    """Width, height and the set of distinct pixels (sampled) of an 8-bit RGB(A) PNG."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    width = height = 0
    color = depth = 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    assert depth == 8 and color in (2, 6), (depth, color)
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    seen: set[bytes] = set()
    prev = bytearray(stride)
    for y in range(height):
        line = raw[y * (stride + 1) : (y + 1) * (stride + 1)]
        ftype, cur = line[0], bytearray(line[1:])
        for i in range(stride):
            a = cur[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                cur[i] = (cur[i] + a) & 0xFF
            elif ftype == 2:
                cur[i] = (cur[i] + b) & 0xFF
            elif ftype == 3:
                cur[i] = (cur[i] + (a + b) // 2) & 0xFF
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                cur[i] = (cur[i] + pred) & 0xFF
        if y % 16 == 0:
            seen.update(bytes(cur[i : i + 3]) for i in range(0, stride, bpp * 8))
        prev = cur
    return width, height, seen


@pytest.mark.browser
def test_html_renders_in_headless_chromium(run: Run, tmp_path: Path) -> None:
    url = run.html.resolve().as_uri()
    dom = _browser(tmp_path, "--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    html = dom.stdout
    assert "<svg" in html and 'id="timeline"' in html
    for title in (
        "agent task with tool calls",
        "429 with Retry-After",
        "503 burst",
        "overload mid-stream",
        "context too long → bigger model",
        "outage → breaker opens, closes",
        "deadline ends a stalled run",
    ):
        assert title in html, title
    assert "PASSED" in html and 'id="summary"' in html

    shot = tmp_path / "shot.png"
    proc = _browser(tmp_path, f"--screenshot={shot}", "--window-size=1280,1600", url)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert shot.exists() and shot.stat().st_size > 10_000
    width, height, colors = _png_pixels(shot)
    assert (width, height) == (1280, 1600)
    assert len(colors) > 20  # not a blank or uniform page
    keep = os.environ.get("SUREFOOT_DEMO_SCREENSHOT")
    if keep:
        shutil.copy(shot, keep)
