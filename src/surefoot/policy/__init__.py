"""The pure resilience core: retry decisions, backoff, server hints, deadlines, breaker, budget.

Nothing here sleeps or does I/O; time and randomness are passed in. The drivers that carry the
decisions out live in :mod:`surefoot.guard`.
"""

from surefoot.policy._backoff import backoff_ceiling, backoff_delay
from surefoot.policy._breaker import BreakerListener, CircuitBreaker, Permit
from surefoot.policy._budget import BoundBudget, RetryBudget
from surefoot.policy._classifier import (
    CANCELLATION,
    RETRYABLE_STATUSES,
    Translator,
    breaker_counts,
    default_retryable,
    register_translator,
    translate,
    unregister_translator,
)
from surefoot.policy._deadline import current_deadline, deadline, time_left
from surefoot.policy._hints import (
    hint_from_text,
    parse_duration,
    parse_google_retry_info,
    parse_retry_after,
    parse_retry_after_ms,
    server_hint,
)
from surefoot.policy._ratelimiter import MemoryRateStore, SharedRateLimiter
from surefoot.policy._retry import MAX_RETRIES, RetryPolicy, error_info
from surefoot.policy._types import Decision, ErrorInfo, OnError, Tier
from surefoot.stores._base import BreakerState

__all__ = [
    "CANCELLATION",
    "MAX_RETRIES",
    "RETRYABLE_STATUSES",
    "BoundBudget",
    "BreakerListener",
    "BreakerState",
    "CircuitBreaker",
    "Decision",
    "ErrorInfo",
    "OnError",
    "MemoryRateStore",
    "Permit",
    "RetryBudget",
    "RetryPolicy",
    "SharedRateLimiter",
    "Tier",
    "Translator",
    "backoff_ceiling",
    "backoff_delay",
    "breaker_counts",
    "current_deadline",
    "deadline",
    "default_retryable",
    "error_info",
    "hint_from_text",
    "parse_duration",
    "parse_google_retry_info",
    "parse_retry_after",
    "parse_retry_after_ms",
    "register_translator",
    "server_hint",
    "time_left",
    "translate",
    "unregister_translator",
]
