"""surefoot: typed errors, classification and resilience for LLM and agent calls.

The public surface is exactly ``__all__``; everything in a ``_module`` is private.
"""

from surefoot import catalog
from surefoot._version import __version__
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
    SurefootError,
    TaskCompleteError,
    TaskStoppedError,
    TimeoutError,  # noqa: A004
    ToolCallNotSupportedError,
    UploadError,
    ValidationError,
)
from surefoot.problem import ProblemDetails, ProblemDetailsError, ProblemItem

__all__ = [
    "ActionCategory",
    "ActionExecutionError",
    "ApprovalRequiredError",
    "AuthError",
    "BusinessError",
    "CircuitOpenError",
    "ConfigurationError",
    "ConnectionFailedError",
    "ContractViolationError",
    "ErrorContext",
    "KnowledgeNotReadyError",
    "KnowledgeProblem",
    "LLMCapabilityError",
    "LLMError",
    "LLMErrorType",
    "MessagingError",
    "NetworkError",
    "PermissionDeniedError",
    "ProblemDetails",
    "ProblemDetailsError",
    "ProblemItem",
    "RateLimitError",
    "RunTimeoutError",
    "SurefootError",
    "TaskCompleteError",
    "TaskStoppedError",
    "TimeoutError",
    "ToolCallNotSupportedError",
    "UploadError",
    "ValidationError",
    "__version__",
    "catalog",
]
