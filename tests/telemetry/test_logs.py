"""Structured log records: one per attempt decision on the ``surefoot`` hierarchy, with
fields; quiet until the application configures logging."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import textwrap
from typing import Any

import pytest

import surefoot
from surefoot.llm import AsyncLLMClient, LLMClient
from surefoot.testing.clock import FakeClock
from surefoot.testing.faults import FaultServer, Match, Model, Rule, Status

KEY = "sk-proj-L0gsSecretKey0123456789abcdefghij"


def _records(caplog: pytest.LogCaptureFixture, name: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == name and hasattr(r, "surefoot_event")]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_each_llm_decision_is_one_record_with_fields(
    caplog: pytest.LogCaptureFixture, mode: str
) -> None:
    caplog.set_level(logging.INFO, logger="surefoot")
    rules = [Rule(fault=Status(503), match=Match(model="a"))]
    with FaultServer(models=[Model("*", reply="ok")], rules=rules) as srv:
        srv.enqueue(Status(429, retry_after=0, message=f"slow down {KEY}"))
        kw: dict[str, Any] = {
            "base_url": srv.base_url + "/v1",
            "api_key": KEY,
            "model": ["a", "b"],
            "retries": 1,
            "retry_base": 0.01,
        }
        if mode == "sync":
            LLMClient(**kw).run("hi")
        else:
            asyncio.run(AsyncLLMClient(**kw).run("hi"))
    recs = _records(caplog, "surefoot.llm")
    assert [(r.attempt, r.decision, r.outcome) for r in recs] == [
        (0, "retry", "retry"),
        (1, "fail", "fallback"),
    ]
    first = recs[0]
    assert first.levelno == logging.INFO
    assert (first.error_code, first.kind, first.status, first.model) == (
        "SUREFOOT-RATELIMIT",
        "rate_limit",
        429,
        "a",
    )
    assert first.why == "HINT" and first.wait == 0.0
    assert first.request_id  # the fault server's x-request-id
    assert "attempt 1 of a failed: 429 rate_limit; retry in" in first.getMessage()
    assert all(KEY not in r.getMessage() and KEY not in repr(r.__dict__) for r in recs)


def test_a_guard_logs_on_its_own_logger(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="surefoot")
    calls = iter([ConnectionResetError("reset"), "ok"])

    def fn() -> str:
        v = next(calls)
        if isinstance(v, Exception):
            raise v
        return v

    assert surefoot.Guard(retries=1, clock=FakeClock()).call(fn) == "ok"
    (rec,) = _records(caplog, "surefoot.guard")
    assert (rec.kind, rec.decision, rec.why, rec.model) == ("network", "retry", "BACKOFF", None)


def test_nothing_is_logged_at_warning_and_nothing_printed_by_default() -> None:
    code = textwrap.dedent(
        """
        import surefoot
        from surefoot.testing.clock import FakeClock
        n = [0]
        def fn():
            n[0] += 1
            raise ConnectionResetError("reset")
        try:
            surefoot.Guard(retries=2, clock=FakeClock()).call(fn)
        except surefoot.NetworkError:
            print("raised after", n[0])
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "raised after 3"
    assert proc.stderr == ""
