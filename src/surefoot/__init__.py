"""surefoot: typed errors, classification and resilience for LLM and agent calls.

The public surface is exactly ``__all__``; everything in a ``_module`` is private. The LLM
client's names are loaded on first use, so that ``import surefoot`` stays cheap for code that
only needs the errors, the classifier or the engine.
"""

from typing import TYPE_CHECKING, Any

from surefoot import catalog
from surefoot._version import __version__
from surefoot.classify import (
    Kind,
    RateLimitInfo,
    classify,
    classify_event,
    classify_exception,
    inspect_response,
    kind_of,
    parse_ratelimit_headers,
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
from surefoot.guard import AttemptRecord, Guard, GuardHooks, RunRecord, resilient
from surefoot.policy import (
    BreakerState,
    CircuitBreaker,
    Decision,
    ErrorInfo,
    OnError,
    RetryBudget,
    RetryPolicy,
    Tier,
    current_deadline,
    deadline,
    time_left,
)
from surefoot.problem import ProblemDetails, ProblemDetailsError, ProblemItem

if TYPE_CHECKING:
    from surefoot.agent import Agent, action, fallback
    from surefoot.llm import (
        AsyncLLMClient,
        LLMClient,
        Message,
        ModelAttempt,
        ModelSpec,
        Pending,
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

_LAZY_AGENT = {"Agent", "action", "fallback"}
_LAZY = {
    "AsyncLLMClient",
    "LLMClient",
    "Message",
    "ModelAttempt",
    "ModelSpec",
    "Pending",
    "ResultEvent",
    "RunResult",
    "Suspend",
    "TextDelta",
    "ToolCallDelta",
    "ToolResultEvent",
    "ToolSpec",
    "Usage",
    "WaitFor",
    "tool_from_function",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY_AGENT:
        from surefoot import agent

        value = getattr(agent, name)
        globals()[name] = value
        return value
    if name in _LAZY:
        from surefoot import llm

        value = getattr(llm, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'surefoot' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _LAZY | _LAZY_AGENT)


__all__ = [
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
    "time_left",
    "tool_from_function",
]
