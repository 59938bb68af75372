"""Shared helpers of the client tests: a fake clock, a sync/async harness, a tiny stub server."""

from __future__ import annotations

import asyncio
import http.server
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from surefoot.llm import AsyncLLMClient, LLMClient, RunResult
from surefoot.testing.faults import FaultServer

MODES = ["sync", "async"]
STYLES = ["openai", "anthropic"]
API_KEY = "sk-test-SECRET-0123456789abcdef"


class FakeClock:
    """Virtual time for backoff waits: sleeping advances it at once (never really sleeps)."""

    def __init__(self) -> None:
        self.offset = 0.0
        self.slept: list[float] = []

    def now(self) -> float:
        return time.monotonic() + self.offset

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.offset += seconds

    async def asleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.offset += seconds
        await asyncio.sleep(0)


def base_url(server: Any, style: str) -> str:
    return server.base_url + "/v1" if style in ("openai", "responses") else server.base_url


class Harness:
    """Runs the same call through the sync or the async client."""

    def __init__(self, mode: str, server: Any, style: str, **options: Any) -> None:
        self.mode = mode
        self.clock = options.pop("clock", None) or FakeClock()
        self.options = {
            "base_url": base_url(server, style),
            "api_key": API_KEY,
            "model": "m1",
            "style": style,
            "clock": self.clock,
            **options,
        }

    def client(self) -> Any:
        cls = LLMClient if self.mode == "sync" else AsyncLLMClient
        return cls(**self.options)

    def run(self, *args: Any, **kwargs: Any) -> RunResult:
        if self.mode == "sync":
            with LLMClient(**self.options) as c:
                return c.run(*args, **kwargs)

        async def go() -> RunResult:
            async with AsyncLLMClient(**self.options) as c:
                return await c.run(*args, **kwargs)

        return asyncio.run(go())

    def call(self, fn: Callable[[Any], Any]) -> Any:
        """``fn(client)`` (awaited for the async client) with a fresh client."""
        if self.mode == "sync":
            with LLMClient(**self.options) as c:
                return fn(c)

        async def go() -> Any:
            async with AsyncLLMClient(**self.options) as c:
                out = fn(c)
                return await out if asyncio.iscoroutine(out) else out

        return asyncio.run(go())

    def stream(self, *args: Any, **kwargs: Any) -> tuple[list[Any], BaseException | None]:
        """Every event the stream yielded, and the exception that ended it (or ``None``)."""
        events: list[Any] = []
        if self.mode == "sync":
            with LLMClient(**self.options) as c:
                try:
                    for ev in c.stream(*args, **kwargs):
                        events.append(ev)
                except Exception as exc:
                    return events, exc
            return events, None

        async def go() -> BaseException | None:
            async with AsyncLLMClient(**self.options) as c:
                try:
                    async for ev in c.stream(*args, **kwargs):
                        events.append(ev)
                except Exception as exc:
                    return exc
            return None

        return events, asyncio.run(go())


def text_of(events: list[Any]) -> str:
    """The answer's text as a consumer shows it: a restart event discards what came before."""
    out: list[str] = []
    for e in events:
        if e.type == "restart":
            out = []
        elif e.type == "text":
            out.append(e.text)
    return "".join(out)


@pytest.fixture
def server() -> Iterator[FaultServer]:
    with FaultServer() as srv:
        yield srv


class StubServer:
    """A tiny loopback HTTP server answering from a script: ``handler(path, headers, body)``
    returns ``(status, headers, body_bytes)`` or a list of byte chunks to stream."""

    def __init__(self, handler: Callable[[str, dict[str, str], bytes], Any]) -> None:
        self.handler = handler
        self.requests: list[tuple[str, dict[str, str], bytes]] = []
        outer = self

        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a: Any) -> None:
                pass

            def do_POST(self) -> None:
                n = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(n)
                hdrs = {k.lower(): v for k, v in self.headers.items()}
                outer.requests.append((self.path, hdrs, body))
                status, headers, payload = outer.handler(self.path, hdrs, body)
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                if isinstance(payload, bytes):
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                self.send_header("connection", "close")
                self.end_headers()
                for chunk in payload:
                    self.wfile.write(chunk)
                    self.wfile.flush()
                self.close_connection = True

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> StubServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
