"""surefoot: typed errors, classification and resilience for LLM and agent calls.

The public surface is exactly ``__all__``; everything in a ``_module`` is private. Every name
is loaded on first use: ``import surefoot`` imports nothing else, and a program that only
uses ``@resilient`` never loads the classifier's dialects, the LLM client, pydantic or asyncio
(``bench/bench_import.py`` measures it against tenacity, stamina and pybreaker).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from surefoot._version import __version__

if TYPE_CHECKING:
    from surefoot import catalog, telemetry
    from surefoot._classify import (
        KINDS,
        Kind,
        RateLimitInfo,
        classify,
        classify_event,
        classify_exception,
        inspect_response,
        kind_of,
        parse_ratelimit_headers,
        ratelimit_of,
    )
    from surefoot._scope import (
        current_deadline,
        deadline,
        time_left,
    )
    from surefoot.agent import (
        Agent,
        action,
        fallback,
    )
    from surefoot.clock import Clock, SystemClock
    from surefoot.errors import (
        ActionCategory,
        ActionExecutionError,
        ApprovalRequiredError,
        AuthError,
        BusinessError,
        CircuitOpenError,
        ConfigurationError,
        ConnectionFailedError,
        ContractViolationError,
        ErrorContext,
        FallbackFailedError,
        KnowledgeNotReadyError,
        KnowledgeProblem,
        LLMCapabilityError,
        LLMError,
        LLMErrorType,
        MessagingError,
        NetworkError,
        PermissionDeniedError,
        RateLimitError,
        RunTimeoutError,
        SecurityError,
        SurefootError,
        TaskCompleteError,
        TaskStoppedError,
        TimeoutError,  # noqa: A004
        ToolCallNotSupportedError,
        UploadError,
        ValidationError,
    )
    from surefoot.guard import (
        AttemptRecord,
        CircuitBreaker,
        Guard,
        GuardHooks,
        RetryBudget,
        RunRecord,
        SharedRateLimiter,
        resilient,
    )
    from surefoot.llm import (
        AsyncLLMClient,
        LLMClient,
        Message,
        ModelAttempt,
        ModelSpec,
        Pending,
        RestartEvent,
        ResultEvent,
        RunResult,
        Suspend,
        TextDelta,
        ToolCallDelta,
        ToolResultEvent,
        ToolSpec,
        Usage,
        WaitFor,
        tool_from_function,
    )
    from surefoot.policy import (
        BreakerState,
        Decision,
        ErrorInfo,
        OnError,
        RetryPolicy,
        Tier,
        Why,
    )
    from surefoot.problem import (
        ProblemDetails,
        ProblemDetailsError,
        ProblemItem,
    )
    from surefoot.sdk import wrap

#: Where each public name lives; loaded by :func:`__getattr__` on first use.
_WHERE: dict[str, str] = {
    "ActionCategory": "surefoot.errors",
    "ActionExecutionError": "surefoot.errors",
    "ApprovalRequiredError": "surefoot.errors",
    "AuthError": "surefoot.errors",
    "BusinessError": "surefoot.errors",
    "CircuitOpenError": "surefoot.errors",
    "ConfigurationError": "surefoot.errors",
    "ConnectionFailedError": "surefoot.errors",
    "ContractViolationError": "surefoot.errors",
    "ErrorContext": "surefoot.errors",
    "FallbackFailedError": "surefoot.errors",
    "KnowledgeNotReadyError": "surefoot.errors",
    "KnowledgeProblem": "surefoot.errors",
    "LLMCapabilityError": "surefoot.errors",
    "LLMError": "surefoot.errors",
    "LLMErrorType": "surefoot.errors",
    "MessagingError": "surefoot.errors",
    "NetworkError": "surefoot.errors",
    "PermissionDeniedError": "surefoot.errors",
    "RateLimitError": "surefoot.errors",
    "RunTimeoutError": "surefoot.errors",
    "SecurityError": "surefoot.errors",
    "SurefootError": "surefoot.errors",
    "TaskCompleteError": "surefoot.errors",
    "TaskStoppedError": "surefoot.errors",
    "TimeoutError": "surefoot.errors",
    "ToolCallNotSupportedError": "surefoot.errors",
    "UploadError": "surefoot.errors",
    "ValidationError": "surefoot.errors",
    "ProblemDetails": "surefoot.problem",
    "ProblemDetailsError": "surefoot.problem",
    "ProblemItem": "surefoot.problem",
    "Clock": "surefoot.clock",
    "SystemClock": "surefoot.clock",
    "current_deadline": "surefoot._scope",
    "deadline": "surefoot._scope",
    "time_left": "surefoot._scope",
    "BreakerState": "surefoot.policy",
    "Decision": "surefoot.policy",
    "ErrorInfo": "surefoot.policy",
    "OnError": "surefoot.policy",
    "RetryPolicy": "surefoot.policy",
    "Tier": "surefoot.policy",
    "Why": "surefoot.policy",
    "AttemptRecord": "surefoot.guard",
    "CircuitBreaker": "surefoot.guard",
    "Guard": "surefoot.guard",
    "GuardHooks": "surefoot.guard",
    "RetryBudget": "surefoot.guard",
    "RunRecord": "surefoot.guard",
    "SharedRateLimiter": "surefoot.guard",
    "resilient": "surefoot.guard",
    "KINDS": "surefoot._classify",
    "Kind": "surefoot._classify",
    "RateLimitInfo": "surefoot._classify",
    "classify": "surefoot._classify",
    "classify_event": "surefoot._classify",
    "classify_exception": "surefoot._classify",
    "inspect_response": "surefoot._classify",
    "kind_of": "surefoot._classify",
    "parse_ratelimit_headers": "surefoot._classify",
    "ratelimit_of": "surefoot._classify",
    "Agent": "surefoot.agent",
    "action": "surefoot.agent",
    "fallback": "surefoot.agent",
    "AsyncLLMClient": "surefoot.llm",
    "LLMClient": "surefoot.llm",
    "Message": "surefoot.llm",
    "ModelAttempt": "surefoot.llm",
    "ModelSpec": "surefoot.llm",
    "Pending": "surefoot.llm",
    "RestartEvent": "surefoot.llm",
    "ResultEvent": "surefoot.llm",
    "RunResult": "surefoot.llm",
    "Suspend": "surefoot.llm",
    "TextDelta": "surefoot.llm",
    "ToolCallDelta": "surefoot.llm",
    "ToolResultEvent": "surefoot.llm",
    "ToolSpec": "surefoot.llm",
    "Usage": "surefoot.llm",
    "WaitFor": "surefoot.llm",
    "tool_from_function": "surefoot.llm",
    "wrap": "surefoot.sdk",
}


def __getattr__(name: str) -> Any:
    if name == "catalog" or name == "telemetry":
        return importlib.import_module(f"surefoot.{name}")
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'surefoot' has no attribute {name!r}")
    value = getattr(importlib.import_module(where), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "KINDS",
    "ActionCategory",
    "ActionExecutionError",
    "Agent",
    "ApprovalRequiredError",
    "AsyncLLMClient",
    "AttemptRecord",
    "AuthError",
    "BreakerState",
    "BusinessError",
    "CircuitBreaker",
    "CircuitOpenError",
    "Clock",
    "ConfigurationError",
    "ConnectionFailedError",
    "ContractViolationError",
    "Decision",
    "ErrorContext",
    "ErrorInfo",
    "FallbackFailedError",
    "Guard",
    "GuardHooks",
    "Kind",
    "KnowledgeNotReadyError",
    "KnowledgeProblem",
    "LLMCapabilityError",
    "LLMClient",
    "LLMError",
    "LLMErrorType",
    "Message",
    "MessagingError",
    "ModelAttempt",
    "ModelSpec",
    "NetworkError",
    "OnError",
    "Pending",
    "PermissionDeniedError",
    "ProblemDetails",
    "ProblemDetailsError",
    "ProblemItem",
    "RateLimitError",
    "RateLimitInfo",
    "RestartEvent",
    "ResultEvent",
    "RetryBudget",
    "RetryPolicy",
    "RunRecord",
    "RunResult",
    "RunTimeoutError",
    "SecurityError",
    "SharedRateLimiter",
    "SurefootError",
    "Suspend",
    "SystemClock",
    "TaskCompleteError",
    "TaskStoppedError",
    "TextDelta",
    "Tier",
    "TimeoutError",
    "ToolCallDelta",
    "ToolCallNotSupportedError",
    "ToolResultEvent",
    "ToolSpec",
    "UploadError",
    "Usage",
    "ValidationError",
    "WaitFor",
    "Why",
    "__version__",
    "action",
    "catalog",
    "classify",
    "classify_event",
    "classify_exception",
    "current_deadline",
    "deadline",
    "fallback",
    "inspect_response",
    "kind_of",
    "parse_ratelimit_headers",
    "ratelimit_of",
    "resilient",
    "telemetry",
    "time_left",
    "tool_from_function",
    "wrap",
]


def _event_log_from_environment() -> None:
    """``SUREFOOT_EVENTS=path``: write the event log of this process's runs to ``path``."""
    import os

    path = os.environ.get("SUREFOOT_EVENTS")
    if not path:
        return
    from surefoot.telemetry import record_events

    try:
        record_events(path)
    except OSError as exc:
        import warnings

        warnings.warn(
            f"surefoot: SUREFOOT_EVENTS={path!r} cannot be opened for writing ({exc}); "
            "no event log is written",
            RuntimeWarning,
            stacklevel=2,
        )


_event_log_from_environment()
