import asyncio
import contextvars

import pytest

from surefoot import current_deadline, deadline, time_left
from surefoot.testing.clock import FakeClock


def test_no_deadline_by_default() -> None:
    assert current_deadline() is None and time_left() is None


def test_absolute_and_nested_earliest_wins() -> None:
    clock = FakeClock(100.0)
    with deadline(10, clock=clock) as outer:
        assert current_deadline() == 110.0
        with deadline(20, clock=clock):
            assert current_deadline() == 110.0  # a nested scope can only shorten it
        with deadline(3, clock=clock) as inner:
            assert current_deadline() == 103.0
            clock.advance(1)
            assert time_left() == 2.0 and inner.time_left() == 2.0
        assert current_deadline() == 110.0
        clock.advance(20)
        assert time_left() == 0.0  # never negative
        assert outer.when == 110.0
    assert current_deadline() is None


def test_none_means_no_new_deadline() -> None:
    clock = FakeClock()
    with deadline(None):
        assert current_deadline() is None
    with deadline(5, clock=clock), deadline(None):
        assert current_deadline() == 5.0


@pytest.mark.parametrize(
    ("bad", "error"),
    [(-1, ValueError), (float("nan"), ValueError), ("5", TypeError), (True, TypeError)],
)
def test_bad_seconds(bad: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="seconds must"):
        deadline(bad)  # type: ignore[arg-type]


def test_reentering_same_scope_is_an_error() -> None:
    d = deadline(1)
    with d, pytest.raises(RuntimeError), d:
        pass


async def test_async_with_and_task_isolation() -> None:
    clock = FakeClock()
    async with deadline(4, clock=clock):
        seen = await asyncio.create_task(asyncio.sleep(0, result=current_deadline()))
        assert seen == 4.0
    assert current_deadline() is None

    async def child() -> float | None:
        async with deadline(1, clock=clock):
            await asyncio.sleep(0)
            return current_deadline()

    assert await asyncio.gather(child(), child()) == [1.0, 1.0]
    assert current_deadline() is None


def test_follows_copied_context_into_threads() -> None:
    clock = FakeClock()
    with deadline(7, clock=clock):
        ctx = contextvars.copy_context()
    assert ctx.run(current_deadline) == 7.0
