"""The pure resilience core: every rule of the engine as a function of its inputs and ``now``.

Retry decisions and their reasons (:class:`RetryPolicy`, :class:`Decision`, :class:`Why`), the
growing backoff, server hints, the default classifier, the breaker's state machine, budget and
rate-limit arithmetic, and the whole mid-stream rule (:func:`stream_decision`); the engine's one
attempt loop is :mod:`surefoot.policy._attempts`.

Nothing here reads a clock, sleeps, logs, starts a thread, touches asyncio or calls a store: CI
enforces it (``lint-imports``, the ``policy-is-pure`` contract in ``pyproject.toml``, and ruff's
banned-API list for this package). The drivers that carry the decisions out live in
:mod:`surefoot.guard`; the deadline scope in :func:`surefoot.deadline`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from surefoot.policy._backoff import backoff_ceiling, backoff_delay
    from surefoot.policy._classifier import (
        RETRYABLE_STATUSES,
        breaker_counts,
        default_retryable,
        is_cancellation,
    )
    from surefoot.policy._hints import (
        hint_from_text,
        parse_duration,
        parse_google_retry_info,
        parse_retry_after,
        parse_retry_after_ms,
        server_hint,
    )
    from surefoot.policy._retry import MAX_RETRIES, RetryPolicy, error_info
    from surefoot.policy._stream import stream_decision
    from surefoot.policy._types import (
        BreakerConfig,
        BreakerSnapshot,
        BreakerState,
        Decision,
        ErrorInfo,
        OnError,
        Tier,
        Why,
    )

#: Where each name lives: loaded on first use, so that a program pays only for the rules it uses.
_WHERE = {
    "BreakerConfig": "surefoot.policy._types",
    "BreakerSnapshot": "surefoot.policy._types",
    "BreakerState": "surefoot.policy._types",
    "Decision": "surefoot.policy._types",
    "ErrorInfo": "surefoot.policy._types",
    "MAX_RETRIES": "surefoot.policy._retry",
    "OnError": "surefoot.policy._types",
    "RETRYABLE_STATUSES": "surefoot.policy._classifier",
    "RetryPolicy": "surefoot.policy._retry",
    "Tier": "surefoot.policy._types",
    "Why": "surefoot.policy._types",
    "backoff_ceiling": "surefoot.policy._backoff",
    "backoff_delay": "surefoot.policy._backoff",
    "breaker_counts": "surefoot.policy._classifier",
    "default_retryable": "surefoot.policy._classifier",
    "error_info": "surefoot.policy._retry",
    "hint_from_text": "surefoot.policy._hints",
    "is_cancellation": "surefoot.policy._classifier",
    "parse_duration": "surefoot.policy._hints",
    "parse_google_retry_info": "surefoot.policy._hints",
    "parse_retry_after": "surefoot.policy._hints",
    "parse_retry_after_ms": "surefoot.policy._hints",
    "server_hint": "surefoot.policy._hints",
    "stream_decision": "surefoot.policy._stream",
}


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(where), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "MAX_RETRIES",
    "RETRYABLE_STATUSES",
    "BreakerConfig",
    "BreakerSnapshot",
    "BreakerState",
    "Decision",
    "ErrorInfo",
    "OnError",
    "RetryPolicy",
    "Tier",
    "Why",
    "backoff_ceiling",
    "backoff_delay",
    "breaker_counts",
    "default_retryable",
    "error_info",
    "hint_from_text",
    "is_cancellation",
    "parse_duration",
    "parse_google_retry_info",
    "parse_retry_after",
    "parse_retry_after_ms",
    "server_hint",
    "stream_decision",
]
