"""Rules, YAML scenarios and their errors, and the ``surefoot faults`` command."""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from surefoot.cli import _faults
from surefoot.testing.faults import (
    ContentFilter,
    FaultServer,
    Hang,
    Match,
    Model,
    Rule,
    Scenario,
    ScenarioError,
    Status,
    StreamError,
    ToolCall,
    Turn,
    load_scenario,
    parse_scenario,
)

OPENAI = "/v1/chat/completions"
ANTHROPIC = "/v1/messages"


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def status_of(srv: FaultServer, path: str = OPENAI, model: str = "gpt-test", **extra: Any) -> int:
    conn = http.client.HTTPConnection(srv.host, srv.port, timeout=5)
    body = {"model": model, "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}
    conn.request("POST", path, json.dumps({**body, **extra}).encode())
    resp = conn.getresponse()
    resp.read()
    conn.close()
    return resp.status


# -- rules ------------------------------------------------------------------------------------


def test_every_nth() -> None:
    with FaultServer(rules=[Rule(Status(503), Match(every=3))]) as srv:
        assert [status_of(srv) for _ in range(7)] == [200, 200, 503, 200, 200, 503, 200]


def test_probability_is_seeded_and_deterministic() -> None:
    def run() -> list[int]:
        rule = Rule(Status(500), Match(probability=0.5, seed=42))
        with FaultServer(rules=[rule]) as srv:
            return [status_of(srv) for _ in range(20)]

    first = run()
    assert first == run()
    assert 3 <= first.count(500) <= 17


def test_by_path_model_stream_and_times() -> None:
    rules = [
        Rule(Status(529), Match(path=ANTHROPIC)),
        Rule(Status(404), Match(model="gpt-4*", times=1)),
        Rule(Status(500), Match(stream=True)),
    ]
    with FaultServer(rules=rules) as srv:
        assert status_of(srv, ANTHROPIC) == 529
        assert status_of(srv, OPENAI, model="gpt-4o") == 404
        assert status_of(srv, OPENAI, model="gpt-4o") == 200  # times=1
        assert status_of(srv, OPENAI, model="other") == 200
        assert status_of(srv, OPENAI, stream=True) == 500


def test_time_window() -> None:
    with FaultServer(rules=[Rule(Status(503), Match(start=0.0, end=0.3))]) as srv:
        assert status_of(srv) == 503
        time.sleep(0.35)
        assert status_of(srv) == 200
        srv.reset()  # restarts the window's clock
        assert status_of(srv) == 503


def test_queue_takes_precedence_and_add_rule() -> None:
    with FaultServer() as srv:
        srv.add_rule(Rule(Status(500)))
        srv.enqueue(Status(429))
        assert [status_of(srv), status_of(srv)] == [429, 500]
        srv.reset()
        assert status_of(srv) == 200


def test_fault_validation_messages() -> None:
    with pytest.raises(ValueError, match="`status` must be an error"):
        Status(200)
    with pytest.raises(ValueError, match="`probability` must be between 0 and 1"):
        Match(probability=2)
    with pytest.raises(ValueError, match="`kind` must be one of"):
        StreamError(error="nope")


# -- YAML -------------------------------------------------------------------------------------

GOOD = """\
seed: 3
strict_models: true
models:
  - name: small
    context_window: 10
    reply: short
  - name: agent-*
    turns:
      - tool_calls:
          - name: get_weather
            arguments: {city: Paris}
      - text: It is sunny.
queue:
  - fault: {type: status, status: 429, retry_after: 1.5, error: rate_limit}
    times: 2
rules:
  - match: {path: /v1/messages, every: 2}
    fault: {type: status, status: 529, delay: 0}
  - match: {model: "agent-*", probability: 0.5, start: 1, end: 2}
    fault: stream_error
  - fault: {type: hang, after_events: 3}
    match: {stream: true, times: 1}
  - fault: {type: content_filter, mode: error}
    match: {model: filtered}
"""


def test_yaml_scenario_loads() -> None:
    sc = parse_scenario(GOOD)
    assert sc.seed == 3 and sc.strict_models
    assert sc.models[0] == Model(name="small", reply="short", context_window=10)
    assert sc.models[1].turns == (
        Turn(tool_calls=(ToolCall("get_weather", {"city": "Paris"}),)),
        Turn(text="It is sunny."),
    )
    assert sc.queue == (Status(429, retry_after=1.5, error="rate_limit"),) * 2
    assert sc.rules[0] == Rule(Status(529), Match(path="/v1/messages", every=2))
    assert sc.rules[1] == Rule(
        StreamError(), Match(model="agent-*", probability=0.5, start=1, end=2)
    )
    assert sc.rules[2] == Rule(Hang(after_events=3), Match(stream=True, times=1))
    assert sc.rules[3] == Rule(ContentFilter(mode="error"), Match(model="filtered"))


def test_yaml_scenario_drives_a_server(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(GOOD)
    with FaultServer(path) as srv:
        assert [status_of(srv), status_of(srv), status_of(srv, model="small")] == [429, 429, 200]
        assert status_of(srv, model="unknown") == 404  # strict_models
    assert load_scenario(path) == parse_scenario(GOOD, source=str(path))


BAD = [
    ("rules:\n  - fault: stauts\n", 2,
     "unknown fault 'stauts'; allowed: content_filter, drip, error_in_200"),
    ("rules:\n  - match: {every: 2}\n    fault:\n      type: statsu\n", 4,
     "allowed: content_filter, drip"),
    ("rules:\n  - fault: {type: content_filter, mode: refusal}\n", 2,
     "`mode` must be one of finish_reason, error"),
    ("rules:\n  - fault: {type: status, status: abc}\n", 2, "`status` must be an integer"),
    ("rules:\n  - fault: {type: status, status: 200}\n", 2, "must be an error"),
    ("rules:\n  -\n    fault: {type: reset, at: middle}\n", 3,
     "`at` must be one of before_headers, mid_body"),
    ("\n\nrules:\n  - match: {probability: 1.5}\n    fault: hang\n", 4, "between 0 and 1"),
    ("rules:\n  - match: {evry: 2}\n    fault: hang\n", 2, "unknown key 'evry'.*allowed: path"),
    ("rules:\n  - fault: {type: drip, nope: 1}\n", 2, "unknown key 'nope'.*chunk_bytes"),
    ("models:\n  - name: m\n    context_window: -1\n", 2, "context_window"),
    ("rules: {fault: hang}\n", 1, "`rules` must be a list"),
    ("rulez: []\n", 1, "unknown key 'rulez'.*allowed: seed"),
    ("rules:\n  - fault: [1, 2]\n", 2, "a fault is a name or a mapping"),
    ("rules:\n  - match: {every: 2}\n", 2, "a rule needs `fault:`"),
    ("rules:\n  - fault: {type: status, retry_after: true}\n", 2, "`retry_after` must be"),
    ("queue:\n  - fault: ok\n    times: 0\n", 3, "`times` must be at least 1"),
    ("rules:\n  - fault: {type: hang\n", 3, "not valid YAML"),
]  # fmt: skip


@pytest.mark.parametrize("text,line,message", BAD)
def test_yaml_errors_name_the_line_and_allowed_values(text: str, line: int, message: str) -> None:
    with pytest.raises(ScenarioError) as info:
        parse_scenario(text, source="bad.yaml")
    assert isinstance(info.value, ValueError)
    assert info.value.line == line, str(info.value)
    assert str(info.value).startswith(f"bad.yaml, line {line}: ")
    assert re.search(message, str(info.value)), str(info.value)


def test_python_scenario_object() -> None:
    sc = Scenario(rules=[Rule(Status(500))], models=[Model(name="m", reply="hey")])
    with FaultServer(sc) as srv:
        assert status_of(srv, model="m") == 500


# -- the CLI ----------------------------------------------------------------------------------


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="surefoot")
    _faults.register(parser.add_subparsers(dest="command"))
    return parser.parse_args(argv)


def test_cli_bad_scenario_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("rules:\n  - fault: stauts\n")
    args = parse(["faults", "serve", "--scenario", str(path)])
    assert args.handler(args) == 2
    err = capsys.readouterr().err
    assert "line 2" in err and "allowed: content_filter, drip" in err and "Traceback" not in err
    args = parse(["faults", "proxy", "--upstream", "http://x", "--scenario", str(path)])
    assert args.handler(args) == 2
    args = parse(["faults", "serve", "--scenario", str(tmp_path / "missing.yaml")])
    assert args.handler(args) == 2
    assert "cannot read" in capsys.readouterr().err


def test_cli_port_in_use_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        args = parse(["faults", "serve", "--port", str(port)])
        assert args.handler(args) == 2
        assert f"port {port}" in capsys.readouterr().err
        args = parse(["faults", "proxy", "--upstream", "http://127.0.0.1:1", "--port", str(port)])
        assert args.handler(args) == 2


def test_cli_bad_upstream_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    args = parse(["faults", "proxy", "--upstream", "ftp://x"])
    assert args.handler(args) == 2
    assert "http://" in capsys.readouterr().err


def test_cli_serve_until_ctrl_c(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("rules:\n  - fault: {type: status, status: 503}\n")
    code = (
        "import sys, argparse; from surefoot.cli import _faults\n"
        "p = argparse.ArgumentParser(); _faults.register(p.add_subparsers())\n"
        "a = p.parse_args(sys.argv[1:]); sys.exit(a.handler(a))\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "faults", "serve", "--scenario", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        # A shell runs background jobs with SIGINT ignored, and a child inherits that: give
        # the child the default disposition, so Python installs its Ctrl-C handler.
        preexec_fn=_sigint_default,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        assert match, line
        srv = FaultServer()
        srv.host, srv.port = "127.0.0.1", int(match.group(1))
        assert status_of(srv) == 503
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
            raise AssertionError(f"no clean stop 30 s after Ctrl-C; stderr: {err}") from None
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "stopped" in err
