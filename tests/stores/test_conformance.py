"""One behavioural suite for every breaker and budget store: MemoryStore and RedisStore.

Both stores implement the state machine of :mod:`surefoot.policy._fsm`; these cases hold each
to it. Redis reads its own clock (the ``now`` passed here is ignored there) and starts a new
breaker's epochs at its time in milliseconds, so the cases never depend on ``now`` or on
absolute epochs: timeouts are 0 (a probe is admissible at once, a reservation expires at once)
or an hour (the circuit stays open, the probe stays reserved), and tickets are compared with
each other (odd = the probe, a later epoch = a larger ``ticket >> 1``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from surefoot.guard._lazy import AsyncFacade
from surefoot.stores import BreakerConfig, BreakerState, MemoryStore, RedisStore
from surefoot.stores._base import FAILURE, NEUTRAL, REJECTED, SUCCESS

CLOSED, OPEN, HALF = BreakerState.CLOSED, BreakerState.OPEN, BreakerState.HALF_OPEN
#: Passed as ``now`` everywhere: the memory store's clock; Redis ignores it.
NOW = 1000.0
HOUR = 3600.0
NAME = "openai:gpt-4o"

#: Opens after 3 failures in a row and stays open; a probe would stay reserved.
HOLD = BreakerConfig(failure_threshold=3, recovery_timeout=HOUR, probe_timeout=HOUR)
#: Opens after 3 failures; the probe is admissible at once and then reserved for an hour.
RECOVER = BreakerConfig(failure_threshold=3, recovery_timeout=0.0, probe_timeout=HOUR)
#: Opens after 3 failures; every probe reservation has expired by the next admission.
EXPIRE = BreakerConfig(failure_threshold=3, recovery_timeout=0.0, probe_timeout=0.0)
#: Ratio mode: at least 4 calls in the (hour-long) window, half of them failures.
RATIO = BreakerConfig(
    mode="ratio",
    failure_ratio=0.5,
    window=HOUR,
    minimum_throughput=4,
    recovery_timeout=HOUR,
    probe_timeout=HOUR,
)


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def store(request: pytest.FixtureRequest) -> Iterator[Any]:
    if request.param == "memory":
        yield MemoryStore()
        return
    server = request.getfixturevalue("redis_server")
    redis_store = RedisStore.from_url(server.url, namespace=request.getfixturevalue("namespace"))
    yield redis_store
    # Every answer must have come from Redis, not from the local fallback it uses when down.
    assert redis_store.available, "Redis went down during the test: the local fallback answered"


@pytest.fixture
def astore(store: Any) -> Any:
    """The same store through its coroutine twins (``aadmit``, ``arecord``, ...)."""
    return store if isinstance(store, RedisStore) else AsyncFacade(store)


# -- helpers -----------------------------------------------------------------------------------


def normal(ticket: int) -> bool:
    return ticket >= 0 and not ticket & 1


def probe(ticket: int) -> bool:
    return ticket >= 0 and bool(ticket & 1)


def epoch(ticket: int) -> int:
    return ticket >> 1


def call(store: Any, outcome: int, cfg: BreakerConfig, name: str = NAME) -> Any:
    """Admit one normal call and record its outcome; the transition it caused."""
    ticket = store.admit(name, NOW, cfg)
    assert normal(ticket), f"expected a closed circuit, got ticket {ticket}"
    return store.record(name, ticket, outcome, NOW, cfg)


def open_circuit(store: Any, cfg: BreakerConfig, name: str = NAME) -> None:
    for _ in range(cfg.failure_threshold - 1):
        assert call(store, FAILURE, cfg, name) is None
    assert call(store, FAILURE, cfg, name) == (CLOSED, OPEN)


def admit_probe(store: Any, name: str = NAME) -> int:
    """Open the circuit (recovery 0) and admit its probe, reserved for an hour."""
    open_circuit(store, RECOVER, name)
    ticket = store.admit(name, NOW, RECOVER)
    assert probe(ticket)
    return ticket


def settle(store: Any) -> None:
    """Write the refills RedisStore holds back for DEPOSIT_EVERY (the memory store has none)."""
    flush = getattr(store, "flush_deposits", None)
    if flush is not None:
        flush()


# -- closed: counting ------------------------------------------------------------------------


def test_an_unknown_breaker_is_closed_and_empty(store: Any) -> None:
    snap = store.snapshot(NAME, NOW, HOLD)
    assert (snap.state, snap.failures, snap.calls, snap.retry_after) == (CLOSED, 0, 0, 0.0)
    assert normal(store.admit(NAME, NOW, HOLD))


def test_consecutive_failures_open_the_circuit_at_the_threshold(store: Any) -> None:
    for n in (1, 2):
        assert call(store, FAILURE, HOLD) is None
        snap = store.snapshot(NAME, NOW, HOLD)
        assert (snap.state, snap.failures) == (CLOSED, n)
    assert call(store, FAILURE, HOLD) == (CLOSED, OPEN)
    snap = store.snapshot(NAME, NOW, HOLD)
    assert (snap.state, snap.failures, snap.calls) == (OPEN, 0, 0)
    assert HOUR - 60 < snap.retry_after <= HOUR


def test_a_success_resets_the_consecutive_failure_count(store: Any) -> None:
    call(store, FAILURE, HOLD)
    call(store, FAILURE, HOLD)
    assert call(store, SUCCESS, HOLD) is None
    assert store.snapshot(NAME, NOW, HOLD).failures == 0
    assert call(store, FAILURE, HOLD) is None
    assert call(store, FAILURE, HOLD) is None  # two in a row again: still below 3
    assert store.snapshot(NAME, NOW, HOLD).state is CLOSED
    assert call(store, FAILURE, HOLD) == (CLOSED, OPEN)


def test_a_success_ends_the_run_of_failures_even_when_admitted_before_them(store: Any) -> None:
    # Four calls in flight, all admitted while the count is 0. Two fail, then one succeeds
    # (_fsm.record: the count goes back to 0), then the last fails: one failure in a row.
    ok, *bad = (store.admit(NAME, NOW, HOLD) for _ in range(4))
    assert store.record(NAME, bad[0], FAILURE, NOW, HOLD) is None
    assert store.record(NAME, bad[1], FAILURE, NOW, HOLD) is None
    assert store.record(NAME, ok, SUCCESS, NOW, HOLD) is None
    assert store.record(NAME, bad[2], FAILURE, NOW, HOLD) is None  # not a third in a row
    snap = store.snapshot(NAME, NOW, HOLD)
    assert (snap.state, snap.failures) == (CLOSED, 1)


def test_neutral_outcomes_neither_count_nor_reset_failures(store: Any) -> None:
    call(store, FAILURE, HOLD)
    for _ in range(5):
        assert call(store, NEUTRAL, HOLD) is None
    assert store.snapshot(NAME, NOW, HOLD).failures == 1
    call(store, FAILURE, HOLD)
    assert call(store, NEUTRAL, HOLD) is None
    assert call(store, FAILURE, HOLD) == (CLOSED, OPEN)


def test_the_snapshot_epoch_is_the_epoch_the_tickets_carry(store: Any) -> None:
    ticket = store.admit(NAME, NOW, HOLD)
    assert store.snapshot(NAME, NOW, HOLD).epoch == epoch(ticket)
    open_circuit(store, RECOVER)
    assert store.snapshot(NAME, NOW, RECOVER).epoch == epoch(ticket) + 1
    p = store.admit(NAME, NOW, RECOVER)
    assert store.snapshot(NAME, NOW, RECOVER).epoch == epoch(p) == epoch(ticket) + 2


def test_closed_ticket_is_the_admitted_ticket_or_none_and_none_once_open(store: Any) -> None:
    # A store may always answer REJECTED (Redis does: only its script is the truth); any other
    # answer must be the ticket admit gives, and never a ticket for a circuit that is not closed.
    ticket = store.admit(NAME, NOW, HOLD)
    assert store.closed_ticket(NAME) in (REJECTED, ticket)
    open_circuit(store, HOLD)
    assert store.closed_ticket(NAME) == REJECTED
    store.reset(NAME)
    assert store.closed_ticket(NAME) in (REJECTED, store.admit(NAME, NOW, HOLD))


# -- open and half-open ----------------------------------------------------------------------


def test_an_open_circuit_rejects_every_caller(store: Any) -> None:
    open_circuit(store, HOLD)
    for _ in range(3):
        assert store.admit(NAME, NOW, HOLD) == REJECTED
    assert store.snapshot(NAME, NOW, HOLD).state is OPEN


def test_an_open_circuit_whose_recovery_has_passed_shows_as_half_open(store: Any) -> None:
    open_circuit(store, RECOVER)
    snap = store.snapshot(NAME, NOW, RECOVER)
    assert (snap.state, snap.retry_after) == (HALF, 0.0)


def test_exactly_one_probe_is_admitted_while_it_is_reserved(store: Any) -> None:
    p = admit_probe(store)
    assert [store.admit(NAME, NOW, RECOVER) for _ in range(4)] == [REJECTED] * 4
    snap = store.snapshot(NAME, NOW, RECOVER)
    assert snap.state is HALF and HOUR - 60 < snap.retry_after <= HOUR
    assert snap.epoch == epoch(p)


def test_the_probe_success_closes_the_circuit_in_a_new_epoch(store: Any) -> None:
    p = admit_probe(store)
    assert store.record(NAME, p, SUCCESS, NOW, RECOVER) == (HALF, CLOSED)
    ticket = store.admit(NAME, NOW, RECOVER)
    assert normal(ticket) and epoch(ticket) > epoch(p)
    snap = store.snapshot(NAME, NOW, RECOVER)
    assert (snap.state, snap.failures, snap.retry_after) == (CLOSED, 0, 0.0)


def test_the_probe_failure_reopens_the_circuit_for_another_recovery_timeout(store: Any) -> None:
    p = admit_probe(store)
    assert store.record(NAME, p, FAILURE, NOW, HOLD) == (HALF, OPEN)
    assert store.admit(NAME, NOW, HOLD) == REJECTED
    snap = store.snapshot(NAME, NOW, HOLD)
    assert snap.state is OPEN and HOUR - 60 < snap.retry_after <= HOUR
    assert snap.epoch > epoch(p)


def test_a_reopened_circuit_probes_again_once_recovered(store: Any) -> None:
    p = admit_probe(store)
    assert store.record(NAME, p, FAILURE, NOW, RECOVER) == (HALF, OPEN)
    again = store.admit(NAME, NOW, RECOVER)
    assert probe(again) and epoch(again) > epoch(p) + 1
    assert store.record(NAME, p, SUCCESS, NOW, RECOVER) is None  # the first probe is stale
    assert store.record(NAME, again, SUCCESS, NOW, RECOVER) == (HALF, CLOSED)


def test_the_probe_neutral_outcome_releases_the_reservation(store: Any) -> None:
    first = admit_probe(store)
    assert store.record(NAME, first, NEUTRAL, NOW, RECOVER) is None
    snap = store.snapshot(NAME, NOW, RECOVER)
    assert (snap.state, snap.retry_after) == (HALF, 0.0)  # the next caller is the probe
    second = store.admit(NAME, NOW, RECOVER)
    assert probe(second) and epoch(second) > epoch(first)
    assert store.admit(NAME, NOW, RECOVER) == REJECTED
    assert store.record(NAME, first, SUCCESS, NOW, RECOVER) is None
    assert store.record(NAME, second, SUCCESS, NOW, RECOVER) == (HALF, CLOSED)


def test_an_expired_probe_reservation_gives_the_next_caller_a_fresh_probe(store: Any) -> None:
    open_circuit(store, EXPIRE)
    dead = store.admit(NAME, NOW, EXPIRE)  # its holder never reports
    fresh = store.admit(NAME, NOW, EXPIRE)
    assert probe(dead) and probe(fresh) and epoch(fresh) > epoch(dead)
    assert store.record(NAME, dead, SUCCESS, NOW, EXPIRE) is None
    assert store.snapshot(NAME, NOW, EXPIRE).state is HALF
    assert store.record(NAME, fresh, SUCCESS, NOW, EXPIRE) == (HALF, CLOSED)


# -- epochs ----------------------------------------------------------------------------------


def test_a_ticket_from_before_the_circuit_opened_cannot_close_it(store: Any) -> None:
    slow = store.admit(NAME, NOW, HOLD)
    open_circuit(store, HOLD)
    assert store.record(NAME, slow, SUCCESS, NOW, HOLD) is None
    assert store.record(NAME, slow, NEUTRAL, NOW, HOLD) is None
    assert store.snapshot(NAME, NOW, HOLD).state is OPEN
    assert store.admit(NAME, NOW, HOLD) == REJECTED


def test_old_tickets_cannot_reopen_a_recovered_circuit(store: Any) -> None:
    slow = store.admit(NAME, NOW, RECOVER)
    p = admit_probe(store)
    assert store.record(NAME, p, SUCCESS, NOW, RECOVER) == (HALF, CLOSED)
    for old in (slow, slow, slow, p):
        assert store.record(NAME, old, FAILURE, NOW, RECOVER) is None
    snap = store.snapshot(NAME, NOW, RECOVER)
    assert (snap.state, snap.failures) == (CLOSED, 0)


def test_a_rejected_admission_records_nothing(store: Any) -> None:
    for _ in range(HOLD.failure_threshold):
        assert store.record(NAME, REJECTED, FAILURE, NOW, HOLD) is None
    assert store.snapshot(NAME, NOW, HOLD).failures == 0
    assert normal(store.admit(NAME, NOW, HOLD))


# -- reset -----------------------------------------------------------------------------------


def test_reset_closes_an_open_circuit(store: Any) -> None:
    before = store.admit(NAME, NOW, HOLD)
    open_circuit(store, HOLD)
    assert store.reset(NAME) == (OPEN, CLOSED)
    ticket = store.admit(NAME, NOW, HOLD)
    assert normal(ticket) and epoch(ticket) > epoch(before) + 1
    snap = store.snapshot(NAME, NOW, HOLD)
    assert (snap.state, snap.failures, snap.retry_after) == (CLOSED, 0, 0.0)


def test_reset_during_the_probe_closes_and_leaves_the_probe_inert(store: Any) -> None:
    p = admit_probe(store)
    assert store.reset(NAME) == (HALF, CLOSED)
    assert store.record(NAME, p, FAILURE, NOW, RECOVER) is None
    assert store.snapshot(NAME, NOW, RECOVER).state is CLOSED


def test_reset_of_a_closed_circuit_forgets_its_failures_and_old_tickets(store: Any) -> None:
    old = store.admit(NAME, NOW, HOLD)
    call(store, FAILURE, HOLD)
    call(store, FAILURE, HOLD)
    assert store.reset(NAME) is None
    assert store.snapshot(NAME, NOW, HOLD).failures == 0
    for _ in range(HOLD.failure_threshold):
        assert store.record(NAME, old, FAILURE, NOW, HOLD) is None
    assert store.snapshot(NAME, NOW, HOLD).state is CLOSED
    assert store.reset("never-seen") is None


def test_breakers_of_different_names_are_independent(store: Any) -> None:
    open_circuit(store, HOLD, "a")
    assert store.snapshot("b", NOW, HOLD).state is CLOSED
    assert normal(store.admit("b", NOW, HOLD))
    store.reset("b")
    assert store.snapshot("a", NOW, HOLD).state is OPEN


# -- ratio mode ------------------------------------------------------------------------------


def test_ratio_mode_waits_for_minimum_throughput_then_opens_at_the_ratio(store: Any) -> None:
    assert call(store, SUCCESS, RATIO) is None
    assert call(store, FAILURE, RATIO) is None
    assert call(store, FAILURE, RATIO) is None  # 2 of 3 failed, but fewer than 4 calls
    snap = store.snapshot(NAME, NOW, RATIO)
    assert (snap.state, snap.failures, snap.calls) == (CLOSED, 2, 3)
    assert call(store, SUCCESS, RATIO) is None  # 2 of 4: a success never opens
    assert call(store, FAILURE, RATIO) == (CLOSED, OPEN)  # 3 of 5 >= 0.5
    snap = store.snapshot(NAME, NOW, RATIO)
    assert (snap.state, snap.failures, snap.calls) == (OPEN, 0, 0)
    assert store.admit(NAME, NOW, RATIO) == REJECTED


def test_ratio_mode_stays_closed_below_the_failure_ratio(store: Any) -> None:
    for outcome in (SUCCESS, SUCCESS, SUCCESS, FAILURE, FAILURE):
        assert call(store, outcome, RATIO) is None  # at most 2 of 5 failed
    assert call(store, NEUTRAL, RATIO) is None  # not a call
    snap = store.snapshot(NAME, NOW, RATIO)
    assert (snap.state, snap.failures, snap.calls) == (CLOSED, 2, 5)
    assert call(store, FAILURE, RATIO) == (CLOSED, OPEN)  # 3 of 6 reaches the ratio


# -- budgets ---------------------------------------------------------------------------------

CAP = 10.0


def test_a_new_budget_is_full_and_spending_never_goes_below_zero(store: Any) -> None:
    assert store.level("k", CAP) == CAP
    assert store.try_spend("k", 4, CAP)
    assert store.level("k", CAP) == 6
    assert store.try_spend("k", 6, CAP)
    assert store.level("k", CAP) == 0
    assert not store.try_spend("k", 0.5, CAP)
    assert store.level("k", CAP) == 0


def test_a_spend_larger_than_the_level_is_refused_and_takes_nothing(store: Any) -> None:
    assert store.try_spend("k", 7, CAP)
    assert not store.try_spend("k", 4, CAP)
    assert store.level("k", CAP) == 3
    assert store.try_spend("k", 3, CAP)
    assert not store.try_spend("fresh", CAP + 1, CAP)  # more than a full bucket holds


def test_deposits_refill_up_to_the_capacity(store: Any) -> None:
    assert store.try_spend("k", 8, CAP)
    store.deposit("k", 3, CAP)
    settle(store)
    assert store.level("k", CAP) == 5
    store.deposit("k", 100, CAP)
    settle(store)
    assert store.level("k", CAP) == CAP
    assert not store.try_spend("k", CAP + 1, CAP)  # not overfilled
    assert store.try_spend("k", CAP, CAP)


def test_deposits_made_in_quick_succession_all_arrive(store: Any) -> None:
    assert store.try_spend("k", 9, CAP)
    for _ in range(4):
        store.deposit("k", 1, CAP)
    settle(store)
    assert store.level("k", CAP) == 5


def test_a_deposit_into_a_full_budget_leaves_it_at_capacity(store: Any) -> None:
    store.deposit("k", 5, CAP)
    settle(store)
    assert store.level("k", CAP) == CAP
    assert not store.try_spend("k", CAP + 1, CAP)


def test_level_never_exceeds_the_capacity_asked_about(store: Any) -> None:
    assert store.try_spend("k", 2, CAP)
    assert store.level("k", 5.0) == 5.0
    assert store.level("k", CAP) == 8


def test_reset_budget_of_one_key_refills_only_that_key(store: Any) -> None:
    assert store.try_spend("a", 6, CAP)
    assert store.try_spend("b", 6, CAP)
    store.reset_budget("a")
    assert (store.level("a", CAP), store.level("b", CAP)) == (CAP, 4)


def test_reset_budget_without_a_key_refills_every_key(store: Any) -> None:
    assert store.try_spend("a", 6, CAP)
    assert store.try_spend("b", 9, CAP)
    store.reset_budget()
    assert (store.level("a", CAP), store.level("b", CAP)) == (CAP, CAP)
    assert store.try_spend("b", CAP, CAP)


# -- the coroutine twins ---------------------------------------------------------------------


async def test_async_twins_open_the_circuit_and_reject(astore: Any) -> None:
    for n in range(HOLD.failure_threshold):
        ticket = await astore.aadmit(NAME, NOW, HOLD)
        assert normal(ticket)
        expected = (CLOSED, OPEN) if n == HOLD.failure_threshold - 1 else None
        assert await astore.arecord(NAME, ticket, FAILURE, NOW, HOLD) == expected
    assert await astore.aadmit(NAME, NOW, HOLD) == REJECTED
    snap = await astore.asnapshot(NAME, NOW, HOLD)
    assert snap.state is OPEN and snap.retry_after > HOUR - 60


async def test_async_twins_admit_one_probe_and_its_success_closes(astore: Any) -> None:
    for _ in range(RECOVER.failure_threshold):
        ticket = await astore.aadmit(NAME, NOW, RECOVER)
        await astore.arecord(NAME, ticket, FAILURE, NOW, RECOVER)
    p = await astore.aadmit(NAME, NOW, RECOVER)
    assert probe(p)
    assert await astore.aadmit(NAME, NOW, RECOVER) == REJECTED
    assert (await astore.asnapshot(NAME, NOW, RECOVER)).state is HALF
    assert await astore.arecord(NAME, p, SUCCESS, NOW, RECOVER) == (HALF, CLOSED)
    assert await astore.arecord(NAME, p, FAILURE, NOW, RECOVER) is None  # now stale
    assert (await astore.asnapshot(NAME, NOW, RECOVER)).state is CLOSED


async def test_async_twins_count_and_reset_failures(astore: Any) -> None:
    for outcome in (FAILURE, FAILURE, SUCCESS, FAILURE, NEUTRAL):
        ticket = await astore.aadmit(NAME, NOW, HOLD)
        assert await astore.arecord(NAME, ticket, outcome, NOW, HOLD) is None
    snap = await astore.asnapshot(NAME, NOW, HOLD)
    assert (snap.state, snap.failures) == (CLOSED, 1)


async def test_async_budget_twins_spend_and_refill(store: Any, astore: Any) -> None:
    assert await astore.atry_spend("k", 7, CAP)
    assert not await astore.atry_spend("k", 4, CAP)
    await astore.adeposit("k", 2, CAP)
    settle(store)
    assert store.level("k", CAP) == 5
