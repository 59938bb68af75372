"""The ``surefoot classify`` command, driven in-process."""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from surefoot.cli import _classify


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    _classify.register(sub)
    args = parser.parse_args(["classify", *argv])
    code = args.handler(args)
    return code, capsys.readouterr().out


def test_json_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    body = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
    code, out = _run(
        ["--status", "529", "--header", "request-id: req_1", "--body", body, "--json"], capsys
    )
    v = json.loads(out)
    assert code == 0
    assert v["kind"] == "model_overloaded" and v["retryable"] is True
    assert v["class"] == "LLMError" and v["code"] == "MODEL_OVERLOADED"
    assert v["error_code"] == "SUREFOOT-LLM" and v["request_id"] == "req_1"
    assert v["status"] == 529 and v["provider"] == "anthropic" and "retry_after_s" in v


def test_human_explanation_and_file_body(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "b.json"
    f.write_text(
        '{"error":{"message":"You exceeded your current quota","code":"insufficient_quota"}}'
    )
    code, out = _run(["--status", "429", "--body", f"@{f}", "--provider", "openai"], capsys)
    assert code == 0 and "quota_exhausted" in out and "retry       no" in out


def test_jsonl_ten_thousand_lines() -> None:
    lines = []
    for i in range(10_000):
        if i % 1000 == 999:
            lines.append("this is not json")
        else:
            lines.append(
                json.dumps(
                    {
                        "id": i,
                        "status": 429,
                        "headers": {"retry-after": "2"},
                        "body": {"error": {"message": "slow down"}},
                    }
                )
            )
    src = io.StringIO("\n".join(lines) + "\n")
    dst = io.StringIO()
    bad = _classify.run_jsonl(src, dst)
    out = [json.loads(x) for x in dst.getvalue().splitlines()]
    assert len(out) == 10_000 and bad == 10
    assert out[0]["id"] == 0 and out[0]["kind"] == "rate_limit" and out[0]["retry_after_s"] == 2
    assert "error" in out[999] and out[1000]["id"] == 1000


def test_jsonl_bad_fields() -> None:
    assert "error" in _classify.classify_line('{"status": "abc"}')
    assert "error" in _classify.classify_line("[1,2]")
    v = _classify.classify_line('{"status": null, "body": "Connection refused"}')
    assert v["kind"] == "network"


def test_subprocess_jsonl(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"status": 404, "body": {"error": "model 'x' not found"}}) + "\n")
    code = (
        "import sys; from surefoot.cli import _classify as c; "
        "sys.exit(c.run_jsonl(open(sys.argv[1]), sys.stdout))"
    )
    res = subprocess.run(
        [sys.executable, "-c", code, str(src)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert json.loads(res.stdout)["kind"] == "model_not_found"


def test_nothing_to_classify_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    parser = argparse.ArgumentParser()
    _classify.register(parser.add_subparsers())
    args = parser.parse_args(["classify"])
    assert args.handler(args) == 2
    assert "nothing to classify" in capsys.readouterr().err


def test_unknown_failure_is_not_advised_to_retry(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _run(["--body", "garbage"], capsys)
    assert code == 0 and out.startswith("unknown")
    assert "retry       no" in out and "Retry with backoff" not in out
    # the library takes a status-less text for a transport failure; the command does not
    # know a pasted message is one, so only words a rule names make it a network failure
    code, out = _run(["--body", "ECONNRESET: socket hang up"], capsys)
    assert code == 0 and out.startswith("network")
    v = _classify.classify_line('{"status": null, "body": "garbage response"}')
    assert v["kind"] == "network" and v["retryable"] is True
    # ... when its words speak of the exchange; a server's sentence whose status was lost
    # is no lost connection
    v = _classify.classify_line('{"status": null, "body": "garbage"}')
    assert v["kind"] == "unknown" and v["retryable"] is False


@pytest.mark.parametrize("status", ["700", "99", "0", "-1"])
def test_status_outside_http_range_is_a_usage_error(
    status: str, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser()
    _classify.register(parser.add_subparsers())
    args = parser.parse_args(["classify", "--status", status, "--body", "{}"])
    assert args.handler(args) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "100 to 599" in captured.err
    v = _classify.classify_line(json.dumps({"status": int(status), "body": "x"}))
    assert "100 to 599" in v["error"]


def test_explain_names_the_deciding_rule(capsys: pytest.CaptureFixture[str]) -> None:
    body = json.dumps(
        {
            "error": {
                "message": "Unsupported parameter: 'max_tokens' is not supported with this "
                "model. Use 'max_completion_tokens' instead.",
                "type": "invalid_request_error",
                "param": "max_tokens",
                "code": "unsupported_parameter",
            }
        }
    )
    code, out = _run(["--status", "400", "--body", body, "--explain"], capsys)
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("capability_mismatch")
    assert lines[1] == "  decided by  code=unsupported_parameter"
    code, out = _run(["--status", "400", "--body", body], capsys)
    assert "decided by" not in out


def test_explain_json_and_status_fallback(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _run(["--status", "429", "--body", "", "--json", "--explain"], capsys)
    v = json.loads(out)
    assert code == 0 and v["kind"] == "rate_limit" and v["classified_by"] == "status 429"
    code, out = _run(["--status", "429", "--body", "", "--json"], capsys)
    assert "classified_by" not in json.loads(out)


def test_explain_jsonl_subprocess(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    lines = [
        {"id": "a", "status": 400, "body": {"error": '"qwen3" does not support thinking'}},
        {
            "id": "b",
            "status": 200,
            "body": {"candidates": [{"finishReason": "SAFETY"}]},
            "provider": "gemini",
        },
        {"id": "c", "status": None, "body": "httpx.ReadTimeout: timed out"},
    ]
    src.write_text("".join(json.dumps(x) + "\n" for x in lines))
    res = subprocess.run(
        [sys.executable, "-m", "surefoot", "classify", "--jsonl", str(src), "--explain"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 0, res.stderr
    out = {v["id"]: v for v in map(json.loads, res.stdout.splitlines())}
    assert out["a"]["kind"] == "capability_mismatch"
    assert "'does not support'" in out["a"]["classified_by"]
    assert out["b"]["kind"] == "content_filtered"
    assert out["b"]["classified_by"] == "finishReason=safety"
    assert out["c"]["kind"] == "timeout" and "timed out" in out["c"]["classified_by"]
