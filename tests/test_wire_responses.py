"""The ``"responses"`` wire format (the OpenAI Responses API): request building, response
parsing, stream accumulation, resume URLs.

Fixture sources (cited on each fixture):

* [SPEC] the OpenAPI spec shipped with openai-python, ``api_reference/openapi.transformed.yml``
  (github:openai/openai-python): the ``x-oaiMeta`` examples of ``createResponse`` (its
  "Streaming" and "Functions" examples) and of each stream event schema
  (``ResponseCompletedEvent``, ``ResponseIncompleteEvent``, ``ResponseErrorEvent``,
  ``ResponseFailedEvent``, ``ResponseRefusalDeltaEvent``...).
* [SDK-LIVE] ``tests/lib/responses/test_responses.py`` of openai-python, ``test_output_text``:
  a response body recorded from the live API.
* [SDK-TYPES] ``src/openai/types/responses/*.py`` of openai-python: field names and
  literals (``IncompleteDetails.reason`` is ``max_output_tokens``/``content_filter``; a
  ``ResponseOutputRefusal`` part is ``{"type": "refusal", "refusal": ...}``;
  ``ResponseFunctionToolCall`` has ``id``, ``call_id``, ``name``, ``arguments``).
  Events marked [SDK-TYPES] are built field by field from those models.
"""

from __future__ import annotations

import copy
import itertools
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from surefoot._classify import classify_event
from surefoot.llm._messages import Message, ToolCall, Usage
from surefoot.llm._tools import ToolSpec
from surefoot.llm._wire import (
    STYLES,
    StreamEnd,
    StreamErrorEvent,
    TextDelta,
    ToolCallDelta,
    WireFormatError,
)
from surefoot.llm._wire_responses import ResponsesStreamState, ResponsesWire, normalize_status
from surefoot.llm._wires import get_wire

_REGISTERED = get_wire("responses")
assert isinstance(_REGISTERED, ResponsesWire)
WIRE: ResponsesWire = _REGISTERED

WEATHER = ToolSpec(
    "get_current_weather",
    "Get the current weather in a given location",
    {
        "type": "object",
        "properties": {
            "location": {
                "type": "string",
                "description": "The city and state, e.g. San Francisco, CA",
            },
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
        "required": ["location", "unit"],
    },
)

# [SDK-LIVE] test_output_text, recorded from the live API (trimmed of request echo fields).
LIVE_TEXT_RESPONSE: dict[str, Any] = {
    "id": "resp_689a0b2545288193953c892439b42e2800b2e36c65a1fd4b",
    "object": "response",
    "created_at": 1754925861,
    "status": "completed",
    "background": False,
    "error": None,
    "incomplete_details": None,
    "instructions": None,
    "max_output_tokens": None,
    "model": "gpt-4o-mini-2024-07-18",
    "output": [
        {
            "id": "msg_689a0b2637b08193ac478e568f49e3f900b2e36c65a1fd4b",
            "type": "message",
            "status": "completed",
            "content": [
                {
                    "type": "output_text",
                    "annotations": [],
                    "logprobs": [],
                    "text": "I can't provide real-time updates, but you can easily check the "
                    "current weather in San Francisco using a weather website or app. "
                    "Typically, San Francisco has cool, foggy summers and mild winters, so "
                    "it's good to be prepared for variable weather!",
                }
            ],
            "role": "assistant",
        }
    ],
    "parallel_tool_calls": True,
    "store": True,
    "tools": [],
    "usage": {
        "input_tokens": 14,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": 50,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 64,
    },
}

# [SPEC] createResponse, example "Functions" (response body).
FUNCTION_RESPONSE: dict[str, Any] = {
    "id": "resp_67ca09c5efe0819096d0511c92b8c890096610f474011cc0",
    "object": "response",
    "created_at": 1741294021,
    "status": "completed",
    "completed_at": 1741294022,
    "error": None,
    "incomplete_details": None,
    "instructions": None,
    "max_output_tokens": None,
    "model": "gpt-5.4",
    "output": [
        {
            "type": "function_call",
            "id": "fc_67ca09c6bedc8190a7abfec07b1a1332096610f474011cc0",
            "call_id": "call_unLAR8MvFNptuiZK6K6HCy5k",
            "name": "get_current_weather",
            "arguments": '{"location":"Boston, MA","unit":"celsius"}',
            "status": "completed",
        }
    ],
    "parallel_tool_calls": True,
    "usage": {
        "input_tokens": 291,
        "output_tokens": 23,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 314,
    },
}

# [SPEC] the response of the ResponseIncompleteEvent example (whose reason is the older
# "max_tokens"), with the reasons of [SDK-TYPES] IncompleteDetails substituted per test.
INCOMPLETE_RESPONSE: dict[str, Any] = {
    "id": "resp_123",
    "object": "response",
    "created_at": 1740855869,
    "status": "incomplete",
    "completed_at": None,
    "error": None,
    "incomplete_details": {"reason": "max_tokens"},
    "instructions": None,
    "max_output_tokens": None,
    "model": "gpt-4o-mini-2024-07-18",
    "output": [],
    "usage": None,
}

# [SDK-TYPES] a message whose content is a ResponseOutputRefusal part; the text is the one of
# the [SPEC] ResponseRefusalDoneEvent example.
REFUSAL_RESPONSE: dict[str, Any] = {
    "id": "resp_123",
    "object": "response",
    "status": "completed",
    "model": "gpt-4o-mini-2024-07-18",
    "output": [
        {
            "id": "msg_123",
            "type": "message",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "refusal", "refusal": "final refusal text"}],
        }
    ],
    "usage": {"input_tokens": 10, "output_tokens": 4, "total_tokens": 14},
}

_RESP_ID = "resp_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654"
_MSG_ID = "msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654"
_CREATED: dict[str, Any] = {
    "id": _RESP_ID,
    "object": "response",
    "created_at": 1741290958,
    "status": "in_progress",
    "error": None,
    "incomplete_details": None,
    "instructions": "You are a helpful assistant.",
    "max_output_tokens": None,
    "model": "gpt-5.4",
    "output": [],
    "usage": None,
}


def _event(obj: dict[str, Any], seq: int) -> tuple[str, str]:
    """An SSE event as the API sends it: ``event: <type>`` and the JSON data, with the
    ``sequence_number`` every event carries ([SDK-TYPES])."""
    data = dict(obj)
    data["sequence_number"] = seq
    return data["type"], json.dumps(data)


def _events(objs: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [_event(o, i) for i, o in enumerate(objs)]


def text_stream(pieces: list[str], *, final_output: bool = True) -> list[tuple[str, str]]:
    """[SPEC] createResponse, example "Streaming" (its text split into ``pieces``; the spec
    elides the middle deltas with "..."). With ``final_output=False`` the final response has
    an empty ``output``, as compatible servers may send it."""
    text = "".join(pieces)
    part = {"type": "output_text", "text": text, "annotations": []}
    message = {
        "id": _MSG_ID,
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [part],
    }
    completed = dict(_CREATED, status="completed")
    completed["output"] = [message] if final_output else []
    completed["usage"] = {
        "input_tokens": 37,
        "output_tokens": 11,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 48,
    }
    where = {"item_id": _MSG_ID, "output_index": 0, "content_index": 0}
    return _events(
        [
            {"type": "response.created", "response": _CREATED},
            {"type": "response.in_progress", "response": _CREATED},
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": dict(message, status="in_progress", content=[]),
            },
            {"type": "response.content_part.added", **where, "part": dict(part, text="")},
            *(
                {"type": "response.output_text.delta", **where, "delta": p, "logprobs": []}
                for p in pieces
            ),
            {"type": "response.output_text.done", **where, "text": text},
            {"type": "response.content_part.done", **where, "part": part},
            {"type": "response.output_item.done", "output_index": 0, "item": message},
            {"type": "response.completed", "response": completed},
        ]
    )


def feed_all(state: Any, events: list[tuple[str, str]]) -> list[Any]:
    out: list[Any] = []
    for name, data in events:
        out.extend(state.feed(name, data))
    return out


# --------------------------------------------------------------------------- registry, URLs


def test_registered() -> None:
    assert "responses" in STYLES
    assert WIRE.style == "responses"
    assert WIRE.path == "/responses"
    assert get_wire("responses") is WIRE
    with pytest.raises(ValueError, match="'responses'"):
        get_wire("respones")


@pytest.mark.parametrize(
    ("base", "url"),
    [
        ("https://api.openai.com/v1", "https://api.openai.com/v1/responses"),
        ("https://api.openai.com/v1/", "https://api.openai.com/v1/responses"),
        ("https://api.openai.com/v1/responses", "https://api.openai.com/v1/responses"),
        ("https://api.openai.com/v1/responses/", "https://api.openai.com/v1/responses"),
        (
            "https://x.openai.azure.com/openai/v1?api-version=preview",
            "https://x.openai.azure.com/openai/v1/responses?api-version=preview",
        ),
    ],
)
def test_endpoint(base: str, url: str) -> None:
    assert WIRE.endpoint(base) == url


def test_endpoint_rejects_relative_base() -> None:
    with pytest.raises(ValueError, match="absolute"):
        WIRE.endpoint("api.openai.com/v1")


def test_headers() -> None:
    assert WIRE.headers("sk-1") == {
        "Content-Type": "application/json",
        "Accept": "application/json",
        "Authorization": "Bearer sk-1",
    }
    assert WIRE.headers(None, stream=True) == {
        "Content-Type": "application/json",
        "Accept": "text/event-stream",
    }


@pytest.mark.parametrize(
    ("endpoint", "after", "url"),
    [
        (
            "https://api.openai.com/v1/responses",
            42,
            "https://api.openai.com/v1/responses/resp_123?stream=true&starting_after=42",
        ),
        (  # the base URL is accepted too
            "https://api.openai.com/v1/",
            0,
            "https://api.openai.com/v1/responses/resp_123?stream=true&starting_after=0",
        ),
        (  # from the start
            "https://api.openai.com/v1/responses",
            None,
            "https://api.openai.com/v1/responses/resp_123?stream=true",
        ),
        (  # the endpoint's query stays, after the resume parameters
            "https://x.openai.azure.com/openai/v1/responses?api-version=preview",
            7,
            "https://x.openai.azure.com/openai/v1/responses/resp_123"
            "?stream=true&starting_after=7&api-version=preview",
        ),
        (  # a stale resume parameter on the endpoint is replaced, not repeated
            "https://h/v1/responses?stream=false&starting_after=1&a=b",
            9,
            "https://h/v1/responses/resp_123?stream=true&starting_after=9&a=b",
        ),
    ],
)
def test_resume_url(endpoint: str, after: int | None, url: str) -> None:
    assert WIRE.resume_url(endpoint, "resp_123", after) == url


def test_resume_url_escapes_and_validates() -> None:
    assert WIRE.resume_url("https://h/v1", "a/b?c", 1) == (
        "https://h/v1/responses/a%2Fb%3Fc?stream=true&starting_after=1"
    )
    with pytest.raises(ValueError, match="response_id"):
        WIRE.resume_url("https://h/v1", "", 1)
    for bad in (-1, True, 1.5):
        with pytest.raises(ValueError, match="sequence number"):
            WIRE.resume_url("https://h/v1", "resp_1", bad)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- request building


def test_request_plain() -> None:
    body = WIRE.build_request([Message("user", "Tell me a joke")], model="gpt-5.4")
    assert body == b'{"model":"gpt-5.4","input":[{"role":"user","content":"Tell me a joke"}]}'


def test_request_system_goes_to_instructions() -> None:
    # [SPEC] createResponse "Streaming" example: instructions "You are a helpful assistant."
    body = json.loads(
        WIRE.build_request(
            [
                Message("system", "You are a helpful assistant."),
                Message("user", "Hello!"),
                Message("system", "Answer in French."),
            ],
            model="gpt-5.4",
            stream=True,
        )
    )
    assert body == {
        "model": "gpt-5.4",
        "instructions": "You are a helpful assistant.\n\nAnswer in French.",
        "input": [{"role": "user", "content": "Hello!"}],
        "stream": True,
    }
    assert "store" not in body


def test_request_tools_are_flat_and_not_strict() -> None:
    body = json.loads(
        WIRE.build_request(
            [Message("user", "What is the weather like in Boston today?")],
            model="gpt-5.4",
            tools=[WEATHER],
            max_tokens=256,
        )
    )
    # [SPEC] createResponse "Functions" example request; "strict": false because the API
    # makes functions strict by default (that example's response echoes "strict": true).
    assert body["tools"] == [
        {
            "type": "function",
            "name": "get_current_weather",
            "description": "Get the current weather in a given location",
            "parameters": WEATHER.parameters,
            "strict": False,
        }
    ]
    assert body["max_output_tokens"] == 256
    assert "max_tokens" not in body
    assert "stream" not in body


def test_request_tool_round_trip_golden() -> None:
    """A tool round trip as the function calling guide shapes it: the model's
    ``function_call`` items sent back, then one ``function_call_output`` per call."""
    messages = [
        Message("system", "You are terse."),
        Message("user", "Weather in Paris and Oslo?"),
        Message(
            "assistant",
            "Checking.",
            (
                ToolCall("call_1", "get_weather", '{"location":"Paris"}'),
                ToolCall("call_2", "get_weather", '{"location": "Oslo'),  # truncated: kept raw
            ),
        ),
        Message("tool", "18C", tool_call_id="call_1"),
        Message("tool", "lookup failed", tool_call_id="call_2", is_error=True),
        Message("assistant", "Paris 18C; Oslo unknown."),
        Message("user", "Thanks"),
    ]
    body = WIRE.build_request(messages, model="gpt-5.4", extra={"temperature": 0})
    expected = {
        "model": "gpt-5.4",
        "instructions": "You are terse.",
        "input": [
            {"role": "user", "content": "Weather in Paris and Oslo?"},
            {"role": "assistant", "content": "Checking."},
            {
                "type": "function_call",
                "call_id": "call_1",
                "name": "get_weather",
                "arguments": '{"location":"Paris"}',
            },
            {
                "type": "function_call",
                "call_id": "call_2",
                "name": "get_weather",
                "arguments": '{"location": "Oslo',
            },
            {"type": "function_call_output", "call_id": "call_1", "output": "18C"},
            {"type": "function_call_output", "call_id": "call_2", "output": "lookup failed"},
            {"role": "assistant", "content": "Paris 18C; Oslo unknown."},
            {"role": "user", "content": "Thanks"},
        ],
        "temperature": 0,
    }
    assert body == json.dumps(expected, separators=(",", ":")).encode()


def test_request_tool_call_without_text_sends_no_empty_message() -> None:
    body = json.loads(
        WIRE.build_request(
            [
                Message("user", "hi"),
                Message("assistant", "", (ToolCall("call_9", "ping", "{}"),)),
                Message("tool", "pong", tool_call_id="call_9"),
            ],
            model="m",
        )
    )
    assert [i.get("type", i.get("role")) for i in body["input"]] == [
        "user",
        "function_call",
        "function_call_output",
    ]


def test_request_extra_overrides() -> None:
    body = json.loads(
        WIRE.build_request(
            [Message("user", "x")], model="m", max_tokens=5, extra={"max_output_tokens": 9}
        )
    )
    assert body["max_output_tokens"] == 9


# --------------------------------------------------------------------------- parsing


def test_parse_text_live() -> None:
    c = WIRE.parse_response(LIVE_TEXT_RESPONSE)
    assert c.text.startswith("I can't provide real-time updates")
    assert c.text.endswith("prepared for variable weather!")
    assert c.tool_calls == ()
    assert (c.finish_reason, c.raw_finish_reason) == ("stop", "completed")
    assert c.usage == Usage(14, 50)
    assert c.model == "gpt-4o-mini-2024-07-18"
    assert c.id == "resp_689a0b2545288193953c892439b42e2800b2e36c65a1fd4b"
    assert c.refusal is None


def test_parse_function_call() -> None:
    c = WIRE.parse_response(FUNCTION_RESPONSE)
    assert c.tool_calls == (
        ToolCall(
            "call_unLAR8MvFNptuiZK6K6HCy5k",  # the call_id, not the item id fc_...
            "get_current_weather",
            '{"location":"Boston, MA","unit":"celsius"}',
        ),
    )
    assert c.text == ""
    assert (c.finish_reason, c.raw_finish_reason) == ("tool_calls", "completed")
    assert c.usage == Usage(291, 23)


def test_parse_skips_reasoning_and_joins_messages() -> None:
    doc = copy.deepcopy(FUNCTION_RESPONSE)
    # [SDK-TYPES] ResponseReasoningItem: {"type": "reasoning", "id", "summary": [...]}
    doc["output"][:0] = [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "content": [
                {"type": "output_text", "text": "Let me check. ", "annotations": []},
                {"type": "output_text", "text": "One moment.", "annotations": []},
            ],
        },
    ]
    c = WIRE.parse_response(doc)
    assert c.text == "Let me check. One moment."
    assert [t.name for t in c.tool_calls] == ["get_current_weather"]


@pytest.mark.parametrize(
    ("reason", "finish"),
    [
        ("max_output_tokens", "length"),  # [SDK-TYPES]
        ("max_tokens", "length"),  # [SPEC] the ResponseIncompleteEvent example
        ("content_filter", "content_filter"),  # [SDK-TYPES]
        ("something_new", "something_new"),
    ],
)
def test_parse_incomplete(reason: str, finish: str) -> None:
    doc = dict(INCOMPLETE_RESPONSE, incomplete_details={"reason": reason})
    c = WIRE.parse_response(doc)
    assert (c.finish_reason, c.raw_finish_reason) == (finish, reason)
    assert c.text == ""
    assert c.usage == Usage()


def test_parse_refusal() -> None:
    c = WIRE.parse_response(REFUSAL_RESPONSE)
    assert c.refusal == "final refusal text"
    assert c.text == ""
    # as the openai wire: a refusal is finish "refusal", the raw reason the provider's own
    assert (c.finish_reason, c.raw_finish_reason) == ("refusal", "completed")
    assert (
        get_wire("openai")
        .parse_response(
            {"choices": [{"message": {"content": None, "refusal": "no"}, "finish_reason": "stop"}]}
        )
        .finish_reason
        == c.finish_reason
    )


@pytest.mark.parametrize(
    ("status", "finish", "raw"),
    [
        ("completed", "stop", "completed"),
        (None, "stop", "completed"),  # compatible servers may omit it
        ("failed", "error", "failed"),
        ("cancelled", "cancelled", "cancelled"),
        ("in_progress", None, None),
        ("queued", None, None),
    ],
)
def test_statuses(status: str | None, finish: str | None, raw: str | None) -> None:
    assert normalize_status(status, None, has_calls=False) == (finish, raw)


@pytest.mark.parametrize(
    ("doc", "words"),
    [
        ([], "JSON list"),
        ("hi", "JSON str"),
        ({"id": "resp_1"}, "no 'output'"),
        ({"output": {"type": "message"}}, "no 'output'"),
        ({"choices": [{"message": {"content": "hi"}}]}, "not a Responses API response"),
        ({"output": ["hi"]}, "output item 0 is a JSON str"),
        ({"output": [{"type": "message", "content": "hi"}]}, "no 'content' list"),
        ({"output": [{"type": "message", "content": [7]}]}, "content part"),
        ({"output": [], "status": 3}, "'status'"),
    ],
)
def test_parse_malformed(doc: Any, words: str) -> None:
    with pytest.raises(WireFormatError, match=words):
        WIRE.parse_response(doc)


# --------------------------------------------------------------------------- streaming


def test_stream_text_spec_example() -> None:
    state = WIRE.new_stream_state()
    assert isinstance(state, ResponsesStreamState)
    assert (state.sequence_number, state.response_id) == (None, None)
    events = text_stream(["Hi", " there!", " How can I assist you today?"])
    deltas = feed_all(state, events[:2])
    assert deltas == []
    assert state.response_id == _RESP_ID
    assert state.sequence_number == 1
    deltas = feed_all(state, events[2:])
    assert [d for d in deltas if isinstance(d, TextDelta)] == [
        TextDelta("Hi"),
        TextDelta(" there!"),
        TextDelta(" How can I assist you today?"),
    ]
    assert isinstance(deltas[-1], StreamEnd) and len(deltas) == 4
    assert state.done
    assert state.sequence_number == len(events) - 1
    c = state.result()
    assert c.text == "Hi there! How can I assist you today?"
    assert (c.finish_reason, c.raw_finish_reason) == ("stop", "completed")
    assert c.usage == Usage(37, 11)
    assert (c.id, c.model) == (_RESP_ID, "gpt-5.4")
    assert deltas[-1].completion == c
    assert state.feed("response.completed", events[-1][1]) == []  # after the end: ignored


def test_stream_completed_without_output_uses_what_was_accumulated() -> None:
    state = WIRE.new_stream_state()
    feed_all(state, text_stream(["a", "b"], final_output=False))
    c = state.result()
    assert c.text == "ab"
    assert (c.finish_reason, c.usage, c.id) == ("stop", Usage(37, 11), _RESP_ID)


def test_stream_partial_before_the_end() -> None:
    state = WIRE.new_stream_state()
    events = text_stream(["Hel", "lo"])
    feed_all(state, events[:-1])
    assert not state.done
    p = state.partial()
    assert (p.text, p.finish_reason, p.raw_finish_reason, p.id) == ("Hello", None, None, _RESP_ID)
    with pytest.raises(WireFormatError, match=r"response\.completed"):
        state.result()


def _call_item(n: int, *, status: str = "in_progress", arguments: str = "") -> dict[str, Any]:
    # [SDK-TYPES] ResponseFunctionToolCall; ids shaped as in the [SPEC] "Functions" example.
    return {
        "type": "function_call",
        "id": f"fc_{n}",
        "call_id": f"call_{n}abc",
        "name": "get_current_weather",
        "arguments": arguments,
        "status": status,
    }


def _args_delta(n: int, delta: str) -> dict[str, Any]:
    # [SPEC] the ResponseFunctionCallArgumentsDeltaEvent example, for item fc_<n>
    return {
        "type": "response.function_call_arguments.delta",
        "item_id": f"fc_{n}",
        "output_index": n,
        "delta": delta,
    }


def test_stream_one_tool_call_arguments_split() -> None:
    args = '{"location":"Boston, MA","unit":"celsius"}'
    pieces = ['{"loc', 'ation":"Bos', 'ton, MA","unit":', '"celsius"}']
    final = dict(FUNCTION_RESPONSE)
    final["output"] = [_call_item(0, status="completed", arguments=args)]
    events = _events(
        [
            {"type": "response.created", "response": _CREATED},
            {"type": "response.output_item.added", "output_index": 0, "item": _call_item(0)},
            *(_args_delta(0, p) for p in pieces),
            # [SPEC] ResponseFunctionCallArgumentsDoneEvent: ignored (the deltas made it)
            {
                "type": "response.function_call_arguments.done",
                "item_id": "fc_0",
                "name": "get_current_weather",
                "output_index": 0,
                "arguments": args,
            },
            {
                "type": "response.output_item.done",
                "output_index": 0,
                "item": _call_item(0, status="completed", arguments=args),
            },
            {"type": "response.completed", "response": final},
        ]
    )
    state = WIRE.new_stream_state()
    deltas = feed_all(state, events)
    calls = [d for d in deltas if isinstance(d, ToolCallDelta)]
    assert calls[0] == ToolCallDelta(0, "call_0abc", "get_current_weather", "")
    assert [d.arguments_delta for d in calls[1:]] == pieces
    assert {(d.index, d.id, d.name) for d in calls} == {(0, "call_0abc", "get_current_weather")}
    c = state.result()
    assert c.tool_calls == (ToolCall("call_0abc", "get_current_weather", args),)
    assert c.finish_reason == "tool_calls"
    # the accumulated partial agrees with the final response
    assert state.partial().tool_calls == c.tool_calls


def test_stream_two_parallel_calls_interleaved() -> None:
    events = _events(
        [
            {"type": "response.created", "response": _CREATED},
            {"type": "response.output_item.added", "output_index": 0, "item": _call_item(0)},
            {"type": "response.output_item.added", "output_index": 1, "item": _call_item(1)},
            _args_delta(1, '{"location":"Oslo'),
            _args_delta(0, '{"location":"Paris'),
            # a delta known only by its output_index still finds its call
            {k: v for k, v in _args_delta(1, '","unit":"celsius"}').items() if k != "item_id"},
            # and one known only by its item_id
            {k: v for k, v in _args_delta(0, '","unit":"celsius"}').items() if k != "output_index"},
            {"type": "response.completed", "response": dict(_CREATED, status="completed")},
        ]
    )
    state = WIRE.new_stream_state()
    deltas = feed_all(state, events)
    tc = [d for d in deltas if isinstance(d, ToolCallDelta)]
    assert [(d.index, d.id) for d in tc] == [
        (0, "call_0abc"),
        (1, "call_1abc"),
        (1, "call_1abc"),
        (0, "call_0abc"),
        (1, "call_1abc"),
        (0, "call_0abc"),
    ]
    c = state.result()  # the final response has no output: built from the accumulated calls
    assert c.tool_calls == (
        ToolCall("call_0abc", "get_current_weather", '{"location":"Paris","unit":"celsius"}'),
        ToolCall("call_1abc", "get_current_weather", '{"location":"Oslo","unit":"celsius"}'),
    )
    assert c.finish_reason == "tool_calls"


def test_stream_text_then_call_indexes_calls_from_zero() -> None:
    events = _events(
        [
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {"type": "reasoning", "id": "rs_1"},
            },
            {
                "type": "response.output_item.added",
                "output_index": 1,
                "item": {"type": "message", "id": "m", "content": []},
            },
            {
                "type": "response.output_text.delta",
                "item_id": "m",
                "output_index": 1,
                "content_index": 0,
                "delta": "ok",
            },
            {"type": "response.output_item.added", "output_index": 2, "item": _call_item(2)},
            _args_delta(2, "{}"),
        ]
    )
    deltas = feed_all(WIRE.new_stream_state(), events)
    assert deltas == [
        TextDelta("ok"),
        ToolCallDelta(0, "call_2abc", "get_current_weather", ""),
        ToolCallDelta(0, "call_2abc", "get_current_weather", "{}"),
    ]


@pytest.mark.parametrize(
    ("reason", "finish"),
    [("max_output_tokens", "length"), ("content_filter", "content_filter")],
)
def test_stream_incomplete(reason: str, finish: str) -> None:
    # [SPEC] the ResponseIncompleteEvent example, after some text
    events = text_stream(["Once upon", " a time"])[:-1]
    final = dict(INCOMPLETE_RESPONSE, id=_RESP_ID, incomplete_details={"reason": reason})
    events.append(_event({"type": "response.incomplete", "response": final}, 99))
    state = WIRE.new_stream_state()
    deltas = feed_all(state, events)
    assert isinstance(deltas[-1], StreamEnd)
    c = state.result()
    assert c.text == "Once upon a time"  # its output is empty: what was streamed
    assert (c.finish_reason, c.raw_finish_reason) == (finish, reason)
    assert state.sequence_number == 99


def test_stream_ignores_unknown_and_other_events() -> None:
    events = _events(
        [
            {"type": "response.created", "response": _CREATED},
            {"type": "response.queued", "response": dict(_CREATED, status="queued")},
            {"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "delta": "hmm"},
            {"type": "response.web_search_call.searching", "item_id": "ws_1", "output_index": 0},
            {"type": "response.output_text.annotation.added", "item_id": "m", "annotation": {}},
            {"type": "response.something_from_the_future", "payload": [1, 2]},
            {"type": "keepalive"},
        ]
    )
    state = WIRE.new_stream_state()
    assert feed_all(state, events) == []
    assert state.feed("", "") == []
    assert state.feed("", "  \n") == []
    assert not state.done
    assert state.sequence_number == len(events) - 1
    assert state.partial().text == ""


def test_sequence_number_tracking() -> None:
    state = WIRE.new_stream_state()
    state.feed(
        "response.created",
        json.dumps({"type": "response.created", "response": _CREATED, "sequence_number": 0}),
    )
    assert (state.sequence_number, state.response_id) == (0, _RESP_ID)
    # an event without (or with a bad) sequence number keeps the last one
    state.feed("response.output_text.delta", '{"type":"response.output_text.delta","delta":"x"}')
    state.feed("x", '{"type":"x","sequence_number":"7"}')
    state.feed("x", '{"type":"x","sequence_number":true}')
    assert state.sequence_number == 0
    state.feed("x", '{"type":"x","sequence_number":12}')
    assert state.sequence_number == 12
    # read-only
    with pytest.raises(AttributeError):
        state.sequence_number = 3  # type: ignore[misc]
    with pytest.raises(AttributeError):
        state.response_id = "r"  # type: ignore[misc]


def test_response_id_from_in_progress() -> None:
    state = WIRE.new_stream_state()
    state.feed(
        "response.in_progress",
        json.dumps(
            {
                "type": "response.in_progress",
                "response": {"id": "resp_9", "status": "in_progress"},
                "sequence_number": 1,
            }
        ),
    )
    assert state.response_id == "resp_9"


# [SPEC] the ResponseErrorEvent and ResponseFailedEvent examples
ERROR_EVENT = {
    "type": "error",
    "code": "ERR_SOMETHING",
    "message": "Something went wrong",
    "param": None,
    "sequence_number": 1,
}
FAILED_EVENT = {
    "type": "response.failed",
    "response": {
        "id": "resp_123",
        "object": "response",
        "created_at": 1740855869,
        "status": "failed",
        "error": {"code": "server_error", "message": "The model failed to generate a response."},
        "incomplete_details": None,
        "output": [],
        "usage": None,
    },
    "sequence_number": 1,
}


@pytest.mark.parametrize("event", [ERROR_EVENT, FAILED_EVENT])
def test_error_events_raise_when_fed(event: dict[str, Any]) -> None:
    state = WIRE.new_stream_state()
    with pytest.raises(StreamErrorEvent) as info:
        state.feed(event["type"], json.dumps(event))
    assert info.value.payload == event
    assert not state.done
    # without its type in the data, the SSE event name is enough
    body = {k: v for k, v in event.items() if k != "type"}
    with pytest.raises(StreamErrorEvent):
        WIRE.new_stream_state().feed(event["type"], json.dumps(body))


@pytest.mark.parametrize("event", [ERROR_EVENT, FAILED_EVENT])
def test_classifier_catches_error_events_before_the_wire(event: dict[str, Any]) -> None:
    err = classify_event(event["type"], json.dumps(event), provider="openai", model="m")
    assert err is not None
    # and ordinary events are left to the accumulator
    for name, data in text_stream(["Hi", " error"]):
        assert classify_event(name, data, provider="openai", model="m") is None


@pytest.mark.parametrize(
    "data",
    [
        "not json",
        "[1, 2]",
        '{"type": "response.output_text.delta", "delta": "a"',
        '{"type": "response.completed"}',
        '{"type": "response.completed", "response": "done"}',
        '{"type": "response.completed", "response": {"status": "completed", "output": [3]}}',
        '{"type": "response.incomplete", "response": {"status": 5}}',
    ],
)
def test_stream_malformed_data(data: str) -> None:
    name = "response.completed" if "completed" in data else "message"
    with pytest.raises(WireFormatError):
        WIRE.new_stream_state().feed(name, data)


def test_stream_refusal_delta() -> None:
    # [SPEC] the ResponseRefusalDeltaEvent example (the client's classifier stops on it first)
    events = _events(
        [
            {"type": "response.created", "response": _CREATED},
            {
                "type": "response.refusal.delta",
                "item_id": "msg_123",
                "output_index": 0,
                "content_index": 0,
                "delta": "refusal text so far",
            },
        ]
    )
    state = WIRE.new_stream_state()
    assert feed_all(state, events) == []
    p = state.partial()
    assert (p.refusal, p.finish_reason) == ("refusal text so far", "refusal")


# --------------------------------------------------------------------------- property


@settings(max_examples=200, deadline=None)
@given(
    st.text(min_size=0, max_size=80),
    st.lists(st.integers(min_value=0, max_value=80), max_size=12),
    st.booleans(),
)
def test_any_chunking_gives_back_the_text(text: str, cuts: list[int], final_output: bool) -> None:
    points = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
    pieces = [text[a:b] for a, b in itertools.pairwise(points)]
    state = WIRE.new_stream_state()
    deltas = feed_all(state, text_stream(pieces, final_output=final_output))
    streamed = "".join(d.text for d in deltas if isinstance(d, TextDelta))
    assert streamed == text
    assert state.result().text == text
    assert isinstance(deltas[-1], StreamEnd)
