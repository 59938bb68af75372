"""Regressions: a run's deadline bounds a dripping body, and no error keeps a connection open.

1. A plain sync run whose body arrives a byte every 50 ms used to trip no per-read timeout and
   check the deadline only every 64 KiB: a 1 s run took 16-31 s. The urllib3 transport now
   shuts the socket at the deadline (``surefoot._backends._shutter.shut_at``).
2. ``PoolManager.clear()`` only forgets its pools; a pool referenced by the traceback of an
   error the caller keeps (a ``RunTimeoutError``'s causes, a result's attempt records) kept
   its connections open. ``close()`` now closes every pooled connection.
"""

from __future__ import annotations

import asyncio
import gc
import os
import time
from typing import Any

import pytest

import surefoot
from surefoot.llm import AsyncLLMClient, LLMClient
from surefoot.testing import faults
from surefoot.testing.faults import FaultServer, Model

STYLES = ["openai", "anthropic"]
REPLY = "a short scripted answer of the model"


def _options(server: FaultServer, style: str, **extra: Any) -> dict[str, Any]:
    return {
        "base_url": server.base_url + ("/v1" if style == "openai" else ""),
        "api_key": "sk-test-0123456789",
        "model": "m1",
        "style": style,
        **extra,
    }


def _port(server: FaultServer) -> int:
    return int(server.base_url.rsplit(":", 1)[1])


def _client_sockets(port: int) -> list[str]:
    """This process's open sockets connected to ``port`` (the client's side), with states."""
    peers: dict[str, str] = {}
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(name) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if int(fields[2].rsplit(":", 1)[1], 16) == port:
                peers[fields[9]] = fields[3]
    out = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:[") and target[8:-1] in peers:
            out.append(f"fd {fd} state {peers[target[8:-1]]}")
    return out


def _settled(port: int, wait: float = 1.0) -> list[str]:
    end = time.monotonic() + wait
    while (left := _client_sockets(port)) and time.monotonic() < end:
        time.sleep(0.01)
    return left


# -- 1. the deadline bounds a slow drip -----------------------------------------------------------


@pytest.mark.parametrize("style", STYLES)
def test_sync_plain_run_on_a_slow_drip_ends_at_its_deadline(style: str) -> None:
    with FaultServer(models=[Model("m1", reply=REPLY * 20)]) as server:
        server.enqueue(faults.Drip(chunk_bytes=1, interval=0.05), times=100)
        with LLMClient(**_options(server, style, timeout=1)) as client:
            t0 = time.monotonic()
            with pytest.raises(surefoot.RunTimeoutError):
                client.run("hello")
            elapsed = time.monotonic() - t0
    assert elapsed <= 1.05, f"the 1 s run took {elapsed:.3f}s"


@pytest.mark.parametrize("style", STYLES)
def test_sync_stream_on_a_slow_drip_ends_at_its_deadline(style: str) -> None:
    with FaultServer(models=[Model("m1", reply=REPLY * 20)]) as server:
        server.enqueue(faults.Drip(chunk_bytes=1, interval=0.05), times=100)
        with LLMClient(**_options(server, style, timeout=1)) as client:
            t0 = time.monotonic()
            with pytest.raises(surefoot.RunTimeoutError):
                for _ in client.stream("hello"):
                    pass
            elapsed = time.monotonic() - t0
    assert elapsed <= 1.05, f"the 1 s stream took {elapsed:.3f}s"


@pytest.mark.parametrize("style", STYLES)
def test_async_plain_run_on_a_slow_drip_ends_at_its_deadline(style: str) -> None:
    async def go(server: FaultServer) -> float:
        async with AsyncLLMClient(**_options(server, style, timeout=1)) as client:
            t0 = time.monotonic()
            with pytest.raises(surefoot.RunTimeoutError):
                await client.run("hello")
            return time.monotonic() - t0

    with FaultServer(models=[Model("m1", reply=REPLY * 20)]) as server:
        server.enqueue(faults.Drip(chunk_bytes=1, interval=0.05), times=100)
        elapsed = asyncio.run(go(server))
    assert elapsed <= 1.05, f"the 1 s run took {elapsed:.3f}s"


@pytest.mark.parametrize("style", STYLES)
def test_sync_fast_drip_within_the_deadline_still_answers(style: str) -> None:
    """The armed socket is disarmed once the body is in: the connection is reused."""
    with FaultServer(models=[Model("m1", reply=REPLY)]) as server:
        server.enqueue(faults.Drip(chunk_bytes=16, interval=0.001), times=2)
        with LLMClient(**_options(server, style, timeout=2)) as client:
            assert client.run("hello").text == REPLY
            assert client.run("again").text == REPLY
            assert client.run("third").text == REPLY


# -- 2. an error keeps no connection open after close() -------------------------------------------


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("style", STYLES)
def test_timeout_on_a_hung_stream_leaves_no_connection_after_close(style: str, mode: str) -> None:
    with FaultServer(models=[Model("m1", reply=REPLY)]) as server:
        server.enqueue(faults.Hang(after_events=2), times=100)
        options = _options(server, style, timeout=0.5)
        if mode == "sync":
            client = LLMClient(**options)
            with pytest.raises(surefoot.RunTimeoutError) as info:
                for _ in client.stream("hello"):
                    pass
            client.close()
        else:

            async def go() -> pytest.ExceptionInfo[surefoot.RunTimeoutError]:
                client = AsyncLLMClient(**options)
                with pytest.raises(surefoot.RunTimeoutError) as info:
                    async for _ in client.stream("hello"):
                        pass
                await client.aclose()
                return info

            info = asyncio.run(go())
        error = info.value
        gc.collect()
        assert _settled(_port(server)) == []
        assert error.__cause__ is not None  # still alive, its causes too


@pytest.mark.parametrize("kind", ["plain", "stream"])
@pytest.mark.parametrize("style", STYLES)
def test_sync_kept_errors_keep_no_pooled_connection_after_close(style: str, kind: str) -> None:
    """A reset attempt, then a run timing out: the kept error's causes reference the pool."""
    with FaultServer(models=[Model("m1", reply=REPLY)]) as server:
        server.enqueue(faults.Reset(), times=1)
        server.enqueue(faults.Ok(), times=1)
        server.enqueue(faults.Hang(after_events=2), times=100)
        client = LLMClient(**_options(server, style))
        if kind == "plain":
            result = client.run("hello", timeout=5)
        else:
            result = list(client.stream("hello", timeout=5))[-1].result
        assert result.text == REPLY
        with pytest.raises(surefoot.RunTimeoutError) as info:
            for _ in client.stream("again", timeout=0.5):
                pass
        client.close()
        assert _settled(_port(server)) == [], "the pooled connection outlived close()"
        assert info.value is not None and result.attempts


@pytest.mark.parametrize("style", STYLES)
def test_sync_retried_run_keeps_no_connection_after_close(style: str) -> None:
    """The result of a run retried after a reset keeps its attempts' errors (and tracebacks)."""
    with FaultServer(models=[Model("m1", reply=REPLY)]) as server:
        server.enqueue(faults.Reset(), times=1)
        with LLMClient(**_options(server, style, timeout=5)) as client:
            result = client.run("hello")
        assert result.text == REPLY
        assert _settled(_port(server)) == [], "the pooled connection outlived close()"
        assert result.attempts
