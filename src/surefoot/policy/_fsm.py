"""The circuit breaker's state machine, written once: functions of a record, an outcome and ``now``.

This is the specification every store follows: :class:`surefoot.stores.MemoryStore` runs these
functions under its lock, and the Redis scripts (:mod:`surefoot.stores._redis_lua`) mirror them
line for line; one conformance suite (``tests/stores/test_conformance.py``) runs the same cases
on both.

The transitions:

1. **Closed.** :func:`admit` returns the ticket ``epoch * 2``. In the consecutive mode a counted
   failure adds one to ``failures`` and a success resets it; ``failure_threshold`` of them in a
   row open the circuit. In the ratio mode every outcome enters a sliding window of
   ``window`` seconds kept as 20 buckets; the circuit opens when the window holds at least
   ``minimum_throughput`` calls and the failures reach ``failure_ratio`` of them. A neutral
   outcome changes nothing.
2. **Open** for ``recovery_timeout`` seconds: :func:`admit` returns :data:`REJECTED`.
3. **Half-open.** The first caller after the open period gets the probe: a new epoch and the
   odd ticket ``epoch * 2 + 1``, reserved for ``probe_timeout`` seconds; every other caller is
   rejected meanwhile. The probe's success closes the circuit (a new epoch), its counted failure
   re-opens it for another ``recovery_timeout``, a neutral outcome frees the reservation for the
   next caller. A reservation whose holder never reports expires, and the next caller probes.
4. **Epochs.** Every state change starts a new epoch; an outcome recorded with a ticket of an
   earlier epoch changes nothing, so a slow call admitted before the circuit opened can neither
   close nor re-open a newer circuit.
"""

from __future__ import annotations

from collections import deque

from surefoot.policy._types import (
    FAILURE,
    NEUTRAL,
    REJECTED,
    SUCCESS,
    BreakerConfig,
    BreakerSnapshot,
    BreakerState,
    Transition,
)

__all__ = [
    "BUCKETS",
    "BreakerRecord",
    "admit",
    "is_noop_success",
    "record",
    "reset",
    "snapshot",
]

_CLOSED, _OPEN, _HALF = BreakerState.CLOSED, BreakerState.OPEN, BreakerState.HALF_OPEN
#: A ratio window is kept as this many time buckets.
BUCKETS = 20


class BreakerRecord:
    """The state of one breaker. ``ticket`` is the closed-state ticket (``REJECTED`` while not
    closed): a reader without a lock may use it and ``failures`` for the success path."""

    __slots__ = (
        "calls",
        "epoch",
        "failures",
        "open_until",
        "probe_until",
        "state",
        "ticket",
        "window",
    )

    def __init__(self) -> None:
        self.state = _CLOSED
        self.epoch = 0
        self.ticket = 0  # epoch * 2 while closed, REJECTED otherwise
        self.failures = 0
        self.calls = 0
        self.open_until = 0.0
        self.probe_until: float | None = None
        self.window: deque[list[float]] = deque()  # [bucket_start, calls, failures]

    def _enter(self, state: BreakerState) -> None:
        self.state = state
        self.epoch += 1
        self.ticket = self.epoch * 2 if state is _CLOSED else REJECTED


def admit(rec: BreakerRecord, now: float, config: BreakerConfig) -> int:
    """A ticket for one call (odd: the half-open probe), or :data:`REJECTED`."""
    if rec.state is _CLOSED:
        return rec.ticket
    if now < rec.open_until:
        return REJECTED
    if rec.probe_until is not None and now < rec.probe_until:
        return REJECTED
    rec._enter(_HALF)
    rec.probe_until = now + config.probe_timeout
    return rec.epoch * 2 + 1


def is_noop_success(rec: BreakerRecord, ticket: int, config: BreakerConfig) -> bool:
    """True when recording a success for ``ticket`` would change nothing (the healthy closed
    circuit's success path, which a store may then skip without taking its lock)."""
    return ticket == rec.ticket and rec.failures == 0 and config.mode == "consecutive"


def record(
    rec: BreakerRecord, ticket: int, outcome: int, now: float, config: BreakerConfig
) -> Transition | None:
    """Record the outcome of the call admitted with ``ticket``; the transition it caused."""
    if ticket < 0 or ticket >> 1 != rec.epoch:
        return None  # no ticket, or one from an earlier epoch: changes nothing
    if ticket & 1:
        return _probe_outcome(rec, outcome, now, config)
    if rec.state is not _CLOSED or outcome == NEUTRAL:
        return None
    if config.mode == "consecutive":
        if outcome == SUCCESS:
            rec.failures = 0
            return None
        rec.failures += 1
        if rec.failures < config.failure_threshold:
            return None
    else:
        _slide(rec, now, config, outcome == FAILURE)
        if (
            outcome == SUCCESS
            or rec.calls < config.minimum_throughput
            or rec.failures < config.failure_ratio * rec.calls
        ):
            return None
    _open(rec, now, config)
    return (_CLOSED, _OPEN)


def _probe_outcome(
    rec: BreakerRecord, outcome: int, now: float, config: BreakerConfig
) -> Transition | None:
    if rec.state is not _HALF:
        return None
    if outcome == NEUTRAL:
        rec.probe_until = None  # release: the next caller probes
        return None
    if outcome == SUCCESS:
        rec._enter(_CLOSED)
        rec.failures = rec.calls = 0
        rec.window.clear()
        rec.probe_until = None
        return (_HALF, _CLOSED)
    _open(rec, now, config)
    return (_HALF, _OPEN)


def _open(rec: BreakerRecord, now: float, config: BreakerConfig) -> None:
    rec._enter(_OPEN)
    rec.open_until = now + config.recovery_timeout
    rec.probe_until = None
    rec.failures = rec.calls = 0
    rec.window.clear()


def _expire(rec: BreakerRecord, now: float, config: BreakerConfig) -> None:
    horizon = now - config.window
    win = rec.window
    while win and win[0][0] <= horizon:
        old = win.popleft()
        rec.calls -= int(old[1])
        rec.failures -= int(old[2])


def _slide(rec: BreakerRecord, now: float, config: BreakerConfig, failed: bool) -> None:
    _expire(rec, now, config)
    width = config.window / BUCKETS
    win = rec.window
    if not win or now >= win[-1][0] + width:
        win.append([now, 0.0, 0.0])
    bucket = win[-1]
    bucket[1] += 1
    rec.calls += 1
    if failed:
        bucket[2] += 1
        rec.failures += 1


def snapshot(rec: BreakerRecord | None, now: float, config: BreakerConfig) -> BreakerSnapshot:
    """A consistent view of the breaker at ``now`` (an open circuit whose period has passed
    shows as half-open: the next caller would be the probe)."""
    if rec is None:
        return BreakerSnapshot(_CLOSED, 0, 0, 0, 0.0)
    if config.mode == "ratio" and rec.state is _CLOSED:
        _expire(rec, now, config)
    state, wait = rec.state, 0.0
    if state is _OPEN:
        wait = max(0.0, rec.open_until - now)
        if wait == 0.0:
            state = _HALF
    elif state is _HALF and rec.probe_until is not None and now < rec.probe_until:
        wait = rec.probe_until - now
    return BreakerSnapshot(state, rec.epoch, rec.failures, rec.calls, wait)


def reset(rec: BreakerRecord) -> Transition | None:
    """Close the breaker and forget its counts (a new epoch)."""
    old = rec.state
    rec._enter(_CLOSED)
    rec.failures = rec.calls = 0
    rec.window.clear()
    rec.probe_until = None
    rec.open_until = 0.0
    return None if old is _CLOSED else (old, _CLOSED)
