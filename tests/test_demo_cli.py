"""``surefoot demo`` as a command: bad arguments, a step that misbehaves (exit 1), a real
endpoint (plain calls only, the key never shown), and Ctrl-C in a real process."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from surefoot.demo import STEPS, Check, Step, StepEnv, _runner
from surefoot.testing.faults import FaultServer
from test_demo import call_demo

SECRET = "sk-live-DEMO-SECRET-0123456789abcdef"
PARSER = (
    "import sys, argparse; from surefoot.cli import _demo\n"
    "p = argparse.ArgumentParser(prog='surefoot'); _demo.register(p.add_subparsers())\n"
    "a = p.parse_args(sys.argv[1:]); sys.exit(a.handler(a))\n"
)


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def by_key(key: str) -> Step:
    return next(s for s in STEPS if s.key == key)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--api-key", "k"], "--base-url"),
        (["--model", "m"], "--base-url"),
        (["--base-url", "http://127.0.0.1:9"], "--model"),
    ],
)
def test_bad_arguments_exit_2(argv: list[str], message: str) -> None:
    code, out, err = call_demo(*argv)
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err


def test_html_into_missing_directory_exits_2(tmp_path: Path) -> None:
    code, _out, err = call_demo("--html", str(tmp_path / "nope" / "r.html"))
    assert code == 2 and "no such directory" in err


def test_a_step_that_misbehaves_fails_the_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    # Two 429s instead of one: the client retries twice, the step expects exactly one retry.
    rl = by_key("rate_limit")
    changed = dataclasses.replace(rl, params={**rl.params, "hits": 2, "retry_after": 0.2})
    monkeypatch.setattr(_runner, "STEPS", (by_key("tools"), changed))
    code, out, err = call_demo("--json")
    assert code == 1, err
    doc = json.loads(out)
    assert doc["passed"] is False
    steps = {s["key"]: s for s in doc["steps"]}
    assert steps["tools"]["status"] == "passed"
    failed = steps["rate_limit"]
    assert failed["status"] == "failed" and failed["retries"] == 2
    bad = [c for c in failed["checks"] if not c["ok"]]
    assert [c["expect"] for c in bad][:1] == ["exactly one retry"]
    assert "FAILED not as expected: rate_limit" in err


def test_a_step_that_raises_is_a_failed_step_not_a_crash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def boom(env: StepEnv, params: Mapping[str, float]) -> list[Check]:
        raise RuntimeError("the scenario broke")

    broken = dataclasses.replace(by_key("context"), body=boom)
    monkeypatch.setattr(_runner, "STEPS", (broken,))
    code, out, _err = call_demo("--json")
    assert code == 1
    (only,) = json.loads(out)["steps"]
    assert only["status"] == "failed"
    assert only["error"] == "RuntimeError: the scenario broke"


def test_real_endpoint_runs_plain_calls_and_never_shows_the_key() -> None:
    from surefoot.demo._scenario import server_models

    with FaultServer(models=server_models()) as endpoint:
        code, out, err = call_demo(
            "--json",
            "--base-url",
            endpoint.base_url + "/v1",
            "--api-key",
            SECRET,
            "--model",
            "surefoot-agent",
        )
        seen = endpoint.requests
    assert code == 0, err
    doc = json.loads(out)
    assert doc["mode"] == "endpoint" and doc["passed"] is True
    statuses = {s["key"]: s["status"] for s in doc["steps"]}
    assert statuses["tools"] == "passed"
    assert {k for k, v in statuses.items() if v == "skipped"} == set(statuses) - {"tools"}
    for s in doc["steps"]:
        if s["status"] == "skipped":
            assert s["skip_reason"] == "skipped (needs the fault server)"
    assert len(seen) == 2 and all(r.headers["authorization"] == "[REDACTED]" for r in seen)
    assert SECRET not in out and SECRET not in err
    assert "skipped" in err


def test_real_endpoint_key_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_demo_env(), SECRET)
    from surefoot.demo._scenario import server_models

    with FaultServer(models=server_models()) as endpoint:
        code, out, err = call_demo(
            "--base-url", endpoint.base_url, "--model", "surefoot-agent", "--style", "anthropic"
        )
        keys = {r.headers.get("x-api-key") for r in endpoint.requests}
    assert code == 0, err
    assert keys == {"[REDACTED]"}
    assert SECRET not in out and SECRET not in err
    assert "SKIPPED (needs the fault server)" in out
    assert "1 step(s) that ran behaved as expected; 7 skipped" in out


def _demo_env() -> str:
    from surefoot.cli._demo import API_KEY_ENV

    return API_KEY_ENV


# -- a real process ---------------------------------------------------------------------------


def _spawn(*argv: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", PARSER, "demo", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "120"},
        # A shell runs background jobs with SIGINT ignored, and a child inherits that: give
        # the child the default disposition, so Python installs its Ctrl-C handler.
        preexec_fn=_sigint_default,
    )


def test_ctrl_c_stops_cleanly() -> None:
    proc = _spawn()
    try:
        assert proc.stdout is not None
        port = None
        lines = []
        for line in proc.stdout:
            lines.append(line)
            found = re.search(r"fault server http://127\.0\.0\.1:(\d+)", line)
            if found:
                port = int(found.group(1))
            if "429 RATE_LIMIT_EXCEEDED" in line:  # now waiting out the Retry-After
                break
        assert port is not None, "".join(lines)
        proc.send_signal(signal.SIGINT)
        try:
            rest, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            rest, err = proc.communicate()
            raise AssertionError(f"no clean stop 30 s after Ctrl-C; stderr: {err}") from None
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "Traceback" not in rest
    assert "interrupted" in err
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=2):
        pass


def test_the_command_in_a_real_process() -> None:
    proc = _spawn("--json")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    doc = json.loads(out)
    assert doc["passed"] is True and doc["summary"]["steps_passed"] == 8
    assert "Traceback" not in err
