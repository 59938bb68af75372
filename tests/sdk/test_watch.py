"""StreamWatch (pure): what a provider's event stream says about itself, read from its bytes.

Preamble vs answer for OpenAI chat chunks, Anthropic events and the Responses API; the final
events; error events and the exact byte offset where they begin, whatever the chunk boundaries
(hypothesis splits a stream at random points and must read it as when fed whole); every line-end
form; keep-alives; oversized events; garbage."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from surefoot.sdk._watch import StreamWatch

# -- events ------------------------------------------------------------------------------------


def ev(data: Any = None, event: str | None = None, eol: bytes = b"\n") -> bytes:
    """One SSE event (no ``id:`` field, like the providers); ``data`` a dict is JSON."""
    lines: list[bytes] = []
    if event is not None:
        lines.append(b"event: " + event.encode())
    if data is not None:
        text = data if isinstance(data, (str, bytes)) else json.dumps(data)
        lines.append(b"data: " + (text if isinstance(text, bytes) else text.encode()))
    return eol.join(lines) + eol + eol


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    """An OpenAI ``chat.completion.chunk``."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-test",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        **extra,
    }


ROLE = chunk({"role": "assistant", "content": "", "refusal": None})
TOKEN = chunk({"content": "Hel"})
FINISH = chunk({}, "stop")
AZURE_FILTER = {
    "id": "",
    "object": "",
    "created": 0,
    "model": "",
    "choices": [],
    "prompt_filter_results": [
        {"prompt_index": 0, "content_filter_results": {"hate": {"filtered": False}}}
    ],
}
USAGE = {
    "id": "chatcmpl-1",
    "object": "chat.completion.chunk",
    "created": 1,
    "model": "gpt-test",
    "choices": [],
    "usage": {"prompt_tokens": 3, "completion_tokens": 0, "total_tokens": 3},
}
OPENAI_ERROR = {"error": {"message": "overloaded", "type": "server_error", "code": None}}

ANTHROPIC_PREAMBLE = [
    (
        "message_start",
        {
            "type": "message_start",
            "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": []},
        },
    ),
    (
        "content_block_start",
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    ),
    ("ping", {"type": "ping"}),
]
ANTHROPIC_DELTA = (
    "content_block_delta",
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}},
)
ANTHROPIC_TAIL = [
    ("content_block_stop", {"type": "content_block_stop", "index": 0}),
    (
        "message_delta",
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}},
    ),
    ("message_stop", {"type": "message_stop"}),
]
ANTHROPIC_ERROR = (
    "error",
    {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
)


def responses_event(name: str, **fields: Any) -> tuple[str, dict[str, Any]]:
    resp = {"id": "resp_1", "object": "response", "status": "in_progress", "error": None}
    return name, {"type": name, "sequence_number": 0, "response": resp, **fields}


RESPONSES_PREAMBLE = [
    responses_event("response.created"),
    responses_event("response.in_progress"),
    (
        "response.output_item.added",
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"id": "msg_1", "type": "message", "role": "assistant", "content": []},
        },
    ),
    (
        "response.content_part.added",
        {
            "type": "response.content_part.added",
            "item_id": "msg_1",
            "output_index": 0,
            "content_index": 0,
            "part": {"type": "output_text", "text": "", "annotations": []},
        },
    ),
]
RESPONSES_DELTA = (
    "response.output_text.delta",
    {
        "type": "response.output_text.delta",
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "delta": "Hi",
    },
)


def named(events: list[tuple[str, dict[str, Any]]], eol: bytes = b"\n") -> bytes:
    return b"".join(ev(data, name, eol) for name, data in events)


def watch(*chunks: bytes, max_event: int | None = None) -> StreamWatch:
    w = StreamWatch() if max_event is None else StreamWatch(max_event)
    for c in chunks:
        w.feed(c)
    return w


def state(w: StreamWatch) -> tuple[bool, bool, tuple[str, str] | None, int]:
    return (w.started, w.done, w.error, w.error_at)


# -- OpenAI chat completions -------------------------------------------------------------------


def test_fresh_watch_has_seen_nothing() -> None:
    assert state(StreamWatch()) == (False, False, None, -1)


@pytest.mark.parametrize(
    "preamble",
    [
        ROLE,
        chunk({"role": "assistant"}),
        chunk({}),
        chunk({"role": "assistant", "content": None, "tool_calls": []}),
        AZURE_FILTER,
        USAGE,
    ],
    ids=["role-empty-content", "role-only", "empty-delta", "null-and-empty", "azure", "usage"],
)
def test_openai_preamble_chunks_do_not_start(preamble: dict[str, Any]) -> None:
    w = watch(ev(preamble))
    assert state(w) == (False, False, None, -1)
    w.feed(ev(TOKEN))
    assert w.started and not w.done


@pytest.mark.parametrize(
    "delta",
    [
        {"content": "Hel"},
        {"role": "assistant", "content": "x"},
        {"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f", "arguments": ""}}]},
        {"refusal": "I cannot"},
        {"reasoning_content": "thinking"},
    ],
    ids=["content", "role-and-content", "tool-call", "refusal", "reasoning"],
)
def test_openai_chunk_with_any_part_of_the_answer_starts(delta: dict[str, Any]) -> None:
    w = watch(ev(ROLE), ev(chunk(delta)))
    assert w.started and not w.done and w.error is None


def test_azure_filter_then_role_then_token() -> None:
    w = watch(ev(AZURE_FILTER) + ev(ROLE))
    assert not w.started
    w.feed(ev(TOKEN))
    assert w.started


def test_done_marker_ends_the_stream() -> None:
    w = watch(ev(ROLE), ev(TOKEN))
    assert not w.done
    w.feed(ev("[DONE]"))
    assert w.done and w.error is None


def test_done_alone_counts_as_started_and_done() -> None:
    # An empty answer: nothing to retry unseen, the SDK reads it as complete.
    assert state(watch(ev(ROLE) + ev("[DONE]"))) == (True, True, None, -1)


@pytest.mark.parametrize("spacing", [b'"finish_reason":"stop"', b'"finish_reason": "length"'])
def test_finish_reason_ends_the_stream(spacing: bytes) -> None:
    body = json.dumps(FINISH, separators=(",", ":")).encode()
    body = body.replace(b'"finish_reason":"stop"', spacing)
    w = watch(ev(ROLE), ev(TOKEN))
    assert not w.done
    w.feed(ev(body))
    assert w.done and w.started


def test_null_finish_reason_does_not_end_the_stream() -> None:
    w = watch(ev(ROLE), ev(TOKEN), ev(chunk({"content": "lo"}, None)))
    assert w.started and not w.done


def test_finish_reason_in_the_first_chunk_starts_and_ends() -> None:
    # A content-filtered answer with no text: an answer all the same.
    assert state(watch(ev(chunk({}, "content_filter")))) == (True, True, None, -1)


def test_finish_reason_inside_the_text_is_not_an_end() -> None:
    w = watch(ev(ROLE), ev(chunk({"content": 'say "finish_reason":"stop" and [DONE]'})))
    assert w.started and not w.done


def test_openai_error_event() -> None:
    head = ev(ROLE) + ev(TOKEN)
    err = ev(OPENAI_ERROR)
    w = watch(head + err + ev("[DONE]"))
    assert w.error == ("message", json.dumps(OPENAI_ERROR))
    assert w.error_at == len(head)
    assert not w.done  # nothing past the error is read


@pytest.mark.parametrize(
    "body",
    [
        {"id": "x", "object": "chat.completion.chunk", "error": {"message": "boom"}},
        {"type": "error", "message": "boom"},
    ],
    ids=["error-key-not-first", "type-error"],
)
def test_other_unnamed_error_objects(body: dict[str, Any]) -> None:
    head = ev(ROLE) + ev(TOKEN)
    w = watch(head + ev(body))
    assert w.error is not None and w.error[0] == "message"
    assert w.error_at == len(head)


def test_the_word_error_in_the_answer_is_not_an_error() -> None:
    w = watch(
        ev(ROLE),
        ev(chunk({"content": 'an "error": {"message": "x"} in the text'})),
        ev(chunk({"content": "error"}, error=None)),
        ev(chunk({"content": "x"}, "stop")),
    )
    assert state(w) == (True, True, None, -1)


def test_error_before_any_answer_is_reported_unstarted() -> None:
    w = watch(ev(ROLE) + ev(OPENAI_ERROR))
    assert not w.started
    assert w.error is not None and w.error_at == len(ev(ROLE))


def test_nothing_is_read_after_the_first_error() -> None:
    w = watch(ev(ROLE) + ev(TOKEN) + ev(OPENAI_ERROR))
    first = (w.error, w.error_at)
    w.feed(ev({"error": {"message": "second"}}))
    w.feed(ev("[DONE]"))
    assert (w.error, w.error_at) == first
    assert not w.done


# -- Anthropic ---------------------------------------------------------------------------------


def test_anthropic_stream() -> None:
    w = watch(named(ANTHROPIC_PREAMBLE))
    assert state(w) == (False, False, None, -1)
    w.feed(named([ANTHROPIC_DELTA]))
    assert w.started and not w.done
    w.feed(named(ANTHROPIC_TAIL[:1]))
    assert not w.done
    w.feed(named(ANTHROPIC_TAIL[1:2]))
    # message_delta's stop_reason ends the answer: a stream closed there is complete
    assert w.done and w.error is None
    w.feed(named(ANTHROPIC_TAIL[2:]))
    assert w.done and w.error is None


def test_anthropic_error_event_after_the_start() -> None:
    head = named([*ANTHROPIC_PREAMBLE, ANTHROPIC_DELTA])
    w = watch(head + named([ANTHROPIC_ERROR, *ANTHROPIC_TAIL]))
    assert w.error == ("error", json.dumps(ANTHROPIC_ERROR[1]))
    assert w.error_at == len(head)
    assert w.started and not w.done


def test_anthropic_error_event_in_the_preamble() -> None:
    head = named(ANTHROPIC_PREAMBLE[:1])
    w = watch(head + named([ANTHROPIC_ERROR]))
    assert not w.started and w.error is not None and w.error_at == len(head)


def test_anthropic_delta_quoting_error_is_content() -> None:
    delta = ("content_block_delta", {"type": "content_block_delta", "delta": {"text": '"error"'}})
    w = watch(named([*ANTHROPIC_PREAMBLE, delta]))
    assert w.started and w.error is None


# -- OpenAI Responses API ----------------------------------------------------------------------


def test_responses_preamble_then_delta() -> None:
    w = watch(named(RESPONSES_PREAMBLE))
    assert state(w) == (False, False, None, -1)
    w.feed(named([RESPONSES_DELTA]))
    assert w.started and not w.done


@pytest.mark.parametrize("final", ["response.completed", "response.incomplete"])
def test_responses_final_events(final: str) -> None:
    w = watch(named([*RESPONSES_PREAMBLE, RESPONSES_DELTA]))
    w.feed(named([("response.output_text.done", {"type": "response.output_text.done"})]))
    assert not w.done
    w.feed(named([responses_event(final)]))
    assert w.done and w.error is None


@pytest.mark.parametrize(
    "error",
    [
        responses_event("response.failed"),
        ("error", {"type": "error", "code": "server_error", "message": "boom", "param": None}),
    ],
    ids=["response.failed", "error"],
)
@pytest.mark.parametrize("after_delta", [False, True])
def test_responses_error_events(error: tuple[str, dict[str, Any]], after_delta: bool) -> None:
    head = named([*RESPONSES_PREAMBLE, *([RESPONSES_DELTA] if after_delta else [])])
    w = watch(head + named([error]))
    assert w.error == (error[0], json.dumps(error[1]))
    assert w.error_at == len(head)
    assert w.started is after_delta


def test_responses_created_carries_error_null_but_is_no_error() -> None:
    # response.created's response object has "error": null: a named, ordinary event.
    w = watch(named(RESPONSES_PREAMBLE[:1]))
    assert w.error is None and not w.started


def test_responses_events_without_event_lines() -> None:
    # Some gateways send the Responses API as bare ``data:`` events, the name only in the
    # JSON's "type" (the openai SDK reads them so): the same preamble, end and failure.
    def bare(events: list[tuple[str, dict[str, Any]]]) -> bytes:
        return b"".join(ev(data) for _, data in events)

    w = watch(bare(RESPONSES_PREAMBLE))
    assert not w.started
    w.feed(bare([RESPONSES_DELTA]))
    assert w.started and not w.done
    w.feed(bare([responses_event("response.completed")]))
    assert w.done and w.error is None

    head = bare([*RESPONSES_PREAMBLE, RESPONSES_DELTA])
    failed = watch(head + bare([responses_event("response.failed")]))
    assert failed.error is not None and failed.error[0] == "response.failed"
    assert failed.error_at == len(head)


# -- line ends, keep-alives --------------------------------------------------------------------


@pytest.mark.parametrize("eol", [b"\r\n", b"\r", b"\n"], ids=["crlf", "cr", "lf"])
def test_line_end_forms(eol: bytes) -> None:
    pre = named(ANTHROPIC_PREAMBLE, eol)
    w = watch(pre)
    assert not w.started
    w.feed(named([ANTHROPIC_DELTA], eol))
    assert w.started
    head = pre + named([ANTHROPIC_DELTA], eol)
    w = watch(head + named([ANTHROPIC_ERROR], eol))
    assert w.error is not None and w.error_at == len(head)

    openai_head = ev(ROLE, eol=eol) + ev(TOKEN, eol=eol)
    w = watch(ev(ROLE, eol=eol))
    assert not w.started
    w = watch(openai_head + ev("[DONE]", eol=eol))
    assert w.started and w.done
    w = watch(openai_head + ev(OPENAI_ERROR, eol=eol))
    assert w.error_at == len(openai_head)


@pytest.mark.parametrize("eol", [b"\r\n", b"\r", b"\n"], ids=["crlf", "cr", "lf"])
def test_an_event_ends_at_the_first_byte_of_its_empty_line(eol: bytes) -> None:
    # As the SDKs' SSE decoders read it: CR ends a line at once (an LF after it is part of
    # it), so "...\r\n\r" already holds the whole event; the watch must not lag behind.
    head = ev(ROLE, eol=eol)
    token = ev(TOKEN, eol=eol)
    complete = len(token) - len(eol) + 1  # through the empty line's first byte
    w = watch(head, token[: complete - 1])
    assert not w.started
    w.feed(token[complete - 1 : complete])
    assert w.started
    err = ev(OPENAI_ERROR, eol=eol)
    w.feed(token[complete:] + err[: len(err) - len(eol) + 1])
    assert w.error is not None and w.error_at == len(head + token)


@pytest.mark.parametrize(
    ("stream", "events"),
    [
        (b"data: a\n\r\ndata: b\r\n\n", 2),  # LF then CRLF, CRLF then LF: mixed line ends
        (b"data: a\r\r\ndata: b\n\r", 2),
        (b"data: a\r\ndata: b\r\n", 0),  # CRLF is one line end: no blank line
    ],
)
def test_mixed_line_ends(stream: bytes, events: int) -> None:
    errors = stream.replace(b"data: a", b'data: {"error": 1}').replace(b"data: b", b"data: x")
    w = watch(errors)
    assert (w.error is not None) is (events > 0)
    if events:
        assert w.error == ("message", '{"error": 1}') and w.error_at == 0


@pytest.mark.parametrize(
    "keepalive", [b": ping\n\n", b":\n\n", b": keep-alive\r\n\r\n", b"\n\n", b"id: 7\n\n"]
)
def test_comments_and_keepalives_are_ignored(keepalive: bytes) -> None:
    w = watch(keepalive * 3)
    assert state(w) == (False, False, None, -1)
    w.feed(ev(ROLE) + keepalive)
    assert not w.started
    w.feed(ev(TOKEN) + keepalive + ev(FINISH))
    assert w.started and w.done and w.error is None


def test_comment_mentioning_error_is_not_an_error() -> None:
    w = watch(ev(ROLE), ev(TOKEN), b': {"error": {"message": "not an event"}}\n\n')
    assert w.error is None


# -- oversized events and garbage ---------------------------------------------------------------


def test_oversized_event_is_passed_on_uninspected_with_bounded_buffer() -> None:
    limit = 1024
    w = StreamWatch(limit)
    w.feed(ev(ROLE))
    assert not w.started
    w.feed(b"data: ")
    for _ in range(400):  # 400 KiB of one event without a blank line, 1 KiB at a time
        w.feed(b"x" * 1024)
        assert len(w._buf) <= limit + 1024  # the buffer is the point
    assert w.started  # uninspected: counted as part of the answer, not retried
    assert w.error is None and not w.done


def test_events_after_an_oversized_one_are_still_read() -> None:
    limit = 256
    big = b"data: " + b'{"error": "' + b"y" * 2000 + b'"}\n\n'
    w = StreamWatch(limit)
    stream = ev(ROLE) + big + ev(TOKEN) + ev(OPENAI_ERROR)
    for i in range(0, len(stream), 100):
        w.feed(stream[i : i + 100])
    assert w.started
    assert w.error is not None and json.loads(w.error[1]) == OPENAI_ERROR
    assert w.error_at == len(ev(ROLE) + big + ev(TOKEN))


def test_oversized_error_event_is_not_inspected() -> None:
    limit = 256
    big = ev({"error": {"message": "z" * 2000}})
    w = StreamWatch(limit)
    for i in range(0, len(big), 64):
        w.feed(big[i : i + 64])
    assert w.error is None  # never parsed: too large to hold
    w.feed(ev("[DONE]"))
    assert w.done


@pytest.mark.parametrize(
    "garbage",
    [
        b"data: not json at all\n\n",
        b'data: {"choices": "nope", "error": 3}\n\n',
        b'data: {"choices": [1, null]}\n\n',
        b'data: {"choices": [{"delta": "x"}]}\n\n',
        b"data: null\n\n",
        b"data: 12\n\n",
        b'data: ["error"]\n\n',
        b'data: \xff\xfe\x00 "error"\n\n',
        b"event: \xff\xfe\ndata: \xff\n\n",
        b"data: " + b"[" * 100_000 + b'"error"\n\n',
        b"data: " + b'{"a":' * 50_000 + b'"error"\n\n',
        b"\x00\x01\x02\n\n",
        b"data:\n\n",
    ],
    ids=lambda g: repr(g[:24]),
)
def test_garbage_does_not_raise(garbage: bytes) -> None:
    w = watch(ev(ROLE), garbage)
    assert w.error is None and not w.done
    w.feed(ev(TOKEN) + ev(OPENAI_ERROR))
    assert w.started and w.error is not None


def test_empty_chunks_change_nothing() -> None:
    w = watch(b"", ev(ROLE), b"", b"")
    assert state(w) == (False, False, None, -1)


# -- any chunk boundaries: the same reading ----------------------------------------------------

_OPENAI_EVENTS = [
    ev(ROLE),
    ev(AZURE_FILTER),
    ev(TOKEN),
    ev(chunk({"content": 'text with "error" and [DONE] inside'})),
    ev(FINISH),
    ev(USAGE),
    ev("[DONE]"),
    ev(OPENAI_ERROR),
    b": ping\n\n",
]
_ANTHROPIC_EVENTS = [
    named(ANTHROPIC_PREAMBLE[:1]),
    named(ANTHROPIC_PREAMBLE[1:2]),
    named(ANTHROPIC_PREAMBLE[2:]),
    named([ANTHROPIC_DELTA]),
    *(named([e]) for e in ANTHROPIC_TAIL),
    named([ANTHROPIC_ERROR]),
]
_RESPONSES_EVENTS = [
    *(named([e]) for e in RESPONSES_PREAMBLE),
    named([RESPONSES_DELTA]),
    named([responses_event("response.completed")]),
    named([responses_event("response.failed")]),
]


def _eol(event: bytes, eol: bytes) -> bytes:
    return event.replace(b"\n", eol) if eol != b"\n" else event


@st.composite
def streams(draw: st.DrawFn) -> bytes:
    family = draw(st.sampled_from([_OPENAI_EVENTS, _ANTHROPIC_EVENTS, _RESPONSES_EVENTS]))
    events = draw(st.lists(st.sampled_from(family), min_size=1, max_size=10))
    eol = draw(st.sampled_from([b"\n", b"\r\n", b"\r"]))
    # Now and then extra blank lines between events (legal SSE, seen from some gateways).
    extra = draw(st.lists(st.sampled_from([0, 0, 1]), min_size=len(events), max_size=len(events)))
    return b"".join(eol * n + _eol(e, eol) for e, n in zip(events, extra, strict=True))


@st.composite
def split(draw: st.DrawFn, stream: bytes) -> list[bytes]:
    cuts = draw(st.lists(st.integers(0, len(stream)), max_size=40))
    if draw(st.booleans()) and len(stream) < 3000:
        cuts = list(range(len(stream)))  # one byte at a time
    points = [0, *sorted(set(cuts)), len(stream)]
    return [stream[a:b] for a, b in itertools.pairwise(points)]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_split_reads_like_the_whole(data: st.DataObject) -> None:
    stream = data.draw(streams())
    whole = watch(stream)
    parts = data.draw(split(stream))
    assert b"".join(parts) == stream
    assert state(watch(*parts)) == state(whole)
    if whole.error is not None:
        # error_at is where the error event begins: everything before it is whole events.
        rest = stream[whole.error_at :]
        assert rest.startswith((b'data: {"error"', b"event: error", b"event: response.failed"))
        assert watch(stream[: whole.error_at]).error is None


def _sdk_events(data: bytes) -> list[Any]:
    """The events the openai SDK's own SSE decoder has dispatched once it has read ``data``."""
    from openai._streaming import SSEDecoder

    return list(SSEDecoder().iter_bytes(iter([data])))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stream=streams())
def test_never_behind_the_sdk_decoder(stream: bytes) -> None:
    # Byte by byte: once the SDK has an error event, the watch has it too (so the transport
    # raises before handing the SDK the byte that completes it), and no later.
    w = StreamWatch()
    for k in range(1, len(stream) + 1):
        w.feed(stream[k - 1 : k])
        sdk_has_error = any(
            e.event in ("error", "response.failed") or e.data.startswith('{"error"')
            for e in _sdk_events(stream[:k])
        )
        assert (w.error is not None) is sdk_has_error, stream[:k]
        if sdk_has_error:
            break


@settings(max_examples=100, deadline=None)
@given(
    before=st.lists(st.sampled_from(_OPENAI_EVENTS[:6]), max_size=6),
    after=st.lists(st.sampled_from(_OPENAI_EVENTS), max_size=4),
    data=st.data(),
)
def test_error_offset_is_exact_for_any_split(
    before: list[bytes], after: list[bytes], data: st.DataObject
) -> None:
    head = b"".join(before)
    stream = head + ev(OPENAI_ERROR) + b"".join(after)
    parts = data.draw(split(stream))
    w = watch(*parts)
    assert w.error is not None and w.error_at == len(head)
    # What the transport hands on before raising: every event before the error, nothing of it.
    assert stream[: w.error_at] == head
