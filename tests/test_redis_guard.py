"""The guard with a Redis-backed breaker: the async drivers await the store's asyncio client (the
event loop never waits on a sync round trip), the guard's hooks hear every transition its calls
cause, and ``GuardHooks.on_store_event`` hears the store going down and coming back."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest
import redis
import redis.asyncio

from surefoot import CircuitBreaker, CircuitOpenError, RetryBudget
from surefoot.guard import Guard, GuardHooks, resilient
from surefoot.stores import BreakerState, RedisStore, StoreEvent

pytestmark = pytest.mark.redis

CLOSED, OPEN, HALF = BreakerState.CLOSED, BreakerState.OPEN, BreakerState.HALF_OPEN


class Boom(Exception):
    pass


def always(_: BaseException) -> bool:
    return True


async def boom() -> None:
    raise Boom


async def ok() -> int:
    return 7


class SyncSpy:
    """Wraps the store's sync redis client and counts every command sent through it."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.client, name)
        if not callable(attr):
            return attr

        def spy(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return attr(*args, **kwargs)

        return spy


def transitions(events: list[str]) -> GuardHooks:
    return GuardHooks(on_breaker_state_change=lambda name, old, new: events.append(f"{old}->{new}"))


def test_async_only_client_works_through_the_guard(redis_server, namespace) -> None:  # type: ignore[no-untyped-def]
    """A store with only a redis.asyncio client: a sync round trip would raise, so this passes
    only when the guard admits and records through the asyncio client."""

    async def main() -> None:
        client = redis.asyncio.Redis.from_url(
            redis_server.url, socket_timeout=1, socket_connect_timeout=1
        )
        store = RedisStore(client, namespace=namespace)
        b = CircuitBreaker("ao", 2, 0.2, store=store, counts=always)
        events: list[str] = []
        g = Guard(retries=0, breaker=b)
        gh = Guard(retries=0, breaker=b, hooks=transitions(events))
        assert await g.acall(ok) == 7
        for _ in range(2):
            with pytest.raises(Boom):
                await gh.acall(boom)
        assert events == ["closed->open"]
        with pytest.raises(CircuitOpenError):
            await g.acall(ok)
        await asyncio.sleep(0.25)
        assert await gh.acall(ok) == 7  # the probe, admitted and recorded asynchronously
        assert events == ["closed->open", "open->half_open", "half_open->closed"]
        wrapped = resilient(retries=0, breaker=b, timeout=5)(ok)
        assert await wrapped() == 7
        _, record = await g.acall_with_record(ok)
        assert record.outcome == "success"
        await client.aclose()

    asyncio.run(main())


def test_acall_never_uses_the_sync_client(redis_server, namespace) -> None:  # type: ignore[no-untyped-def]
    store = RedisStore.from_url(redis_server.url, namespace=namespace)
    spy = SyncSpy(store._link.client)
    store._link.client = spy
    b = CircuitBreaker("nb", 2, 0.2, store=store, counts=always)
    budget = RetryBudget(capacity=5)

    async def main() -> None:
        g = Guard(retries=1, retry_base=0.001, breaker=b, budget=budget, timeout=5)
        assert await g.acall(ok) == 7
        with pytest.raises(Boom):
            await Guard(retries=0, breaker=b).acall(boom)
        assert await g.acall(ok) == 7  # a success that clears a failure: one write
        assert await resilient(retries=0, breaker=b)(ok)() == 7
        for _ in range(2):
            with pytest.raises(Boom):
                await g.acall(boom)
        with pytest.raises(CircuitOpenError):
            await g.acall(ok)
        await asyncio.sleep(0.25)

        async def cancelled_probe() -> None:
            raise asyncio.CancelledError

        with pytest.raises(asyncio.CancelledError):
            await g.acall(cancelled_probe)  # the probe's reservation is released...
        assert await g.acall(ok) == 7  # ...so the next caller probes at once and closes it

    asyncio.run(main())
    assert spy.calls == 0
    assert b.state is CLOSED  # (the sync read goes through the spy, after the checks)


def test_sync_hooks_hear_the_probe_admission() -> None:
    from surefoot.testing.clock import FakeClock

    clock = FakeClock()
    b = CircuitBreaker("mem", 1, 30, clock=clock, counts=always)
    events: list[str] = []
    g = Guard(retries=0, breaker=b, hooks=transitions(events), clock=clock)

    def fails() -> None:
        raise Boom

    with pytest.raises(Boom):
        g.call(fails)
    clock.advance(30)
    with pytest.raises(Boom):
        g.call(fails)  # the probe fails: re-opened
    clock.advance(30)
    assert g.call(lambda: 1) == 1
    assert events == [
        "closed->open",
        "open->half_open",
        "half_open->open",
        "open->half_open",
        "half_open->closed",
    ]
    clock2 = FakeClock()
    b2 = CircuitBreaker("mem2", 1, 30, clock=clock2, counts=always)
    ev2: list[str] = []
    g2 = Guard(retries=0, breaker=b2, hooks=transitions(ev2), clock=clock2)
    with pytest.raises(Boom):
        g2.call(fails)
    clock2.advance(30)
    for attempt in g2.attempts():
        with attempt:
            pass
    assert ev2 == ["closed->open", "open->half_open", "half_open->closed"]


def test_async_hooks_hear_the_probe_admission_on_the_memory_store() -> None:
    from surefoot.testing.clock import FakeClock

    async def main() -> None:
        clock = FakeClock()
        b = CircuitBreaker("amem", 1, 30, clock=clock, counts=always)
        events: list[str] = []
        g = Guard(retries=0, breaker=b, hooks=transitions(events), clock=clock)
        with pytest.raises(Boom):
            await g.acall(boom)
        clock.advance(30)
        assert await g.acall(ok) == 7
        assert events == ["closed->open", "open->half_open", "half_open->closed"]

    asyncio.run(main())


def test_on_store_event_hooks_of_every_guard_sharing_a_store(redis_factory) -> None:  # type: ignore[no-untyped-def]
    srv = redis_factory().start()
    legacy: list[StoreEvent] = []
    store = RedisStore.from_url(srv.url, namespace="ev", retry_interval=0.2, on_event=legacy.append)
    b = CircuitBreaker("ev", 5, 30, store=store, counts=always)
    budget = RetryBudget(store=store)
    heard: dict[str, list[str]] = {"a": [], "b": [], "c": []}

    def hooks(who: str) -> GuardHooks:
        return GuardHooks(on_store_event=lambda e: heard[who].append(e.kind))

    class Duck:
        def on_store_event(self, event: StoreEvent) -> None:
            heard["c"].append(event.kind)

    ga = Guard(retries=0, breaker=b, budget=budget, hooks=hooks("a"))  # one store: heard once
    gb = Guard(retries=0, budget=budget.for_key("k"), hooks=hooks("b"))
    gc_ = Guard(retries=0, breaker=b, hooks=Duck())
    gone = Guard(retries=0, breaker=b, hooks=GuardHooks(on_store_event=lambda e: 1 / 0))
    del gone
    gc.collect()
    assert ga.call(lambda: 1) == 1
    srv.stop()
    for _ in range(3):
        assert ga.call(lambda: 2) == 2  # down: local state admits; reported once
        assert gb.call(lambda: 2) == 2
    assert heard == {"a": ["unavailable"], "b": ["unavailable"], "c": ["unavailable"]}
    srv.start()
    import time

    time.sleep(0.25)
    for _ in range(3):
        assert gc_.call(lambda: 3) == 3
    assert heard == {k: ["unavailable", "restored"] for k in heard}
    assert [e.kind for e in legacy] == ["unavailable", "restored"]  # on_event= still works
    assert len(store._link.listeners) == 3  # the collected guard's listener is gone


def test_event_listeners_add_remove_and_dedupe(redis_factory) -> None:  # type: ignore[no-untyped-def]
    srv = redis_factory().start()
    store = RedisStore.from_url(srv.url, namespace="ls", retry_interval=0.2)
    got: list[str] = []

    def listener(e: StoreEvent) -> None:
        got.append(e.kind)

    def bad(e: StoreEvent) -> None:
        raise RuntimeError("listener bug")

    store.add_event_listener(bad)
    store.add_event_listener(listener)
    store.add_event_listener(listener)  # once only
    b = CircuitBreaker("ls", store=store)
    srv.stop()
    assert b.call(lambda: 1) == 1
    assert got == ["unavailable"]
    store.remove_event_listener(listener)
    store.remove_event_listener(listener)  # unknown: ignored
    srv.start()
    import time

    time.sleep(0.25)
    assert b.call(lambda: 1) == 1 and store.available
    assert got == ["unavailable"]


def test_hooks_without_methods_still_rejected() -> None:
    with pytest.raises(TypeError, match="on_store_event"):
        Guard(hooks=object())


def test_sync_client_is_untouched_by_plain_sync_calls(redis_server, namespace) -> None:  # type: ignore[no-untyped-def]
    """Sanity check of the spy: the sync driver does use the sync client."""
    store = RedisStore.from_url(redis_server.url, namespace=namespace)
    spy = SyncSpy(store._link.client)
    store._link.client = spy
    b = CircuitBreaker("sy", store=store)
    assert Guard(breaker=b).call(lambda: 1) == 1
    assert spy.calls >= 1
    assert isinstance(spy.client, redis.Redis)
