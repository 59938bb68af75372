"""The Redis breaker store against a real redis-server: transitions, epochs, the probe, TTLs,
restart, clock skew, bad input."""

from __future__ import annotations

import asyncio
import time

import pytest
import redis

from surefoot import CircuitBreaker, CircuitOpenError, ConfigurationError, RetryBudget
from surefoot.stores import BreakerConfig, BreakerState, RedisStore
from surefoot.stores._base import FAILURE, NEUTRAL, REJECTED, SUCCESS

pytestmark = pytest.mark.redis

CLOSED, OPEN, HALF = BreakerState.CLOSED, BreakerState.OPEN, BreakerState.HALF_OPEN


class Boom(Exception):
    pass


def always(_: BaseException) -> bool:
    return True


class SkewedClock:
    """A local clock hours off (and a sleep that really sleeps): the store must not care."""

    def __init__(self, offset: float) -> None:
        self.offset = offset

    def now(self) -> float:
        return time.monotonic() + self.offset

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    async def asleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


@pytest.fixture
def store(redis_server, namespace) -> RedisStore:  # type: ignore[no-untyped-def]
    return RedisStore.from_url(redis_server.url, namespace=namespace)


def fail(b: CircuitBreaker) -> None:
    with pytest.raises(Boom):
        b.call(_boom)


def _boom() -> None:
    raise Boom("down")


def test_every_transition(store: RedisStore) -> None:
    seen: list[tuple[BreakerState, BreakerState]] = []
    b = CircuitBreaker(
        "t", 3, 0.3, store=store, counts=always, on_state_change=lambda n, o, w: seen.append((o, w))
    )
    assert b.state is CLOSED and b.call(lambda: 1) == 1
    fail(b)
    fail(b)
    assert b.failure_count == 2
    assert b.call(lambda: 2) == 2  # a success clears the consecutive count
    assert b.failure_count == 0
    for _ in range(3):
        fail(b)
    assert b.state is OPEN and seen == [(CLOSED, OPEN)]
    with pytest.raises(CircuitOpenError) as ei:
        b.call(lambda: 3)
    assert 0 < ei.value.retry_after <= 0.3
    time.sleep(0.35)
    assert b.state is HALF  # the next caller would be the probe
    fail(b)  # the probe fails: open again
    assert seen[-2:] == [(OPEN, HALF), (HALF, OPEN)] and b.state is OPEN
    time.sleep(0.35)
    assert b.call(lambda: 4) == 4  # the probe succeeds: closed
    assert seen[-2:] == [(OPEN, HALF), (HALF, CLOSED)] and b.state is CLOSED
    fail(b)
    b.reset()
    assert b.snapshot().failures == 0 and b.state is CLOSED


def test_probe_is_exclusive_and_release_frees_it(store: RedisStore) -> None:
    cfg = BreakerConfig(failure_threshold=1, recovery_timeout=0.1, probe_timeout=30)
    t = store.admit("p", 0, cfg)
    assert store.record("p", t, FAILURE, 0, cfg) == (CLOSED, OPEN)
    assert store.admit("p", 0, cfg) == REJECTED
    time.sleep(0.15)
    probe = store.admit("p", 0, cfg)
    assert probe & 1
    other = RedisStore.from_url(store._link.url or "", namespace=store.namespace)
    assert other.admit("p", 0, cfg) == REJECTED  # another process: no second probe
    snap = other.snapshot("p", 0, cfg)
    assert snap.state is HALF and 29 < snap.retry_after <= 30
    assert store.record("p", probe, NEUTRAL, 0, cfg) is None  # released
    second = other.admit("p", 0, cfg)
    assert second & 1 and second > probe
    assert store.record("p", probe, SUCCESS, 0, cfg) is None  # stale probe: ignored
    assert other.record("p", second, SUCCESS, 0, cfg) == (HALF, CLOSED)


def test_probe_reservation_expires(store: RedisStore) -> None:
    cfg = BreakerConfig(failure_threshold=1, recovery_timeout=0.1, probe_timeout=0.3)
    store.record("e", store.admit("e", 0, cfg), FAILURE, 0, cfg)
    time.sleep(0.15)
    dead = store.admit("e", 0, cfg)  # its holder "dies" and never reports
    assert dead & 1 and store.admit("e", 0, cfg) == REJECTED
    time.sleep(0.35)
    fresh = store.admit("e", 0, cfg)
    assert fresh & 1 and fresh >> 1 > dead >> 1
    assert store.record("e", dead, SUCCESS, 0, cfg) is None  # the late holder changes nothing
    assert store.record("e", fresh, SUCCESS, 0, cfg) == (HALF, CLOSED)


def test_epoch_guard(store: RedisStore) -> None:
    cfg = BreakerConfig(failure_threshold=2, recovery_timeout=0.1)
    slow = store.admit("g", 0, cfg)  # admitted before the circuit opens
    for _ in range(2):
        store.record("g", store.admit("g", 0, cfg), FAILURE, 0, cfg)
    assert store.snapshot("g", 0, cfg).state is OPEN
    assert store.record("g", slow, SUCCESS, 0, cfg) is None  # cannot close the newer circuit
    assert store.snapshot("g", 0, cfg).state is OPEN
    time.sleep(0.15)
    probe = store.admit("g", 0, cfg)
    assert store.record("g", probe, SUCCESS, 0, cfg) == (HALF, CLOSED)
    assert store.record("g", slow, FAILURE, 0, cfg) is None  # nor re-open it
    assert store.record("g", slow, FAILURE, 0, cfg) is None
    assert store.snapshot("g", 0, cfg).failures == 0


def test_ratio_mode(store: RedisStore) -> None:
    b = CircuitBreaker(
        "r",
        mode="ratio",
        failure_ratio=0.5,
        window=10,
        minimum_throughput=4,
        store=store,
        counts=always,
    )
    b.call(lambda: 1)
    b.call(lambda: 1)
    fail(b)
    assert b.state is CLOSED and b.snapshot().calls == 3
    fail(b)  # 2 of 4 failed: ratio reached
    assert b.state is OPEN


def test_every_key_has_a_ttl(store: RedisStore, redis_server) -> None:  # type: ignore[no-untyped-def]
    b = CircuitBreaker(
        "ttl", 1, 0.1, store=store, counts=always, mode="ratio", minimum_throughput=1
    )
    fail(b)
    budget = RetryBudget(store=store)
    budget.try_spend("openai:gpt-4o")
    r = redis.Redis.from_url(redis_server.url)
    keys = r.keys(f"surefoot:{store.namespace}:*")
    assert len(keys) >= 2
    for k in keys:
        assert 0 < r.ttl(k) <= 3600, k


def test_namespaces_and_names_are_separate(redis_server) -> None:  # type: ignore[no-untyped-def]
    a = RedisStore.from_url(redis_server.url, namespace="app-a")
    b = RedisStore.from_url(redis_server.url, namespace="app-b")
    cfg = BreakerConfig(failure_threshold=1, recovery_timeout=30)
    a.reset("openai:gpt-4o"), b.reset("openai:gpt-4o"), a.reset("anthropic:claude")
    a.record("openai:gpt-4o", a.admit("openai:gpt-4o", 0, cfg), FAILURE, 0, cfg)
    assert a.snapshot("openai:gpt-4o", 0, cfg).state is OPEN
    assert a.snapshot("anthropic:claude", 0, cfg).state is CLOSED
    assert b.snapshot("openai:gpt-4o", 0, cfg).state is CLOSED


def test_clock_skew_is_irrelevant(store: RedisStore) -> None:
    ahead = CircuitBreaker("s", 1, 0.3, store=store, counts=always, clock=SkewedClock(+7200))
    behind = CircuitBreaker("s", 1, 0.3, store=store, counts=always, clock=SkewedClock(-7200))
    fail(ahead)
    with pytest.raises(CircuitOpenError) as ei:
        behind.call(lambda: 1)
    assert 0 < ei.value.retry_after <= 0.3  # the server's clock, not the hosts'
    time.sleep(0.35)
    assert behind.call(lambda: 1) == 1 and ahead.state is CLOSED


def test_restart_loses_state_and_reloads_scripts(redis_factory) -> None:  # type: ignore[no-untyped-def]
    srv = redis_factory().start()
    store = RedisStore.from_url(srv.url, namespace="rs", retry_interval=0.2)
    b = CircuitBreaker("x", 1, 60, store=store, counts=always)
    fail(b)
    old = b.snapshot().epoch
    assert b.state is OPEN
    srv.stop()
    srv.start()  # same port, no persistence: the state is gone, the script cache too
    assert b.call(lambda: 1) == 1  # one reconnect, NOSCRIPT -> SCRIPT LOAD, a closed breaker
    assert store.available and b.state is CLOSED
    assert b.snapshot().epoch > old  # epochs go on rising: old tickets never match


def test_async_client_paths(store: RedisStore) -> None:
    async def main() -> None:
        b = CircuitBreaker("a", 2, 0.2, store=store, counts=always)

        async def boom() -> None:
            raise Boom

        async def ok() -> int:
            return 7

        for _ in range(2):
            with pytest.raises(Boom):
                await b.acall(boom)
        with pytest.raises(CircuitOpenError):
            await b.acall(ok)
        await asyncio.sleep(0.25)
        assert await b.acall(ok) == 7
        assert b.state is CLOSED

    asyncio.run(main())
    asyncio.run(main())  # a second event loop gets its own asyncio client


def test_store_selected_by_url_or_client(redis_server) -> None:  # type: ignore[no-untyped-def]
    b = CircuitBreaker("u", store=redis_server.url)
    assert isinstance(b.store, RedisStore)
    assert CircuitBreaker("v", store=redis_server.url).store is b.store  # one pool per URL
    c = CircuitBreaker(
        "w",
        store=redis.Redis.from_url(
            redis_server.url, socket_timeout=0.5, socket_connect_timeout=0.5
        ),
    )
    assert isinstance(c.store, RedisStore) and c.call(lambda: 3) == 3
    assert isinstance(RetryBudget(store=redis_server.url).store, RedisStore)


@pytest.mark.parametrize(
    "url",
    ["http://localhost:6379", "localhost:6379", "", "redis://", "rediss//x"],
)
def test_wrong_url(url: str) -> None:
    with pytest.raises(ValueError, match="Redis URL"):
        RedisStore.from_url(url)
    with pytest.raises(ValueError, match="Redis URL"):
        CircuitBreaker("x", store=url or "nope")


def test_wrong_password(redis_factory) -> None:  # type: ignore[no-untyped-def]
    srv = redis_factory("--requirepass", "s3cret").start()
    bad = RedisStore.from_url(f"redis://:wrong@127.0.0.1:{srv.port}/0")
    assert "wrong" not in repr(bad)
    b = CircuitBreaker("x", store=bad)
    with pytest.raises(ConfigurationError, match="authentication failed") as ei:
        b.call(lambda: 1)
    assert "wrong" not in str(ei.value)
    with pytest.raises(ConfigurationError, match="authentication failed"):
        bad.ping()
    none = RedisStore.from_url(f"redis://127.0.0.1:{srv.port}/0")
    with pytest.raises(ConfigurationError, match="authentication failed"):
        CircuitBreaker("x", store=none).call(lambda: 1)
    good = RedisStore.from_url(f"redis://:s3cret@127.0.0.1:{srv.port}/0")
    good.ping()
    assert CircuitBreaker("x", store=good).call(lambda: 1) == 1


def test_wrongtype_key_names_the_key(store: RedisStore, redis_server) -> None:  # type: ignore[no-untyped-def]
    r = redis.Redis.from_url(redis_server.url)
    key = f"surefoot:{store.namespace}:br:{{foreign}}"
    r.rpush(key, "someone else's list")
    with pytest.raises(ConfigurationError, match="another type") as ei:
        CircuitBreaker("foreign", store=store).call(lambda: 1)
    assert key in str(ei.value)
    assert r.type(key) == b"list"  # never overwritten
    r.set(f"surefoot:{store.namespace}:bu:k", "x")
    r.delete(f"surefoot:{store.namespace}:bu:k")
    r.hset(f"surefoot:{store.namespace}:bu:k", "a", 1)
    with pytest.raises(ConfigurationError, match="another type"):
        RetryBudget(store=store).try_spend("k")
