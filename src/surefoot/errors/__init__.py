"""surefoot's error tree: one root, one family per module.

::

    Exception
     └── SurefootError                    retryable, error_code, code, kind, problem_details,
                                          context, retry_after
          ├── LLMError                    error_type: LLMErrorType, model, provider
          │    └── LLMCapabilityError     capability
          │         └── ToolCallNotSupportedError
          ├── RateLimitError              service, remaining_quota (retryable, 5 tries, 60 s)
          ├── MessagingError              transport failures                      (retryable)
          │    └── ConnectionFailedError  the outcome was not observed
          │         └── NetworkError      host, port
          ├── TimeoutError                timeout, operation; also builtins.TimeoutError
          │    └── RunTimeoutError        the whole-run deadline elapsed (not retryable)
          ├── ValidationError             errors
          │    ├── ContractViolationError contract_kind, violated_expression, bindings
          │    └── KnowledgeNotReadyError host, source, problem: KnowledgeProblem
          ├── ApprovalRequiredError       action, reason (never wrapped)
          ├── TaskCompleteError           result (ends a run loop cleanly)
          ├── ActionExecutionError        action_name, action_type, category: ActionCategory
          │    └── FallbackFailedError    original, fallback_error, fallback_name
          ├── SecurityError               action (a permission check refused; never wrapped)
          ├── AuthError                   401
          │    └── PermissionDeniedError  403
          ├── BusinessError               another 4xx: a business rule
          ├── UploadError                 attachment_key, part_number, completed_receipts
          ├── ConfigurationError          something is not configured
          ├── TaskStoppedError            reason, task_id
          └── CircuitOpenError            name, retry_after; also builtins.RuntimeError
"""

from surefoot.errors._agent import (
    ActionCategory,
    ActionExecutionError,
    ApprovalRequiredError,
    ContractViolationError,
    FallbackFailedError,
    KnowledgeNotReadyError,
    KnowledgeProblem,
    SecurityError,
    TaskCompleteError,
    ValidationError,
)
from surefoot.errors._base import ErrorContext, SurefootError, error_code_for
from surefoot.errors._llm import (
    LLMCapabilityError,
    LLMError,
    LLMErrorType,
    RateLimitError,
    ToolCallNotSupportedError,
)
from surefoot.errors._platform import (
    AuthError,
    BusinessError,
    CircuitOpenError,
    ConfigurationError,
    PermissionDeniedError,
    TaskStoppedError,
    UploadError,
)
from surefoot.errors._transport import (
    ConnectionFailedError,
    MessagingError,
    NetworkError,
    RunTimeoutError,
    TimeoutError,  # noqa: A004
)

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
    "FallbackFailedError",
    "KnowledgeNotReadyError",
    "KnowledgeProblem",
    "LLMCapabilityError",
    "LLMError",
    "LLMErrorType",
    "MessagingError",
    "NetworkError",
    "PermissionDeniedError",
    "RateLimitError",
    "RunTimeoutError",
    "SecurityError",
    "SurefootError",
    "TaskCompleteError",
    "TaskStoppedError",
    "TimeoutError",
    "ToolCallNotSupportedError",
    "UploadError",
    "ValidationError",
    "error_code_for",
]

#: Every error class, root first; the catalog and the tests walk it.
ERROR_CLASSES: tuple[type[SurefootError], ...] = (
    SurefootError,
    LLMError,
    LLMCapabilityError,
    ToolCallNotSupportedError,
    RateLimitError,
    MessagingError,
    ConnectionFailedError,
    NetworkError,
    TimeoutError,
    RunTimeoutError,
    ValidationError,
    ContractViolationError,
    KnowledgeNotReadyError,
    ApprovalRequiredError,
    TaskCompleteError,
    ActionExecutionError,
    FallbackFailedError,
    SecurityError,
    AuthError,
    PermissionDeniedError,
    BusinessError,
    UploadError,
    ConfigurationError,
    TaskStoppedError,
    CircuitOpenError,
)
