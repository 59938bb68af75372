"""The public surface is a contract: these names, no more, no fewer."""

from __future__ import annotations

import surefoot

EXPECTED = {
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
    "SurefootError",
    "Suspend",
    "SystemClock",
    "TaskCompleteError",
    "TaskStoppedError",
    "TextDelta",
    "SharedRateLimiter",
    "Tier",
    "Why",
    "KINDS",
    "ratelimit_of",
    "TimeoutError",
    "ToolCallDelta",
    "ToolCallNotSupportedError",
    "ToolResultEvent",
    "ToolSpec",
    "UploadError",
    "Usage",
    "ValidationError",
    "WaitFor",
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
    "resilient",
    "telemetry",
    "time_left",
    "tool_from_function",
    "wrap",
}


def isort_key(name: str) -> tuple[int, str]:
    """ruff's RUF022 order: CONSTANTS, then Classes, then everything else."""
    if name.isupper():
        return 0, name
    return (1 if name[:1].isupper() else 2), name


def test_exported_names_are_exactly_the_intended_ones() -> None:
    assert set(surefoot.__all__) == EXPECTED
    assert list(surefoot.__all__) == sorted(surefoot.__all__, key=isort_key)


def test_every_exported_name_resolves() -> None:
    for name in surefoot.__all__:
        assert getattr(surefoot, name) is not None, name


def test_every_exported_error_class_is_in_the_tree() -> None:
    from surefoot.errors import ERROR_CLASSES

    exported = {
        obj
        for name in surefoot.__all__
        if isinstance(obj := getattr(surefoot, name), type)
        and issubclass(obj, surefoot.SurefootError)
    }
    assert exported == set(ERROR_CLASSES)
