"""The chaos matrix: every fault type x wire format x sync/async x stream/plain, on loopback.

Each cell runs one call against a :class:`FaultServer` with a 1 s deadline and asserts:

- the outcome is the exact scripted text (a stream: the concatenated deltas since the last
  restart event, none lost or repeated) or a typed :class:`surefoot.SurefootError` (whose
  deltas so far are a prefix of it);
- the run ends no later than its deadline + 50 ms (a bound, not a timing assertion);
- after ``close()`` no socket, file descriptor or thread is left behind (the process-wide
  deadline-shutter thread excepted).
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import surefoot
from surefoot.llm import AsyncLLMClient, LLMClient
from surefoot.testing import faults
from surefoot.testing.faults import FAULT_TYPES, FaultServer, Model
from surefoot.testing.faults._synth import _HUGE_WORD

TIMEOUT = 1.0
SLACK = 0.05
REPLY = "the quick brown fox jumps over the lazy dog, twice: the quick brown fox"
#: Threads that may appear during a cell and outlive it by design.
SHARED_THREADS = frozenset({"surefoot-deadlines"})

#: (cell id, fault, times it is queued, extra client options). ``times=100`` means every
#: attempt gets the fault; ``1`` means the first does and a retry gets the answer.
CASES: list[tuple[str, faults.Fault, int, dict[str, Any]]] = [
    ("ok", faults.Ok(), 1, {}),
    ("latency", faults.Latency(seconds=0.2), 1, {}),
    ("latency-past-deadline", faults.Latency(seconds=3.0), 100, {}),
    ("status-400", faults.Status(400), 100, {}),
    ("status-500-once", faults.Status(500), 1, {}),
    ("status-429-always", faults.Status(429, retry_after=0.2), 100, {}),
    ("hang-before-headers", faults.Hang(), 100, {}),
    ("hang-after-events", faults.Hang(after_events=2), 100, {}),
    ("hang-after-events-read-timeout", faults.Hang(after_events=2), 1, {"read_timeout": 0.2}),
    ("reset-before-headers", faults.Reset(), 1, {}),
    ("reset-mid-body", faults.Reset(at="mid_body"), 1, {}),
    ("reset-mid-body-always", faults.Reset(at="mid_body", after_events=3), 100, {}),
    ("truncate", faults.Truncate(), 1, {}),
    ("truncate-after-events", faults.Truncate(after_events=3), 100, {}),
    ("stream-error", faults.StreamError(after_deltas=2), 1, {}),
    ("stream-error-final", faults.StreamError(after_deltas=2, error="bad_request"), 100, {}),
    ("malformed-tool-call", faults.MalformedToolCall(), 1, {}),
    ("content-filter", faults.ContentFilter(), 100, {}),
    ("content-filter-error", faults.ContentFilter(mode="error"), 100, {}),
    ("error-in-200", faults.ErrorIn200(), 1, {}),
    ("huge-body", faults.HugeBody(megabytes=0.5), 1, {}),
    ("drip-fast", faults.Drip(chunk_bytes=64, interval=0.001), 1, {}),
    ("drip-slow", faults.Drip(chunk_bytes=1, interval=0.05), 100, {}),
    ("slow-first-token", faults.SlowFirstToken(seconds=0.2), 1, {}),
    ("slow-first-token-past-deadline", faults.SlowFirstToken(seconds=3.0), 100, {}),
    ("malformed-chunk", faults.MalformedChunk(after_events=2), 1, {}),
    ("malformed-chunk-always", faults.MalformedChunk(after_events=2, count=5), 100, {}),
    ("no-done", faults.NoDone(), 100, {}),
    ("prefill-rejected", faults.PrefillRejected(), 100, {}),
]

#: Cells that reveal a defect outside this suite's reach: (case, mode, kind) -> reason.
XFAIL: dict[tuple[str, str, str], str] = {}


def test_matrix_covers_every_fault_type() -> None:
    assert {type(f).kind for _, f, _, _ in CASES} == set(FAULT_TYPES)


def _expected(fault: faults.Fault) -> str:
    if isinstance(fault, faults.HugeBody):
        size = int(fault.megabytes * 1_000_000)
        return (_HUGE_WORD * (size // len(_HUGE_WORD) + 1))[:size]
    return REPLY


def _server_sockets(port: int) -> set[str]:
    """The inodes of the sockets bound to ``port``: the fault server's side, its own to close."""
    out = set()
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(name) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port:
                out.add(fields[9])
    return out


def _fds(port: int) -> set[str]:
    """This process's open descriptors (``"fd:target"``), but the fault server's sockets."""
    server = _server_sockets(port)
    out = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # the directory's own descriptor, gone once listed
            continue
        if target.startswith("socket:[") and target[8:-1] in server:
            continue
        out.add(f"{fd}:{target}")
    return out


def _threads() -> set[int]:
    return {t.ident or 0 for t in threading.enumerate() if t.name not in SHARED_THREADS}


def _settled(
    port: int, before: set[str], threads: set[int], wait: float = 1.0
) -> tuple[set[str], set[int]]:
    """What is left open beyond ``before`` (polled: a thread may take a beat to end)."""
    end = time.monotonic() + wait
    while True:
        fds = _fds(port) - before
        extra = _threads() - threads
        if (not fds and not extra) or time.monotonic() > end:
            return fds, extra
        time.sleep(0.01)


def _run_sync(options: dict[str, Any], kind: str) -> tuple[float, str, Any]:
    with LLMClient(**options) as client:
        deltas: list[str] = []
        t0 = time.monotonic()
        try:
            if kind == "plain":
                out: Any = client.run("hello")
            else:
                out = None
                for ev in client.stream("hello"):
                    if ev.type == "restart":  # the answer starts over: what came before goes
                        deltas.clear()
                    elif ev.type == "text":
                        deltas.append(ev.text)
                    elif ev.type == "result":
                        out = ev.result
        except surefoot.SurefootError as exc:
            out = exc
        elapsed = time.monotonic() - t0
    return elapsed, "".join(deltas), out


def _run_async(options: dict[str, Any], kind: str) -> tuple[float, str, Any]:
    async def go() -> tuple[float, str, Any]:
        async with AsyncLLMClient(**options) as client:
            deltas: list[str] = []
            t0 = time.monotonic()
            try:
                if kind == "plain":
                    out: Any = await client.run("hello")
                else:
                    out = None
                    async for ev in client.stream("hello"):
                        if ev.type == "restart":
                            deltas.clear()
                        elif ev.type == "text":
                            deltas.append(ev.text)
                        elif ev.type == "result":
                            out = ev.result
            except surefoot.SurefootError as exc:
                out = exc
            elapsed = time.monotonic() - t0
        return elapsed, "".join(deltas), out

    return asyncio.run(go())


RUNNERS: dict[str, Callable[[dict[str, Any], str], tuple[float, str, Any]]] = {
    "sync": _run_sync,
    "async": _run_async,
}

#: (seconds past the deadline, cell) of every cell run; the worst is shown at the end (-s).
WORST: list[tuple[float, str]] = []


@pytest.fixture(scope="module", autouse=True)
def _report_worst_overshoot() -> Iterator[None]:
    yield
    if WORST:
        worst, cell = max(WORST)
        print(f"\nchaos matrix: worst deadline overshoot {worst * 1000:+.1f} ms ({cell})")


def _params() -> list[Any]:
    out = []
    for case, fault, times, extra in CASES:
        for style in ("openai", "anthropic"):
            for mode in ("sync", "async"):
                for kind in ("plain", "stream"):
                    marks = []
                    reason = XFAIL.get((case, mode, kind))
                    if reason is not None:
                        marks.append(pytest.mark.xfail(strict=True, reason=reason))
                    out.append(
                        pytest.param(
                            fault,
                            times,
                            extra,
                            style,
                            mode,
                            kind,
                            id=f"{case}-{style}-{mode}-{kind}",
                            marks=marks,
                        )
                    )
    return out


@pytest.mark.parametrize(("fault", "times", "extra", "style", "mode", "kind"), _params())
def test_cell(
    fault: faults.Fault,
    times: int,
    extra: dict[str, Any],
    style: str,
    mode: str,
    kind: str,
) -> None:
    expected = _expected(fault)
    with FaultServer(models=[Model("m1", reply=expected)]) as server:
        server.enqueue(fault, times=times)
        options = {
            "base_url": server.base_url + ("/v1" if style == "openai" else ""),
            "api_key": "sk-test-0123456789",
            "model": "m1",
            "style": style,
            "timeout": TIMEOUT,
            **extra,
        }
        port = int(server.base_url.rsplit(":", 1)[1])
        fds, threads = _fds(port), _threads()
        elapsed, streamed, out = RUNNERS[mode](options, kind)
        left_fds, left_threads = _settled(port, fds, threads)

    WORST.append((elapsed - TIMEOUT, f"{type(fault).kind}-{style}-{mode}-{kind}"))
    assert elapsed <= TIMEOUT + SLACK, f"the run ended {elapsed - TIMEOUT:+.3f}s past its deadline"
    assert not left_fds, f"descriptors left open after close(): {sorted(left_fds)}"
    assert not left_threads, f"threads left after close(): {threading.enumerate()}"
    if isinstance(out, surefoot.SurefootError):
        if kind == "stream":  # what was seen before the error: no delta lost or repeated
            assert expected.startswith(streamed), (streamed[:200], type(out).__name__)
        return
    assert out is not None, "the stream ended without a result"
    assert out.text == expected
    if kind == "stream":
        assert streamed == expected
