"""The retry decision: :class:`RetryPolicy` turns one failed attempt into a :class:`Decision`.

Pure: the time (``now``), the deadline and the random source are passed in; nothing sleeps.

The rules, in order:

1. The ``on_error`` hook (or the default classifier) says :attr:`Tier.RETRY` or
   :attr:`Tier.FAIL`. A hook that raises, or returns anything but a :class:`Tier`, fails the
   call with the *original* error; the decision carries the hook's exception (``hook_error``)
   so the driver can attach it as a note.
2. A retry is always bounded by ``retries``; a retryable typed error's own
   ``max_retry_attempts`` (a rate limit's 5, ...) caps it further, never raises it, unless
   ``respect_error_attempts=False``: then ``retries`` alone is the budget, shared by every kind
   of failure (a stream's one attempt budget, per ``002_86810f19ca361bb9.txt``).
3. A server hint (``error.retry_after``: Retry-After and kin) is honoured exactly: not capped by
   ``max_delay``, not shortened by the backoff. A hint longer than ``max_hint`` or than the time
   left before the deadline fails at once.
4. Otherwise the delay is the jittered backoff (:mod:`surefoot.policy._backoff`), floored by a
   retryable typed error's own ``suggested_retry_delay`` when it has one of its own (a rate
   limit's 60 s, an overload's 5 s, a server error's 2 s; not the generic 1 s default), the
   floor itself capped by ``max_delay``.
5. A delay that would end past the deadline fails at once: no sleep ever ends past it.
"""

from __future__ import annotations

import math
import random as _random
from collections.abc import Callable
from dataclasses import dataclass, field

from surefoot.errors import SurefootError
from surefoot.policy._backoff import backoff_delay
from surefoot.policy._classifier import default_retryable
from surefoot.policy._types import Decision, ErrorInfo, OnError, Tier

__all__ = ["MAX_RETRIES", "RetryPolicy", "error_info", "check_seconds"]

#: The largest ``retries`` accepted: beyond it a policy is a bug, not a setting.
MAX_RETRIES = 1000


def check_seconds(name: str, value: object, *, allow_none: bool = False) -> float | None:
    """``value`` as a finite float >= 0, or a ``ValueError`` that names the rule and the fix."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(
            f"{name} must be a number of seconds, got {type(value).__name__}"
            + ("; use None for no limit" if allow_none else "")
        )
    try:
        v = float(value)
    except OverflowError:
        v = math.inf
    if not math.isfinite(v) or v < 0:
        raise ValueError(
            f"{name} must be a finite number of seconds >= 0, got {value!r}"
            + ("; use None for no limit" if allow_none else "")
        )
    return v


def _in_stream(error: BaseException) -> bool:
    return isinstance(error, SurefootError) and error.context.metadata.get("in_stream") is True


def error_info(error: BaseException, attempt: int) -> ErrorInfo:
    """The :class:`ErrorInfo` an ``on_error`` hook sees for ``error`` at ``attempt``."""
    status = error.context.http_status if isinstance(error, SurefootError) else None
    return ErrorInfo(
        error, status, attempt, default_retryable(error, status, in_stream=_in_stream(error))
    )


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How many times, and after how long, a failed call is tried again.

    ``retries`` is the number of retries after the first attempt (so at most ``retries + 1``
    attempts); ``retry_base`` the backoff base in seconds; ``max_delay`` caps the backoff (not a
    server hint); ``max_hint`` is the longest server hint honoured; ``on_error`` classifies each
    failure (``None``: the default classifier); ``random`` returns floats in ``[0, 1)``;
    ``respect_error_attempts`` (default ``True``) lets a typed error's own
    ``max_retry_attempts`` cap the retries further; ``False`` makes ``retries`` the one budget
    every failure shares.
    """

    retries: int = 2
    retry_base: float = 0.5
    max_delay: float = 8.0
    max_hint: float = 120.0
    on_error: OnError | None = None
    random: Callable[[], float] = field(default=_random.random, repr=False, compare=False)
    respect_error_attempts: bool = True

    def __post_init__(self) -> None:
        r = self.retries
        if isinstance(r, bool) or not isinstance(r, int):
            raise ValueError(f"retries must be an int, got {type(r).__name__}")
        if not 0 <= r <= MAX_RETRIES:
            raise ValueError(
                f"retries must be between 0 and {MAX_RETRIES}, got {r}; "
                "bound the run with timeout= instead of a huge retry count"
            )
        for name in ("retry_base", "max_delay", "max_hint"):
            object.__setattr__(self, name, check_seconds(name, getattr(self, name)))
        if self.on_error is not None and not callable(self.on_error):
            raise ValueError("on_error must be a callable taking an ErrorInfo, or None")
        if not callable(self.random):
            raise ValueError("random must be a callable returning a float in [0, 1)")
        if not isinstance(self.respect_error_attempts, bool):
            raise ValueError(
                "respect_error_attempts must be a bool, got "
                f"{type(self.respect_error_attempts).__name__}"
            )

    def classify(self, error: BaseException, attempt: int) -> tuple[Tier, ErrorInfo]:
        """The tier for ``error``; raises whatever the ``on_error`` hook raises."""
        info = error_info(error, attempt)
        hook = self.on_error
        if hook is None:
            return (Tier.RETRY if info.retryable else Tier.FAIL), info
        tier = hook(info)
        if not isinstance(tier, Tier):
            raise TypeError(f"on_error must return Tier.RETRY or Tier.FAIL, got {tier!r}")
        return tier, info

    def decide(
        self, error: BaseException, attempt: int, now: float, deadline: float | None = None
    ) -> Decision:
        """Retry or fail after ``error`` ended attempt number ``attempt`` (zero-based) at ``now``.

        ``deadline`` is absolute, on the same clock as ``now``; ``None`` means none.
        """
        try:
            tier, info = self.classify(error, attempt)
        except Exception as hook_exc:
            return Decision(
                "fail", 0.0, f"on_error raised {type(hook_exc).__name__}", hook_error=hook_exc
            )
        if tier is Tier.FAIL:
            why = "on_error returned FAIL" if self.on_error is not None else "not retryable"
            return Decision("fail", 0.0, why)
        if attempt >= self.retries:
            return Decision("fail", 0.0, f"retries exhausted ({self.retries})")
        typed = error if isinstance(error, SurefootError) else None
        if (
            self.respect_error_attempts
            and typed is not None
            and typed.retryable
            and attempt >= typed.max_retry_attempts
        ):
            return Decision(
                "fail", 0.0, f"{typed.code} allows at most {typed.max_retry_attempts} retries"
            )
        left = None if deadline is None else deadline - now
        hint = typed.retry_after if typed is not None else None
        if hint is not None and math.isfinite(hint) and hint >= 0:
            if hint > self.max_hint:
                return Decision(
                    "fail", 0.0, f"server asked to wait {hint:g}s, over max_hint={self.max_hint:g}s"
                )
            if left is not None and hint > left:
                return Decision(
                    "fail",
                    0.0,
                    f"server asked to wait {hint:g}s, past the deadline ({left:.3g}s left)",
                )
            return Decision("retry", hint, "server hint")
        delay = backoff_delay(attempt, self.retry_base, self.max_delay, self.random())
        reason = "backoff"
        if typed is not None and info.retryable and typed.has_explicit_retry_delay:
            floor = typed.suggested_retry_delay
            floor = floor if floor < self.max_delay else self.max_delay
            if floor > delay:
                delay, reason = floor, "error's suggested delay"
        if left is not None and delay > left:
            return Decision(
                "fail", 0.0, f"a {delay:.3g}s wait would end past the deadline ({left:.3g}s left)"
            )
        return Decision("retry", delay, reason)
