"""The whole mid-stream rule in one function: :func:`stream_decision`.

When is a failure of a streamed request retried, resumed or final? In order:

1. **Before the first delta** (the caller has seen nothing) it is an ordinary failure of the
   request, decided by the same policy as a plain call (``retries=``, the error's own attempt
   limit, hints, growing backoff), except that a 5xx during a stream is retryable even when its
   problem details say ``retryable: false``.
2. **After the first delta** the failure is *final*, and raised, when:

   a. it is not retryable in a stream (``FINAL_EVENT``): a content filter, an invalid request,
      a context-length error event, a refusal. A cut, a reset, a truncation, an overload or any
      other 5xx-class error event is retryable;
   b. the events carry no ids (``NO_EVENT_IDS``): there is nothing to resume from, and a
      reconnect would replay what the caller has already seen. With ``restart`` (the LLM
      client's ``stream_rescue="restart"``, its default) the answer starts over instead, and
      the caller's stream is told so: the failure is then decided as before the first delta
      (``retries=``), and one that gives up on this model moves to the next;
   c. the stream's attempt budget is spent (``STREAM_ATTEMPTS``): every connection of one
      streamed request, the first and every retry and resume, counts against
      ``stream_attempts`` (5, receiving events does not reset it);
   d. the resume policy says so: the ``on_error`` hook, a server hint over ``max_hint`` or past
      the deadline, a wait past the deadline.

   Otherwise it reconnects with ``Last-Event-ID`` after the policy's wait (the server hint
   exactly, else the growing backoff). The driver then pays the retry budget and asks the
   breaker, exactly as for any retry.
"""

from __future__ import annotations

from surefoot.policy._classifier import default_retryable
from surefoot.policy._retry import RetryPolicy
from surefoot.policy._types import Decision, Why

__all__ = ["stream_decision"]


def stream_decision(
    error: BaseException,
    *,
    emitted: bool,
    has_ids: bool,
    attempt: int,
    connection: int,
    now: float,
    deadline: float | None,
    policy: RetryPolicy,
    resume: RetryPolicy,
    streak: int | None = None,
    restart: bool = False,
) -> Decision:
    """The decision for a failed connection of a streamed request (see the module docstring).

    ``emitted``: the caller has seen at least one delta; ``has_ids``: the events carried ids;
    ``attempt``: the zero-based attempt of this model (for ``retries=``); ``connection``: the
    zero-based number of the failed connection among all of this request's connections;
    ``policy`` the plain-call policy, ``resume`` the policy whose ``retries`` is
    ``stream_attempts - 1`` and which ignores the error's own attempt limit.
    """
    if not emitted:
        return policy.decide(error, attempt, now, deadline, streak=streak, in_stream=True)
    if not default_retryable(error, in_stream=True):
        return Decision.fail(Why.FINAL_EVENT)
    if not has_ids:
        if restart:  # the answer starts over (the caller is told): a plain call's rules
            return policy.decide(error, attempt, now, deadline, streak=streak, in_stream=True)
        return Decision.fail(Why.NO_EVENT_IDS)
    decision = resume.decide(error, connection, now, deadline, streak=streak, in_stream=True)
    if decision.why is Why.EXHAUSTED:
        return Decision.fail(
            Why.STREAM_ATTEMPTS, f"stream attempts exhausted ({resume.retries + 1})"
        )
    return decision
