"""The public surface is a contract: these names, no more, no fewer."""

from __future__ import annotations

import surefoot

EXPECTED = {
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
}


def test_exported_names_are_exactly_the_intended_ones() -> None:
    assert set(surefoot.__all__) == EXPECTED
    assert list(surefoot.__all__) == sorted(surefoot.__all__)


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
