"""Every public module's surface is one contract: an exact, sorted ``__all__`` whose names all
resolve, and documented imports that work. A name added or dropped here is a decision, not an
accident (the top level is also pinned in ``test_public_api.py``)."""

from __future__ import annotations

import importlib

import pytest

#: The public modules and exactly the names each exports.
SURFACE: dict[str, set[str]] = {
    "surefoot": {
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
        "KINDS",
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
        "time_left",
        "tool_from_function",
        "wrap",
    },
    "surefoot.agent": {
        "ACTION_TYPES",
        "Action",
        "ActionType",
        "Agent",
        "Approver",
        "Fallback",
        "FallbackFailedError",
        "KnowledgeSource",
        "PermissionCheck",
        "SecurityError",
        "action",
        "fallback",
    },
    "surefoot.catalog": {
        "CatalogEntry",
        "FAMILY_ORDER",
        "UnknownCodeError",
        "best_entry",
        "default_status",
        "default_title",
        "entries",
        "find",
        "get",
        "suggest",
    },
    "surefoot.cli": {
        "main",
    },
    "surefoot.clock": {
        "Clock",
        "SYSTEM_CLOCK",
        "SystemClock",
    },
    "surefoot.demo": {
        "AttemptRow",
        "Check",
        "DemoOptions",
        "DemoResult",
        "Mark",
        "NullSink",
        "SKIPPED",
        "STEPS",
        "Sink",
        "Step",
        "StepEnv",
        "StepResult",
        "Summary",
        "Target",
        "Timeline",
        "make_console",
        "render_html",
        "run_demo",
        "to_json",
        "write_html",
    },
    "surefoot.errors": {
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
    },
    "surefoot.guard": {
        "AsyncAttempts",
        "Attempt",
        "AttemptRecord",
        "BoundBudget",
        "BreakerListener",
        "CircuitBreaker",
        "Guard",
        "GuardHooks",
        "Permit",
        "RetryBudget",
        "RunRecord",
        "SharedRateLimiter",
        "SyncAttempts",
        "resilient",
    },
    "surefoot.http": {
        "AiohttpTransport",
        "AsyncStream",
        "AsyncTransport",
        "BodyTooLargeError",
        "DEFAULT_MAX_BODY",
        "Response",
        "SyncStream",
        "SyncTransport",
        "Urllib3Transport",
    },
    "surefoot.llm": {
        "AsyncLLMClient",
        "Completion",
        "LLMClient",
        "Message",
        "ModelAttempt",
        "ModelSpec",
        "Pending",
        "ResultEvent",
        "RunResult",
        "Suspend",
        "TextDelta",
        "ToolCall",
        "ToolCallDelta",
        "ToolResultEvent",
        "ToolSpec",
        "Usage",
        "WaitFor",
        "tool_from_function",
    },
    "surefoot.sdk": {"async_transport", "transport", "wrap"},
    "surefoot.policy": {
        "BreakerConfig",
        "BreakerSnapshot",
        "BreakerState",
        "Decision",
        "ErrorInfo",
        "MAX_RETRIES",
        "OnError",
        "RETRYABLE_STATUSES",
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
    },
    "surefoot.problem": {
        "MAX_PROBLEM_BYTES",
        "ProblemDetails",
        "ProblemDetailsError",
        "ProblemItem",
    },
    "surefoot.sse": {
        "DEFAULT_MAX_EVENT_BYTES",
        "SSEDecoder",
        "SSEProtocolError",
        "ServerSentEvent",
        "aiter_events",
        "iter_events",
    },
    "surefoot.stores": {
        "BreakerConfig",
        "BreakerSnapshot",
        "BreakerState",
        "BreakerStore",
        "BudgetStore",
        "MemoryRateStore",
        "MemoryStore",
        "RedisStore",
        "StoreEvent",
        "Transition",
        "WhenDown",
        "resolve_store",
    },
    "surefoot.testing": {
        "ChaosProxy",
        "ContentFilter",
        "Drip",
        "ERROR_KINDS",
        "ErrorIn200",
        "FAULT_TYPES",
        "FakeClock",
        "FakeTimer",
        "Fault",
        "FaultServer",
        "Hang",
        "HugeBody",
        "Latency",
        "MalformedToolCall",
        "Match",
        "Model",
        "Ok",
        "PortInUseError",
        "RecordedRequest",
        "Reset",
        "Rule",
        "Scenario",
        "ScenarioError",
        "ScriptedToolCall",
        "Status",
        "StreamError",
        "Truncate",
        "Turn",
        "load_scenario",
        "parse_scenario",
    },
    "surefoot.testing.clock": {
        "FakeClock",
        "FakeTimer",
    },
    "surefoot.testing.faults": {
        "ChaosProxy",
        "ContentFilter",
        "Drip",
        "ERROR_KINDS",
        "ErrorIn200",
        "FAULT_TYPES",
        "Fault",
        "FaultServer",
        "Hang",
        "HugeBody",
        "Latency",
        "MalformedToolCall",
        "Match",
        "Model",
        "Ok",
        "PortInUseError",
        "RecordedRequest",
        "Reset",
        "Rule",
        "Scenario",
        "ScenarioError",
        "ScriptedToolCall",
        "Status",
        "StreamError",
        "ToolCall",
        "Truncate",
        "Turn",
        "load_scenario",
        "parse_scenario",
    },
    "surefoot.testing.pytest_plugin": {
        "fake_clock",
        "fault_server",
    },
}


def isort_key(name: str) -> tuple[int, str]:
    """ruff's RUF022 order: CONSTANTS, then Classes, then everything else."""
    if name.isupper():
        return 0, name
    return (1 if name[:1].isupper() else 2), name


@pytest.mark.parametrize("name", sorted(SURFACE))
def test_the_module_exports_exactly_its_names_sorted(name: str) -> None:
    module = importlib.import_module(name)
    exported = list(module.__all__)
    assert set(exported) == SURFACE[name]
    assert exported == sorted(exported, key=isort_key)
    assert len(exported) == len(set(exported))


@pytest.mark.parametrize("name", sorted(SURFACE))
def test_every_exported_name_resolves_and_is_listed_by_dir(name: str) -> None:
    module = importlib.import_module(name)
    for attr in module.__all__:
        assert getattr(module, attr) is not None, f"{name}.{attr}"
    assert set(module.__all__) <= set(dir(module))


def test_unknown_names_raise_attribute_error() -> None:
    for name in (
        "surefoot",
        "surefoot.guard",
        "surefoot.policy",
        "surefoot.sdk",
        "surefoot.testing",
    ):
        module = importlib.import_module(name)
        with pytest.raises(AttributeError, match="no attribute 'nope'"):
            module.nope  # noqa: B018


def test_the_documented_imports_work() -> None:
    """Imports the README, the CHANGELOG and the docstrings spell out."""
    from surefoot import CircuitBreaker, Guard, RetryBudget, SharedRateLimiter, deadline, resilient
    from surefoot.stores import MemoryStore, RedisStore
    from surefoot.testing import FakeClock, FaultServer, Model, Status
    from surefoot.testing.faults import FaultServer as FaultServer2

    assert FaultServer is FaultServer2
    assert all((CircuitBreaker, Guard, RetryBudget, SharedRateLimiter, deadline, resilient))
    assert all((MemoryStore, RedisStore, FakeClock, Model, Status))


def test_surefoot_classify_is_the_function() -> None:
    """``surefoot.classify`` is the classifier function, whatever else was imported first (the
    subpackage that implements it is private)."""
    import surefoot

    importlib.import_module("surefoot._classify._exceptions")
    assert callable(surefoot.classify)
    err = surefoot.classify(429, {}, "")
    assert err.kind == "rate_limit"
