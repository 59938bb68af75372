import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from surefoot import RetryBudget


def test_retries_spend_and_successes_refill() -> None:
    b = RetryBudget(capacity=2, retry_cost=1, success_refill=0.5)
    assert b.try_spend() and b.try_spend()
    assert not b.try_spend()
    assert b.tokens() == 0
    b.on_success()
    assert not b.try_spend()
    b.on_success()
    assert b.try_spend()


def test_keyed_buckets_are_independent() -> None:
    b = RetryBudget(capacity=1)
    assert b.try_spend("openai:gpt-4o")
    assert not b.try_spend("openai:gpt-4o")
    assert b.try_spend("anthropic:claude")
    bound = b.for_key("openai:gpt-4o")
    assert not bound.try_spend()
    bound.reset()
    assert bound.tokens() == 1


def test_refill_never_exceeds_capacity() -> None:
    b = RetryBudget(capacity=3, success_refill=5)
    b.try_spend()
    b.on_success()
    assert b.tokens() == 3


@pytest.mark.parametrize(
    "kw",
    [
        {"capacity": 0},
        {"capacity": -1},
        {"retry_cost": -1},
        {"success_refill": float("nan")},
        {"capacity": 1, "retry_cost": 2},
    ],
)
def test_bad_settings(kw: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="must"):
        RetryBudget(**kw)


@given(st.lists(st.sampled_from(["spend", "ok"]), max_size=200), st.floats(0.1, 5), st.floats(0, 3))
def test_property_never_negative(ops: list[str], cost: float, refill: float) -> None:
    b = RetryBudget(capacity=5, retry_cost=cost, success_refill=refill)
    for op in ops:
        if op == "spend":
            b.try_spend("k")
        else:
            b.on_success("k")
        assert 0 <= b.tokens("k") <= 5


def test_thread_safe_exact_spend_count() -> None:
    b = RetryBudget(capacity=100, retry_cost=1, success_refill=0)
    wins: list[bool] = []

    def worker() -> None:
        for _ in range(50):
            wins.append(b.try_spend())

    ts = [threading.Thread(target=worker) for _ in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert wins.count(True) == 100 and b.tokens() == 0
