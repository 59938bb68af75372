"""Token-bucket arithmetic: the retry budget's and the shared rate limiter's, written once.

The memory stores run these functions under their lock; the Redis scripts mirror them.

**Retry budget** (one level per key; a missing level is a full bucket):

- :func:`spend`: a retry costs ``cost``; refused (level unchanged) when the level holds less.
  The level never goes below zero.
- :func:`deposit`: a success adds ``amount``, up to ``capacity``; a bucket back at capacity is
  forgotten (``None``), so a healthy key costs nothing to keep.

**Rate limiter** (a state dict per key; for each dimension ``d`` of ``r`` requests and ``t``
tokens: ``dn`` remaining, ``da`` the reset time, ``dl`` the limit; ``na`` the next paced start):

- :func:`rl_observe`: learn a response's remaining counts and reset times; within one window
  the lowest remaining count and the latest reset win (responses arrive out of order).
- :func:`rl_acquire`: take one request and ``tokens``, or say how long to wait. A bucket that
  cannot pay waits for its reset; below ``pace_below`` of a known limit, requests are spaced
  evenly over the time left in the window; a reset time that has passed forgets the bucket.
"""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence

__all__ = ["DIMENSIONS", "deposit", "rl_acquire", "rl_observe", "spend"]

#: ``(dimension, offset in the observed fields)``: requests, then tokens.
DIMENSIONS = (("r", 0), ("t", 3))


def spend(level: float | None, cost: float, capacity: float) -> tuple[bool, float | None]:
    """``(paid, new level)`` for one retry; ``level`` ``None`` means a full bucket."""
    current = capacity if level is None else min(level, capacity)
    if current < cost:
        return False, level
    return True, current - cost


def deposit(level: float | None, amount: float, capacity: float) -> float | None:
    """The level after a success refills ``amount``; ``None`` once full again."""
    if level is None:
        return None
    level += amount
    return None if level >= capacity else level


def rl_observe(
    state: MutableMapping[str, float],
    fields: Sequence[float | None],
    default_reset: float,
    now: float,
) -> None:
    """Record ``fields`` = (remaining, reset in seconds, limit) for requests then tokens."""
    for d, i in DIMENSIONS:
        rem, reset, lim = fields[i], fields[i + 1], fields[i + 2]
        if lim is not None:
            state[d + "l"] = lim
        if rem is None:
            continue
        at = now + (default_reset if reset is None else reset)
        old, old_at = state.get(d + "n"), state.get(d + "a")
        if old is not None and old_at is not None and old_at > now and at <= old_at + 0.5:
            rem, at = min(old, rem), max(old_at, at)
        state[d + "n"], state[d + "a"] = rem, at


def rl_acquire(
    state: MutableMapping[str, float] | None, tokens: float, pace_below: float, now: float
) -> float:
    """0.0 when one request and ``tokens`` were taken, else the seconds to wait (nothing taken)."""
    if state is None:
        return 0.0
    wait = interval = 0.0
    live: dict[str, float] = {}
    for d, cost in (("r", 1.0), ("t", tokens)):
        rem, at, lim = state.get(d + "n"), state.get(d + "a"), state.get(d + "l")
        if rem is not None and at is not None and now >= at:
            del state[d + "n"], state[d + "a"]
            rem = None
        if rem is None or at is None or cost <= 0:
            continue
        if rem < cost:
            wait = max(wait, at - now)
            continue
        live[d] = rem - cost
        if lim is not None and rem - cost < lim * pace_below:
            interval = max(interval, (at - now) * cost / rem)
    na = state.get("na", 0.0)
    if interval > 0 and na > now:
        wait = max(wait, na - now)
    if wait > 0:
        return wait
    for d, left in live.items():
        state[d + "n"] = left
    if interval > 0:
        state["na"] = max(na, now) + interval
    return 0.0
