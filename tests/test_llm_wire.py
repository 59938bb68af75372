"""The pure parts of the LLM client: messages, both wire formats, stream accumulation, and
the token estimate. Response and event shapes are copied from the providers' API docs."""

from __future__ import annotations

import json
from typing import Any

import pytest

from surefoot.llm._messages import Completion, Message, ToolCall, Usage, normalize_messages
from surefoot.llm._tokens import estimate_text_tokens, estimate_tokens, fits_context
from surefoot.llm._tools import ToolSpec
from surefoot.llm._wire import (
    StreamEnd,
    StreamErrorEvent,
    TextDelta,
    ToolCallDelta,
    WireFormatError,
)
from surefoot.llm._wires import get_wire

OPENAI = get_wire("openai")
ANTHROPIC = get_wire("anthropic")

WEATHER = ToolSpec(
    "get_weather",
    "Get the current weather in a given location",
    {
        "type": "object",
        "properties": {"location": {"type": "string"}},
        "required": ["location"],
    },
)

CONVERSATION = [
    Message("system", "You are terse."),
    Message("user", "Weather in Paris and Oslo?"),
    Message(
        "assistant",
        "Checking.",
        (
            ToolCall("call_1", "get_weather", '{"location":"Paris"}'),
            ToolCall("call_2", "get_weather", '{"location": "Oslo'),  # truncated JSON
        ),
    ),
    Message("tool", "18C", tool_call_id="call_1"),
    Message("tool", "lookup failed", tool_call_id="call_2", is_error=True),
]


def feed_all(state: Any, events: list[tuple[str, str]]) -> list[Any]:
    out: list[Any] = []
    for name, data in events:
        out.extend(state.feed(name, data))
    return out


# --------------------------------------------------------------------------- messages


def test_normalize_prompt_string() -> None:
    assert normalize_messages("hi") == [Message("user", "hi")]


def test_normalize_openai_dicts_round_trip() -> None:
    dicts: list[dict[str, Any]] = [
        {"role": "developer", "content": "sys"},
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]
    msgs = normalize_messages(dicts)
    assert msgs == [
        Message("system", "sys"),
        Message("user", "ab"),
        Message("assistant", "", (ToolCall("c1", "f", "{}"),)),
        Message("tool", "ok", tool_call_id="c1"),
    ]
    assert normalize_messages([m.to_dict() for m in msgs]) == msgs


@pytest.mark.parametrize(
    ("bad", "exc", "words"),
    [
        (42, TypeError, "not int"),
        ({"role": "user", "content": "x"}, TypeError, "list of messages"),
        ([], ValueError, "empty"),
        ([{"role": "robot", "content": "x"}], ValueError, "unknown role 'robot'"),
        ([{"content": "x"}], ValueError, "no 'role'"),
        ([{"role": "user"}], ValueError, "no 'content'"),
        ([{"role": "user", "content": 3}], TypeError, "must be a str"),
        ([{"role": "user", "content": None}], ValueError, "null content"),
        ([{"role": "user", "content": [{"type": "image_url"}]}], ValueError, "'image_url'"),
        ([{"role": "tool", "content": "x"}], ValueError, "tool_call_id"),
        ([{"role": "user", "content": "x", "tool_calls": [{"id": "a"}]}], ValueError, "shape"),
        (["hello"], TypeError, "message 0 is a str"),
    ],
)
def test_normalize_rejects_bad_input(bad: Any, exc: type[Exception], words: str) -> None:
    with pytest.raises(exc, match=words):
        normalize_messages(bad)


def test_message_validates_itself() -> None:
    with pytest.raises(ValueError, match="only assistant"):
        Message("user", "x", (ToolCall("a", "f", "{}"),))
    with pytest.raises(ValueError, match="unknown message role"):
        Message("bot", "x")  # type: ignore[arg-type]


def test_tool_call_parsed_never_raises() -> None:
    assert ToolCall("a", "f", '{"x": 1}').parsed() == ({"x": 1}, None)
    assert ToolCall("a", "f", "").parsed() == ({}, None)
    args, err = ToolCall("a", "f", '{"x": ').parsed()
    assert args is None and err is not None and "not valid JSON" in err
    args, err = ToolCall("a", "f", "[1]").parsed()
    assert args is None and err is not None and "not an object" in err
    args, err = ToolCall("a", "f", "[" * 100_000).parsed()
    assert args is None and err is not None


def test_usage_adds() -> None:
    total = Usage(3, 4) + Usage(10, 20)
    assert total == Usage(13, 24)
    assert total.total_tokens == 37


# --------------------------------------------------------------------------- endpoints, headers


@pytest.mark.parametrize(
    ("base", "url"),
    [
        ("https://api.openai.com/v1", "https://api.openai.com/v1/chat/completions"),
        ("https://api.openai.com/v1/", "https://api.openai.com/v1/chat/completions"),
        ("http://127.0.0.1:8080/v1/chat/completions", "http://127.0.0.1:8080/v1/chat/completions"),
        (
            "https://x.azure.com/openai/d/gpt?api-version=1",
            "https://x.azure.com/openai/d/gpt/chat/completions?api-version=1",
        ),
    ],
)
def test_openai_endpoint(base: str, url: str) -> None:
    assert OPENAI.endpoint(base) == url
    assert OPENAI.path == "/chat/completions"


@pytest.mark.parametrize(
    "base",
    [
        "https://api.anthropic.com",
        "https://api.anthropic.com/",
        "https://api.anthropic.com/v1",
        "https://api.anthropic.com/v1/",
        "https://api.anthropic.com/v1/messages",
    ],
)
def test_anthropic_endpoint(base: str) -> None:
    assert ANTHROPIC.endpoint(base) == "https://api.anthropic.com/v1/messages"


def test_endpoint_rejects_relative_base() -> None:
    with pytest.raises(ValueError, match="absolute"):
        OPENAI.endpoint("api.openai.com")
    with pytest.raises(ValueError, match="empty"):
        ANTHROPIC.endpoint("")


def test_unknown_style() -> None:
    with pytest.raises(ValueError, match=r"'openai'.*'anthropic'"):
        get_wire("gemini")
    assert get_wire("openai") is OPENAI


def test_headers() -> None:
    assert OPENAI.headers("sk-1") == {
        "Content-Type": "application/json",
        "Accept": "application/json",
        "Authorization": "Bearer sk-1",
    }
    assert ANTHROPIC.headers("sk-ant", stream=True) == {
        "Content-Type": "application/json",
        "Accept": "text/event-stream",
        "anthropic-version": "2023-06-01",
        "x-api-key": "sk-ant",
    }
    assert "Authorization" not in OPENAI.headers(None)


# --------------------------------------------------------------------------- request building


def test_openai_request_golden() -> None:
    body = OPENAI.build_request(
        CONVERSATION, model="gpt-4o", tools=[WEATHER], stream=True, max_tokens=50,
        extra={"temperature": 0},
    )  # fmt: skip
    assert body == json.dumps(json.loads(body), separators=(",", ":")).encode()  # compact
    assert json.loads(body) == {
        "model": "gpt-4o",
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Weather in Paris and Oslo?"},
            {
                "role": "assistant",
                "content": "Checking.",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"location":"Paris"}'},
                    },
                    {
                        "id": "call_2",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"location": "Oslo'},
                    },
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "18C"},
            {"role": "tool", "tool_call_id": "call_2", "content": "lookup failed"},
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": "Get the current weather in a given location",
                    "parameters": WEATHER.parameters,
                },
            }
        ],
        "max_tokens": 50,
        "stream": True,
        "stream_options": {"include_usage": True},
        "temperature": 0,
    }


def test_openai_request_minimal() -> None:
    body = OPENAI.build_request([Message("user", "hi")], model="m")
    assert json.loads(body) == {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


def test_anthropic_request_golden() -> None:
    body = ANTHROPIC.build_request(CONVERSATION, model="claude-x", tools=[WEATHER], stream=True)
    assert json.loads(body) == {
        "model": "claude-x",
        "max_tokens": 1024,
        "system": "You are terse.",
        "messages": [
            {"role": "user", "content": "Weather in Paris and Oslo?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Checking."},
                    {
                        "type": "tool_use",
                        "id": "call_1",
                        "name": "get_weather",
                        "input": {"location": "Paris"},
                    },
                    # unparseable arguments are sent as {} so the conversation can continue
                    {"type": "tool_use", "id": "call_2", "name": "get_weather", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "call_1", "content": "18C"},
                    {
                        "type": "tool_result",
                        "tool_use_id": "call_2",
                        "content": "lookup failed",
                        "is_error": True,
                    },
                ],
            },
        ],
        "tools": [
            {
                "name": "get_weather",
                "description": "Get the current weather in a given location",
                "input_schema": WEATHER.parameters,
            }
        ],
        "stream": True,
    }


def test_anthropic_request_merges_turns_tool_results_first() -> None:
    msgs = [
        Message("system", "a"),
        Message("user", "q"),
        Message("assistant", "", (ToolCall("t1", "f", ""),)),
        Message("tool", "r", tool_call_id="t1"),
        Message("user", "and then?"),
        Message("system", "b"),
    ]
    body = json.loads(ANTHROPIC.build_request(msgs, model="m", max_tokens=7))
    assert body["system"] == "a\n\nb"
    assert body["max_tokens"] == 7
    assert body["messages"] == [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "r"},
                {"type": "text", "text": "and then?"},
            ],
        },
    ]
    assert "tools" not in body and "stream" not in body


# --------------------------------------------------------------------------- responses

OPENAI_TEXT = {
    "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
    "object": "chat.completion",
    "created": 1741570283,
    "model": "gpt-4o-2024-08-06",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": "The image shows a wooden boardwalk.",
                "refusal": None,
                "annotations": [],
            },
            "logprobs": None,
            "finish_reason": "stop",
        }
    ],
    "usage": {
        "prompt_tokens": 1117,
        "completion_tokens": 46,
        "total_tokens": 1163,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    },
    "service_tier": "default",
    "system_fingerprint": "fp_fc9f1d7035",
}

OPENAI_TOOLS = {
    "id": "chatcmpl-abc123",
    "object": "chat.completion",
    "created": 1699896916,
    "model": "gpt-4o-mini",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_abc123",
                        "type": "function",
                        "function": {
                            "name": "get_current_weather",
                            "arguments": '{\n"location": "Boston, MA"\n}',
                        },
                    }
                ],
            },
            "logprobs": None,
            "finish_reason": "tool_calls",
        }
    ],
    "usage": {"prompt_tokens": 82, "completion_tokens": 17, "total_tokens": 99},
}


def test_openai_parse_text() -> None:
    c = OPENAI.parse_response(OPENAI_TEXT)
    assert c == Completion(
        message=Message("assistant", "The image shows a wooden boardwalk."),
        finish_reason="stop",
        usage=Usage(1117, 46),
        model="gpt-4o-2024-08-06",
        id="chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
        raw_finish_reason="stop",
    )


def test_openai_parse_tool_calls() -> None:
    c = OPENAI.parse_response(OPENAI_TOOLS)
    assert c.finish_reason == "tool_calls"
    assert c.text == ""
    assert c.tool_calls == (
        ToolCall("call_abc123", "get_current_weather", '{\n"location": "Boston, MA"\n}'),
    )
    assert c.tool_calls[0].parsed() == ({"location": "Boston, MA"}, None)


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [("length", "length"), ("content_filter", "content_filter"), ("weird", "weird")],
)
def test_openai_finish_reasons(raw: str, normalized: str) -> None:
    doc = json.loads(json.dumps(OPENAI_TEXT))
    doc["choices"][0]["finish_reason"] = raw
    c = OPENAI.parse_response(doc)
    assert (c.finish_reason, c.raw_finish_reason) == (normalized, raw)


def test_openai_refusal() -> None:
    doc = json.loads(json.dumps(OPENAI_TEXT))
    doc["choices"][0]["message"].update(content=None, refusal="I can't help with that.")
    c = OPENAI.parse_response(doc)
    assert (c.finish_reason, c.raw_finish_reason) == ("refusal", "stop")
    assert c.refusal == "I can't help with that."


@pytest.mark.parametrize(
    "doc",
    [
        {"error": {"message": "x", "type": "server_error"}},
        {"choices": []},
        {"choices": [{"index": 0}]},
        [1, 2],
        {"choices": [{"message": {"content": 5}}]},
    ],
)
def test_openai_not_a_completion(doc: Any) -> None:
    with pytest.raises(WireFormatError):
        OPENAI.parse_response(doc)


ANTHROPIC_TEXT = {
    "content": [{"text": "Hi! My name is Claude.", "type": "text"}],
    "id": "msg_013Zva2CMHLNnXjNJJKqJ2EF",
    "model": "claude-3-7-sonnet-20250219",
    "role": "assistant",
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "type": "message",
    "usage": {"input_tokens": 2095, "output_tokens": 503},
}

ANTHROPIC_TOOLS = {
    "id": "msg_01Aq9w938a90dw8q",
    "type": "message",
    "model": "claude-3-7-sonnet-20250219",
    "stop_reason": "tool_use",
    "role": "assistant",
    "content": [
        {"type": "thinking", "thinking": "The user wants weather.", "signature": "abc"},
        {"type": "text", "text": "I'll check the current weather in San Francisco for you."},
        {
            "type": "tool_use",
            "id": "toolu_01A09q90qw90lq917835lq9",
            "name": "get_weather",
            "input": {"location": "San Francisco, CA", "unit": "celsius"},
        },
    ],
    "usage": {
        "input_tokens": 10,
        "cache_creation_input_tokens": 5,
        "cache_read_input_tokens": 100,
        "output_tokens": 30,
    },
}


def test_anthropic_parse_text() -> None:
    c = ANTHROPIC.parse_response(ANTHROPIC_TEXT)
    assert c == Completion(
        message=Message("assistant", "Hi! My name is Claude."),
        finish_reason="stop",
        usage=Usage(2095, 503),
        model="claude-3-7-sonnet-20250219",
        id="msg_013Zva2CMHLNnXjNJJKqJ2EF",
        raw_finish_reason="end_turn",
    )


def test_anthropic_parse_tool_use() -> None:
    c = ANTHROPIC.parse_response(ANTHROPIC_TOOLS)
    assert c.finish_reason == "tool_calls"
    assert c.text == "I'll check the current weather in San Francisco for you."
    (call,) = c.tool_calls
    assert (call.id, call.name) == ("toolu_01A09q90qw90lq917835lq9", "get_weather")
    assert call.parsed() == ({"location": "San Francisco, CA", "unit": "celsius"}, None)
    assert c.usage == Usage(115, 30)


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        ("max_tokens", "length"),
        ("stop_sequence", "stop"),
        ("refusal", "refusal"),
        ("model_context_window_exceeded", "context_window"),
        ("pause_turn", "pause_turn"),
    ],
)
def test_anthropic_stop_reasons(raw: str, normalized: str) -> None:
    c = ANTHROPIC.parse_response({**ANTHROPIC_TEXT, "stop_reason": raw})
    assert (c.finish_reason, c.raw_finish_reason) == (normalized, raw)


def test_anthropic_malformed_tool_input_stays_raw() -> None:
    doc = {
        **ANTHROPIC_TEXT,
        "content": [{"type": "tool_use", "id": "t", "name": "f", "input": '{"a'}],
    }
    (call,) = ANTHROPIC.parse_response(doc).tool_calls
    assert call.arguments == '{"a'
    assert call.parsed()[0] is None


@pytest.mark.parametrize(
    "doc",
    [
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
        {"content": "text"},
        {"content": ["x"]},
        "message",
    ],
)
def test_anthropic_not_a_message(doc: Any) -> None:
    with pytest.raises(WireFormatError):
        ANTHROPIC.parse_response(doc)


# --------------------------------------------------------------------------- OpenAI streams


def _chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> tuple[str, str]:
    doc = {
        "id": "chatcmpl-123",
        "object": "chat.completion.chunk",
        "created": 1694268190,
        "model": "gpt-4o-mini",
        "system_fingerprint": "fp_44709d6fcb",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        **extra,
    }
    return "message", json.dumps(doc)


def _tc(index: int, args: str, call_id: str | None = None, name: str | None = None) -> Any:
    return {
        "index": index,
        "id": call_id,
        "type": "function" if call_id else None,
        "function": {"arguments": args, "name": name},
    }


USAGE_CHUNK = (
    "message",
    json.dumps(
        {
            "id": "chatcmpl-123",
            "object": "chat.completion.chunk",
            "created": 1694268190,
            "model": "gpt-4o-mini",
            "choices": [],
            "usage": {"prompt_tokens": 9, "completion_tokens": 12, "total_tokens": 21},
        }
    ),
)


def test_openai_stream_text() -> None:
    state = OPENAI.new_stream_state()
    deltas = feed_all(
        state,
        [
            _chunk({"role": "assistant", "content": ""}),
            _chunk({"content": "Hello"}),
            _chunk({"content": " there"}),
            _chunk({}, "stop"),
            USAGE_CHUNK,
        ],
    )
    assert deltas == [TextDelta("Hello"), TextDelta(" there")]
    assert not state.done
    with pytest.raises(WireFormatError, match="DONE"):
        state.result()
    assert state.partial().text == "Hello there"
    (end,) = state.feed("message", "[DONE]")
    assert state.done and isinstance(end, StreamEnd)
    assert end.completion == state.result()
    assert state.result() == Completion(
        Message("assistant", "Hello there"),
        "stop",
        Usage(9, 12),
        "gpt-4o-mini",
        "chatcmpl-123",
        "stop",
    )
    assert state.feed("message", _chunk({"content": "late"})[1]) == []
    assert state.feed("message", "not json at all") == []  # ignored after the end
    assert state.result().text == "Hello there"


def test_openai_stream_parallel_tool_calls_interleaved() -> None:
    state = OPENAI.new_stream_state()
    events = [
        _chunk({"role": "assistant", "content": None}),
        _chunk({"tool_calls": [_tc(0, "", "call_DdmO9pD3xa9XTPNJ32zg2hcA", "get_weather")]}),
        _chunk({"tool_calls": [_tc(0, '{"')]}),
        _chunk({"tool_calls": [_tc(0, 'location": "Paris')]}),
        _chunk({"tool_calls": [_tc(1, "", "call_2", "get_time")]}),
        _chunk({"tool_calls": [_tc(1, '{"tz":'), _tc(0, ', France"}')]}),
        _chunk({"tool_calls": [_tc(1, ' "CET"}')]}),
        _chunk({}, "tool_calls"),
        USAGE_CHUNK,
        ("message", "[DONE]"),
    ]
    deltas = feed_all(state, events)
    tool_deltas = [d for d in deltas if isinstance(d, ToolCallDelta)]
    assert tool_deltas[0] == ToolCallDelta(0, "call_DdmO9pD3xa9XTPNJ32zg2hcA", "get_weather", "")
    assert tool_deltas[2] == ToolCallDelta(
        0, "call_DdmO9pD3xa9XTPNJ32zg2hcA", "get_weather", 'location": "Paris'
    )
    assert ToolCallDelta(1, "call_2", "get_time", ' "CET"}') in tool_deltas
    c = state.result()
    assert c.finish_reason == "tool_calls"
    assert [(t.id, t.name, t.parsed()[0]) for t in c.tool_calls] == [
        ("call_DdmO9pD3xa9XTPNJ32zg2hcA", "get_weather", {"location": "Paris, France"}),
        ("call_2", "get_time", {"tz": "CET"}),
    ]
    assert isinstance(deltas[-1], StreamEnd)


def test_openai_stream_keeps_invalid_arguments_raw() -> None:
    state = OPENAI.new_stream_state()
    feed_all(
        state,
        [
            _chunk({"tool_calls": [_tc(0, '{"x": tru', "c", "f")]}),
            _chunk({}, "tool_calls"),
            ("message", "[DONE]"),
        ],
    )
    (call,) = state.result().tool_calls
    assert call.arguments == '{"x": tru'
    assert call.parsed()[0] is None


def test_openai_stream_bad_data() -> None:
    state = OPENAI.new_stream_state()
    with pytest.raises(WireFormatError, match="not valid JSON"):
        state.feed("message", '{"choices": [')
    with pytest.raises(WireFormatError, match="not a JSON object"):
        state.feed("message", "[1]")
    with pytest.raises(StreamErrorEvent) as info:
        state.feed("message", '{"error": {"message": "overloaded", "type": "server_error"}}')
    assert info.value.payload["error"]["message"] == "overloaded"
    assert not state.done


# --------------------------------------------------------------------------- Anthropic streams


def _ev(name: str, **doc: Any) -> tuple[str, str]:
    return name, json.dumps({"type": name, **doc})


ANTHROPIC_START = _ev(
    "message_start",
    message={
        "id": "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY",
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": "claude-3-5-sonnet-20240620",
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 25, "output_tokens": 1},
    },
)


def test_anthropic_stream_text() -> None:
    state = ANTHROPIC.new_stream_state()
    deltas = feed_all(
        state,
        [
            ANTHROPIC_START,
            _ev("content_block_start", index=0, content_block={"type": "text", "text": ""}),
            _ev("ping"),
            _ev("content_block_delta", index=0, delta={"type": "text_delta", "text": "Hello"}),
            _ev("content_block_delta", index=0, delta={"type": "text_delta", "text": "!"}),
            _ev("content_block_stop", index=0),
            _ev("some_future_event", detail=1),
            _ev(
                "message_delta",
                delta={"stop_reason": "end_turn", "stop_sequence": None},
                usage={"output_tokens": 15},
            ),
        ],
    )
    assert deltas == [TextDelta("Hello"), TextDelta("!")]
    assert not state.done
    assert state.partial().finish_reason == "stop"
    (end,) = state.feed("message_stop", '{"type": "message_stop"}')
    assert isinstance(end, StreamEnd) and state.done
    assert state.result() == Completion(
        Message("assistant", "Hello!"),
        "stop",
        Usage(25, 15),
        "claude-3-5-sonnet-20240620",
        "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY",
        "end_turn",
    )
    assert state.feed("content_block_delta", "garbage") == []


def test_anthropic_stream_parallel_tool_use() -> None:
    def part(index: int, text: str) -> tuple[str, str]:
        delta = {"type": "input_json_delta", "partial_json": text}
        return _ev("content_block_delta", index=index, delta=delta)

    state = ANTHROPIC.new_stream_state()
    events = [
        ANTHROPIC_START,
        _ev("content_block_start", index=0, content_block={"type": "text", "text": ""}),
        _ev("content_block_delta", index=0, delta={"type": "text_delta", "text": "Let me check"}),
        _ev("content_block_stop", index=0),
        _ev(
            "content_block_start",
            index=1,
            content_block={
                "type": "tool_use",
                "id": "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
                "name": "get_weather",
                "input": {},
            },
        ),
        part(1, ""),
        part(1, '{"location":'),
        part(1, ' "San Francisco, CA"}'),
        _ev("content_block_stop", index=1),
        _ev(
            "content_block_start",
            index=2,
            content_block={"type": "tool_use", "id": "toolu_2", "name": "get_time", "input": {}},
        ),
        _ev("content_block_stop", index=2),  # no input deltas at all
        _ev(
            "message_delta",
            delta={"stop_reason": "tool_use", "stop_sequence": None},
            usage={"output_tokens": 89},
        ),
        _ev("message_stop"),
    ]
    deltas = feed_all(state, events)
    assert deltas[0] == TextDelta("Let me check")
    tool_deltas = [d for d in deltas if isinstance(d, ToolCallDelta)]
    assert tool_deltas == [
        ToolCallDelta(0, "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "get_weather", ""),
        ToolCallDelta(0, "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "get_weather", '{"location":'),
        ToolCallDelta(0, "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "get_weather", ' "San Francisco, CA"}'),
        ToolCallDelta(1, "toolu_2", "get_time", ""),
    ]
    c = state.result()
    assert c.finish_reason == "tool_calls"
    assert c.usage == Usage(25, 89)
    assert [(t.name, t.parsed()[0]) for t in c.tool_calls] == [
        ("get_weather", {"location": "San Francisco, CA"}),
        ("get_time", {}),
    ]


def test_anthropic_stream_errors() -> None:
    state = ANTHROPIC.new_stream_state()
    with pytest.raises(StreamErrorEvent) as info:
        state.feed(
            "error", '{"type": "error", "error": {"type": "overloaded_error", "message": "x"}}'
        )
    assert info.value.payload["error"]["type"] == "overloaded_error"
    with pytest.raises(WireFormatError):
        state.feed("content_block_delta", "{not json")
    with pytest.raises(WireFormatError, match="message_stop"):
        state.result()


# --------------------------------------------------------------------------- token estimate


def test_token_estimate_grows_with_content() -> None:
    small = estimate_tokens([Message("user", "hi")])
    big = estimate_tokens([Message("user", "hi" * 4000)])
    assert 0 < small < big
    assert 1900 < big < 2200
    assert estimate_text_tokens("é" * 4) == 2  # 8 UTF-8 bytes
    with_tools = estimate_tokens([Message("user", "hi")], [WEATHER])
    assert with_tools > small
    call = Message("assistant", "", (ToolCall("c", "get_weather", "x" * 400),))
    assert estimate_tokens([call]) >= 100


def test_fits_context() -> None:
    msgs = [Message("user", "word " * 1000)]
    assert fits_context(msgs, context_window=2000)
    assert not fits_context(msgs, context_window=2000, max_output_tokens=1000)
    assert not fits_context(msgs, context_window=1000)
    with pytest.raises(ValueError, match="context_window"):
        fits_context(msgs, context_window=0)
