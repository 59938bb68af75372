"""The error tree: attributes and defaults against the reference tables, str, pickling."""

from __future__ import annotations

import builtins
import pickle

import pytest

import surefoot
from surefoot import (
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
    ProblemDetails,
    RateLimitError,
    RunTimeoutError,
    SecurityError,
    SurefootError,
    TaskCompleteError,
    TaskStoppedError,
    ToolCallNotSupportedError,
    UploadError,
    ValidationError,
)
from surefoot.errors import ERROR_CLASSES

# -- the root ---------------------------------------------------------------------------------


def test_error_code_is_prefix_plus_class_name_without_error() -> None:
    assert RateLimitError().error_code == "SUREFOOT-RATELIMIT"
    assert NetworkError().error_code == "SUREFOOT-NETWORK"
    assert RunTimeoutError().error_code == "SUREFOOT-RUNTIMEOUT"
    assert SurefootError().error_code == "SUREFOOT-SUREFOOT"
    for cls in ERROR_CLASSES:
        expected = "SUREFOOT-" + cls.__name__.removesuffix("Error").upper()
        assert cls.__new__(cls).error_code == expected


def test_root_defaults_when_retryable_and_not() -> None:
    retry = SurefootError("x", retryable=True)
    assert (retry.suggested_retry_delay, retry.max_retry_attempts) == (1.0, 3)
    fail = SurefootError("x")
    assert fail.retryable is False
    assert (fail.suggested_retry_delay, fail.max_retry_attempts) == (0.0, 0)


def test_instance_overrides_delay_and_attempts() -> None:
    err = SurefootError("x", retryable=True, suggested_retry_delay=0.25, max_retry_attempts=7)
    assert (err.suggested_retry_delay, err.max_retry_attempts) == (0.25, 7)
    # A non-retryable error never suggests waiting, whatever the instance says.
    err = SurefootError("x", retryable=False, suggested_retry_delay=5, max_retry_attempts=7)
    assert (err.suggested_retry_delay, err.max_retry_attempts) == (0.0, 0)


@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf")])
def test_bad_delay_is_a_clear_value_error(bad: float) -> None:
    with pytest.raises(ValueError, match="finite number of seconds"):
        SurefootError("x", retryable=True, suggested_retry_delay=bad)
    with pytest.raises(ValueError, match="retry_after"):
        RateLimitError("x", retry_after=bad)


@pytest.mark.parametrize("bad", [-1, 1.5, True])
def test_bad_attempts_is_a_clear_value_error(bad: object) -> None:
    with pytest.raises(ValueError, match="max_retry_attempts"):
        SurefootError("x", max_retry_attempts=bad)  # type: ignore[arg-type]


def test_str_is_one_informative_line() -> None:
    err = RateLimitError(
        "Rate limit reached\nfor requests",
        retry_after=2,
        service="openai",
        context=ErrorContext(http_status=429, attempt=1, operation="chat", request_id="req_1"),
    )
    text = str(err)
    assert "\n" not in text
    for part in (
        "SUREFOOT-RATELIMIT",
        "RATE_LIMIT_EXCEEDED",
        "status=429",
        "retry_after=2s",
        "service=openai",
        "attempt=1",
        "operation=chat",
        "request_id=req_1",
    ):
        assert part in text, part


def test_str_without_message_uses_catalog_title() -> None:
    assert "Rate limit exceeded" in str(RateLimitError())


def test_problem_details_synthesized_from_catalog_when_server_sent_none() -> None:
    err = RateLimitError("slow down", retry_after=3)
    pd = err.problem_details
    assert pd.source == "catalog"
    assert pd.status == 429
    assert pd.error_code == "RATE_LIMIT_EXCEEDED"
    assert pd.retryable is True
    assert pd.retry_after_seconds == 3
    assert pd.title == "Rate limit exceeded"
    assert not err.has_server_problem


def test_server_problem_details_are_kept_and_drive_defaults() -> None:
    pd = ProblemDetails.parse(
        b'{"type":"https://x/p","status":503,"error_code":"SERVICE_UNAVAILABLE",'
        b'"retryable":false,"retry_after_seconds":4,"trace_id":"t1"}'
    )
    err = ConnectionFailedError("down", problem_details=pd)
    assert err.problem_details is pd
    assert err.has_server_problem
    assert err.retryable is False  # the server's word wins over the class default
    assert err.code == "SERVICE_UNAVAILABLE"
    assert err.retry_after == 4


def test_context_fields_and_merge() -> None:
    a = ErrorContext(operation="task_run", task_id="t1", metadata={"x": 1})
    b = ErrorContext(attempt=3, http_status=502, last_event_id="17", metadata={"y": 2})
    m = a.merged(b)
    assert m.as_dict() == {
        "operation": "task_run",
        "attempt": 3,
        "http_status": 502,
        "last_event_id": "17",
        "task_id": "t1",
        "metadata": {"x": 1, "y": 2},
    }
    assert a.attempt is None  # merged() copies


def test_secrets_never_reach_str_or_repr() -> None:
    key = "sk-proj-ABCDEFGHIJKLMNOPQRSTUV123456"
    err = LLMError(
        f"Incorrect API key provided: {key}", error_type=LLMErrorType.AUTHENTICATION_FAILED
    )
    for text in (str(err), repr(err), err.message, err.problem_details.to_json()):
        assert key not in text
        assert "[REDACTED]" in text
    err = NetworkError("proxy said Authorization: Bearer abcdef123456789 was bad")
    assert "abcdef123456789" not in str(err)


# -- the LLM family --------------------------------------------------------------------------

LLM_TABLE = {
    # type: (retryable, delay)
    "MODEL_NOT_FOUND": (False, 0.0),
    "AUTHENTICATION_FAILED": (False, 0.0),
    "CONTENT_FILTERED": (False, 0.0),
    "INVALID_REQUEST": (False, 0.0),
    "MODEL_OVERLOADED": (True, 5.0),
    "CONTEXT_TOO_LONG": (False, 0.0),
    "SERVER_ERROR": (True, 2.0),
    "MALFORMED_TOOL_CALL": (False, 0.0),
    "CAPABILITY_MISMATCH": (False, 0.0),
    "QUOTA_EXHAUSTED": (False, 0.0),
    "UNKNOWN": (True, 1.0),
}


def test_llm_error_types_match_the_table() -> None:
    assert {t.name for t in LLMErrorType} == set(LLM_TABLE)
    for name, (retryable, delay) in LLM_TABLE.items():
        err = LLMError("x", error_type=LLMErrorType[name], model="m1")
        assert err.retryable is retryable, name
        assert err.suggested_retry_delay == delay, name
        assert err.max_retry_attempts == (3 if retryable else 0), name
        assert err.model == "m1"
        assert err.code == name
        assert err.error_code == "SUREFOOT-LLM"


def test_quota_exhausted_never_retries() -> None:
    err = LLMError("You exceeded your current quota", error_type=LLMErrorType.QUOTA_EXHAUSTED)
    assert err.retryable is False
    assert err.kind == "quota_exhausted"


def test_capability_errors() -> None:
    err = LLMCapabilityError("no vision", capability="vision", model="m")
    assert isinstance(err, LLMError)
    assert err.error_type is LLMErrorType.CAPABILITY_MISMATCH
    assert err.retryable is False
    tool = ToolCallNotSupportedError(model="m")
    assert isinstance(tool, LLMCapabilityError)
    assert tool.capability == "tools"


def test_rate_limit_defaults_and_fields() -> None:
    err = RateLimitError()
    assert err.retryable is True
    assert err.max_retry_attempts == 5
    assert err.suggested_retry_delay == 60.0
    assert err.retry_after is None
    err = RateLimitError("x", retry_after=2.5, service="anthropic", remaining_quota=0)
    assert err.suggested_retry_delay == 2.5
    assert (err.retry_after, err.service, err.remaining_quota) == (2.5, "anthropic", 0)
    assert err.kind == "rate_limit"


# -- transport, timeout ------------------------------------------------------------------------


def test_network_and_messaging() -> None:
    err = NetworkError("refused", host="127.0.0.1", port=9)
    assert isinstance(err, ConnectionFailedError)
    assert isinstance(err, MessagingError)
    assert (err.host, err.port, err.retryable) == ("127.0.0.1", 9, True)
    assert "host=127.0.0.1" in str(err)


def test_timeout_is_also_builtin_timeout_error() -> None:
    err = surefoot.TimeoutError("slow", timeout=2.0, operation="chat")
    assert isinstance(err, builtins.TimeoutError)
    assert (err.timeout, err.operation, err.retryable) == (2.0, "chat", True)
    assert str(err).startswith("SUREFOOT-TIMEOUT")


def test_run_timeout_is_a_timeout_but_not_retryable() -> None:
    err = RunTimeoutError("deadline", timeout=0.2)
    assert isinstance(err, surefoot.TimeoutError)
    assert isinstance(err, builtins.TimeoutError)
    assert err.retryable is False
    assert err.code == "TASK_DEADLINE_EXCEEDED"
    assert err.problem_details.status == 504


# -- agent family ------------------------------------------------------------------------------

CATEGORY_TABLE = {
    "NETWORK": True,
    "PARAMETER": False,
    "CLIENT_ERROR": False,
    "SERVER_ERROR": True,
    "VALIDATION": False,
    "LLM": True,
    "MCP": True,
    "INVOCATION": False,
    "UNKNOWN": False,
}


def test_action_categories_match_the_table() -> None:
    assert {c.name for c in ActionCategory} == set(CATEGORY_TABLE)
    for name, retryable in CATEGORY_TABLE.items():
        err = ActionExecutionError(
            "boom", action_name="forecast", action_type="http", category=ActionCategory[name]
        )
        assert err.retryable is retryable, name
        assert err.max_retry_attempts == (3 if retryable else 0)


def test_action_detailed_message_is_one_line_with_the_cause() -> None:
    try:
        try:
            raise ConnectionRefusedError("[Errno 111] Connection refused")
        except ConnectionRefusedError as cause:
            raise ActionExecutionError(
                "call failed",
                action_name="forecast",
                action_type="http",
                category=ActionCategory.NETWORK,
            ) from cause
    except ActionExecutionError as err:
        line = err.detailed_message
        assert "\n" not in line
        assert "forecast" in line and "NETWORK" in line and "Connection refused" in line
        assert (err.action_name, err.action_type) == ("forecast", "http")


def test_validation_family() -> None:
    cv = ContractViolationError(
        contract_kind="pre", violated_expression="city != ''", bindings={"city": ""}
    )
    assert isinstance(cv, ValidationError)
    assert (cv.contract_kind, cv.violated_expression, cv.bindings) == (
        "pre",
        "city != ''",
        {"city": ""},
    )
    assert cv.retryable is False
    kn = KnowledgeNotReadyError(host="Agent", source="docs/", problem=KnowledgeProblem.EMPTY)
    assert isinstance(kn, ValidationError)
    assert (kn.host, kn.source, kn.problem) == ("Agent", "docs/", KnowledgeProblem.EMPTY)
    assert kn.retryable is False
    assert {p.name for p in KnowledgeProblem} == {"MISSING", "EMPTY", "UNREADABLE"}


def test_approval_and_completion() -> None:
    ap = ApprovalRequiredError(action="wire_money", reason="amount over limit")
    assert (ap.action, ap.reason, ap.retryable) == ("wire_money", "amount over limit", False)
    done = TaskCompleteError({"answer": 42})
    assert done.result == {"answer": 42}
    assert done.retryable is False


# -- platform family ---------------------------------------------------------------------------


def test_platform_family() -> None:
    assert isinstance(PermissionDeniedError(), AuthError)
    assert AuthError().code == "AUTHENTICATION_FAILED"
    assert PermissionDeniedError().code == "AUTHORIZATION_FAILED"
    assert BusinessError().retryable is False
    up = UploadError(
        "part failed", attachment_key="a.pdf", part_number=3, completed_receipts=["r1"]
    )
    assert (up.attachment_key, up.part_number, up.completed_receipts) == ("a.pdf", 3, ["r1"])
    assert ConfigurationError().retryable is False
    st = TaskStoppedError(reason="user asked", task_id="t9")
    assert (st.reason, st.task_id, st.code) == ("user asked", "t9", "TASK_STOPPED")
    assert st.context.task_id == "t9"


def test_circuit_open_is_a_runtime_error_with_retry_after() -> None:
    err = CircuitOpenError(name="openai:gpt-4o", retry_after=12.5)
    assert isinstance(err, RuntimeError)
    assert (err.name, err.retry_after, err.code) == ("openai:gpt-4o", 12.5, "CIRCUIT_OPEN")


# -- pickling ----------------------------------------------------------------------------------


def _samples() -> list[SurefootError]:
    ctx = ErrorContext(operation="task_run", attempt=2, http_status=503, last_event_id="9")
    return [
        SurefootError("root", retryable=True, context=ctx),
        LLMError("busy", error_type=LLMErrorType.MODEL_OVERLOADED, model="m", provider="p"),
        LLMCapabilityError("no", capability="vision"),
        ToolCallNotSupportedError(model="m"),
        RateLimitError("slow", retry_after=3, service="s", remaining_quota=1),
        MessagingError("x"),
        ConnectionFailedError("x", context=ctx),
        NetworkError("x", host="h", port=1),
        surefoot.TimeoutError("x", timeout=1.5, operation="op"),
        RunTimeoutError("x", timeout=0.2),
        ValidationError("x", errors=[{"field": "a"}]),
        ContractViolationError(
            contract_kind="post", violated_expression="r > 0", bindings={"r": -1}
        ),
        KnowledgeNotReadyError(host="h", source="s", problem=KnowledgeProblem.UNREADABLE),
        ApprovalRequiredError(action="a", reason="r"),
        TaskCompleteError({"k": 1}),
        ActionExecutionError("x", action_name="a", action_type="mcp", category=ActionCategory.MCP),
        AuthError("x"),
        PermissionDeniedError("x"),
        BusinessError("x"),
        UploadError("x", attachment_key="k", part_number=2, completed_receipts=[1]),
        ConfigurationError("x"),
        TaskStoppedError(reason="r", task_id="t"),
        CircuitOpenError(name="b", retry_after=1.0),
        SecurityError(action="wire_money"),
        FallbackFailedError(
            original=ActionExecutionError("x", action_name="a", category=ActionCategory.NETWORK),
            fallback_error=ActionExecutionError(
                "y", action_name="b", category=ActionCategory.VALIDATION
            ),
            fallback_name="b",
        ),
    ]


def test_samples_cover_every_class() -> None:
    assert {type(e) for e in _samples()} == set(ERROR_CLASSES)


@pytest.mark.parametrize("err", _samples(), ids=lambda e: type(e).__name__)
def test_errors_pickle_with_their_attributes(err: SurefootError) -> None:
    clone = pickle.loads(pickle.dumps(err))
    assert type(clone) is type(err)

    def attrs(e: SurefootError) -> dict[str, object]:
        # Exceptions compare by identity: compare nested ones by type and repr instead.
        return {
            k: (type(v), repr(v)) if isinstance(v, BaseException) else v
            for k, v in vars(e).items()
            if not k.startswith("_problem")
        }

    assert attrs(clone) == attrs(err)
    assert str(clone) == str(err)
    assert clone.error_code == err.error_code
    assert clone.problem_details.to_dict() == err.problem_details.to_dict()


# -- redaction: the fast path skips the regex only when it cannot match ------------------------

REDACTION_CASES = [
    "Incorrect API key provided: sk-proj-ABCDEFGHIJKLMNOPQRSTUV123456",
    "sk-ant-api03-abcdefghijkl and pk-live-ABCDEFGHIJ and rk-0123456789ab",
    "Authorization: Bearer abcdef123456789 was bad",
    "authorization=Basic dXNlcjpwYXNzd29yZA==",
    "header Token abcdefgh1234 refused",
    "gemini key AIzaSyA1234567890abcdefghijklmnop in url",
    "aws AKIAABCDEFGHIJKLMNOP denied",
    "groq gsk_ABCDEFGHIJKLMNOPQRST xai_ABCDEFGHIJKLMNOPQRST pplx_ABCDEFGHIJKLMNOPQRST",
    "fw_ABCDEFGHIJKLMNOPQRST and r8_ABCDEFGHIJKLMNOPQRST",
    'api_key="abcd1234" apikey: zzzz9999 access-token=qwerty123 secret=hunter22',
    "password: p4ssw0rd x-api-key: key-123456",
    "SK-UPPERCASE0123456789 BEARER ABCDEFGHIJ AIZA0123456789012345678901 akia0123456789abcdef",
    # non-ASCII: Unicode case folding (Kelvin sign for k, long s for s) must still be caught
    "\u017fk-abcdefghijklmnop and api_\u212aey=abcd1234 \u00e9",
    "caf\u00e9 Bearer abcdefghijk1234",
]
CLEAN_CASES = [
    "",
    "The server had an error while processing your request. Sorry about that!",
    "This model's maximum context length is 8192 tokens.",
    "Rate limit reached for requests",
    "\u017fome non-ascii text without any credential: caf\u00e9",
    # A word after "Bearer" or "token" is English, not a credential (it was masked once).
    "caf\u00e9: the caller gets every token exactly once; Bearer of bad news",
]


@pytest.mark.parametrize("text", REDACTION_CASES + CLEAN_CASES)
def test_redact_fast_path_matches_the_full_regex(text: str) -> None:
    from surefoot import _redact

    assert _redact.redact(text) == _redact._PATTERNS.sub(_redact._sub, text)


@pytest.mark.parametrize("text", REDACTION_CASES)
def test_redaction_cases_are_masked(text: str) -> None:
    from surefoot import _redact

    assert "[REDACTED]" in _redact.redact(text)


def test_redact_skips_the_regex_without_a_candidate(monkeypatch: pytest.MonkeyPatch) -> None:
    from surefoot import _redact

    calls: list[str] = []
    real = _redact._PATTERNS

    class Spy:
        def sub(self, fn: object, text: str) -> str:
            calls.append(text)
            return real.sub(fn, text)  # type: ignore[arg-type]

    monkeypatch.setattr(_redact, "_PATTERNS", Spy())
    assert _redact.redact("The server is overloaded. Please retry.") == (
        "The server is overloaded. Please retry."
    )
    assert calls == []
    assert _redact.redact("bad api_key=abcdef123") == "bad api_key=[REDACTED]"
    assert _redact.redact("caf\u00e9 overloaded") == "caf\u00e9 overloaded"  # non-ASCII: full
    assert len(calls) == 2
