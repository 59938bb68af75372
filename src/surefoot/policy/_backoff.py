"""Exponential backoff with *equal jitter*.

For zero-based attempt ``n`` the ceiling is ``c = min(max_delay, retry_base * 2**n)`` and the
delay is ``c/2 + u * c/2`` with ``u`` drawn from the injected random source in ``[0, 1)``: always
within ``[c/2, c]``. Equal jitter (rather than full jitter, ``u * c``) keeps every retry at least
half the exponential step away, which is what an overloaded LLM provider needs, while still
spreading a thundering herd over half the interval.

Overflow-safe: ``2**n`` is never materialised for large ``n``; the ceiling saturates at
``max_delay``.
"""

from __future__ import annotations

import math

__all__ = ["backoff_ceiling", "backoff_delay"]

_MAX_EXP = 1100  # 2.0**1100 overflows a double: anything above saturates anyway


def backoff_ceiling(attempt: int, retry_base: float, max_delay: float) -> float:
    """``min(max_delay, retry_base * 2**attempt)``, never raising on overflow."""
    if retry_base <= 0.0 or max_delay <= 0.0:
        return 0.0
    n = attempt if attempt > 0 else 0
    try:
        raw = math.ldexp(retry_base, n if n < _MAX_EXP else _MAX_EXP)
    except OverflowError:
        return max_delay
    return raw if raw < max_delay else max_delay


def backoff_delay(attempt: int, retry_base: float, max_delay: float, u: float) -> float:
    """The jittered delay before retry number ``attempt + 1``; ``u`` is uniform in ``[0, 1)``."""
    c = backoff_ceiling(attempt, retry_base, max_delay)
    if not 0.0 <= u < 1.0:  # a broken random source must not push a delay out of bounds
        u = 0.0 if not u >= 0.0 else math.nextafter(1.0, 0.0)
    return c * 0.5 + u * c * 0.5
