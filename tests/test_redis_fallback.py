"""Redis slow or down: local state takes over (or allow / deny), the switch is reported once,
and the shared state is used again when Redis returns."""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
import time

import pytest

from surefoot import CircuitBreaker, CircuitOpenError, RetryBudget, SharedRateLimiter
from surefoot.stores import BreakerState, RedisStore, StoreEvent

pytestmark = pytest.mark.redis


class Boom(Exception):
    pass


def _boom() -> None:
    raise Boom


def always(_: BaseException) -> bool:
    return True


def test_down_then_local_then_restored(redis_factory, caplog) -> None:  # type: ignore[no-untyped-def]
    srv = redis_factory().start()
    events: list[StoreEvent] = []
    store = RedisStore.from_url(srv.url, namespace="fb", retry_interval=0.3, on_event=events.append)
    b = CircuitBreaker("x", 2, 30, store=store, counts=always)
    assert b.call(lambda: 1) == 1 and store.available
    srv.stop()
    with caplog.at_level(logging.WARNING, logger="surefoot.stores"):
        t0 = time.monotonic()
        assert b.call(lambda: 2) == 2  # Redis down: the local breaker admits
        for _ in range(2):
            with pytest.raises(Boom):
                b.call(_boom)
        with pytest.raises(CircuitOpenError):  # ...and still protects this process
            b.call(lambda: 3)
        for _ in range(20):  # no storm of logs or events while down
            with pytest.raises(CircuitOpenError):
                b.call(lambda: 3)
        assert time.monotonic() - t0 < 3
    assert [e.kind for e in events] == ["unavailable"] and events[0].when_down == "local"
    assert sum("unreachable" in r.getMessage() for r in caplog.records) == 1
    assert not store.available and b.state is BreakerState.OPEN
    srv.start()
    time.sleep(0.35)
    assert b.call(lambda: 4) == 4  # shared (closed) state again
    assert store.available and [e.kind for e in events] == ["unavailable", "restored"]
    assert b.state is BreakerState.CLOSED


def test_when_down_deny_and_allow(redis_factory) -> None:  # type: ignore[no-untyped-def]
    srv = redis_factory().start()
    deny = RedisStore.from_url(srv.url, namespace="d", when_down="deny", retry_interval=60)
    allow = RedisStore.from_url(srv.url, namespace="a", when_down="allow", retry_interval=60)
    srv.stop()
    bd = CircuitBreaker("x", 1, 1, store=deny, counts=always)
    with pytest.raises(CircuitOpenError) as ei:
        bd.call(lambda: 1)
    assert ei.value.retry_after > 0
    assert not RetryBudget(store=deny).try_spend("k")
    ba = CircuitBreaker("x", 1, 1, store=allow, counts=always)
    for _ in range(3):
        with pytest.raises(Boom):
            ba.call(_boom)
    assert ba.call(lambda: 1) == 1  # fail-open: nothing is tracked
    assert RetryBudget(store=allow).try_spend("k")
    assert SharedRateLimiter(allow, "k").acquire() == 0.0


def test_budget_and_limiter_fall_back_locally(redis_factory) -> None:  # type: ignore[no-untyped-def]
    srv = redis_factory().start()
    store = RedisStore.from_url(srv.url, namespace="bl", retry_interval=60)
    srv.stop()
    budget = RetryBudget(capacity=2, store=store)
    assert [budget.try_spend("k") for _ in range(3)] == [True, True, False]
    assert budget.tokens("k") == 0.0
    lim = SharedRateLimiter(store, "k")
    lim.observe({"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "5s"})
    assert 4 < lim.acquire() <= 5


def _blackhole() -> tuple[socket.socket, int, threading.Event]:
    """A server that accepts connections and never answers: a 'slow' Redis."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    stop = threading.Event()
    held: list[socket.socket] = []

    def run() -> None:
        srv.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(srv.accept()[0])
            except OSError:
                pass
        for c in held:
            c.close()
        srv.close()

    threading.Thread(target=run, daemon=True).start()
    return srv, srv.getsockname()[1], stop


def test_slow_redis_is_bounded_by_the_timeout() -> None:
    _, port, stop = _blackhole()
    try:
        store = RedisStore.from_url(f"redis://127.0.0.1:{port}/0", timeout=0.2, retry_interval=60)
        b = CircuitBreaker("slow", store=store)
        t0 = time.monotonic()
        assert b.call(lambda: 1) == 1
        first = time.monotonic() - t0
        t0 = time.monotonic()
        for _ in range(50):
            b.call(lambda: 1)
        assert first < 2 and time.monotonic() - t0 < 1  # then local, no more waiting
        assert not store.available
    finally:
        stop.set()


def test_async_paths_fall_back(redis_factory) -> None:  # type: ignore[no-untyped-def]
    srv = redis_factory().start()
    store = RedisStore.from_url(srv.url, namespace="as", retry_interval=0.2)
    srv.stop()

    async def main() -> None:
        b = CircuitBreaker("x", 1, 30, store=store, counts=always)

        async def boom() -> None:
            raise Boom

        async def ok() -> int:
            return 1

        with pytest.raises(Boom):
            await b.acall(boom)
        with pytest.raises(CircuitOpenError):
            await b.acall(ok)
        lim = SharedRateLimiter(store, "k")
        assert await lim.aacquire() == 0.0

    asyncio.run(main())
    assert not store.available
