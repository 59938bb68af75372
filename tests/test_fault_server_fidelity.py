"""Every fault of the fault server through the official SDKs, as they meet the real providers.

Each test drives the real ``openai`` and ``anthropic`` clients (``max_retries=0`` unless the
test is about retries) against a :class:`FaultServer` and asserts what the SDK gives back: the
exception class and status, or the parsed result and its fields. What the SDK does must be what
it does against api.openai.com and api.anthropic.com, so these tests pin the wire shapes the
SDKs read: error bodies and headers (``x-request-id`` / ``request-id``, ``x-should-retry``,
``error.details.error_code``), mid-stream error events, tool calls, refusals.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import anthropic
import httpx2
import jiter
import openai
import pytest
from anthropic.types.shared import (
    EnforcedSpendLimitReachedError,
    RampLimitExceededError,
)

from surefoot.testing.faults import (
    FAULT_TYPES,
    ContentFilter,
    Drip,
    ErrorIn200,
    Fault,
    FaultServer,
    Hang,
    HugeBody,
    Latency,
    MalformedChunk,
    MalformedToolCall,
    NoDone,
    Ok,
    PrefillRejected,
    Reset,
    Rule,
    SlowFirstToken,
    Status,
    StreamError,
    Truncate,
    parse_scenario,
)

PROMPT = "one two three four"
MESSAGES: list[Any] = [{"role": "user", "content": PROMPT}]
OPENAI_MODEL = "gpt-test"
ANTHROPIC_MODEL = "claude-test"
HANG_TIMEOUT = 0.5  # seconds: how long the SDKs wait on a hung answer

# A stream read that fails mid-body: anthropic 2.17 wraps it in its own errors, as openai
# does (``iter_response_bytes`` in its ``_streaming``); older releases let the transport's
# error through. Each test expects exactly what the installed release raises.
_WRAPS_STREAM_READS = hasattr(anthropic._streaming, "iter_response_bytes")
ANTHROPIC_STREAM_TIMEOUT: type[Exception] = (
    anthropic.APITimeoutError if _WRAPS_STREAM_READS else httpx2.ReadTimeout
)
ANTHROPIC_STREAM_RESET: type[Exception] = (
    anthropic.APIConnectionError if _WRAPS_STREAM_READS else httpx2.ReadError
)
TIMEOUT = 10.0  # for answers that do come

#: The fault types this module drives through both SDKs, by YAML name; see the last test.
COVERED = {
    "ok",
    "latency",
    "status",
    "hang",
    "reset",
    "truncate",
    "stream_error",
    "malformed_tool_call",
    "content_filter",
    "error_in_200",
    "huge_body",
    "drip",
    "slow_first_token",
    "malformed_chunk",
    "no_done",
    "prefill_rejected",
}

streams = pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])


# -- clients and calls --------------------------------------------------------------------------


def oai(server: FaultServer, timeout: float = TIMEOUT, retries: int = 0) -> openai.OpenAI:
    return openai.OpenAI(
        base_url=server.base_url + "/v1", api_key="test", max_retries=retries, timeout=timeout
    )


def anth(server: FaultServer, timeout: float = TIMEOUT, retries: int = 0) -> anthropic.Anthropic:
    return anthropic.Anthropic(
        base_url=server.base_url, api_key="test", max_retries=retries, timeout=timeout
    )


def aoai(server: FaultServer, timeout: float = TIMEOUT) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        base_url=server.base_url + "/v1", api_key="test", max_retries=0, timeout=timeout
    )


def aanth(server: FaultServer, timeout: float = TIMEOUT) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(
        base_url=server.base_url, api_key="test", max_retries=0, timeout=timeout
    )


def ask_openai(client: openai.OpenAI, stream: bool = False) -> Any:
    """The completion, or the list of chunks of a streamed one."""
    if not stream:
        return client.chat.completions.create(model=OPENAI_MODEL, messages=MESSAGES)
    return list(client.chat.completions.create(model=OPENAI_MODEL, messages=MESSAGES, stream=True))


def ask_anthropic(client: anthropic.Anthropic, stream: bool = False) -> Any:
    """The message, or the list of raw events of a streamed one."""
    if not stream:
        return client.messages.create(model=ANTHROPIC_MODEL, max_tokens=64, messages=MESSAGES)
    return list(
        client.messages.create(model=ANTHROPIC_MODEL, max_tokens=64, messages=MESSAGES, stream=True)
    )


def openai_chunks(client: openai.OpenAI, into: list[Any]) -> None:
    """Stream into ``into`` chunk by chunk, so a test sees what came before an error."""
    for chunk in client.chat.completions.create(model=OPENAI_MODEL, messages=MESSAGES, stream=True):
        into.append(chunk)


def anthropic_events(client: anthropic.Anthropic, into: list[Any]) -> None:
    for event in client.messages.create(
        model=ANTHROPIC_MODEL, max_tokens=64, messages=MESSAGES, stream=True
    ):
        into.append(event)


async def aopenai_chunks(client: openai.AsyncOpenAI, into: list[Any]) -> None:
    stream = await client.chat.completions.create(
        model=OPENAI_MODEL, messages=MESSAGES, stream=True
    )
    async for chunk in stream:
        into.append(chunk)


async def aanthropic_events(client: anthropic.AsyncAnthropic, into: list[Any]) -> None:
    stream = await client.messages.create(
        model=ANTHROPIC_MODEL, max_tokens=64, messages=MESSAGES, stream=True
    )
    async for event in stream:
        into.append(event)


def streamed_text(chunks: list[Any]) -> str:
    return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)


def finish_reasons(chunks: list[Any]) -> list[str]:
    return [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]


def event_text(events: list[Any]) -> str:
    return "".join(
        e.delta.text
        for e in events
        if e.type == "content_block_delta" and e.delta.type == "text_delta"
    )


@pytest.fixture
def no_warnings() -> Iterator[None]:
    """Any warning (a pydantic serializer complaining about a field's type...) fails."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # a socket of a client an earlier test dropped, collected here: not this test's warning
        warnings.simplefilter("ignore", ResourceWarning)
        yield


# -- ok, latency, drip, huge body: valid answers -------------------------------------------------

VALID = [
    pytest.param(Ok(), id="ok"),
    pytest.param(Latency(0.05), id="latency"),
    pytest.param(Ok(delay=0.05), id="delay"),
    pytest.param(Drip(chunk_bytes=64, interval=0.001), id="drip"),
]


@pytest.mark.parametrize("fault", VALID)
@streams
def test_valid_answers_openai(fault_server: FaultServer, fault: Fault, stream: bool) -> None:
    fault_server.enqueue(fault)
    got = ask_openai(oai(fault_server), stream)
    if stream:
        assert streamed_text(got) == PROMPT and finish_reasons(got) == ["stop"]
        assert {c.id for c in got} == {got[0].id} and got[0].id.startswith("chatcmpl-")
    else:
        assert isinstance(got, openai.types.chat.ChatCompletion)
        assert got.choices[0].message.content == PROMPT
        assert got.choices[0].finish_reason == "stop" and got.choices[0].message.role == "assistant"
        assert got.usage is not None and got.usage.total_tokens == 8
    assert fault_server.requests[0].fault == fault


@pytest.mark.parametrize("fault", VALID)
@streams
def test_valid_answers_anthropic(fault_server: FaultServer, fault: Fault, stream: bool) -> None:
    fault_server.enqueue(fault)
    got = ask_anthropic(anth(fault_server), stream)
    if stream:
        assert [e.type for e in got][:2] == ["message_start", "content_block_start"]
        assert got[-2].type == "message_delta" and got[-2].delta.stop_reason == "end_turn"
        assert got[-1].type == "message_stop" and event_text(got) == PROMPT
    else:
        assert isinstance(got, anthropic.types.Message)
        assert got.content[0].type == "text" and got.content[0].text == PROMPT
        assert got.stop_reason == "end_turn" and got.usage.output_tokens == 4


def test_valid_answer_anthropic_stream_helper(fault_server: FaultServer) -> None:
    fault_server.enqueue(Drip(chunk_bytes=50, interval=0.001))
    with anth(fault_server).messages.stream(
        model=ANTHROPIC_MODEL, max_tokens=64, messages=MESSAGES
    ) as stream:
        assert "".join(stream.text_stream) == PROMPT
        final = stream.get_final_message()
    assert final.stop_reason == "end_turn" and final.content[0].type == "text"


def test_latency_beyond_the_timeout_times_out(fault_server: FaultServer) -> None:
    fault_server.enqueue(Latency(5), times=2)
    with pytest.raises(openai.APITimeoutError):
        ask_openai(oai(fault_server, HANG_TIMEOUT))
    with pytest.raises(anthropic.APITimeoutError):
        ask_anthropic(anth(fault_server, HANG_TIMEOUT))


@streams
def test_huge_body(fault_server: FaultServer, stream: bool) -> None:
    size = 200_000
    fault_server.enqueue(HugeBody(megabytes=size / 1_000_000), times=2)
    got = ask_openai(oai(fault_server), stream)
    text = streamed_text(got) if stream else got.choices[0].message.content
    assert len(text) == size and text.startswith("lorem ipsum")
    got = ask_anthropic(anth(fault_server), stream)
    text = event_text(got) if stream else got.content[0].text
    assert len(text) == size and text.startswith("lorem ipsum")


# -- status: the exception class, status and fields each SDK builds --------------------------------

OA, AN = openai, anthropic
STATUS_CASES = [
    # fault, openai (class, type, code), anthropic (class, type, error_code)
    (Status(400), (OA.BadRequestError, "invalid_request_error", None),
     (AN.BadRequestError, "invalid_request_error", None)),
    (Status(400, error="context_length"),
     (OA.BadRequestError, "invalid_request_error", "context_length_exceeded"),
     (AN.BadRequestError, "invalid_request_error", None)),
    (Status(400, error="insufficient_quota"),
     (OA.BadRequestError, "insufficient_quota", "insufficient_quota"),
     (AN.BadRequestError, "invalid_request_error", None)),
    (Status(401), (OA.AuthenticationError, "invalid_request_error", "invalid_api_key"),
     (AN.AuthenticationError, "authentication_error", None)),
    (Status(402), (OA.APIStatusError, "insufficient_quota", "insufficient_quota"),
     (AN.PaymentRequiredError, "billing_error", None)),
    (Status(403),
     (OA.PermissionDeniedError, "request_forbidden", "unsupported_country_region_territory"),
     (AN.PermissionDeniedError, "permission_error", None)),
    (Status(404), (OA.NotFoundError, "invalid_request_error", "model_not_found"),
     (AN.NotFoundError, "not_found_error", None)),
    (Status(408), (OA.APIStatusError, "server_error", "timeout"),
     (AN.RequestTimeoutError, "timeout_error", None)),
    (Status(413), (OA.APIStatusError, "invalid_request_error", None),
     (AN.ContentTooLargeError, "request_too_large", None)),
    (Status(429), (OA.RateLimitError, "requests", "rate_limit_exceeded"),
     (AN.RateLimitError, "rate_limit_error", None)),
    (Status(429, error="insufficient_quota"),
     (OA.RateLimitError, "insufficient_quota", "insufficient_quota"),
     (EnforcedSpendLimitReachedError, "rate_limit_error", "enforced_spend_limit_reached")),
    (Status(429, code="ramp_limit_exceeded"),
     (OA.RateLimitError, "requests", "ramp_limit_exceeded"),
     (RampLimitExceededError, "rate_limit_error", "ramp_limit_exceeded")),
    (Status(500), (OA.InternalServerError, "server_error", None),
     (AN.InternalServerError, "api_error", None)),
    (Status(502), (OA.InternalServerError, "server_error", None),
     (AN.InternalServerError, "api_error", None)),
    (Status(503), (OA.InternalServerError, "server_error", None),
     (AN.ServiceUnavailableError, "api_error", None)),
    (Status(504), (OA.InternalServerError, "server_error", "timeout"),
     (AN.GatewayTimeoutError, "timeout_error", None)),
    (Status(529), (OA.InternalServerError, "server_error", None),
     (AN.OverloadedError, "overloaded_error", None)),
]  # fmt: skip


def _status_id(case: Any) -> str:
    fault = case[0]
    return "-".join(str(p) for p in (fault.status, fault.error, fault.code) if p is not None)


@pytest.mark.parametrize("case", STATUS_CASES, ids=[_status_id(c) for c in STATUS_CASES])
@streams
def test_status_openai(fault_server: FaultServer, case: Any, stream: bool) -> None:
    fault, (cls, error_type, code), _ = case
    fault_server.enqueue(fault)
    with pytest.raises(openai.APIStatusError) as ei:
        ask_openai(oai(fault_server), stream)
    exc = ei.value
    assert type(exc) is cls and exc.status_code == fault.status
    assert (exc.type, exc.code) == (error_type, code)
    assert isinstance(exc.body, dict) and set(exc.body) == {"message", "type", "param", "code"}
    assert exc.message == f"Error code: {fault.status} - {exc.body['message']}"
    assert exc.request_id == "req_000001"
    assert "x-should-retry" not in exc.response.headers  # the OpenAI API sends none
    assert [r.status for r in fault_server.requests] == [fault.status]


@pytest.mark.parametrize("case", STATUS_CASES, ids=[_status_id(c) for c in STATUS_CASES])
@streams
def test_status_anthropic(fault_server: FaultServer, case: Any, stream: bool) -> None:
    fault, _, (cls, error_type, error_code) = case
    fault_server.enqueue(fault)
    with pytest.raises(anthropic.APIStatusError) as ei:
        ask_anthropic(anth(fault_server), stream)
    exc = ei.value
    assert type(exc) is cls and exc.status_code == fault.status
    assert (exc.type, exc.error_code) == (error_type, error_code)
    assert exc.request_id == "req_000001" and exc.api_message
    assert isinstance(exc.body, dict)
    assert exc.body["type"] == "error" and exc.body["request_id"] == exc.request_id
    if error_code is None:
        assert exc.details is None and "details" not in exc.body["error"]
    else:
        assert exc.details is not None and exc.details.error_code == error_code
    retried = fault.status in (408, 409, 429) or fault.status >= 500
    if error_code == "enforced_spend_limit_reached":  # not marked: the SDK retries it, in vain
        assert "x-should-retry" not in exc.response.headers
    else:
        assert exc.response.headers["x-should-retry"] == ("true" if retried else "false")


def test_status_context_fields(fault_server: FaultServer) -> None:
    fault_server.enqueue(Status(404), times=2)
    fault_server.enqueue(Status(400, error="context_length"))
    with pytest.raises(openai.NotFoundError) as ei:
        ask_openai(oai(fault_server))
    assert ei.value.param is None and f"`{OPENAI_MODEL}`" in ei.value.message
    with pytest.raises(anthropic.NotFoundError) as ai:
        ask_anthropic(anth(fault_server))
    assert ai.value.api_message == f"model: {ANTHROPIC_MODEL}"
    with pytest.raises(openai.BadRequestError) as ei:
        ask_openai(oai(fault_server))
    assert ei.value.param == "messages"


def test_status_rate_limit_headers(fault_server: FaultServer) -> None:
    fault_server.enqueue(Status(429, retry_after=3), times=2)
    with pytest.raises(openai.RateLimitError) as ei:
        ask_openai(oai(fault_server))
    headers = ei.value.response.headers
    assert headers["retry-after"] == "3" and headers["x-request-id"] == ei.value.request_id
    for name in ("requests", "tokens"):
        assert headers[f"x-ratelimit-remaining-{name}"] == "0"
        assert headers[f"x-ratelimit-reset-{name}"] == "3s"
        assert int(headers[f"x-ratelimit-limit-{name}"]) > 0
    with pytest.raises(anthropic.RateLimitError) as ai:
        ask_anthropic(anth(fault_server))
    headers = ai.value.response.headers
    assert headers["retry-after"] == "3" and headers["x-should-retry"] == "true"
    for name in ("requests", "tokens", "input-tokens", "output-tokens"):
        assert headers[f"anthropic-ratelimit-{name}-remaining"] == "0"
        assert int(headers[f"anthropic-ratelimit-{name}-limit"]) > 0
        reset = headers[f"anthropic-ratelimit-{name}-reset"]
        assert datetime.fromisoformat(reset.replace("Z", "+00:00")).tzinfo is not None


async def test_status_async(fault_server: FaultServer) -> None:
    fault_server.enqueue(Status(529), times=2)
    with pytest.raises(openai.InternalServerError) as ei:
        await aoai(fault_server).chat.completions.create(model=OPENAI_MODEL, messages=MESSAGES)
    assert ei.value.status_code == 529
    with pytest.raises(anthropic.OverloadedError) as ai:
        await aanth(fault_server).messages.create(
            model=ANTHROPIC_MODEL, max_tokens=64, messages=MESSAGES, stream=True
        )
    assert ai.value.type == "overloaded_error"


# -- x-should-retry: both SDKs obey it before their own rules -------------------------------------


@pytest.mark.parametrize(
    "fault,requests",
    [
        (Status(503, retry_after_ms=1), 3),
        (Status(503, retry_after_ms=1, should_retry=False), 1),
        (Status(400, retry_after_ms=1), 1),
        (Status(400, retry_after_ms=1, should_retry=True), 3),
        (Status(429, retry_after_ms=1, should_retry=False), 1),
    ],
    ids=["503", "503-no-retry", "400", "400-retry", "429-no-retry"],
)
def test_should_retry_openai(fault_server: FaultServer, fault: Status, requests: int) -> None:
    fault_server.add_rule(Rule(fault))
    with pytest.raises(openai.APIStatusError) as ei:
        ask_openai(oai(fault_server, retries=2))
    assert ei.value.status_code == fault.status
    assert len(fault_server.requests) == requests
    if fault.should_retry is not None:
        expected = "true" if fault.should_retry else "false"
        assert ei.value.response.headers["x-should-retry"] == expected


@pytest.mark.parametrize(
    "fault,requests",
    [
        (Status(529, retry_after_ms=1), 3),
        (Status(529, retry_after_ms=1, should_retry=False), 1),
        (Status(400, retry_after_ms=1), 1),
        (Status(409, retry_after_ms=1, should_retry=False), 1),
        (Status(400, retry_after_ms=1, should_retry=True), 3),
        (Status(429, error="insufficient_quota", retry_after_ms=1), 3),
    ],
    ids=["529", "529-no-retry", "400", "409-no-retry", "400-retry", "spend-limit"],
)
def test_should_retry_anthropic(fault_server: FaultServer, fault: Status, requests: int) -> None:
    fault_server.add_rule(Rule(fault))
    with pytest.raises(anthropic.APIStatusError):
        ask_anthropic(anth(fault_server, retries=2))
    assert len(fault_server.requests) == requests


def test_should_retry_content_filter_error(fault_server: FaultServer) -> None:
    fault_server.add_rule(Rule(ContentFilter(mode="error", should_retry=True)))
    with pytest.raises(openai.BadRequestError) as ei:  # one retry: one SDK backoff, no more
        ask_openai(oai(fault_server, retries=1))
    assert ei.value.response.headers["x-should-retry"] == "true"
    with pytest.raises(anthropic.BadRequestError):
        ask_anthropic(anth(fault_server, retries=1))
    assert len(fault_server.requests) == 4


def test_should_retry_from_yaml() -> None:
    scenario = parse_scenario(
        """
        rules:
          - fault: {type: status, status: 503, should_retry: false, retry_after_ms: 1}
        """
    )
    assert scenario.rules[0].fault == Status(503, should_retry=False, retry_after_ms=1)
    with FaultServer(scenario) as server:
        with pytest.raises(openai.InternalServerError) as ei:
            ask_openai(oai(server, retries=2))
        assert ei.value.response.headers["x-should-retry"] == "false"
        assert len(server.requests) == 1
    scenario = parse_scenario(
        """
        queue:
          - fault: {type: content_filter, mode: error, should_retry: true}
          - fault: {type: status, status: 429, code: ramp_limit_exceeded}
        """
    )
    assert scenario.queue == (
        ContentFilter(mode="error", should_retry=True),
        Status(429, code="ramp_limit_exceeded"),
    )


# -- hangs, resets, truncation: transport failures ------------------------------------------------


@streams
def test_hang(fault_server: FaultServer, stream: bool) -> None:
    fault_server.enqueue(Hang(), times=2)
    with pytest.raises(openai.APITimeoutError):
        ask_openai(oai(fault_server, HANG_TIMEOUT), stream)
    with pytest.raises(anthropic.APITimeoutError):
        ask_anthropic(anth(fault_server, HANG_TIMEOUT), stream)
    assert [r.status for r in fault_server.requests] == [None, None]


def test_hang_mid_stream(fault_server: FaultServer) -> None:
    fault_server.enqueue(Hang(after_events=2), times=2)
    chunks: list[Any] = []
    with pytest.raises(openai.APITimeoutError):
        openai_chunks(oai(fault_server, HANG_TIMEOUT), chunks)
    assert len(chunks) == 2 and chunks[0].choices[0].delta.role == "assistant"
    events: list[Any] = []
    with pytest.raises(ANTHROPIC_STREAM_TIMEOUT):
        anthropic_events(anth(fault_server, HANG_TIMEOUT), events)
    assert [e.type for e in events] == ["message_start", "content_block_start"]


def test_hang_on_a_plain_request_hangs_before_the_headers(fault_server: FaultServer) -> None:
    fault_server.enqueue(Hang(after_events=2), times=2)
    with pytest.raises(openai.APITimeoutError):
        ask_openai(oai(fault_server, HANG_TIMEOUT))
    with pytest.raises(anthropic.APITimeoutError):
        ask_anthropic(anth(fault_server, HANG_TIMEOUT))


@streams
def test_reset_before_headers(fault_server: FaultServer, stream: bool) -> None:
    fault_server.enqueue(Reset(), times=2)
    with pytest.raises(openai.APIConnectionError) as ei:
        ask_openai(oai(fault_server), stream)
    assert type(ei.value) is openai.APIConnectionError
    with pytest.raises(anthropic.APIConnectionError) as ai:
        ask_anthropic(anth(fault_server), stream)
    assert type(ai.value) is anthropic.APIConnectionError


def test_reset_mid_body(fault_server: FaultServer) -> None:
    fault_server.enqueue(Reset(at="mid_body"), times=2)
    with pytest.raises(openai.APIConnectionError) as ei:
        ask_openai(oai(fault_server))
    assert type(ei.value) is openai.APIConnectionError
    with pytest.raises(anthropic.APIConnectionError) as ai:
        ask_anthropic(anth(fault_server))
    assert type(ai.value) is anthropic.APIConnectionError


def test_reset_mid_stream(fault_server: FaultServer) -> None:
    fault_server.enqueue(Reset(at="mid_body", after_events=3), times=2)
    chunks: list[Any] = []
    with pytest.raises(openai.APIConnectionError) as ei:
        openai_chunks(oai(fault_server), chunks)
    assert type(ei.value) is openai.APIConnectionError and len(chunks) == 3
    events: list[Any] = []
    with pytest.raises(ANTHROPIC_STREAM_RESET) as ar:
        anthropic_events(anth(fault_server), events)
    assert type(ar.value) is ANTHROPIC_STREAM_RESET
    assert [e.type for e in events] == ["message_start", "content_block_start"]  # + a ping


@streams
def test_truncate(fault_server: FaultServer, stream: bool) -> None:
    fault_server.enqueue(Truncate(), times=2)
    if not stream:  # a short JSON body: the connection error the SDKs raise for it
        with pytest.raises(openai.APIConnectionError):
            ask_openai(oai(fault_server))
        with pytest.raises(anthropic.APIConnectionError):
            ask_anthropic(anth(fault_server))
        return
    # a stream without its final event: neither SDK notices
    chunks = ask_openai(oai(fault_server), stream=True)
    assert streamed_text(chunks) == PROMPT and finish_reasons(chunks) == ["stop"]
    events = ask_anthropic(anth(fault_server), stream=True)
    assert events[-1].type == "message_delta" and event_text(events) == PROMPT


def test_truncate_after_events(fault_server: FaultServer) -> None:
    fault_server.enqueue(Truncate(after_events=3), times=3)
    chunks = ask_openai(oai(fault_server), stream=True)
    assert len(chunks) == 3 and finish_reasons(chunks) == []
    events = ask_anthropic(anth(fault_server), stream=True)
    assert [e.type for e in events] == ["message_start", "content_block_start"]
    with anth(fault_server).messages.stream(
        model=ANTHROPIC_MODEL, max_tokens=64, messages=MESSAGES
    ) as stream:
        final = stream.get_final_message()
    assert final.stop_reason is None and final.content[0].type == "text"


# -- mid-stream errors -----------------------------------------------------------------------


def test_stream_error_openai(fault_server: FaultServer) -> None:
    fault_server.enqueue(StreamError(after_deltas=2))
    chunks: list[Any] = []
    with pytest.raises(openai.APIError) as ei:
        openai_chunks(oai(fault_server), chunks)
    exc = ei.value
    assert type(exc) is openai.APIError  # no status: the stream had answered 200
    assert streamed_text(chunks) == "one two"
    assert isinstance(exc.body, dict) and set(exc.body) == {"message", "type", "param", "code"}
    assert exc.type == "server_error" and exc.code is None
    assert exc.message == exc.body["message"] and "overloaded" in exc.message


def test_stream_error_anthropic(fault_server: FaultServer) -> None:
    fault_server.enqueue(StreamError(after_deltas=3))
    events: list[Any] = []
    with pytest.raises(anthropic.APIStatusError) as ei:
        anthropic_events(anth(fault_server), events)
    exc = ei.value
    assert type(exc) is anthropic.APIStatusError and exc.status_code == 200
    assert exc.type == "overloaded_error" and exc.api_message == "Overloaded"
    assert exc.error_code is None and exc.details is None
    assert exc.request_id == "req_000001"
    assert exc.body == {
        "type": "error",
        "error": {"details": None, "type": "overloaded_error", "message": "Overloaded"},
        "request_id": "req_000001",
    }
    assert event_text(events) == "one two three"


@pytest.mark.parametrize(
    "kind,error_type,error_code",
    [
        ("rate_limit", "rate_limit_error", None),
        ("server", "api_error", None),
        ("insufficient_quota", "rate_limit_error", "enforced_spend_limit_reached"),
    ],
)
def test_stream_error_kinds_anthropic(
    fault_server: FaultServer, kind: str, error_type: str, error_code: str | None
) -> None:
    fault_server.enqueue(StreamError(after_deltas=0, error=kind, message="went wrong"))
    with pytest.raises(anthropic.APIStatusError) as ei:
        ask_anthropic(anth(fault_server), stream=True)
    exc = ei.value
    assert type(exc) is anthropic.APIStatusError and exc.status_code == 200  # whatever the kind
    assert (exc.type, exc.error_code, exc.api_message) == (error_type, error_code, "went wrong")


def test_stream_error_stream_helper_anthropic(fault_server: FaultServer) -> None:
    fault_server.enqueue(StreamError(after_deltas=1))
    with (
        pytest.raises(anthropic.APIStatusError) as ei,
        anth(fault_server).messages.stream(
            model=ANTHROPIC_MODEL, max_tokens=64, messages=MESSAGES
        ) as stream,
    ):
        stream.get_final_message()
    assert ei.value.type == "overloaded_error"


def test_stream_error_on_a_plain_request_is_an_error_in_200(fault_server: FaultServer) -> None:
    fault_server.enqueue(StreamError(), times=2)
    got = ask_openai(oai(fault_server))
    assert got.choices is None and got.error["code"] is None  # type: ignore[attr-defined]
    message = ask_anthropic(anth(fault_server))
    assert message.type == "error" and message.error["type"] == "overloaded_error"  # type: ignore[attr-defined]


# -- error in a 200 -------------------------------------------------------------------------


@streams
def test_error_in_200(fault_server: FaultServer, stream: bool) -> None:
    fault_server.enqueue(ErrorIn200(error="server", message="boom"), times=2)
    got = ask_openai(oai(fault_server), stream)
    if stream:  # a JSON body where events were expected: nothing to iterate, no error
        assert got == []
    else:
        assert got.choices is None and got.id is None
        assert got.model_extra == {
            "error": {"message": "boom", "type": "server_error", "param": None, "code": None}
        }
    got = ask_anthropic(anth(fault_server), stream)
    if stream:
        assert got == []
    else:
        assert got.type == "error" and got.content is None
        assert got.model_extra == {
            "error": {"type": "api_error", "message": "boom"},
            "request_id": "req_000002",
        }


# -- malformed tool calls -------------------------------------------------------------------------

MALFORMED = ['{"city": "Par', '{"city": "Paris", "units": "cel', '{"city": "Paris", "days": [1, 2']


@pytest.mark.parametrize("arguments", MALFORMED)
@streams
def test_malformed_tool_call_openai(
    fault_server: FaultServer, arguments: str, stream: bool
) -> None:
    fault_server.enqueue(MalformedToolCall(name="lookup", arguments=arguments))
    got = ask_openai(oai(fault_server), stream)
    if stream:
        parts = [
            call
            for chunk in got
            if chunk.choices and chunk.choices[0].delta.tool_calls
            for call in chunk.choices[0].delta.tool_calls
        ]
        assert parts[0].function.name == "lookup" and parts[0].id.startswith("call_")
        text = "".join(p.function.arguments or "" for p in parts)
        assert finish_reasons(got) == ["tool_calls"]
    else:
        (call,) = got.choices[0].message.tool_calls
        assert call.type == "function" and call.function.name == "lookup"
        text = call.function.arguments
        assert got.choices[0].finish_reason == "tool_calls"
        assert got.choices[0].message.content is None
    assert text == arguments  # the API sends the arguments as a string, valid JSON or not
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)


@pytest.mark.parametrize("arguments", MALFORMED)
def test_malformed_tool_call_anthropic_plain(
    fault_server: FaultServer, arguments: str, no_warnings: None
) -> None:
    fault_server.enqueue(MalformedToolCall(name="lookup", arguments=arguments))
    with anth(fault_server) as client:
        message = ask_anthropic(client)
    (block,) = message.content
    assert isinstance(block, anthropic.types.ToolUseBlock) and block.name == "lookup"
    assert isinstance(block.input, dict)  # always an object from the Messages API
    assert block.input == jiter.from_json(arguments.encode(), partial_mode=True)
    assert message.stop_reason == "tool_use"
    message.model_dump_json()  # no serializer warning: the field has the type it declares
    message.to_param()


def test_malformed_tool_call_anthropic_default_and_non_object(
    fault_server: FaultServer, no_warnings: None
) -> None:
    fault_server.enqueue(MalformedToolCall())
    fault_server.enqueue(MalformedToolCall(arguments="[1, 2"))
    fault_server.enqueue(MalformedToolCall(arguments="not json at all"))
    with anth(fault_server) as client:
        for _ in range(3):
            block = ask_anthropic(client).content[0]
            assert block.type == "tool_use" and block.input == {}


@pytest.mark.parametrize("arguments", MALFORMED)
def test_malformed_tool_call_anthropic_stream(fault_server: FaultServer, arguments: str) -> None:
    fault_server.enqueue(MalformedToolCall(arguments=arguments), times=2)
    events = ask_anthropic(anth(fault_server), stream=True)
    (start,) = [e for e in events if e.type == "content_block_start"]
    assert start.content_block.type == "tool_use" and start.content_block.input == {}
    partial = "".join(
        e.delta.partial_json
        for e in events
        if e.type == "content_block_delta" and e.delta.type == "input_json_delta"
    )
    assert partial == arguments  # fragments that do not assemble to valid JSON
    # the SDK's accumulator parses them partially, as the plain message's input is
    with anth(fault_server).messages.stream(
        model=ANTHROPIC_MODEL, max_tokens=64, messages=MESSAGES
    ) as stream:
        final = stream.get_final_message()
    block = final.content[0]
    assert block.type == "tool_use"
    assert block.input == jiter.from_json(arguments.encode(), partial_mode=True)


def test_malformed_tool_call_anthropic_stream_helper_raises_on_bad_json(
    fault_server: FaultServer,
) -> None:
    fault_server.enqueue(MalformedToolCall(arguments='{"city": Paris}'))
    with (
        pytest.raises(ValueError, match="Unable to parse tool parameter JSON"),
        anth(fault_server).messages.stream(
            model=ANTHROPIC_MODEL, max_tokens=64, messages=MESSAGES
        ) as stream,
    ):
        stream.get_final_message()


# -- content filter -------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "Here is how"])
@streams
def test_content_filter_openai(fault_server: FaultServer, text: str, stream: bool) -> None:
    fault_server.enqueue(ContentFilter(text=text))
    got = ask_openai(oai(fault_server), stream)
    if stream:
        assert finish_reasons(got) == ["content_filter"] and streamed_text(got) == text
    else:
        choice = got.choices[0]
        assert choice.finish_reason == "content_filter"
        assert choice.message.content == (text or None) and choice.message.refusal is None


@pytest.mark.parametrize("text", ["", "Sure, the"])
@streams
def test_content_filter_anthropic(fault_server: FaultServer, text: str, stream: bool) -> None:
    fault_server.enqueue(ContentFilter(text=text))
    got = ask_anthropic(anth(fault_server), stream)
    if stream:
        (delta,) = [e for e in got if e.type == "message_delta"]
        assert delta.delta.stop_reason == "refusal"
        details = delta.delta.stop_details
        assert event_text(got) == text and got[-1].type == "message_stop"
    else:
        assert got.stop_reason == "refusal"
        details = got.stop_details
        assert [b.text for b in got.content if b.type == "text"] == ([text] if text else [])
    assert details is not None and details.type == "refusal" and details.category is None


@streams
def test_content_filter_error(fault_server: FaultServer, stream: bool) -> None:
    fault_server.enqueue(ContentFilter(mode="error"), times=2)
    with pytest.raises(openai.BadRequestError) as ei:
        ask_openai(oai(fault_server), stream)
    exc = ei.value
    assert exc.code == "content_filter" and exc.param == "prompt" and exc.type is None
    assert isinstance(exc.body, dict)
    assert exc.body["innererror"]["code"] == "ResponsibleAIPolicyViolation"
    with pytest.raises(anthropic.BadRequestError) as ai:
        ask_anthropic(anth(fault_server), stream)
    assert ai.value.type == "invalid_request_error"
    assert ai.value.api_message == "Output blocked by content filtering policy"
    assert ai.value.response.headers["x-should-retry"] == "false"


def test_content_filter_openai_parse_helper(fault_server: FaultServer) -> None:
    """The structured-output helper raises on a filtered answer, as against the real API."""
    fault_server.enqueue(ContentFilter(text="Here"))
    with pytest.raises(openai.ContentFilterFinishReasonError):
        oai(fault_server).chat.completions.parse(
            model=OPENAI_MODEL, messages=MESSAGES, response_format={"type": "json_object"}
        )


# -- async streaming ----------------------------------------------------------------------------


async def test_async_streams_openai(fault_server: FaultServer) -> None:
    chunks: list[Any] = []
    await aopenai_chunks(aoai(fault_server), chunks)
    assert streamed_text(chunks) == PROMPT
    fault_server.enqueue(StreamError(after_deltas=1))
    chunks = []
    with pytest.raises(openai.APIError) as ei:
        await aopenai_chunks(aoai(fault_server), chunks)
    assert type(ei.value) is openai.APIError and streamed_text(chunks) == "one"
    fault_server.enqueue(Hang(after_events=2))
    with pytest.raises(openai.APITimeoutError):
        await aopenai_chunks(aoai(fault_server, HANG_TIMEOUT), [])
    fault_server.enqueue(Reset(at="mid_body", after_events=2))
    with pytest.raises(openai.APIConnectionError):
        await aopenai_chunks(aoai(fault_server), [])
    fault_server.enqueue(Truncate(after_events=2))
    chunks = []
    await aopenai_chunks(aoai(fault_server), chunks)
    assert len(chunks) == 2
    fault_server.enqueue(Drip(chunk_bytes=32, interval=0.001))
    chunks = []
    await aopenai_chunks(aoai(fault_server), chunks)
    assert streamed_text(chunks) == PROMPT
    fault_server.enqueue(ContentFilter())
    chunks = []
    await aopenai_chunks(aoai(fault_server), chunks)
    assert finish_reasons(chunks) == ["content_filter"]
    fault_server.enqueue(MalformedToolCall())
    chunks = []
    await aopenai_chunks(aoai(fault_server), chunks)
    assert finish_reasons(chunks) == ["tool_calls"]


async def test_async_streams_anthropic(fault_server: FaultServer) -> None:
    events: list[Any] = []
    await aanthropic_events(aanth(fault_server), events)
    assert event_text(events) == PROMPT
    fault_server.enqueue(StreamError(after_deltas=1))
    events = []
    with pytest.raises(anthropic.APIStatusError) as ei:
        await aanthropic_events(aanth(fault_server), events)
    exc = ei.value
    assert type(exc) is anthropic.APIStatusError and exc.status_code == 200
    assert exc.type == "overloaded_error" and exc.request_id == "req_000002"
    assert event_text(events) == "one"
    fault_server.enqueue(Hang(after_events=2))
    with pytest.raises(ANTHROPIC_STREAM_TIMEOUT):
        await aanthropic_events(aanth(fault_server, HANG_TIMEOUT), [])
    fault_server.enqueue(Reset(at="mid_body", after_events=2))
    with pytest.raises(ANTHROPIC_STREAM_RESET) as ar:
        await aanthropic_events(aanth(fault_server), [])
    assert type(ar.value) is ANTHROPIC_STREAM_RESET
    fault_server.enqueue(Truncate())
    events = []
    await aanthropic_events(aanth(fault_server), events)
    assert events[-1].type == "message_delta"
    fault_server.enqueue(Drip(chunk_bytes=32, interval=0.001))
    events = []
    await aanthropic_events(aanth(fault_server), events)
    assert event_text(events) == PROMPT and events[-1].type == "message_stop"
    fault_server.enqueue(ContentFilter())
    events = []
    await aanthropic_events(aanth(fault_server), events)
    assert [e.type for e in events] == ["message_start", "message_delta", "message_stop"]
    fault_server.enqueue(MalformedToolCall())
    async with aanth(fault_server).messages.stream(
        model=ANTHROPIC_MODEL, max_tokens=64, messages=MESSAGES
    ) as stream:
        final = await stream.get_final_message()
    assert final.content[0].type == "tool_use" and final.content[0].input == {}


async def test_async_plain_anthropic_malformed_tool_call(fault_server: FaultServer) -> None:
    fault_server.enqueue(MalformedToolCall(arguments='{"city": "Paris", "u'))
    message = await aanth(fault_server).messages.create(
        model=ANTHROPIC_MODEL, max_tokens=64, messages=MESSAGES
    )
    assert message.content[0].type == "tool_use" and message.content[0].input == {"city": "Paris"}


# -- slow first token, malformed chunks, no terminator, prefill ------------------------------


@streams
def test_slow_first_token_within_the_timeout(stream: bool) -> None:
    with FaultServer(event_ids=False) as server:  # as the providers stream
        server.enqueue(SlowFirstToken(seconds=0.2, ping_every=0.05), times=2)
        if stream:
            assert streamed_text(ask_openai(oai(server), stream=True)) == PROMPT
            assert event_text(ask_anthropic(anth(server), stream=True)) == PROMPT
        else:
            assert ask_openai(oai(server)).choices[0].message.content == PROMPT
            assert ask_anthropic(anth(server)).content[0].text == PROMPT


def test_openai_sdk_breaks_on_a_comment_after_an_id(fault_server: FaultServer) -> None:
    """The OpenAI SDK's SSE decoder keeps the last event id (as the spec says) and so turns
    the blank line after a ``: ping`` comment into an event with empty data, which it fails
    to parse: keep-alive comments only work in a stream without ids."""
    fault_server.enqueue(SlowFirstToken(seconds=0.1, ping_every=0.04))
    chunks: list[Any] = []
    with pytest.raises(json.JSONDecodeError):
        openai_chunks(oai(fault_server), chunks)
    assert len(chunks) == 1
    fault_server.enqueue(SlowFirstToken(seconds=0.1, ping_every=0.04))  # Anthropic: events
    assert event_text(ask_anthropic(anth(fault_server), stream=True)) == PROMPT


def test_slow_first_token_beyond_the_read_timeout(fault_server: FaultServer) -> None:
    """The SDKs' read timeout counts from the last byte: the first chunks arrive, then it
    fires in the silence (pings would keep it from firing)."""
    fault_server.enqueue(SlowFirstToken(seconds=3), times=2)
    chunks: list[Any] = []
    with pytest.raises(openai.APITimeoutError):
        openai_chunks(oai(fault_server, timeout=HANG_TIMEOUT), chunks)
    assert len(chunks) == 1 and chunks[0].choices[0].delta.role == "assistant"
    events: list[Any] = []
    with pytest.raises(ANTHROPIC_STREAM_TIMEOUT):  # mid-stream, as for a stall
        anthropic_events(anth(fault_server, timeout=HANG_TIMEOUT), events)
    assert [e.type for e in events] == ["message_start", "content_block_start"]  # + a ping


def test_malformed_chunk_sdks_raise_json_errors(fault_server: FaultServer) -> None:
    """Neither SDK skips a data line that is not JSON: both raise ``json.JSONDecodeError``
    (unwrapped) where it arrives, after the chunks before it."""
    fault_server.enqueue(MalformedChunk(after_events=3), times=2)
    chunks: list[Any] = []
    with pytest.raises(json.JSONDecodeError):
        openai_chunks(oai(fault_server), chunks)
    assert streamed_text(chunks) == "one two"
    events: list[Any] = []
    with pytest.raises(json.JSONDecodeError):
        anthropic_events(anth(fault_server), events)
    assert [e.type for e in events] == ["message_start", "content_block_start"]  # + a ping


def test_malformed_chunk_plain(fault_server: FaultServer) -> None:
    fault_server.enqueue(MalformedChunk(), times=2)
    with pytest.raises(json.JSONDecodeError):
        ask_openai(oai(fault_server))
    with pytest.raises(json.JSONDecodeError):
        ask_anthropic(anth(fault_server))


@streams
def test_no_done_is_accepted(fault_server: FaultServer, stream: bool) -> None:
    """Neither SDK needs the terminator: a complete stream without it is a whole answer."""
    fault_server.enqueue(NoDone(), times=3 if stream else 2)
    if not stream:  # close-delimited JSON
        assert ask_openai(oai(fault_server)).choices[0].message.content == PROMPT
        assert ask_anthropic(anth(fault_server)).stop_reason == "end_turn"
        return
    chunks = ask_openai(oai(fault_server), stream=True)
    assert streamed_text(chunks) == PROMPT and finish_reasons(chunks) == ["stop"]
    events = ask_anthropic(anth(fault_server), stream=True)
    assert events[-1].type == "message_delta" and event_text(events) == PROMPT
    with anth(fault_server).messages.stream(
        model=ANTHROPIC_MODEL, max_tokens=64, messages=MESSAGES
    ) as helper:
        final = helper.get_final_message()
    assert final.stop_reason == "end_turn" and final.usage.output_tokens == 4


PREFILLED: list[Any] = [*MESSAGES, {"role": "assistant", "content": "one two"}]


@streams
def test_prefill_rejected(fault_server: FaultServer, stream: bool) -> None:
    fault_server.enqueue(PrefillRejected(), times=2)
    with pytest.raises(openai.BadRequestError) as oe:
        oai(fault_server).chat.completions.create(
            model=OPENAI_MODEL, messages=PREFILLED, stream=stream
        )
    assert oe.value.code is None and oe.value.type == "invalid_request_error"
    assert "does not support assistant message prefill" in oe.value.message
    with pytest.raises(anthropic.BadRequestError) as ae:
        anth(fault_server).messages.create(
            model=ANTHROPIC_MODEL, max_tokens=64, messages=PREFILLED, stream=stream
        )
    assert ae.value.body["error"]["message"] == (  # type: ignore[index]
        "This model does not support assistant message prefill. The conversation must end "
        "with a user message."
    )
    # not prefilled: answered normally, the fault spent
    fault_server.enqueue(PrefillRejected())
    assert ask_openai(oai(fault_server)).choices[0].message.content == PROMPT


@streams
def test_prefill_continues(fault_server: FaultServer, stream: bool) -> None:
    if stream:
        chunks = list(
            oai(fault_server).chat.completions.create(
                model=OPENAI_MODEL, messages=PREFILLED, stream=True
            )
        )
        assert streamed_text(chunks) == " three four"
        events = list(
            anth(fault_server).messages.create(
                model=ANTHROPIC_MODEL, max_tokens=64, messages=PREFILLED, stream=True
            )
        )
        assert event_text(events) == " three four"
        return
    reply = oai(fault_server).chat.completions.create(model=OPENAI_MODEL, messages=PREFILLED)
    assert reply.choices[0].message.content == " three four"
    assert reply.usage is not None and reply.usage.completion_tokens == 2
    message = anth(fault_server).messages.create(
        model=ANTHROPIC_MODEL, max_tokens=64, messages=PREFILLED
    )
    assert message.content[0].type == "text" and message.content[0].text == " three four"


def test_every_fault_type_is_covered() -> None:
    assert set(FAULT_TYPES) == COVERED
