"""The circuit breaker's transition table, over the pure functions of :mod:`surefoot.policy._fsm`.

One row per situation: a starting record (closed, open since t=0, or probing since t=10), a
sequence of operations at explicit times, and what each one must answer (the ticket, the
transition, the snapshot). Then properties over random operation sequences (hypothesis): epochs
never decrease, one probe at a time, stale tickets are inert, failures are never invented, and a
snapshot agrees with what admit does at the same instant.

Tickets here are absolute (a new record starts in epoch 0): closed ``epoch * 2``, probe
``epoch * 2 + 1``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from surefoot.policy import _fsm
from surefoot.policy._fsm import BreakerRecord
from surefoot.policy._types import (
    FAILURE,
    NEUTRAL,
    REJECTED,
    SUCCESS,
    BreakerConfig,
    BreakerSnapshot,
    BreakerState,
)

CLOSED, OPEN, HALF = BreakerState.CLOSED, BreakerState.OPEN, BreakerState.HALF_OPEN
S, F, N = SUCCESS, FAILURE, NEUTRAL

#: Consecutive mode: 3 failures open for 10 s; a probe is reserved for 5 s.
CONSEC = BreakerConfig(failure_threshold=3, recovery_timeout=10.0, probe_timeout=5.0)
#: Ratio mode: at least 4 calls and half of them failed, in a 20 s window (1 s buckets).
RATIO = BreakerConfig(
    mode="ratio",
    failure_ratio=0.5,
    window=20.0,
    minimum_throughput=4,
    recovery_timeout=10.0,
    probe_timeout=5.0,
)


# -- starting situations -----------------------------------------------------------------------


def closed(cfg: BreakerConfig) -> BreakerRecord:
    """A new record: closed, epoch 0, ticket 0."""
    return BreakerRecord()


def open_since_0(cfg: BreakerConfig) -> BreakerRecord:
    """Opened by ``failure_threshold`` failures at t=0: epoch 1, open until recovery_timeout."""
    rec = BreakerRecord()
    for _ in range(cfg.failure_threshold):
        _fsm.record(rec, 0, FAILURE, 0.0, cfg)
    assert rec.state is OPEN and rec.epoch == 1
    return rec


def probing_since_10(cfg: BreakerConfig) -> BreakerRecord:
    """Open since t=0, and the probe (ticket 5, epoch 2) admitted at t=10, reserved until 15."""
    rec = open_since_0(cfg)
    assert _fsm.admit(rec, 10.0, cfg) == 5
    return rec


# -- operations --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Op:
    label: str
    run: Callable[[BreakerRecord, BreakerConfig], Any]
    expected: Any


def admit(now: float, ticket: int) -> Op:
    return Op(f"admit@{now}", lambda r, c: _fsm.admit(r, now, c), ticket)


def rec(ticket: int, outcome: int, now: float, transition: Any = None) -> Op:
    name = {S: "success", F: "failure", N: "neutral"}[outcome]
    return Op(
        f"record({ticket}, {name})@{now}",
        lambda r, c: _fsm.record(r, ticket, outcome, now, c),
        transition,
    )


def snap(
    now: float,
    state: BreakerState,
    epoch: int,
    failures: int = 0,
    calls: int = 0,
    retry_after: float = 0.0,
) -> Op:
    return Op(
        f"snapshot@{now}",
        lambda r, c: _fsm.snapshot(r, now, c),
        BreakerSnapshot(state, epoch, failures, calls, retry_after),
    )


def reset(transition: Any) -> Op:
    return Op("reset", lambda r, c: _fsm.reset(r), transition)


def row(
    id_: str,
    start: Callable[[BreakerConfig], BreakerRecord],
    ops: list[Op],
    cfg: BreakerConfig = CONSEC,
) -> Any:
    return pytest.param(start, cfg, ops, id=id_)


TABLE = [
    # -- closed, consecutive mode
    row(
        "a new breaker is closed and admits the even ticket of epoch 0",
        closed,
        [snap(0, CLOSED, 0), admit(0, 0), admit(1, 0)],
    ),
    row(
        "failures below the threshold are counted and keep the circuit closed",
        closed,
        [
            rec(0, F, 1),
            snap(1, CLOSED, 0, failures=1),
            rec(0, F, 2),
            snap(2, CLOSED, 0, failures=2),
            admit(2, 0),
        ],
    ),
    row(
        "the threshold-th failure in a row opens the circuit for recovery_timeout",
        closed,
        [
            rec(0, F, 1),
            rec(0, F, 2),
            rec(0, F, 3, (CLOSED, OPEN)),
            snap(3, OPEN, 1, retry_after=10.0),
            admit(3, REJECTED),
        ],
    ),
    row(
        "a success resets the consecutive failure count",
        closed,
        [
            rec(0, F, 0),
            rec(0, F, 0),
            rec(0, S, 0),
            snap(0, CLOSED, 0, failures=0),
            rec(0, F, 0),
            rec(0, F, 0),
            snap(0, CLOSED, 0, failures=2),
            rec(0, F, 0, (CLOSED, OPEN)),
        ],
    ),
    row(
        "neutral outcomes neither count nor reset failures",
        closed,
        [
            rec(0, F, 0),
            rec(0, N, 0),
            rec(0, N, 0),
            rec(0, N, 0),
            snap(0, CLOSED, 0, failures=1),
            rec(0, F, 0),
            rec(0, N, 0),
            rec(0, F, 0, (CLOSED, OPEN)),
        ],
    ),
    row(
        "a rejected admission's ticket records nothing",
        closed,
        [rec(REJECTED, F, 0), rec(REJECTED, F, 0), rec(REJECTED, F, 0), snap(0, CLOSED, 0)],
    ),
    # -- open
    row(
        "an open circuit rejects every caller until recovery_timeout has passed",
        open_since_0,
        [
            admit(0, REJECTED),
            snap(4, OPEN, 1, retry_after=6.0),
            admit(9.999, REJECTED),
            snap(10, HALF, 1),
            admit(10, 5),
        ],
    ),
    row(
        "an outcome recorded while open changes nothing, even with the current epoch",
        open_since_0,
        [rec(2, F, 1), rec(2, S, 1), rec(3, S, 1), snap(1, OPEN, 1, retry_after=9.0)],
    ),
    # -- half-open: the single probe
    row(
        "the probe is the only caller admitted while its reservation lasts",
        probing_since_10,
        [
            admit(10, REJECTED),
            snap(12, HALF, 2, retry_after=3.0),
            admit(14.999, REJECTED),
        ],
    ),
    row(
        "the probe's success closes the circuit in a new epoch",
        probing_since_10,
        [
            rec(5, S, 11, (HALF, CLOSED)),
            snap(11, CLOSED, 3),
            admit(11, 6),
            rec(6, F, 11),
            snap(11, CLOSED, 3, failures=1),
        ],
    ),
    row(
        "the probe's counted failure re-opens the circuit for another recovery_timeout",
        probing_since_10,
        [
            rec(5, F, 12, (HALF, OPEN)),
            snap(12, OPEN, 3, retry_after=10.0),
            admit(21.999, REJECTED),
            admit(22, 9),
        ],
    ),
    row(
        "the probe's neutral outcome releases the reservation and the next caller probes",
        probing_since_10,
        [
            rec(5, N, 11),
            snap(11, HALF, 2),
            admit(11, 7),
            admit(11, REJECTED),
            rec(5, S, 11),
            snap(11, HALF, 3, retry_after=5.0),
            rec(7, S, 11, (HALF, CLOSED)),
        ],
    ),
    row(
        "an expired probe reservation gives the next caller a fresh probe in a new epoch",
        probing_since_10,
        [
            admit(14.999, REJECTED),
            snap(15, HALF, 2),
            admit(15, 7),
            admit(15, REJECTED),
            rec(5, S, 16),
            rec(5, F, 16),
            snap(16, HALF, 3, retry_after=4.0),
            rec(7, S, 16, (HALF, CLOSED)),
        ],
    ),
    # -- epochs: stale tickets
    row(
        "a ticket admitted before the circuit opened can neither close nor re-open it",
        closed,
        [
            admit(0, 0),
            rec(0, F, 0),
            rec(0, F, 0),
            rec(0, F, 0, (CLOSED, OPEN)),
            rec(0, S, 1),
            snap(1, OPEN, 1, retry_after=9.0),
            admit(10, 5),
            rec(5, S, 10, (HALF, CLOSED)),
            rec(0, F, 11),
            rec(0, F, 11),
            rec(0, F, 11),
            snap(11, CLOSED, 3),
        ],
    ),
    row(
        "a probe ticket changes nothing once its epoch has ended",
        probing_since_10,
        [
            rec(5, S, 10, (HALF, CLOSED)),
            rec(5, F, 10),
            rec(5, S, 10),
            rec(7, F, 10),
            snap(10, CLOSED, 3),
        ],
    ),
    # -- reset
    row(
        "reset closes an open circuit in a new epoch",
        open_since_0,
        [reset((OPEN, CLOSED)), snap(0, CLOSED, 2), admit(0, 4)],
    ),
    row(
        "reset of a circuit whose open period has passed reports it as leaving open",
        open_since_0,
        [snap(10, HALF, 1), reset((OPEN, CLOSED)), admit(10, 4)],
    ),
    row(
        "reset of a closed circuit reports no transition but forgets failures and old tickets",
        closed,
        [
            rec(0, F, 0),
            rec(0, F, 0),
            reset(None),
            snap(0, CLOSED, 1),
            rec(0, F, 0),
            rec(0, F, 0),
            rec(0, F, 0),
            snap(0, CLOSED, 1),
            admit(0, 2),
        ],
    ),
    row(
        "reset during the probe closes the circuit and leaves the probe's ticket inert",
        probing_since_10,
        [reset((HALF, CLOSED)), rec(5, F, 11), snap(11, CLOSED, 3), admit(11, 6)],
    ),
    # -- ratio mode
    row(
        "ratio mode never opens below minimum_throughput",
        closed,
        [
            rec(0, F, 0),
            rec(0, F, 0),
            rec(0, F, 0),
            snap(0, CLOSED, 0, failures=3, calls=3),
            rec(0, F, 0, (CLOSED, OPEN)),
            snap(0, OPEN, 1, retry_after=10.0),
        ],
        RATIO,
    ),
    row(
        "ratio mode opens when the failures reach failure_ratio of the calls",
        closed,
        [
            rec(0, S, 0),
            rec(0, S, 0),
            rec(0, S, 0),
            rec(0, F, 0),
            rec(0, F, 0),
            snap(0, CLOSED, 0, failures=2, calls=5),
            rec(0, F, 0, (CLOSED, OPEN)),
        ],
        RATIO,
    ),
    row(
        "ratio mode: a success never opens the circuit, even with the ratio reached",
        closed,
        [
            rec(0, F, 0),
            rec(0, F, 0),
            rec(0, S, 0),
            rec(0, S, 0),
            snap(0, CLOSED, 0, failures=2, calls=4),
            rec(0, F, 0, (CLOSED, OPEN)),
        ],
        RATIO,
    ),
    row(
        "ratio mode: neutral outcomes are not calls",
        closed,
        [
            rec(0, F, 0),
            rec(0, N, 0),
            rec(0, N, 0),
            rec(0, S, 0),
            snap(0, CLOSED, 0, failures=1, calls=2),
        ],
        RATIO,
    ),
    row(
        "ratio mode: outcomes still inside the window count",
        closed,
        [
            rec(0, F, 0),
            rec(0, F, 0),
            rec(0, F, 0),
            snap(19.9, CLOSED, 0, failures=3, calls=3),
            rec(0, F, 19.9, (CLOSED, OPEN)),
        ],
        RATIO,
    ),
    row(
        "ratio mode: outcomes older than the window no longer count",
        closed,
        [
            rec(0, F, 0),
            rec(0, F, 0),
            rec(0, F, 0),
            snap(20, CLOSED, 0, failures=0, calls=0),
            rec(0, F, 20),
            snap(20, CLOSED, 0, failures=1, calls=1),
        ],
        RATIO,
    ),
    row(
        "ratio mode: the window slides one bucket at a time",
        closed,
        [
            rec(0, F, 0),
            rec(0, S, 0),
            rec(0, S, 5),
            rec(0, S, 5),
            rec(0, F, 10),
            snap(20, CLOSED, 0, failures=1, calls=3),
            snap(25, CLOSED, 0, failures=1, calls=1),
            snap(30, CLOSED, 0),
        ],
        RATIO,
    ),
    row(
        "ratio mode: the probe's success starts the new circuit with an empty window",
        probing_since_10,
        [
            rec(5, S, 10, (HALF, CLOSED)),
            snap(10, CLOSED, 3),
            rec(6, F, 10),
            snap(10, CLOSED, 3, failures=1, calls=1),
        ],
        RATIO,
    ),
]


@pytest.mark.parametrize(("start", "cfg", "ops"), TABLE)
def test_transition_table(
    start: Callable[[BreakerConfig], BreakerRecord], cfg: BreakerConfig, ops: list[Op]
) -> None:
    record = start(cfg)
    for i, op in enumerate(ops):
        got = op.run(record, cfg)
        assert got == op.expected, f"step {i}: {op.label}"


def test_snapshot_of_a_missing_record_is_a_closed_empty_breaker() -> None:
    assert _fsm.snapshot(None, 123.0, CONSEC) == BreakerSnapshot(CLOSED, 0, 0, 0, 0.0)


def test_a_success_is_a_noop_only_on_a_clean_closed_circuit_in_consecutive_mode() -> None:
    rec_ = BreakerRecord()
    assert _fsm.is_noop_success(rec_, 0, CONSEC)
    assert not _fsm.is_noop_success(rec_, 0, RATIO)  # ratio mode counts every success
    assert not _fsm.is_noop_success(rec_, 1, CONSEC)  # not this epoch's closed ticket
    _fsm.record(rec_, 0, FAILURE, 0.0, CONSEC)
    assert not _fsm.is_noop_success(rec_, 0, CONSEC)  # a failure to clear


# -- properties over random operation sequences ------------------------------------------------

configs = st.builds(
    BreakerConfig,
    failure_threshold=st.integers(1, 3),
    recovery_timeout=st.sampled_from([0.0, 1.0, 2.0, 4.0]),
    probe_timeout=st.sampled_from([0.0, 2.0, 4.0]),
    mode=st.sampled_from(["consecutive", "ratio"]),
    failure_ratio=st.sampled_from([0.25, 0.5, 1.0]),
    window=st.sampled_from([4.0, 10.0, 20.0]),
    minimum_throughput=st.integers(1, 3),
)
#: (kind, seconds since the previous operation, how many tickets back a late record reaches,
#: outcome). ``call`` admits and at once records the outcome (when admitted); ``admit`` leaves
#: the call in flight and ``record`` reports one admitted earlier, perhaps epochs ago.
#: Whole-second steps and timeouts keep every time exact.
KINDS = ["call", "call", "admit", "admit", "record", "record", "snapshot", "reset"]
ops = st.lists(
    st.tuples(
        st.sampled_from(KINDS),
        st.sampled_from([0, 0, 0, 1, 1, 2, 3, 6]),
        st.one_of(st.integers(0, 2), st.integers(0, 60)),
        st.sampled_from([SUCCESS, FAILURE, FAILURE, FAILURE, NEUTRAL]),
    ),
    min_size=10,
    max_size=50,
)


class Fields(NamedTuple):
    """Everything a record holds, copied."""

    state: BreakerState
    epoch: int
    ticket: int
    failures: int
    calls: int
    open_until: float
    probe_until: float | None
    window: list[tuple[float, ...]]


def fields(rec_: BreakerRecord) -> Fields:
    return Fields(
        rec_.state,
        rec_.epoch,
        rec_.ticket,
        rec_.failures,
        rec_.calls,
        rec_.open_until,
        rec_.probe_until,
        [tuple(b) for b in rec_.window],
    )


@dataclass
class Step:
    kind: str
    now: float
    ticket: int
    outcome: int
    result: Any
    before: Fields
    after: Fields
    #: for a snapshot: what admit answers at the same time, and at ``now + retry_after``.
    admit_now: int = REJECTED
    admit_later: int = REJECTED


def play(cfg: BreakerConfig, script: list[tuple[str, int, int, int]]) -> list[Step]:
    """Run ``script`` on a new record; one :class:`Step` per state machine call."""
    rec_ = BreakerRecord()
    issued: list[int] = [REJECTED]
    now = 0.0
    steps: list[Step] = []

    def step(kind: str, ticket: int, outcome: int, fn: Callable[..., Any], *args: Any) -> Any:
        before = fields(rec_)
        result = fn(rec_, *args)
        steps.append(Step(kind, now, ticket, outcome, result, before, fields(rec_)))
        return result

    for kind, dt, back, outcome in script:
        now += dt
        if kind in ("call", "admit"):
            ticket = step("admit", REJECTED, outcome, _fsm.admit, now, cfg)
            issued.append(ticket)
            steps[-1].ticket = ticket
            if kind == "call" and ticket >= 0:
                step("record", ticket, outcome, _fsm.record, ticket, outcome, now, cfg)
        elif kind == "record":
            late = issued[max(0, len(issued) - 1 - back)]
            step("record", late, outcome, _fsm.record, late, outcome, now, cfg)
        elif kind == "snapshot":
            snap_ = step("snapshot", REJECTED, outcome, _fsm.snapshot, now, cfg)
            steps[-1].admit_now = _fsm.admit(copy.deepcopy(rec_), now, cfg)
            steps[-1].admit_later = _fsm.admit(copy.deepcopy(rec_), now + snap_.retry_after, cfg)
        else:
            step("reset", REJECTED, outcome, _fsm.reset)
    return steps


@settings(max_examples=150, deadline=None)
@given(configs, ops)
def test_epochs_never_decrease(cfg: BreakerConfig, script: list[Any]) -> None:
    for s in play(cfg, script):
        assert s.after.epoch >= s.before.epoch, s
        if s.after.state is not s.before.state:
            assert s.after.epoch > s.before.epoch, f"a state change without a new epoch: {s}"


@settings(max_examples=150, deadline=None)
@given(configs, ops)
def test_at_most_one_probe_is_outstanding_at_a_time(cfg: BreakerConfig, script: list[Any]) -> None:
    live: tuple[int, float] | None = None  # (probe ticket, reserved until)
    probe_epochs: set[int] = set()
    for s in play(cfg, script):
        if live is not None and (s.before.epoch != live[0] >> 1):
            live = None  # its epoch ended (closed, re-opened, reset)
        if s.kind == "admit" and s.result >= 0 and s.result & 1:
            assert live is None or s.now >= live[1], f"a second probe while one is reserved: {s}"
            assert s.result >> 1 not in probe_epochs, "two probes in one epoch"
            probe_epochs.add(s.result >> 1)
            live = (s.result, s.now + cfg.probe_timeout)
        elif s.kind == "admit" and live is not None and s.now < live[1]:
            assert s.result == REJECTED, f"a caller admitted beside the probe: {s}"
        elif s.kind == "record" and live is not None and s.ticket == live[0]:
            live = None  # reported: released (neutral) or the epoch moved on


@settings(max_examples=150, deadline=None)
@given(configs, ops)
def test_a_ticket_from_an_earlier_epoch_never_changes_state(
    cfg: BreakerConfig, script: list[Any]
) -> None:
    for s in play(cfg, script):
        if s.kind == "record" and s.ticket >= 0 and s.ticket >> 1 < s.before.epoch:
            assert s.result is None and s.after == s.before, s


@settings(max_examples=150, deadline=None)
@given(configs, ops)
def test_failures_never_exceed_the_failures_recorded_in_the_epoch(
    cfg: BreakerConfig, script: list[Any]
) -> None:
    recorded = outcomes = 0
    for s in play(cfg, script):
        if s.after.epoch != s.before.epoch:
            recorded = outcomes = 0
        elif s.kind == "record" and s.ticket >= 0 and s.ticket >> 1 == s.before.epoch:
            recorded += s.outcome == FAILURE
            outcomes += s.outcome != NEUTRAL
        failures, calls = s.after.failures, s.after.calls
        assert 0 <= failures <= recorded, s
        assert 0 <= calls <= outcomes, s
        if cfg.mode == "ratio":
            assert failures <= calls, s
        elif s.after.state is CLOSED:
            assert failures < cfg.failure_threshold, s


@settings(max_examples=150, deadline=None)
@given(configs, ops)
def test_snapshot_agrees_with_admit_at_the_same_time(cfg: BreakerConfig, script: list[Any]) -> None:
    for s in play(cfg, script):
        if s.kind != "snapshot":
            continue
        snap_: BreakerSnapshot = s.result
        assert snap_.epoch == s.before.epoch
        if snap_.state is CLOSED:
            assert snap_.retry_after == 0.0 and s.admit_now == snap_.epoch * 2, s
        elif snap_.retry_after > 0:
            assert s.admit_now == REJECTED, s
            assert s.admit_later >= 0 and s.admit_later & 1, f"retry_after is not exact: {s}"
        else:
            assert snap_.state is HALF, f"an open circuit with nothing to wait for: {s}"
            assert s.admit_now >= 0 and s.admit_now & 1, f"the next caller is not the probe: {s}"
