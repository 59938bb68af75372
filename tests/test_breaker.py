import asyncio
import threading

import pytest

import surefoot
from surefoot import CircuitBreaker
from surefoot.policy import BreakerState
from surefoot.stores import MemoryStore
from surefoot.testing.clock import FakeClock


def down() -> surefoot.SurefootError:
    return surefoot.LLMError(
        error_type=surefoot.LLMErrorType.SERVER_ERROR,
        context=surefoot.ErrorContext(http_status=503),
    )


def fail(b: CircuitBreaker, exc: BaseException, n: int = 1) -> None:
    for _ in range(n):
        b.acquire().failure(exc)


def test_opens_after_threshold_consecutive_counted_failures() -> None:
    clock = FakeClock()
    b = CircuitBreaker("svc", clock=clock)
    fail(b, down(), 9)
    assert b.state is BreakerState.CLOSED
    fail(b, ConnectionResetError())
    assert b.state is BreakerState.OPEN
    with pytest.raises(surefoot.CircuitOpenError) as ei:
        b.acquire()
    assert isinstance(ei.value, RuntimeError)
    assert ei.value.retry_after == 30.0 and ei.value.name == "svc"
    clock.advance(10)
    with pytest.raises(surefoot.CircuitOpenError) as ei:
        b.acquire()
    assert ei.value.retry_after == 20.0


def test_success_resets_the_count() -> None:
    b = CircuitBreaker("svc", failure_threshold=3, clock=FakeClock())
    fail(b, down(), 2)
    b.acquire().success()
    fail(b, down(), 2)
    assert b.state is BreakerState.CLOSED and b.failure_count == 2


@pytest.mark.parametrize(
    "exc",
    [
        asyncio.CancelledError(),
        KeyboardInterrupt(),
        ValueError("local"),
        surefoot.BusinessError(context=surefoot.ErrorContext(http_status=400)),
        surefoot.LLMError(
            error_type=surefoot.LLMErrorType.SERVER_ERROR,
            retryable=True,
            problem_details=surefoot.ProblemDetails.parse({"retryable": False}),
        ),
    ],
)
def test_not_counted(exc: BaseException) -> None:
    b = CircuitBreaker("svc", failure_threshold=1, clock=FakeClock())
    fail(b, exc, 5)
    assert b.state is BreakerState.CLOSED


def test_exactly_one_probe_then_close_on_success() -> None:
    clock = FakeClock()
    changes: list[tuple[str, str]] = []
    b = CircuitBreaker(
        "svc",
        failure_threshold=1,
        recovery_timeout=30,
        clock=clock,
        on_state_change=lambda n, o, new: changes.append((o.value, new.value)),
    )
    fail(b, down())
    clock.advance(30)
    assert b.state is BreakerState.HALF_OPEN
    probe = b.acquire()
    assert probe.is_probe
    with pytest.raises(surefoot.CircuitOpenError):
        b.acquire()  # concurrent callers are rejected
    probe.success()
    assert b.state is BreakerState.CLOSED
    b.acquire().success()
    assert changes == [("closed", "open"), ("open", "half_open"), ("half_open", "closed")]


def test_probe_failure_reopens() -> None:
    clock = FakeClock()
    b = CircuitBreaker("svc", failure_threshold=1, recovery_timeout=5, clock=clock)
    fail(b, down())
    clock.advance(5)
    b.acquire().failure(down())
    assert b.state is BreakerState.OPEN
    with pytest.raises(surefoot.CircuitOpenError) as ei:
        b.acquire()
    assert ei.value.retry_after == 5.0


def test_probe_released_by_cancellation_and_dead_probe_expires() -> None:
    clock = FakeClock()
    b = CircuitBreaker("svc", failure_threshold=1, recovery_timeout=5, probe_timeout=2, clock=clock)
    fail(b, down())
    clock.advance(5)
    b.acquire().failure(asyncio.CancelledError())  # cancelled probe: released, not counted
    dead = b.acquire()  # the next caller probes; its holder never reports
    assert dead.is_probe
    with pytest.raises(surefoot.CircuitOpenError):
        b.acquire()
    clock.advance(2)
    fresh = b.acquire()
    assert fresh.is_probe
    dead.failure(down())  # an outcome from an earlier epoch changes nothing
    assert b.state is BreakerState.HALF_OPEN
    fresh.success()
    assert b.state is BreakerState.CLOSED


def test_stale_outcome_cannot_reopen_or_close() -> None:
    clock = FakeClock()
    b = CircuitBreaker("svc", failure_threshold=2, recovery_timeout=1, clock=clock)
    slow = b.acquire()  # admitted while closed, epoch 0
    fail(b, down(), 2)
    assert b.state is BreakerState.OPEN
    slow.success()  # must not close the newer open circuit
    assert b.state is BreakerState.OPEN
    clock.advance(1)
    b.acquire().success()
    slow2 = slow
    slow2.failure(down())  # already reported: ignored
    assert b.state is BreakerState.CLOSED and b.failure_count == 0


def test_ratio_mode_sliding_window_with_minimum_throughput() -> None:
    clock = FakeClock()
    b = CircuitBreaker(
        "svc", mode="ratio", failure_ratio=0.5, window=10, minimum_throughput=4, clock=clock
    )
    fail(b, down(), 3)
    assert b.state is BreakerState.CLOSED  # under minimum throughput
    clock.advance(11)  # those failures slide out of the window
    b.acquire().success()
    b.acquire().success()
    fail(b, down(), 1)
    assert b.state is BreakerState.CLOSED  # 1 of 3
    fail(b, down(), 1)
    assert b.state is BreakerState.OPEN  # 2 of 4 = 0.5


def test_reset_and_decorators() -> None:
    clock = FakeClock()
    b = CircuitBreaker("svc", failure_threshold=1, clock=clock)

    @b
    def boom() -> None:
        raise ConnectionResetError

    with pytest.raises(ConnectionResetError):
        boom()
    with pytest.raises(surefoot.CircuitOpenError):
        boom()
    b.reset()
    assert b.state is BreakerState.CLOSED
    with b.acquire():
        pass
    assert b.call(lambda: 3) == 3


async def test_async_decorator() -> None:
    b = CircuitBreaker("svc", failure_threshold=1, clock=FakeClock())

    @b
    async def boom() -> None:
        raise ConnectionResetError

    with pytest.raises(ConnectionResetError):
        await boom()
    with pytest.raises(surefoot.CircuitOpenError):
        await boom()


@pytest.mark.parametrize(
    "kw",
    [
        {"failure_threshold": 0},
        {"recovery_timeout": -1},
        {"mode": "x"},
        {"failure_ratio": 0},
        {"failure_ratio": 1.5},
        {"minimum_throughput": 0},
        {"name": ""},
        {"recovery_timeout": float("nan")},
    ],
)
def test_bad_settings(kw: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="must"):
        CircuitBreaker(**kw)  # type: ignore[arg-type]


def test_shared_store_keeps_names_apart() -> None:
    store = MemoryStore()
    a = CircuitBreaker("a", failure_threshold=1, store=store, clock=FakeClock())
    bb = CircuitBreaker("b", failure_threshold=1, store=store, clock=FakeClock())
    fail(a, down())
    assert a.state is BreakerState.OPEN and bb.state is BreakerState.CLOSED


def test_no_lock_held_while_the_call_runs() -> None:
    b = CircuitBreaker("svc", clock=FakeClock())
    inside = threading.Event()
    release = threading.Event()

    def slow() -> int:
        inside.set()
        release.wait(5)
        return 1

    t = threading.Thread(target=b.call, args=(slow,))
    t.start()
    assert inside.wait(5)
    assert b.call(lambda: 2) == 2  # not serialised behind the slow call
    fail(b, down())
    assert b.failure_count == 1
    release.set()
    t.join()


def half_open(clock: FakeClock) -> CircuitBreaker:
    b = CircuitBreaker("svc", failure_threshold=1, recovery_timeout=1, clock=clock)
    fail(b, down())
    clock.advance(1)
    return b


def test_1000_threads_admit_exactly_one_probe() -> None:
    b = half_open(FakeClock())
    admitted: list[object] = []
    rejected: list[object] = []
    barrier = threading.Barrier(1000)

    def worker() -> None:
        barrier.wait()
        try:
            admitted.append(b.acquire())
        except surefoot.CircuitOpenError as e:
            rejected.append(e)

    threads = [threading.Thread(target=worker) for _ in range(1000)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(admitted) == 1 and len(rejected) == 999


async def test_1000_tasks_admit_exactly_one_probe() -> None:
    clock = FakeClock()
    b = half_open(clock)
    calls = 0

    async def probe() -> None:
        nonlocal calls
        calls += 1
        await asyncio.sleep(0)

    results = await asyncio.gather(*(b.acall(probe) for _ in range(1000)), return_exceptions=True)
    assert calls == 1
    assert sum(isinstance(r, surefoot.CircuitOpenError) for r in results) == 999
    assert b.state is BreakerState.CLOSED
