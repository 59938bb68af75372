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
   of failure (a stream's resume budget).
3. A server hint (``error.retry_after``: Retry-After and kin) is honoured exactly: not capped by
   ``max_delay``, not shortened by the backoff. A hint longer than ``max_hint`` or than the time
   left before the deadline fails at once.
4. Otherwise the wait grows: the equal-jitter backoff (:mod:`surefoot.policy._backoff`) of the
   *streak*, the number of failures of the same kind just before this one (the attempt number
   when the caller does not say). Its ceiling starts at ``retry_base``, or at a retryable typed
   error's own ``suggested_retry_delay`` when that is larger (a rate limit's 60 s, an
   overload's 5 s, a server error's 2 s; not the generic 1 s default), doubles with each
   failure of the streak and is capped by ``max_delay``; the wait is drawn from the upper half
   of the ceiling and is never shorter than the error's own delay (itself capped by
   ``max_delay``). So a burst of 503s waits about 2, then 2 to 4, then 4 to 8, then 8 s:
   growing, jittered, bounded.
5. A delay that would end past the deadline fails at once: no sleep ever ends past it.
"""

from __future__ import annotations

import random as _random
from collections.abc import Callable
from dataclasses import dataclass, field

from surefoot import _check
from surefoot.policy._backoff import backoff_delay
from surefoot.policy._types import Decision, ErrorInfo, OnError, Tier, Why

# The error tree and the default classifier are imported by the first decision (a policy is
# built when a function is decorated; it decides only after a failure).

__all__ = ["MAX_RETRIES", "RetryPolicy", "error_info", "in_stream_of"]

#: The largest ``retries`` accepted: beyond it a policy is a bug, not a setting.
MAX_RETRIES = 1000


def in_stream_of(error: BaseException) -> bool:
    """True when ``error`` says it happened during a stream (the LLM client marks its errors)."""
    from surefoot.errors import SurefootError

    return isinstance(error, SurefootError) and error.context.metadata.get("in_stream") is True


def error_info(error: BaseException, attempt: int, *, in_stream: bool | None = None) -> ErrorInfo:
    """The :class:`ErrorInfo` an ``on_error`` hook sees for ``error`` at ``attempt``.

    ``in_stream`` says whether the failure happened during a stream; ``None`` reads the mark
    the LLM client puts on its errors.
    """
    from surefoot.errors import SurefootError
    from surefoot.policy._classifier import default_retryable

    status = error.context.http_status if isinstance(error, SurefootError) else None
    stream = in_stream_of(error) if in_stream is None else in_stream
    return ErrorInfo(error, status, attempt, default_retryable(error, status, in_stream=stream))


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
        _check.count(
            "retries",
            self.retries,
            high=MAX_RETRIES,
            fix="bound the run with timeout= instead of a huge retry count",
        )
        for name in ("retry_base", "max_delay", "max_hint"):
            object.__setattr__(self, name, _check.seconds(name, getattr(self, name)))
        _check.function("on_error", self.on_error, "taking an ErrorInfo and returning a Tier")
        _check.function("random", self.random, "returning a float in [0, 1)", optional=False)
        if not isinstance(self.respect_error_attempts, bool):
            raise TypeError(
                "respect_error_attempts must be a bool, got "
                f"{type(self.respect_error_attempts).__name__} {self.respect_error_attempts!r}"
            )

    def classify(
        self, error: BaseException, attempt: int, *, in_stream: bool | None = None
    ) -> tuple[Tier, ErrorInfo]:
        """The tier for ``error``; raises whatever the ``on_error`` hook raises."""
        info = error_info(error, attempt, in_stream=in_stream)
        hook = self.on_error
        if hook is None:
            return (Tier.RETRY if info.retryable else Tier.FAIL), info
        tier = hook(info)
        if not isinstance(tier, Tier):
            raise TypeError(f"on_error must return Tier.RETRY or Tier.FAIL, got {tier!r}")
        return tier, info

    def decide(
        self,
        error: BaseException,
        attempt: int,
        now: float,
        deadline: float | None = None,
        *,
        streak: int | None = None,
        in_stream: bool | None = None,
    ) -> Decision:
        """Retry or fail after ``error`` ended attempt number ``attempt`` (zero-based) at ``now``.

        ``deadline`` is absolute, on the same clock as ``now``; ``None`` means none.
        ``streak`` is how many failures of the same kind came just before this one (default:
        ``attempt``); ``in_stream`` whether it happened during a stream (default: the error's
        own mark).
        """
        from surefoot.errors import SurefootError

        try:
            tier, info = self.classify(error, attempt, in_stream=in_stream)
        except Exception as hook_exc:
            return Decision.fail(
                Why.ON_ERROR_RAISED, f"on_error raised {type(hook_exc).__name__}", hook_exc
            )
        if tier is Tier.FAIL:
            if self.on_error is not None:
                return Decision.fail(Why.ON_ERROR_FAIL)
            return Decision.fail(Why.NOT_RETRYABLE)
        if attempt >= self.retries:
            return Decision.fail(Why.EXHAUSTED, f"retries exhausted ({self.retries})")
        typed = error if isinstance(error, SurefootError) else None
        if (
            self.respect_error_attempts
            and typed is not None
            and typed.retryable
            and attempt >= typed.max_retry_attempts
        ):
            return Decision.fail(
                Why.ERROR_ATTEMPTS,
                f"{typed.code} allows at most {typed.max_retry_attempts} retries",
            )
        left = None if deadline is None else deadline - now
        hint = typed.retry_after if typed is not None else None
        if hint is not None and hint >= 0 and hint != float("inf"):
            if hint > self.max_hint:
                return Decision.fail(
                    Why.HINT_TOO_LONG,
                    f"server asked to wait {hint:g}s, over max_hint={self.max_hint:g}s",
                )
            if left is not None and hint > left:
                return Decision.fail(
                    Why.HINT_PAST_DEADLINE,
                    f"server asked to wait {hint:g}s, past the deadline ({left:.3g}s left)",
                )
            return Decision("retry", hint, Why.HINT)
        n = attempt if streak is None else streak
        base, floor, why = self.retry_base, 0.0, Why.BACKOFF
        if typed is not None and info.retryable and typed.has_explicit_retry_delay:
            own = typed.suggested_retry_delay
            floor = own if own < self.max_delay else self.max_delay
            if own > base:
                base, why = own, Why.SUGGESTED
        delay = backoff_delay(n, base, self.max_delay, self.random())
        if delay < floor:
            delay, why = floor, Why.SUGGESTED
        if left is not None and delay > left:
            return Decision.fail(
                Why.WAIT_PAST_DEADLINE,
                f"a {delay:.3g}s wait would end past the deadline ({left:.3g}s left)",
            )
        return Decision("retry", delay, why)
