"""The whole mid-stream rule as one table: :func:`surefoot.policy.stream_decision`.

One row per situation: before or after the first delta, events with or without ids, the kind
of failure, how many attempts and connections were spent, a server hint, the deadline, and the
``on_error`` hook; the expected answer is the :class:`Why` (and the wait when it retries).
The budget and the breaker come after this decision, in the engine's loop (their own tests).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

import surefoot
from surefoot.policy import RetryPolicy, Tier, Why, stream_decision


def cut() -> surefoot.SurefootError:
    """A stream cut by a reset (retryable, its own limit is 3 retries, no delay of its own)."""
    err = surefoot.ConnectionFailedError("the stream closed before its final event")
    err.context.metadata["in_stream"] = True
    return err


def overload() -> surefoot.SurefootError:
    return surefoot.LLMError("overloaded", error_type=surefoot.LLMErrorType.MODEL_OVERLOADED)


def server_5xx_not_retryable() -> surefoot.SurefootError:
    """A 502 whose problem details say retryable: false (a stream retries it anyway, on the
    plain backoff: a failure the server calls final suggests no delay of its own)."""
    problem = surefoot.ProblemDetails.parse({"status": 502, "retryable": False})
    return surefoot.LLMError(
        "bad gateway",
        error_type=surefoot.LLMErrorType.SERVER_ERROR,
        problem_details=problem,
        context=surefoot.ErrorContext(http_status=502),
    )


def content_filter() -> surefoot.SurefootError:
    return surefoot.LLMError("filtered", error_type=surefoot.LLMErrorType.CONTENT_FILTERED)


def invalid_request() -> surefoot.SurefootError:
    return surefoot.LLMError("bad", error_type=surefoot.LLMErrorType.INVALID_REQUEST)


def rate_limit(hint: float) -> surefoot.SurefootError:
    return surefoot.RateLimitError("slow down", retry_after=hint)


@dataclass(frozen=True)
class Row:
    name: str
    error: Any
    emitted: bool
    has_ids: bool = True
    attempt: int = 0
    connection: int = 0
    now: float = 0.0
    deadline: float | None = None
    retries: int = 2
    stream_attempts: int = 5
    on_error: Any = None
    why: Why = Why.BACKOFF
    delay: float | None = field(default=None)


ROWS = [
    # -- before the first delta: the plain call's rules, in a stream -------------------------
    Row("before: a cut is retried like run()", cut, emitted=False, why=Why.BACKOFF),
    Row("before: retries= bounds it", cut, emitted=False, attempt=2, why=Why.EXHAUSTED),
    Row(
        "before: retries=0 means no retry",
        cut,
        emitted=False,
        retries=0,
        why=Why.EXHAUSTED,
    ),
    Row(
        "before: the error's own limit caps retries",
        cut,
        emitted=False,
        attempt=3,
        retries=10,
        why=Why.ERROR_ATTEMPTS,
    ),
    Row(
        "before: stream_attempts does not bound it",
        cut,
        emitted=False,
        attempt=1,
        connection=9,
        stream_attempts=2,
        why=Why.BACKOFF,
    ),
    Row(
        "before: a 5xx is retried whatever its problem says",
        server_5xx_not_retryable,
        emitted=False,
        why=Why.BACKOFF,
    ),
    Row("before: a content filter is not retried", content_filter, False, why=Why.NOT_RETRYABLE),
    Row(
        "before: a hint is honoured exactly",
        lambda: rate_limit(3.0),
        emitted=False,
        why=Why.HINT,
        delay=3.0,
    ),
    Row(
        "before: a hint past the deadline fails at once",
        lambda: rate_limit(3.0),
        emitted=False,
        now=10.0,
        deadline=12.0,
        why=Why.HINT_PAST_DEADLINE,
    ),
    Row(
        "before: on_error FAIL wins",
        cut,
        emitted=False,
        on_error=lambda info: Tier.FAIL,
        why=Why.ON_ERROR_FAIL,
    ),
    # -- after the first delta: resume with Last-Event-ID, or final ---------------------------
    Row("after: a cut resumes", cut, emitted=True, connection=1, why=Why.BACKOFF),
    Row("after: an overload resumes", overload, emitted=True, connection=1, why=Why.SUGGESTED),
    Row(
        "after: a 5xx resumes whatever its problem says",
        server_5xx_not_retryable,
        emitted=True,
        why=Why.BACKOFF,
    ),
    Row("after: a content filter is final", content_filter, emitted=True, why=Why.FINAL_EVENT),
    Row("after: an invalid request is final", invalid_request, True, why=Why.FINAL_EVENT),
    Row(
        "after: without ids nothing resumes", cut, emitted=True, has_ids=False, why=Why.NO_EVENT_IDS
    ),
    Row(
        "after: the stream budget counts every connection",
        cut,
        emitted=True,
        attempt=0,
        connection=4,
        why=Why.STREAM_ATTEMPTS,
    ),
    Row(
        "after: the error's own limit does not cap resumes",
        cut,
        emitted=True,
        attempt=3,
        connection=3,
        why=Why.BACKOFF,
    ),
    Row(
        "after: retries= does not bound resumes",
        cut,
        emitted=True,
        attempt=2,
        connection=2,
        retries=0,
        why=Why.BACKOFF,
    ),
    Row(
        "after: a hint is honoured exactly",
        lambda: rate_limit(2.5),
        emitted=True,
        why=Why.HINT,
        delay=2.5,
    ),
    Row(
        "after: a hint over max_hint is final",
        lambda: rate_limit(500.0),
        emitted=True,
        why=Why.HINT_TOO_LONG,
    ),
    Row(
        "after: a wait past the deadline fails",
        overload,
        emitted=True,
        now=0.0,
        deadline=1.0,
        why=Why.WAIT_PAST_DEADLINE,
    ),
    Row(
        "after: on_error FAIL wins over a resume",
        cut,
        emitted=True,
        on_error=lambda info: Tier.FAIL,
        why=Why.ON_ERROR_FAIL,
    ),
    Row(
        "after: on_error RETRY cannot resume a final event",
        content_filter,
        emitted=True,
        on_error=lambda info: Tier.RETRY,
        why=Why.FINAL_EVENT,
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_stream_decision_table(row: Row) -> None:
    common: dict[str, Any] = {"retry_base": 0.5, "max_delay": 8.0, "on_error": row.on_error}
    policy = RetryPolicy(retries=row.retries, random=lambda: 0.0, **common)
    resume = RetryPolicy(
        retries=row.stream_attempts - 1,
        respect_error_attempts=False,
        random=lambda: 0.0,
        **common,
    )
    d = stream_decision(
        row.error(),
        emitted=row.emitted,
        has_ids=row.has_ids,
        attempt=row.attempt,
        connection=row.connection,
        now=row.now,
        deadline=row.deadline,
        policy=policy,
        resume=resume,
    )
    assert d.why is row.why, d
    assert d.retry is row.why.retry
    if row.delay is not None:
        assert d.delay == row.delay
    if not d.retry:
        assert d.delay == 0.0
    if d.why is Why.STREAM_ATTEMPTS:
        assert "5" in d.reason  # the budget it spent, for the log


def test_every_final_reason_after_the_first_delta_is_final_for_a_chain() -> None:
    """After the first delta the call never moves to another model: the reasons the rule
    gives there either retry or are final (the client raises, never falls back)."""
    for why in (Why.FINAL_EVENT, Why.NO_EVENT_IDS, Why.STREAM_ATTEMPTS):
        assert why.final and not why.retry
