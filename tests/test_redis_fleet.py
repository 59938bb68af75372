"""A fleet of 8 spawned processes shares one breaker through Redis against a loopback HTTP
server that goes down and comes back; and a probe holder SIGKILLed mid-probe does not block
recovery. Counts are taken by the server."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

pytestmark = pytest.mark.redis

WORKERS = 8
THRESHOLD = 3
RECOVERY = 0.5


class Upstream:
    """A loopback server: 503 while down, 200 while up; it logs every request it receives."""

    def __init__(self) -> None:
        self.up = threading.Event()
        self.log: list[tuple[float, int]] = []
        lock = threading.Lock()
        outer = self

        class H(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                status = 200 if outer.up.is_set() else 503
                with lock:
                    outer.log.append((time.monotonic(), status))
                self.send_response(status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            # socketserver's default backlog is 5: eight workers connecting at once would see
            # SYNs dropped and a second's retransmit, a stall the test would misread.
            request_queue_size = 64

        self.httpd = Server(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def count(self, status: int) -> int:
        return sum(1 for _, s in list(self.log) if s == status)


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    u = Upstream()
    yield u
    u.httpd.shutdown()
    u.httpd.server_close()


def _breaker(redis_url: str, ns: str, probe_timeout: float) -> Any:
    from surefoot import CircuitBreaker
    from surefoot.stores import RedisStore

    store = RedisStore.from_url(redis_url, namespace=ns)
    return CircuitBreaker(
        "upstream",
        THRESHOLD,
        RECOVERY,
        store=store,
        probe_timeout=probe_timeout,
        counts=lambda e: True,
    )


def _get(url: str) -> None:
    with urllib.request.urlopen(url, timeout=5) as r:
        r.read()


def fleet_worker(url: str, redis_url: str, ns: str, stop: Any, out: Any, ready: Any = None) -> None:
    """Call the server through the shared breaker until told to stop; report what happened."""
    from surefoot import CircuitOpenError

    b = _breaker(redis_url, ns, RECOVERY)
    if ready is not None:
        ready.put(os.getpid())
    tally = {"ok": 0, "failed": 0, "failed_probe": 0, "probe": 0, "rejected": 0}
    deadline = time.monotonic() + 30
    while not stop.is_set() and time.monotonic() < deadline:
        try:
            permit = b.acquire()
        except CircuitOpenError as e:
            tally["rejected"] += 1
            time.sleep(min(e.retry_after or 0.01, 0.01))
            continue
        tally["probe"] += permit.is_probe
        try:
            _get(url)
        except urllib.error.HTTPError as e:
            permit.failure(e)
            tally["failed_probe" if permit.is_probe else "failed"] += 1
            continue
        permit.success()
        tally["ok"] += 1
        time.sleep(0.002)
    out.put((os.getpid(), tally))


def probe_holder(redis_url: str, ns: str, got: Any) -> None:
    """Take the half-open probe, say so, and hang (the test SIGKILLs this process)."""
    from surefoot import CircuitOpenError

    b = _breaker(redis_url, ns, 1.0)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            permit = b.acquire()
        except CircuitOpenError:
            time.sleep(0.01)
            continue
        got.put(permit.is_probe)
        time.sleep(60)


def _stop_all(procs: list[Any]) -> None:
    for p in procs:
        p.join(timeout=10)
    for p in procs:
        if p.is_alive():
            p.kill()
            p.join(5)


def test_fleet_sends_threshold_failures_and_one_probe_per_window(
    redis_server, namespace, upstream: Upstream
) -> None:  # type: ignore[no-untyped-def]
    ctx = mp.get_context("spawn")
    stop, out, ready = ctx.Event(), ctx.Queue(), ctx.Queue()
    args = (upstream.url, redis_server.url, namespace, stop, out, ready)
    procs = [ctx.Process(target=fleet_worker, args=args) for _ in range(WORKERS)]
    start = time.monotonic()
    for p in procs:
        p.start()
    try:
        for _ in procs:
            ready.get(timeout=30)
        t0 = time.monotonic()
        time.sleep(3.0)  # down: every worker hammers a failing server
        down_for = time.monotonic() - t0
        failed_while_down = upstream.count(503)
        upstream.up.set()
        deadline = time.monotonic() + 15
        while upstream.count(200) < 50 * WORKERS and time.monotonic() < deadline:
            time.sleep(0.05)
        stop.set()
        tallies = [out.get(timeout=20)[1] for _ in procs]
    finally:
        stop.set()
        _stop_all(procs)
    failed = sum(t["failed"] for t in tallies)
    probes = sum(t["failed_probe"] for t in tallies)
    admitted_probes = sum(t["probe"] for t in tallies)
    windows = int(down_for / RECOVERY) + 1
    print(
        f"\nfleet: {WORKERS} workers, threshold {THRESHOLD}, recovery {RECOVERY}s, down "
        f"{down_for:.2f}s; server saw {upstream.count(503)} failing calls ({failed} in the "
        f"closed epoch, {probes} failed probes of {admitted_probes} admitted; at most "
        f"{windows} windows), "
        f"{upstream.count(200)} successes; rejected locally: {sum(t['rejected'] for t in tallies)}"
    )
    assert upstream.count(503) == failed + probes  # every request the server saw is accounted
    assert failed_while_down <= upstream.count(503)
    # Calls admitted while the circuit was still closed: the threshold, plus at most one call
    # already in flight in each other worker when the threshold-th failure was recorded.
    assert THRESHOLD <= failed <= THRESHOLD + WORKERS - 1
    # At most one failed probe per recovery window, fleet-wide. How many windows passed before
    # the server came back depends on the scheduler (a probe may still be connecting when it
    # does), so the floor is on admitted probes: the circuit can only close through one.
    assert probes <= windows
    assert admitted_probes >= 1
    assert all(t["ok"] > 0 for t in tallies)  # recovered: every worker got through again
    assert time.monotonic() - start < 60


def test_killed_probe_holder_does_not_block_recovery(
    redis_server, namespace, upstream: Upstream
) -> None:  # type: ignore[no-untyped-def]
    from surefoot.stores import BreakerState

    b = _breaker(redis_server.url, namespace, 1.0)
    for _ in range(THRESHOLD):
        permit = b.acquire()
        permit.failure(RuntimeError("down"))
    assert b.state is BreakerState.OPEN
    ctx = mp.get_context("spawn")
    got = ctx.Queue()
    holder = ctx.Process(target=probe_holder, args=(redis_server.url, namespace, got))
    holder.start()
    procs: list[Any] = [holder]
    try:
        assert got.get(timeout=20) is True  # it holds the fleet's only probe
        os.kill(holder.pid or 0, signal.SIGKILL)
        holder.join(5)
        upstream.up.set()
        stop, out = ctx.Event(), ctx.Queue()
        procs += [
            ctx.Process(
                target=fleet_worker, args=(upstream.url, redis_server.url, namespace, stop, out)
            )
            for _ in range(3)
        ]
        for p in procs[1:]:
            p.start()
        deadline = time.monotonic() + 20
        while b.state is not BreakerState.CLOSED and time.monotonic() < deadline:
            time.sleep(0.05)
        assert b.state is BreakerState.CLOSED  # the reservation expired; another worker probed
        while upstream.count(200) < 10 and time.monotonic() < deadline:
            time.sleep(0.05)
        stop.set()
        tallies = [out.get(timeout=20)[1] for _ in procs[1:]]
    finally:
        for p in procs[1:]:
            p.join(10)
        _stop_all(procs)
    assert upstream.count(503) == 0 and sum(t["ok"] for t in tallies) >= 10
