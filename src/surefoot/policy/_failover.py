"""The fallback chain's rule, in one function: :func:`failover_decision`.

A model of a chain that has another model after it does not spend the whole run on one
outage. Given the retry policy's own decision for a failure, in order:

==========================================  ====================================  ==========
failure (kind)                              another model follows                 last model
==========================================  ====================================  ==========
``auth_failed``, ``invalid_request``,       stop: the same key and request fail   stop
``unknown``                                 on every model
``timeout`` (silent: no answer, no first    next model at once                    retry
token, an idle stream)
``rate_limit``, ``model_overloaded``,       same model within ``failover_attempts`` retry
``server_error``, ``network``               (2) attempts and while the wait is at
                                            most ``failover_wait`` (2 s) and half
                                            the time left; then the next model
``quota_exhausted``, ``model_not_found``,   next model                            stop
``permission_denied``,
``capability_mismatch``
``context_too_long``                        the next model with a larger window   stop
``content_filtered``                        the next model                        stop
an open circuit                             the next model                        stop
==========================================  ====================================  ==========

"stop" is the policy's own final decision (the error is raised); "next model" is a decision
that is not final (:attr:`Why.FAILOVER`), so the chain moves on. Everything the policy itself
decides (``on_error``, hints over ``max_hint``, the deadline, the retry budget) is kept.
"""

from __future__ import annotations

from surefoot.policy._types import Decision, Why

__all__ = ["NEXT_KINDS", "SILENT_KINDS", "STOP_KINDS", "failover_decision"]

#: Failures no other model of the chain can serve.
STOP_KINDS = frozenset({"auth_failed", "invalid_request", "unknown"})
#: Failures that are final on this model but that another model may well serve.
NEXT_KINDS = frozenset(
    {"quota_exhausted", "model_not_found", "permission_denied", "capability_mismatch"}
)
#: A model that said nothing in time: the next model is tried at once.
SILENT_KINDS = frozenset({"timeout"})


def failover_decision(
    decision: Decision,
    kind: str | None,
    attempt: int,
    now: float,
    deadline: float | None,
    *,
    attempts: int,
    max_wait: float,
) -> Decision:
    """The decision for a failure of a model that another model follows (see the module
    docstring). ``decision`` is the retry policy's; ``attempt`` is zero-based."""
    if decision.why.final and decision.why is not Why.NOT_RETRYABLE:
        return decision  # on_error, the budget, the deadline, a final stream event: as is
    if kind in STOP_KINDS:
        return decision
    if not decision.retry:
        if kind in NEXT_KINDS or not decision.why.final:
            return _next(decision, f"{kind}: {decision.reason}")
        return decision
    if kind in SILENT_KINDS:
        return _next(decision, "silent (timed out): the next model at once")
    if attempt + 1 >= attempts:
        return _next(decision, f"{kind} after {attempt + 1} attempt(s) (failover_attempts)")
    if decision.delay > max_wait:
        return _next(decision, f"a {decision.delay:g} s wait is over failover_wait {max_wait:g} s")
    if deadline is not None and decision.delay > (deadline - now) / 2:
        return _next(decision, "the wait would take more than half the time left")
    return decision


def _next(decision: Decision, reason: str) -> Decision:
    if not decision.retry and not decision.why.final:
        return decision  # already a move to the next model (retries exhausted, a long hint...)
    return Decision.fail(Why.FAILOVER, reason)
