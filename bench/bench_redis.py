"""Added latency per guarded call (success path) with the Redis store vs the memory store.

Run: ``python bench/bench_redis.py``. Starts its own ``redis-server`` on a free loopback port
(no persistence), then measures ``Guard(breaker=..., budget=...)`` around a no-op function, sync
and async, with each store; figures are the best of several repeats minus the bare call, in
microseconds per call. The Redis success path is one round trip (the admission script).
"""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable
from typing import Any

LOOPS = 2_000
REPEATS = 5


def _best(fn: Callable[[], Any], loops: int) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        t0 = time.perf_counter_ns()
        for _ in range(loops):
            fn()
        best = min(best, (time.perf_counter_ns() - t0) / loops)
    return best / 1000


def _abest(fn: Callable[[], Awaitable[Any]], loops: int) -> float:
    async def run() -> float:
        best = float("inf")
        for _ in range(REPEATS):
            t0 = time.perf_counter_ns()
            for _ in range(loops):
                await fn()
            best = min(best, (time.perf_counter_ns() - t0) / loops)
        return best / 1000

    return asyncio.run(run())


def _start_redis() -> tuple[subprocess.Popen[bytes], str, str]:
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit(
            "bench_redis: redis-server is not installed (apt-get install redis-server)"
        )
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    tmp = tempfile.mkdtemp(prefix="surefoot-bench-redis-")
    proc = subprocess.Popen(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            tmp,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(500):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            break
        except OSError:
            time.sleep(0.01)
    return proc, f"redis://127.0.0.1:{port}/0", tmp


def _target() -> int:
    return 1


async def _atarget() -> int:
    return 1


def main() -> dict[str, Any]:
    from surefoot import CircuitBreaker, Guard, RetryBudget
    from surefoot.stores import MemoryStore, RedisStore

    proc, url, tmp = _start_redis()
    try:
        stores: dict[str, Any] = {
            "memory": MemoryStore(),
            "redis": RedisStore.from_url(url, namespace="bench"),
        }
        rows: dict[str, dict[str, float]] = {}
        bare_s = _best(_target, LOOPS * 10)
        bare_a = _abest(_atarget, LOOPS * 10)
        for label, store in stores.items():
            loops = LOOPS * 10 if label == "memory" else LOOPS
            g = Guard(
                breaker=CircuitBreaker(f"bench-{label}", store=store),
                budget=RetryBudget(store=store),
                budget_key="openai:gpt-4o",
            )
            rows[label] = {
                "sync": _best(lambda g=g: g.call(_target), loops) - bare_s,
                "async": _abest(lambda g=g: g.acall(_atarget), loops) - bare_a,
            }
            b = CircuitBreaker(f"bench-br-{label}", store=store)
            rows[label]["async breaker.acall"] = (
                _abest(lambda b=b: b.acall(_atarget), loops) - bare_a
            )
        print(f"\nadded latency per guarded call, success path (µs/call), redis at {url}")
        print(f"{'path':24s} {'memory':>10s} {'redis':>10s} {'ratio':>8s}")
        ratios: dict[str, float] = {}
        for path in ("sync", "async", "async breaker.acall"):
            m, r = rows["memory"][path], rows["redis"][path]
            ratios[path] = r / m if m > 0 else float("inf")
            print(f"{path:24s} {m:10.2f} {r:10.2f} {ratios[path]:7.0f}x")
        print(
            "\n(Guard paths: breaker admission + budget refill; the Redis breaker costs one "
            "round trip per call, budget refills are batched (one write per 50 ms); "
            "'async breaker.acall' uses the redis.asyncio client.)"
        )
        return {"memory": rows["memory"], "redis": rows["redis"], "ratios": ratios}
    finally:
        proc.terminate()
        proc.wait(5)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
