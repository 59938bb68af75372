"""No-failure overhead per call of surefoot's Guard against tenacity, stamina, backoff,
pybreaker and circuitbreaker, sync and async, measured in one run.

Run: ``python bench/bench_guard.py``. Each figure is the best of several timeit-style repeats
minus the bare call's cost (a plain function call, or a plain ``await`` of a coroutine), in
nanoseconds per call. Ratios > 1 mean surefoot is cheaper.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

LOOPS = 20_000
REPEATS = 7


def _best(fn: Callable[[], Any], loops: int = LOOPS, repeats: int = REPEATS) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        for _ in range(loops):
            fn()
        best = min(best, (time.perf_counter_ns() - t0) / loops)
    return best


def _abest(fn: Callable[[], Awaitable[Any]], loops: int = LOOPS, repeats: int = REPEATS) -> float:
    async def run() -> float:
        best = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter_ns()
            for _ in range(loops):
                await fn()
            best = min(best, (time.perf_counter_ns() - t0) / loops)
        return best

    return asyncio.run(run())


def _target() -> int:
    return 1


async def _atarget() -> int:
    return 1


def sync_candidates() -> dict[str, Callable[[], Any]]:
    import surefoot.guard as sg
    from surefoot import CircuitBreaker

    out: dict[str, Callable[[], Any]] = {"bare": _target}
    full = sg.Guard(retries=2, timeout=30.0, breaker=CircuitBreaker("bench-sync"))
    out["surefoot retry+breaker+deadline"] = sg.resilient(
        retries=2, timeout=30.0, breaker=CircuitBreaker("bench-sync-dec")
    )(_target)
    out["surefoot Guard.call (full)"] = lambda: full.call(_target)
    out["surefoot retry only"] = sg.resilient(retries=2)(_target)
    try:
        import tenacity

        out["tenacity"] = tenacity.retry(
            stop=tenacity.stop_after_attempt(3), wait=tenacity.wait_exponential(multiplier=0.5)
        )(_target)
    except ImportError:
        pass
    try:
        import stamina

        out["stamina"] = stamina.retry(on=Exception, attempts=3)(_target)
    except ImportError:
        pass
    try:
        import backoff

        out["backoff"] = backoff.on_exception(backoff.expo, Exception, max_tries=3)(_target)
    except ImportError:
        pass
    try:
        import pybreaker

        out["pybreaker"] = pybreaker.CircuitBreaker(fail_max=10, reset_timeout=30)(_target)
    except ImportError:
        pass
    try:
        import circuitbreaker

        out["circuitbreaker"] = circuitbreaker.CircuitBreaker(
            failure_threshold=10, recovery_timeout=30
        )(_target)
    except ImportError:
        pass
    return out


def async_candidates() -> dict[str, Callable[[], Awaitable[Any]]]:
    import surefoot.guard as sg
    from surefoot import CircuitBreaker

    out: dict[str, Callable[[], Awaitable[Any]]] = {"bare": _atarget}
    out["surefoot retry+breaker+deadline"] = sg.resilient(
        retries=2, timeout=30.0, breaker=CircuitBreaker("bench-async")
    )(_atarget)
    out["surefoot retry only"] = sg.resilient(retries=2)(_atarget)
    try:
        import tenacity

        out["tenacity"] = tenacity.retry(
            stop=tenacity.stop_after_attempt(3), wait=tenacity.wait_exponential(multiplier=0.5)
        )(_atarget)
    except ImportError:
        pass
    try:
        import stamina

        out["stamina"] = stamina.retry(on=Exception, attempts=3)(_atarget)
    except ImportError:
        pass
    try:
        import backoff

        out["backoff"] = backoff.on_exception(backoff.expo, Exception, max_tries=3)(_atarget)
    except ImportError:
        pass
    try:
        import circuitbreaker

        out["circuitbreaker"] = circuitbreaker.CircuitBreaker(
            failure_threshold=10, recovery_timeout=30
        )(_atarget)
    except ImportError:
        pass
    return out


def _table(title: str, raw: dict[str, float]) -> dict[str, float]:
    bare = raw["bare"]
    over = {k: max(0.0, v - bare) for k, v in raw.items() if k != "bare"}
    print(f"\n{title} (bare call {bare:.0f} ns; overhead = time - bare)")
    print(f"  {'wrapper':34s} {'ns/call':>9s}")
    for k, v in over.items():
        print(f"  {k:34s} {v:9.0f}")
    return over


def _ratios(label: str, over: dict[str, float]) -> dict[str, float]:
    ours = max(over["surefoot retry+breaker+deadline"], 1.0)
    out: dict[str, float] = {}
    for anchor in ("tenacity", "stamina", "backoff", "pybreaker", "circuitbreaker"):
        if anchor in over:
            out[f"{label} {anchor}/surefoot"] = over[anchor] / ours
            print(f"  {anchor}/surefoot(full) = {over[anchor] / ours:6.1f}x")
    return out


def telemetry_costs() -> dict[str, float] | None:
    """What OpenTelemetry adds per call and per attempt, with a no-op exporter: a clean call
    (one call span, one attempt span) and a call whose first attempt fails (three spans, a
    wait event), each sync, instrumented vs not, in nanoseconds."""
    try:
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import InMemoryMetricReader
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import (
            SimpleSpanProcessor,
            SpanExporter,
            SpanExportResult,
        )
    except ImportError:
        print("\n(OpenTelemetry SDK not installed: no telemetry figures)")
        return None
    import surefoot.guard as sg
    import surefoot.telemetry as telemetry
    from surefoot.testing.clock import FakeClock

    class NoOp(SpanExporter):
        def export(self, spans: Any) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    clean = sg.Guard(retries=2, timeout=30.0)
    flaky = sg.Guard(retries=2, clock=FakeClock())
    state = {"n": 0}

    def fails_once() -> int:
        state["n"] += 1
        if state["n"] % 2:
            raise ConnectionResetError("reset")
        return 1

    def measure() -> tuple[float, float]:
        a = _best(lambda: clean.call(_target), loops=5_000)
        b = _best(lambda: flaky.call(fails_once), loops=2_000)
        return a, b

    off = measure()
    tp = TracerProvider()
    tp.add_span_processor(SimpleSpanProcessor(NoOp()))
    telemetry.instrument(tracer_provider=tp, meter_provider=MeterProvider([InMemoryMetricReader()]))
    try:
        on = measure()
    finally:
        telemetry.uninstrument()
    out = {
        "clean call, off": off[0],
        "clean call, on": on[0],
        "retried call, off": off[1],
        "retried call, on": on[1],
        "added per clean call": on[0] - off[0],
        "added per attempt (retried call: 2 attempts)": (on[1] - off[1]) / 2,
    }
    print("\nOpenTelemetry (no-op exporter), ns per call:")
    for k, v in out.items():
        print(f"  {k:46s} {v:10.0f}")
    return out


def main() -> dict[str, Any]:
    sync_raw = {k: _best(f) for k, f in sync_candidates().items()}
    async_raw = {k: _abest(f) for k, f in async_candidates().items()}
    sync_over = _table("sync, no failure", sync_raw)
    ratios = _ratios("sync", sync_over)
    async_over = _table("async, no failure", async_raw)
    ratios.update(_ratios("async", async_over))
    full_s = sync_over["surefoot retry+breaker+deadline"]
    full_a = async_over["surefoot retry+breaker+deadline"]
    checks = {
        "sync <= tenacity/20": full_s <= sync_over.get("tenacity", float("inf")) / 20,
        "sync < pybreaker": full_s < sync_over.get("pybreaker", float("inf")),
        "async <= tenacity/20": full_a <= async_over.get("tenacity", float("inf")) / 20,
        "async < pybreaker(sync)": full_a < sync_over.get("pybreaker", float("inf")),
    }
    print("\ntargets:")
    for k, ok in checks.items():
        print(f"  {k:28s} {'PASS' if ok else 'FAIL'}")
    otel = telemetry_costs()
    return {
        "sync": sync_over,
        "async": async_over,
        "ratios": ratios,
        "targets": checks,
        "telemetry": otel,
    }


if __name__ == "__main__":
    main()
