"""Every ``surefoot`` command fed bad input: a one-line message, never a traceback.

Each case runs the real CLI as a subprocess (``python -m surefoot ...``) and checks its exit
status (2 for a usage error), that stderr holds no ``Traceback``, and that the message names
the problem. The commands are those ``surefoot --help`` lists.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

TIMEOUT = 60


def cli(*args: str, stdin: bytes | None = None, env: dict[str, str] | None = None) -> Any:
    return subprocess.run(
        [sys.executable, "-m", "surefoot", *args],
        input=stdin if stdin is not None else b"",
        capture_output=True,
        timeout=TIMEOUT,
        env={**os.environ, **(env or {})},
        check=False,
    )


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "backslashreplace")


def assert_usage_error(result: Any, *words: str, code: int = 2) -> str:
    err = _text(result.stderr)
    assert "Traceback" not in err, err
    assert result.returncode == code, (result.returncode, err, _text(result.stdout))
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines, "no message on stderr"
    for word in words:
        assert word.lower() in err.lower(), f"{word!r} not in {err!r}"
    return err


def test_help_lists_the_commands() -> None:
    result = cli("--help")
    assert result.returncode == 0
    for command in ("classify", "explain", "faults", "demo"):
        assert command in _text(result.stdout)


# -- classify ----------------------------------------------------------------------------------


def test_classify_jsonl_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    err = assert_usage_error(cli("classify", "--jsonl", str(missing)), "nope.jsonl", "no such")
    assert len(err.strip().splitlines()) == 1


def test_classify_jsonl_directory(tmp_path: Path) -> None:
    err = assert_usage_error(cli("classify", "--jsonl", str(tmp_path)), "directory")
    assert len(err.strip().splitlines()) == 1


SURROGATE_LINE = (
    b'{"status": 500, "body": "{\\"error\\": {\\"message\\": \\"bad \\\\ud800 byte\\"}}"}\n'
)
SURROGATE_BODY = b'{"error": {"message": "bad \\ud800 byte", "type": "server_error"}}'


@pytest.mark.parametrize("mode", ["text", "json"])
def test_classify_lone_surrogate_in_body_file(tmp_path: Path, mode: str) -> None:
    body = tmp_path / "body.json"
    body.write_bytes(SURROGATE_BODY)
    flags = ["--json"] if mode == "json" else []
    result = cli("classify", "--status", "500", "--body", f"@{body}", *flags)
    err = _text(result.stderr)
    assert "Traceback" not in err, err
    assert result.returncode == 0, err
    out = _text(result.stdout)
    assert "ud800" in out  # shown as an escape, not dropped
    if mode == "json":
        assert json.loads(out)["status"] == 500


@pytest.mark.parametrize("mode", ["text", "json"])
def test_classify_surrogateescape_argument(mode: str) -> None:
    # a non-UTF-8 argument reaches Python as lone surrogates (surrogateescape)
    body = b'{"error": {"message": "caf\xe9 \xed\xa0\x80"}}'
    flags = ["--json"] if mode == "json" else []
    result = subprocess.run(
        [sys.executable.encode(), b"-m", b"surefoot", b"classify", b"--status", b"500", b"--body"]
        + [body]
        + [f.encode() for f in flags],
        capture_output=True,
        timeout=TIMEOUT,
        check=False,
    )
    err = _text(result.stderr)
    assert "Traceback" not in err, err
    assert result.returncode == 0, err


def test_classify_jsonl_lone_surrogate_stdin() -> None:
    result = cli("classify", "--jsonl", stdin=SURROGATE_LINE)
    err = _text(result.stderr)
    assert "Traceback" not in err, err
    assert result.returncode == 0, err
    verdict = json.loads(_text(result.stdout))
    assert verdict["status"] == 500


def test_classify_jsonl_lone_surrogate_file(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_bytes(SURROGATE_LINE + b'{"status": 429}\n')
    result = cli("classify", "--jsonl", str(src))
    assert "Traceback" not in _text(result.stderr)
    assert result.returncode == 0
    assert len(_text(result.stdout).splitlines()) == 2


def test_classify_jsonl_invalid_utf8_stdin() -> None:
    result = cli("classify", "--jsonl", stdin=b'{"status": 500}\n\xff\xfe\n{"status": 429}\n')
    err = _text(result.stderr)
    assert "Traceback" not in err, err
    assert result.returncode == 1  # one bad line, reported in its verdict
    lines = _text(result.stdout).splitlines()
    assert len(lines) == 3 and "error" in json.loads(lines[1])


def test_classify_output_in_an_ascii_terminal(tmp_path: Path) -> None:
    body = tmp_path / "body.json"
    body.write_bytes('{"error": {"message": "caf\u00e9 \u2603 \\ud800"}}'.encode())
    for flags in ([], ["--json"]):
        result = cli(
            "classify",
            "--status",
            "500",
            "--body",
            f"@{body}",
            *flags,
            env={"PYTHONIOENCODING": "ascii"},
        )
        assert "Traceback" not in _text(result.stderr)
        assert result.returncode == 0


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["classify", "--status", "abc"], ["--status"]),
        (["classify", "--json", "--jsonl", "-"], ["not allowed"]),
        (["classify", "--status", "500", "--body", "@/no/such/file"], ["no such file"]),
        (["classify", "--bogus"], ["unrecognized"]),
        (["classify"], ["nothing to classify"]),
    ],
    ids=["status-not-int", "json-and-jsonl", "body-missing-file", "unknown-flag", "nothing"],
)
def test_classify_usage_errors(args: list[str], words: list[str]) -> None:
    assert_usage_error(cli(*args), *words)


def test_classify_body_directory(tmp_path: Path) -> None:
    assert_usage_error(cli("classify", "--status", "500", "--body", f"@{tmp_path}"), "directory")


# -- explain -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["explain"], ["CODE"]),
        (["explain", "NO_SUCH_CODE_AT_ALL"], ["NO_SUCH_CODE_AT_ALL"]),
        (["explain", "--json", "NO_SUCH_CODE_AT_ALL"], ["NO_SUCH_CODE_AT_ALL"]),
        (["explain", "--family", "nope"], ["--family"]),
        (["explain", "\udcff\udcfe"], ["unknown"]),
        (["explain", "x" * 5000], ["unknown"]),
    ],
    ids=["no-code", "unknown", "unknown-json", "bad-family", "surrogates", "huge"],
)
def test_explain_bad_input(args: list[str], words: list[str]) -> None:
    argv = [a.encode("utf-8", "surrogateescape") for a in args]
    result = subprocess.run(
        [sys.executable.encode(), b"-m", b"surefoot", *argv],
        capture_output=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert_usage_error(result, *words)


# -- faults serve / proxy ----------------------------------------------------------------------

BAD_SCENARIOS: dict[str, bytes] = {
    "float-tag": b"seed: !!float abc\n",
    "int-tag": b"seed: !!int abc\n",
    "float-tag-in-fault": b"queue:\n  - fault: {type: status, status: !!float abc}\n",
    "python-tag": b"seed: !!python/object:os.system ls\n",
    "binary-tag": b"seed: !!binary '%%%'\n",
    "non-utf8": b"seed: 1\n# caf\xe9 \xff\xfe\n",
    "nul": b"seed: 1\x00\n",
    "times-1e11": b"queue:\n  - fault: ok\n    times: 1e11\n",
    "times-float": b"queue:\n  - fault: ok\n    times: 1.0e+11\n",
    "times-huge": b"queue:\n  - fault: ok\n    times: 100000000000\n",
    "status-str": b"rules:\n  - fault: {type: status, status: '429'}\n",
    "bad-yaml": b"rules: [\n",
    "deep": b"seed: " + b"[" * 5000 + b"]" * 5000 + b"\n",
    "unknown-key": b"nope: 1\n",
}


@pytest.mark.parametrize("command", ["serve", "proxy"])
@pytest.mark.parametrize("name", sorted(BAD_SCENARIOS))
def test_faults_bad_scenario(tmp_path: Path, command: str, name: str) -> None:
    path = tmp_path / f"{name}.yaml"
    path.write_bytes(BAD_SCENARIOS[name])
    extra = ["--upstream", "http://127.0.0.1:9"] if command == "proxy" else []
    err = assert_usage_error(cli("faults", command, *extra, "--scenario", str(path)), name)
    assert "bad scenario" in err
    assert len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("command", ["serve", "proxy"])
@pytest.mark.parametrize("port", ["70000", "-1", "65536", "x", "1.5"])
def test_faults_bad_port(command: str, port: str) -> None:
    extra = ["--upstream", "http://127.0.0.1:9"] if command == "proxy" else []
    assert_usage_error(cli("faults", command, *extra, f"--port={port}"), "port")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["faults", "serve", "--scenario", "/no/such/scenario.yaml"], ["no such file"]),
        (["faults", "serve", "--host", ""], ["host"]),
        (["faults", "serve", "--host", "no.such.host.invalid"], ["no.such.host.invalid"]),
        (["faults", "proxy"], ["--upstream"]),
        (["faults", "proxy", "--upstream", "ftp://host"], ["upstream"]),
        (["faults", "proxy", "--upstream", "http://host:99999"], ["upstream"]),
        (["faults", "proxy", "--upstream", "not a url"], ["upstream"]),
        (["faults"], ["serve"]),
        (["faults", "nope"], ["invalid choice"]),
    ],
    ids=[
        "missing-scenario",
        "empty-host",
        "unknown-host",
        "proxy-no-upstream",
        "proxy-ftp",
        "proxy-port",
        "proxy-not-url",
        "no-subcommand",
        "bad-subcommand",
    ],
)
def test_faults_usage_errors(args: list[str], words: list[str]) -> None:
    assert_usage_error(cli(*args), *words)


def test_faults_scenario_directory(tmp_path: Path) -> None:
    assert_usage_error(cli("faults", "serve", "--scenario", str(tmp_path)), "directory")


# -- demo --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["demo", "--base-url", "ftp://host/v1", "--model", "m"], ["--base-url"]),
        (["demo", "--base-url", "http://host:99999/v1", "--model", "m"], ["--base-url"]),
        (["demo", "--base-url", "http://127.0.0.1:9/v1"], ["--model"]),
        (["demo", "--base-url", "http://127.0.0.1:9/v1", "--model", ""], ["--model"]),
        (
            ["demo", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--api-key", "a\nb"],
            ["--api-key"],
        ),
        (["demo", "--model", "m"], ["--base-url"]),
        (["demo", "--style", "gemini"], ["--style"]),
        (["demo", "--html", "/no/such/dir/report.html"], ["no such directory"]),
    ],
    ids=[
        "ftp",
        "port",
        "no-model",
        "empty-model",
        "key-newline",
        "model-without-url",
        "bad-style",
        "html-no-dir",
    ],
)
def test_demo_usage_errors(args: list[str], words: list[str]) -> None:
    err = assert_usage_error(cli(*args), *words)
    assert "a\nb" not in err


def test_unknown_command() -> None:
    assert_usage_error(cli("nope"), "invalid choice")


def test_no_command() -> None:
    assert_usage_error(cli(), "usage")
