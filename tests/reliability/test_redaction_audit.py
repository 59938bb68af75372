"""A planted API key never shows up anywhere surefoot writes.

Two keys, an OpenAI-shaped ``sk-proj-PLANTED...`` and an Anthropic-shaped
``sk-ant-api03-PLANTED...``, each with a random hex part, are used as the ``api_key`` of
:class:`surefoot.LLMClient`, :class:`surefoot.AsyncLLMClient` and ``surefoot.wrap()`` of the
official SDK client, against the fault server answering: a 401 whose message echoes the key, a
429, a hang cut by a timeout, and a stream error whose message echoes the key. The audit looks
for the key's random part (so a partial echo counts too) in: ``str``/``repr`` of the raised
error and of every attribute, its ``context``, ``problem_details.to_json()``, ``metadata``,
``attempts``, the whole ``__cause__``/``__context__`` chain, ``pickle.dumps`` of the error, the
``surefoot`` logger at DEBUG, the attempt records a hook receives, the fault server's recorded
requests, the demo's JSON and HTML, and every CLI command's output. Zero occurrences.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import pickle
import secrets
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import surefoot
from surefoot.testing import faults

TIMEOUT = 120
HEX = secrets.token_hex(16)
OPENAI_KEY = f"sk-proj-PLANTED{HEX}"
ANTHROPIC_KEY = f"sk-ant-api03-PLANTED{HEX}-{secrets.token_hex(4)}AA"
KEYS = {"openai": OPENAI_KEY, "anthropic": ANTHROPIC_KEY}


def _occurrences(blob: str | bytes) -> int:
    if isinstance(blob, bytes):
        return blob.count(HEX.encode()) + blob.count(HEX.encode("utf-16-le"))
    return blob.count(HEX)


def _error_texts(exc: BaseException) -> Iterator[tuple[str, str | bytes]]:
    """Every text an error shows: itself, its attributes, its details, its chain, its pickle."""
    seen: set[int] = set()
    todo: list[BaseException] = [exc]
    while todo:
        e = todo.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        name = type(e).__name__
        yield f"{name} str", str(e)
        yield f"{name} repr", repr(e)
        yield f"{name} args", repr(e.args)
        for attr, value in vars(e).items():
            yield f"{name}.{attr}", repr(value)
            with contextlib.suppress(Exception):
                yield f"{name}.{attr} str", str(value)
        for attr in ("context", "metadata", "attempts", "message", "body", "response"):
            value = getattr(e, attr, None)
            if value is not None:
                yield f"{name}.{attr}", repr(value)
                with contextlib.suppress(Exception):
                    yield f"{name}.{attr} str", str(value)
                if attr == "response":
                    with contextlib.suppress(Exception):
                        yield f"{name}.response.text", value.text
        ctx = getattr(e, "context", None)
        if ctx is not None:
            yield f"{name}.context.metadata", repr(getattr(ctx, "metadata", None))
        problem = getattr(e, "problem_details", None)
        if problem is not None:
            yield f"{name}.problem_details.to_json", problem.to_json()
        try:
            yield f"{name} pickle", pickle.dumps(e)
        except Exception as why:  # an unpicklable error is not a leak; note its message
            yield f"{name} pickle failure", str(why)
        for nxt in (e.__cause__, e.__context__):
            if nxt is not None:
                todo.append(nxt)


def _assert_clean(where: str, blob: str | bytes) -> None:
    n = _occurrences(blob)
    assert n == 0, f"the planted key appears {n} time(s) in {where}: {blob[:2000]!r}"


def _audit(
    exc: BaseException | None,
    caplog: pytest.LogCaptureFixture,
    records: list[Any],
    server: faults.FaultServer,
) -> None:
    assert exc is not None, "the call was expected to fail"
    for where, blob in _error_texts(exc):
        _assert_clean(where, blob)
    _assert_clean("the surefoot log", caplog.text)
    for rec in caplog.records:
        _assert_clean("a log record", f"{rec.getMessage()} {rec.__dict__!r}")
    for i, record in enumerate(records):
        _assert_clean(f"attempt record {i}", repr(record))
        _assert_clean(f"attempt record {i} vars", repr(getattr(record, "__dict__", record)))
    assert server.requests, "the request never reached the fault server"
    for i, req in enumerate(server.requests):
        _assert_clean(f"recorded request {i} headers", repr(dict(req.headers)))
        # its `fault` is the test's own planted message, not something the client sent
        _assert_clean(f"recorded request {i}", repr(dataclasses.replace(req, fault=None)))


# -- the faults --------------------------------------------------------------------------------

FAULTS: dict[str, Callable[[str], faults.Fault]] = {
    "401-echo": lambda key: faults.Status(
        401, message=f"Incorrect API key provided: {key}. You can find your API key at ..."
    ),
    "429": lambda key: faults.Status(429, retry_after=0, message=f"Rate limit for key {key}"),
    "hang": lambda key: faults.Hang(),
    "stream-error": lambda key: faults.StreamError(
        after_deltas=1, error="server", message=f"upstream failed for {key}"
    ),
}

CLIENT_OPTS: dict[str, Any] = {"retries": 1, "retry_base": 0.01, "max_delay": 0.02}


def _run_llm(kind: str, style: str, base: str, key: str, fault: str, hooks: Any) -> None:
    url = base + "/v1" if style == "openai" else base
    timeout = 0.5 if fault == "hang" else 10.0
    if kind == "LLMClient":
        with surefoot.LLMClient(
            base_url=url,
            model="gpt-4o-mini",
            api_key=key,
            style=style,
            hooks=hooks,
            timeout=timeout,
            **CLIENT_OPTS,
        ) as client:
            if fault == "stream-error":
                for _ in client.stream("hello"):
                    pass
            else:
                client.run("hello")
        return

    async def main() -> None:
        async with surefoot.AsyncLLMClient(
            base_url=url,
            model="gpt-4o-mini",
            api_key=key,
            style=style,
            hooks=hooks,
            timeout=timeout,
            **CLIENT_OPTS,
        ) as client:
            if fault == "stream-error":
                async for _ in client.stream("hello"):
                    pass
            else:
                await client.run("hello")

    asyncio.run(main())


def _run_wrap(style: str, base: str, key: str, fault: str, hooks: Any) -> None:
    timeout = 0.5 if fault == "hang" else 10.0
    if style == "openai":
        import openai

        client = surefoot.wrap(
            openai.OpenAI(api_key=key, base_url=base + "/v1", max_retries=0),
            hooks=hooks,
            timeout=timeout,
            **CLIENT_OPTS,
        )
        messages = [{"role": "user", "content": "hello"}]
        if fault == "stream-error":
            for _ in client.chat.completions.create(
                model="gpt-4o-mini",
                messages=messages,
                stream=True,  # type: ignore[arg-type]
            ):
                pass
        else:
            client.chat.completions.create(model="gpt-4o-mini", messages=messages)  # type: ignore[arg-type]
        return
    import anthropic

    aclient = surefoot.wrap(
        anthropic.Anthropic(api_key=key, base_url=base, max_retries=0),
        hooks=hooks,
        timeout=timeout,
        **CLIENT_OPTS,
    )
    msgs = [{"role": "user", "content": "hello"}]
    if fault == "stream-error":
        with aclient.messages.stream(
            model="claude-x",
            max_tokens=16,
            messages=msgs,  # type: ignore[arg-type]
        ) as stream:
            for _ in stream:
                pass
    else:
        aclient.messages.create(model="claude-x", max_tokens=16, messages=msgs)  # type: ignore[arg-type]


def _cases() -> list[Any]:
    out = []
    for kind in ("LLMClient", "AsyncLLMClient", "wrap"):
        for style in ("openai", "anthropic"):
            for fault in sorted(FAULTS):
                marks: list[Any] = []
                out.append(
                    pytest.param(kind, style, fault, marks=marks, id=f"{kind}-{style}-{fault}")
                )
    return out


@pytest.mark.parametrize(("kind", "style", "fault"), _cases())
def test_planted_key_never_leaks(
    kind: str, style: str, fault: str, caplog: pytest.LogCaptureFixture
) -> None:
    key = KEYS[style]
    records: list[Any] = []
    hooks = surefoot.GuardHooks(on_attempt=records.append, on_retry=records.append)
    caplog.set_level(logging.DEBUG, logger="surefoot")
    rule = faults.Rule(FAULTS[fault](key))
    exc: BaseException | None = None
    with faults.FaultServer(rules=[rule]) as server:
        try:
            if kind == "wrap":
                _run_wrap(style, server.base_url, key, fault, hooks)
            else:
                _run_llm(kind, style, server.base_url, key, fault, hooks)
        except Exception as e:
            exc = e
        _audit(exc, caplog, records, server)


def test_the_key_reaches_the_server_redacted() -> None:
    """The audit is sound: the key is sent (the server sees an Authorization header)."""
    with faults.FaultServer() as server:
        with surefoot.LLMClient(
            base_url=server.base_url + "/v1", model="m", api_key=OPENAI_KEY
        ) as client:
            client.run("hello")
        headers = server.requests[0].headers
    assert headers["authorization"] == "[REDACTED]"


# -- the CLI -----------------------------------------------------------------------------------


def _cli(*args: str, stdin: bytes = b"", env: dict[str, str] | None = None) -> Any:
    return subprocess.run(
        [sys.executable, "-m", "surefoot", *args],
        input=stdin,
        capture_output=True,
        timeout=TIMEOUT,
        env={**os.environ, **(env or {})},
        check=False,
    )


def _body(key: str) -> str:
    return json.dumps(
        {
            "error": {
                "message": f"Incorrect API key provided: {key}",
                "type": "invalid_request_error",
            }
        }
    )


CLI_CASES: dict[str, list[str]] = {
    "classify-text": ["classify", "--status", "401", "--body", _body(OPENAI_KEY)],
    "classify-json": ["classify", "--status", "401", "--json", "--body", _body(ANTHROPIC_KEY)],
    "classify-header": [
        "classify",
        "--status",
        "401",
        "--header",
        f"Authorization: Bearer {OPENAI_KEY}",
        "--header",
        f"x-api-key: {ANTHROPIC_KEY}",
        "--json",
    ],
    "explain-key": ["explain", OPENAI_KEY],
    "explain-key-json": ["explain", "--json", ANTHROPIC_KEY],
    "demo-bad-key": [
        "demo",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--model",
        "m",
        "--api-key",
        OPENAI_KEY + "\n",
    ],
    "demo-bad-url": ["demo", "--base-url", f"ftp://{OPENAI_KEY}@host/v1", "--model", "m"],
    "faults-proxy-upstream": ["faults", "proxy", "--upstream", f"ftp://h/{OPENAI_KEY}"],
}


@pytest.mark.parametrize("case", sorted(CLI_CASES))
def test_cli_output_never_shows_the_key(case: str) -> None:
    result = _cli(*CLI_CASES[case])
    assert "Traceback" not in result.stderr.decode("utf-8", "replace")
    _assert_clean(f"{case} stdout", result.stdout)
    _assert_clean(f"{case} stderr", result.stderr)


def test_classify_jsonl_never_shows_the_key() -> None:
    lines = [
        {"status": 401, "body": _body(OPENAI_KEY)},
        {"status": 401, "headers": {"x-api-key": ANTHROPIC_KEY}, "body": _body(ANTHROPIC_KEY)},
        {"status": 429, "body": f"key {OPENAI_KEY} over quota", "provider": "openai"},
    ]
    stdin = "".join(json.dumps(line) + "\n" for line in lines).encode()
    result = _cli("classify", "--jsonl", stdin=stdin)
    assert result.returncode == 0, result.stderr
    _assert_clean("classify --jsonl stdout", result.stdout)
    _assert_clean("classify --jsonl stderr", result.stderr)


def test_faults_bad_scenario_never_shows_the_key(tmp_path: Path) -> None:
    path = tmp_path / "scenario.yaml"
    path.write_text(f"rules:\n  - fault: {{type: status, status: {OPENAI_KEY}}}\n")
    result = _cli("faults", "serve", "--scenario", str(path))
    assert result.returncode == 2
    _assert_clean("faults serve stderr", result.stderr)


@pytest.mark.parametrize("answer", ["401-echo", "ok"])
def test_demo_json_and_html_never_show_the_key(tmp_path: Path, answer: str) -> None:
    rules = [faults.Rule(FAULTS["401-echo"](OPENAI_KEY))] if answer == "401-echo" else []
    html = tmp_path / "report.html"
    with faults.FaultServer(rules=rules) as server:
        result = _cli(
            "demo",
            "--json",
            "--html",
            str(html),
            "--base-url",
            server.base_url + "/v1",
            "--model",
            "gpt-4o-mini",
            env={"SUREFOOT_API_KEY": OPENAI_KEY},
        )
        assert server.requests, result.stderr
    assert "Traceback" not in result.stderr.decode("utf-8", "replace")
    json.loads(result.stdout)
    _assert_clean("demo --json stdout", result.stdout)
    _assert_clean("demo stderr", result.stderr)
    _assert_clean("demo HTML", html.read_bytes())
