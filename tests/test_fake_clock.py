import asyncio
import threading

import pytest

from surefoot.testing.clock import FakeClock


def test_sync_sleep_advances_at_once() -> None:
    c = FakeClock(5.0)
    c.sleep(2.5)
    c.sleep(-1)
    assert c.now() == 7.5 and c.sleeps == [2.5, -1]


def test_advance_fires_timers_in_order_at_their_time() -> None:
    c = FakeClock()
    fired: list[tuple[str, float]] = []
    c.call_later(3, lambda: fired.append(("b", c.now())))
    c.call_later(1, lambda: fired.append(("a", c.now())))
    t = c.call_later(2, lambda: fired.append(("x", c.now())))
    t.cancel()
    c.advance(5)
    assert fired == [("a", 1.0), ("b", 3.0)] and c.now() == 5.0
    with pytest.raises(ValueError):
        c.advance(-1)


async def test_autojump_wakes_earliest_first() -> None:
    c = FakeClock()
    order: list[tuple[str, float]] = []

    async def w(name: str, d: float) -> None:
        await c.asleep(d)
        order.append((name, c.now()))

    await asyncio.gather(w("a", 5), w("b", 1), w("c", 3))
    assert order == [("b", 1.0), ("c", 3.0), ("a", 5.0)]


async def test_no_jump_while_something_is_ready() -> None:
    c = FakeClock()
    spins = 0

    async def busy() -> None:
        nonlocal spins
        for _ in range(50):
            spins += 1
            assert c.now() == 0.0  # time does not move while this task can run
            await asyncio.sleep(0)

    await asyncio.gather(c.asleep(10), busy())
    assert spins == 50 and c.now() == 10.0


async def test_cancelled_sleeper_does_not_move_time() -> None:
    c = FakeClock()
    t = asyncio.create_task(c.asleep(100))
    await asyncio.sleep(0)
    t.cancel()
    with pytest.raises(asyncio.CancelledError):
        await t
    await c.asleep(1)
    assert c.now() == 1.0


async def test_manual_mode_and_advance_from_another_thread() -> None:
    c = FakeClock(autojump=False)
    task = asyncio.create_task(c.asleep(3))
    await asyncio.sleep(0)
    assert not task.done()
    th = threading.Thread(target=c.advance, args=(3,))
    th.start()
    th.join()
    await asyncio.wait_for(task, 5)
    assert c.now() == 3.0
