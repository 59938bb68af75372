"""The vocabulary of the pure policy: decisions and why they were made, the breaker's states.

- :class:`Tier`, :class:`ErrorInfo`, :data:`OnError`: what an ``on_error`` hook sees and says.
- :class:`Decision` and :class:`Why`: the answer for one failed attempt. Control flow reads
  ``why`` (an enum); ``reason`` is text for logs and records, free to be reworded.
- :class:`BreakerState`, :class:`BreakerConfig`, :class:`BreakerSnapshot`, :data:`Transition`
  and the outcome codes: the breaker state machine's inputs and outputs
  (:mod:`surefoot.policy._fsm`), shared with every store that keeps breaker state.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeAlias

__all__ = [
    "FAILURE",
    "NEUTRAL",
    "REJECTED",
    "SUCCESS",
    "BreakerConfig",
    "BreakerSnapshot",
    "BreakerState",
    "Decision",
    "ErrorInfo",
    "OnError",
    "Tier",
    "Transition",
    "Why",
]


class Tier(enum.Enum):
    """What an ``on_error`` hook decides for one failed attempt."""

    RETRY = "retry"
    FAIL = "fail"


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    """One failed attempt, as an ``on_error`` hook sees it.

    - ``error``: the exception the attempt raised (a foreign exception that is a recognised
      failure already translated to a :class:`surefoot.SurefootError`, the original as its
      ``__cause__``; any other exception as raised).
    - ``status``: the HTTP status when the call completed with a non-2xx response, else ``None``.
    - ``attempt``: zero-based number of the attempt that failed.
    - ``retryable``: what the default classifier would decide.
    """

    error: BaseException | None
    status: int | None
    attempt: int
    retryable: bool


#: The ``on_error`` hook: classify one failed attempt. ``None`` means the default classifier.
OnError: TypeAlias = Callable[[ErrorInfo], Tier]

Action: TypeAlias = Literal["retry", "fail"]


class Why(enum.Enum):
    """Why a :class:`Decision` was made: the value control flow reads.

    Retries: ``BACKOFF``, ``HINT`` (the server's wait, exact), ``SUGGESTED`` (the backoff grown
    from the error's own suggested delay). Failures that end the call wherever it runs
    (:attr:`final` is true): ``NOT_RETRYABLE``, ``ON_ERROR_FAIL``, ``ON_ERROR_RAISED``,
    ``BUDGET``, ``DEADLINE`` (the deadline has passed), ``FINAL_EVENT``, ``NO_EVENT_IDS``,
    ``STREAM_ATTEMPTS``. Failures another model of a fallback chain could still serve:
    ``EXHAUSTED``, ``ERROR_ATTEMPTS``, ``HINT_TOO_LONG``, ``HINT_PAST_DEADLINE``,
    ``WAIT_PAST_DEADLINE``, ``CIRCUIT_OPEN``, ``CONTEXT_TOO_LONG``, ``CONTENT_FILTERED``, and
    ``FAILOVER`` (a fallback chain's own rule moved on: :mod:`surefoot.policy._failover`).
    """

    BACKOFF = "backoff"
    HINT = "server hint"
    SUGGESTED = "error's suggested delay"
    NOT_RETRYABLE = "not retryable"
    ON_ERROR_FAIL = "on_error returned FAIL"
    ON_ERROR_RAISED = "on_error raised"
    EXHAUSTED = "retries exhausted"
    ERROR_ATTEMPTS = "error's own attempt limit"
    HINT_TOO_LONG = "server hint over max_hint"
    HINT_PAST_DEADLINE = "server hint past the deadline"
    WAIT_PAST_DEADLINE = "wait past the deadline"
    BUDGET = "retry budget exhausted"
    DEADLINE = "the run's deadline elapsed"
    CIRCUIT_OPEN = "circuit open"
    FINAL_EVENT = "final error event"
    NO_EVENT_IDS = "after first delta"
    STREAM_ATTEMPTS = "stream attempts exhausted"
    CONTEXT_TOO_LONG = "context too long"
    CONTENT_FILTERED = "content filtered"
    FAILOVER = "the next model may serve it"

    @property
    def retry(self) -> bool:
        return self in _RETRIES

    @property
    def final(self) -> bool:
        """True when no other model should be tried: the failure is the caller's to see."""
        return self in _FINAL


_RETRIES = frozenset({Why.BACKOFF, Why.HINT, Why.SUGGESTED})
_FINAL = frozenset(
    {
        Why.NOT_RETRYABLE,
        Why.ON_ERROR_FAIL,
        Why.ON_ERROR_RAISED,
        Why.BUDGET,
        Why.DEADLINE,
        Why.FINAL_EVENT,
        Why.NO_EVENT_IDS,
        Why.STREAM_ATTEMPTS,
    }
)


@dataclass(frozen=True, slots=True)
class Decision:
    """The policy's answer for one failed attempt.

    ``action`` is ``"retry"`` or ``"fail"``; ``delay`` the wait in seconds before the next
    attempt (0 when failing); ``why`` the :class:`Why` (for control flow); ``reason`` says why
    in words fit for a log line (never read by surefoot's control flow); ``hook_error`` is the
    exception an ``on_error`` hook raised, when it raised one (the decision is then a failure).
    """

    action: Action
    delay: float
    why: Why
    reason: str = ""
    hook_error: BaseException | None = None

    def __post_init__(self) -> None:
        if not self.reason:
            object.__setattr__(self, "reason", self.why.value)

    @property
    def retry(self) -> bool:
        return self.action == "retry"

    @classmethod
    def fail(cls, why: Why, reason: str = "", hook_error: BaseException | None = None) -> Decision:
        return cls("fail", 0.0, why, reason, hook_error)


# -- the breaker's vocabulary ------------------------------------------------------------------

#: ``admit`` result for a rejected call.
REJECTED = -1
#: Outcomes a breaker records: a success, a counted failure, or neither (which releases a
#: half-open probe's reservation).
SUCCESS, FAILURE, NEUTRAL = 0, 1, 2


class BreakerState(enum.StrEnum):
    """A circuit breaker's state."""

    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


#: ``(old, new)`` when an operation changed the state.
Transition: TypeAlias = tuple[BreakerState, BreakerState]


@dataclass(frozen=True, slots=True)
class BreakerConfig:
    """The settings the state machine needs (validated by :class:`surefoot.CircuitBreaker`)."""

    failure_threshold: int = 10
    recovery_timeout: float = 30.0
    probe_timeout: float = 30.0
    mode: Literal["consecutive", "ratio"] = "consecutive"
    failure_ratio: float = 0.5
    window: float = 60.0
    minimum_throughput: int = 10


@dataclass(frozen=True, slots=True)
class BreakerSnapshot:
    """A consistent view of one breaker: ``retry_after`` is the seconds until a probe can be
    admitted (0 when closed or when the next caller would be the probe)."""

    state: BreakerState
    epoch: int
    failures: int
    calls: int
    retry_after: float
