"""Property tests (hypothesis) of the SSE decoder and of the wire formats' stream parsers.

Example counts (sized so that the module runs in well under 45 s):

* ``test_chunking_does_not_change_what_is_decoded``: 800 examples;
* ``test_decoder_agrees_with_the_reference_interpretation``: 1000 examples;
* ``test_arbitrary_bytes_raise_only_sse_protocol_error``: 600 examples;
* ``test_lines_over_the_limit_raise_only_sse_protocol_error``: 200 examples;
* ``test_wire_stream_parsers_raise_only_wire_format_error``: 500 examples per style (openai,
  anthropic), on event sequences shaped like each dialect's events, with any JSON values;
* ``test_wire_stream_parsers_on_arbitrary_text``: 300 examples per style.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from surefoot.llm._wire import WireFormatError
from surefoot.llm._wires import get_wire
from surefoot.sse import ServerSentEvent, SSEDecoder, SSEProtocolError


def _examples(count: int) -> settings:
    return settings(
        max_examples=examples(count), deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )


def _decode(chunks: list[bytes], decoder: SSEDecoder) -> list[ServerSentEvent]:
    events: list[ServerSentEvent] = []
    for chunk in chunks:
        events += decoder.feed(chunk)
    events += decoder.flush()
    return events


def _cut(stream: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(c, len(stream)) for c in cuts})
    return [stream[a:b] for a, b in zip([0, *points], [*points, len(stream)], strict=True)]


# ------------------------------------------------------------------ the reference


def _reference(stream: bytes) -> tuple[list[ServerSentEvent], str, int | None]:
    """The WHATWG event stream interpretation, literally: the events, the event source's last
    event ID (set from the last event ID buffer on each dispatch) and the reconnection time."""
    text = stream.decode("utf-8", "replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    lines: list[str] = []
    line = ""
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\r" or char == "\n":
            lines.append(line)
            line = ""
            if char == "\r" and text[i + 1 : i + 2] == "\n":
                i += 1
        else:
            line += char
        i += 1
    # `line` is now an unterminated final line: discarded at the end of the stream.
    events: list[ServerSentEvent] = []
    data = event_type = id_buffer = last_event_id = ""
    block_retry: int | None = None
    retry: int | None = None
    for line in lines:
        if line == "":
            last_event_id = id_buffer
            if data:
                events.append(
                    ServerSentEvent(event_type or "message", data[:-1], id_buffer, block_retry)
                )
            data = event_type = ""
            block_retry = None
            continue
        if line[0] == ":":
            continue
        if ":" in line:
            colon = line.index(":")
            name, value = line[:colon], line[colon + 1 :]
            if value[:1] == " ":
                value = value[1:]
        else:
            name, value = line, ""
        if name == "event":
            event_type = value
        elif name == "data":
            data += value + "\n"
        elif name == "id":
            if "\0" not in value:
                id_buffer = value
        elif name == "retry" and value and all("0" <= c <= "9" for c in value):
            retry = block_retry = int(value)
    return events, last_event_id, retry


def test_reference_on_a_hand_checked_stream() -> None:
    stream = (
        b"\xef\xbb\xbf: c\r\nretry: 10\rid: 1\nevent: e\ndata: a\ndata\n\n"
        b"id: 2\x00\ndata:b\r\n\r\nid: 3\nretry: 1x\n\nid: 4\ndata: lost\n"
    )
    assert _reference(stream) == (
        [ServerSentEvent("e", "a\n", "1", 10), ServerSentEvent("message", "b", "1", None)],
        "3",
        10,
    )


# ------------------------------------------------------------------ generated streams

_NAMES = st.sampled_from(
    ["data", "event", "id", "retry", "", "dat", "datas", "Data", " data", "\ufeffdata", "x"]
)
_VALUE_PIECES = st.sampled_from(
    ["", " ", "  ", ":", "7", "0", "42", "x", "\0", "\ufeff", "\u00e9", "\u6771", "\U0001f600",
     "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\u2029", "data", "id: 1", "\ufffd"]
)  # fmt: skip
_SEPARATORS = st.sampled_from(["", ":", ": ", ":  ", "::"])
_ENDS = st.sampled_from(["\n", "\r", "\r\n", "\n\n", "\r\r", "\r\n\r\n", "\n\r"])
_LINE = st.builds(
    lambda name, sep, value, end: name + sep + "".join(value) + end,
    _NAMES,
    _SEPARATORS,
    st.lists(_VALUE_PIECES, max_size=4),
    _ENDS,
)
_RAW = st.sampled_from([b"\xff", b"\xc3", b"\xf0\x9f", b"\xe6\x9d", b"\xed\xa0\x80", b"\x00"])


@st.composite
def _streams(draw: st.DrawFn) -> bytes:
    """Streams of fields, values and line endings, with BOMs, invalid UTF-8 and a possibly
    unterminated final line."""
    parts = [line.encode() for line in draw(st.lists(_LINE, max_size=25))]
    for _ in range(draw(st.integers(0, 2))):  # a few invalid or split UTF-8 sequences
        if parts:
            at = draw(st.integers(0, len(parts) - 1))
            parts[at] = parts[at][:-1] + draw(_RAW) + parts[at][-1:]
    stream = b"\xef\xbb\xbf" * draw(st.integers(0, 2)) + b"".join(parts)
    if draw(st.booleans()):
        stream += draw(_LINE).encode().rstrip(b"\r\n")  # cut before its line end
    return stream


@_examples(800)
@given(
    stream=st.one_of(_streams(), st.binary(max_size=300)),
    cuts=st.lists(st.integers(0, 400), max_size=12),
    bytewise=st.booleans(),
)
def test_chunking_does_not_change_what_is_decoded(
    stream: bytes, cuts: list[int], bytewise: bool
) -> None:
    whole = SSEDecoder()
    expected = _decode([stream], whole)
    chunks = [stream[i : i + 1] for i in range(len(stream))] if bytewise else _cut(stream, cuts)
    split = SSEDecoder()
    assert _decode(chunks, split) == expected
    assert (split.last_event_id, split.retry) == (whole.last_event_id, whole.retry)


@_examples(1000)
@given(stream=_streams(), cuts=st.lists(st.integers(0, 400), max_size=8))
def test_decoder_agrees_with_the_reference_interpretation(stream: bytes, cuts: list[int]) -> None:
    decoder = SSEDecoder()
    events = _decode(_cut(stream, cuts), decoder)
    assert (events, decoder.last_event_id, decoder.retry) == _reference(stream)


# ------------------------------------------------------------------ only SSEProtocolError


@_examples(600)
@given(
    stream=st.one_of(
        st.binary(max_size=400),
        _streams(),
        st.lists(st.sampled_from([b"\r", b"\n", b"data:", b"\xff", b"x" * 40, b"\xf0"])).map(
            b"".join
        ),
    ),
    cuts=st.lists(st.integers(0, 400), max_size=10),
    max_event_bytes=st.integers(1, 64),
    max_line_bytes=st.one_of(st.none(), st.integers(1, 80)),
)
def test_arbitrary_bytes_raise_only_sse_protocol_error(
    stream: bytes, cuts: list[int], max_event_bytes: int, max_line_bytes: int | None
) -> None:
    decoder = SSEDecoder(max_event_bytes=max_event_bytes, max_line_bytes=max_line_bytes)
    try:
        events = _decode(_cut(stream, cuts), decoder)
    except SSEProtocolError:
        with pytest.raises(SSEProtocolError):  # and the decoder stays failed
            decoder.feed(b"data: x\n\n")
        return
    for event in events:
        assert len(event.data.encode()) <= max_event_bytes
        assert isinstance(event.event, str) and isinstance(event.id, str)
        assert event.retry is None or event.retry >= 0


@_examples(200)
@given(
    size=st.integers(1, 5000),
    field=st.sampled_from([b"data:", b":", b"id:", b"retry:", b""]),
    fill=st.sampled_from([b"x", b"\xc3\xa9", b"\xff", b"\r\xff"]),
    chunk=st.sampled_from([1, 7, 100, 4096, 100_000]),
)
def test_lines_over_the_limit_raise_only_sse_protocol_error(
    size: int, field: bytes, fill: bytes, chunk: int
) -> None:
    decoder = SSEDecoder(max_event_bytes=size)
    stream = field + fill * (size + 100) + b"\n\n"
    try:
        events = _decode(_cut(stream, list(range(chunk, len(stream), chunk))), decoder)
    except SSEProtocolError:
        return
    assert all(len(e.data.encode()) <= size for e in events)


# ------------------------------------------------------------------ the wire formats' parsers

_KEYS = [
    "type", "index", "delta", "content", "text", "choices", "finish_reason", "usage", "id",
    "model", "message", "tool_calls", "function", "name", "arguments", "refusal", "error",
    "content_block", "input", "partial_json", "stop_reason", "prompt_tokens",
    "completion_tokens", "total_tokens", "input_tokens", "output_tokens",
    "cache_read_input_tokens", "cache_creation_input_tokens", "prompt_tokens_details",
    "cached_tokens", "completion_tokens_details", "reasoning_tokens",
]  # fmt: skip
_KINDS = [
    "message_start", "content_block_start", "content_block_delta", "content_block_stop",
    "message_delta", "message_stop", "ping", "text_delta", "input_json_delta", "text",
    "tool_use", "error", "function", "chat.completion.chunk",
]  # fmt: skip
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([*_KINDS, "", "stop", "tool_calls", "length", "end_turn", "{", '{"a": 1}']),
    st.text(max_size=8),
)
_JSON: Any = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(_KEYS), inner, max_size=5),
    ),
    max_leaves=20,
)
_EVENT_OBJECT = st.dictionaries(st.sampled_from(_KEYS), _JSON, max_size=6)


def _event_data(obj: Any) -> str:
    return json.dumps(obj, allow_nan=True)


_ANTHROPIC_EVENT = st.one_of(
    st.fixed_dictionaries(
        {"type": st.just("message_start")},
        optional={"message": st.fixed_dictionaries({}, optional={"id": _JSON, "usage": _JSON})},
    ),
    st.fixed_dictionaries(
        {"type": st.just("content_block_start"), "index": st.integers(0, 3) | _SCALARS},
        optional={
            "content_block": st.fixed_dictionaries(
                {"type": st.sampled_from(["text", "tool_use", "thinking"])},
                optional={"id": _JSON, "name": _JSON, "input": _JSON, "text": _JSON},
            )
        },
    ),
    st.fixed_dictionaries(
        {"type": st.just("content_block_delta"), "index": st.integers(0, 3) | _SCALARS},
        optional={
            "delta": st.fixed_dictionaries(
                {"type": st.sampled_from(["text_delta", "input_json_delta", "other"])},
                optional={
                    "text": _JSON,
                    "partial_json": st.sampled_from(['{"a"', ": 1}", "", "]"]),
                },
            )
        },
    ),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["message_delta", "message_stop"])},
        optional={"delta": _JSON, "usage": _JSON},
    ),
)
_OPENAI_EVENT = st.fixed_dictionaries(
    {},
    optional={
        "id": _JSON,
        "model": _JSON,
        "usage": st.dictionaries(st.sampled_from(_KEYS), _JSON, max_size=4),
        "choices": st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    "index": st.just(0) | _SCALARS,
                    "finish_reason": _JSON,
                    "delta": st.fixed_dictionaries(
                        {},
                        optional={
                            "content": _JSON,
                            "refusal": _JSON,
                            "tool_calls": st.lists(
                                st.fixed_dictionaries(
                                    {},
                                    optional={
                                        "index": st.integers(0, 3) | _SCALARS,
                                        "id": _JSON,
                                        "function": st.fixed_dictionaries(
                                            {}, optional={"name": _JSON, "arguments": _JSON}
                                        ),
                                    },
                                ),
                                max_size=3,
                            ),
                        },
                    ),
                },
            ),
            max_size=2,
        ),
    },
)
_EVENT_DATA = st.one_of(
    _ANTHROPIC_EVENT.map(_event_data),
    _OPENAI_EVENT.map(_event_data),
    _EVENT_OBJECT.map(_event_data),
    _JSON.map(_event_data),
    st.sampled_from(["[DONE]", " [DONE] ", "", " ", "{", "null", "NaN", '{"a": Infinity}']),
    st.text(max_size=40),
)
_EVENT_NAMES = st.sampled_from(["", "message", "error", *_KINDS])


def _run_state(style: str, events: list[tuple[str, str]]) -> None:
    state = get_wire(style).new_stream_state()
    for name, data in events:
        try:
            deltas = state.feed(name, data)
        except WireFormatError:  # StreamErrorEvent is one
            continue
        assert isinstance(deltas, list)
    state.partial()
    assert isinstance(state.done, bool)
    try:
        state.result()
    except WireFormatError:
        assert not state.done


@pytest.mark.parametrize("style", ["openai", "anthropic"])
@_examples(500)
@given(events=st.lists(st.tuples(_EVENT_NAMES, _EVENT_DATA), max_size=8))
def test_wire_stream_parsers_raise_only_wire_format_error(
    style: str, events: list[tuple[str, str]]
) -> None:
    _run_state(style, events)


@pytest.mark.parametrize("style", ["openai", "anthropic"])
@_examples(300)
@given(events=st.lists(st.tuples(st.text(max_size=10), st.text(max_size=60)), max_size=6))
def test_wire_stream_parsers_on_arbitrary_text(style: str, events: list[tuple[str, str]]) -> None:
    _run_state(style, events)
