"""Regression tests for two defects of :class:`surefoot.sse.SSEDecoder`.

* 6 — ``last_event_id`` moved on the ``id:`` line instead of when the event was dispatched by
  its blank line (WHATWG: the ``id`` field sets the *last event ID buffer*, which becomes the
  event source's last event ID only on dispatch), so resuming after a cut between ``id:`` and
  the blank line skipped an event that was never delivered.
* 7 — the event and line limits held up to ~30x their size in memory (a list of small pieces
  per partial line, a list of small strings per pending data line), and NaN / infinite / float
  / bool limits were accepted and switched the limit off.
"""

from __future__ import annotations

import math
import tracemalloc
from collections.abc import Callable, Iterator

import pytest

from surefoot.sse import ServerSentEvent, SSEDecoder, SSEProtocolError

# ------------------------------------------------------------------ 6: last_event_id on dispatch


def test_last_event_id_moves_only_when_the_event_is_dispatched() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"id: 1\ndata: a\n\nid: 2\ndata: b\n") == [
        ServerSentEvent(data="a", id="1")
    ]
    assert decoder.last_event_id == "1"  # event 2 is not delivered yet
    assert decoder.feed(b"\n") == [ServerSentEvent(data="b", id="2")]
    assert decoder.last_event_id == "2"


def test_a_cut_between_id_and_blank_line_resumes_from_the_last_delivered_event() -> None:
    decoder = SSEDecoder()
    delivered = decoder.feed(b"id: 1\ndata: a\n\nid: 2\ndata: b\n")  # the connection drops
    decoder.flush()
    assert [e.id for e in delivered] == ["1"]
    assert decoder.last_event_id == "1"  # the Last-Event-ID to resume from: event 2 is resent
    # The new stream starts from the last dispatched id, not from the undelivered "2".
    assert decoder.feed(b"data: b again\n\n") == [ServerSentEvent(data="b again", id="1")]
    assert decoder.last_event_id == "1"


def test_id_in_a_block_without_data_takes_effect_on_its_blank_line() -> None:
    decoder = SSEDecoder()
    decoder.feed(b"id: 5\n")
    assert decoder.last_event_id == ""
    assert decoder.feed(b"\n") == []  # dispatch with no data: nothing delivered, id set
    assert decoder.last_event_id == "5"
    assert decoder.feed(b"data: x\n\n") == [ServerSentEvent(data="x", id="5")]


def test_id_changed_twice_in_one_block_dispatches_the_final_value() -> None:
    decoder = SSEDecoder()
    decoder.feed(b"data: x\nid: 1\nid: 2\nid: bad\x00\n")
    assert decoder.last_event_id == ""
    assert decoder.feed(b"\r\n") == [ServerSentEvent(data="x", id="2")]
    assert decoder.last_event_id == "2"


def test_feed_that_raises_does_not_advance_last_event_id() -> None:
    decoder = SSEDecoder(max_event_bytes=4)
    with pytest.raises(SSEProtocolError):
        decoder.feed(b"id: 1\ndata: a\n\nid: 2\ndata: toolong\n\n")
    assert decoder.last_event_id == ""  # feed() raised: event "1" was never handed over


# ------------------------------------------------------------------ 7: limits and memory

LIMIT = 1 << 18  # 256 KiB: large against the decoder's constant overhead, quick to trace


def _split(stream: bytes, size: int) -> Iterator[bytes]:
    view = memoryview(stream)
    for start in range(0, len(stream), size):
        yield bytes(view[start : start + size])


def _peak_ratio(decoder: SSEDecoder, chunks: Iterator[bytes]) -> tuple[float, int]:
    """The decoder's peak traced memory while fed ``chunks``, over its ``max_event_bytes``."""
    events = 0
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        for chunk in chunks:
            events += len(decoder.feed(chunk))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return (peak - base) / decoder.max_event_bytes, events


_BODY = b"x" * (LIMIT - 16)
_SHORT_LINES = b"data:ab\n" * (LIMIT // 3 - 16)
_SCENARIOS: dict[str, Callable[[], Iterator[bytes]]] = {
    # before the fix: ~30x (a list of 2-character pieces for one unterminated line)
    "one long line in 2-byte chunks": lambda: _split(b"data:" + _BODY, 2),
    "one long line in 7-byte chunks": lambda: _split(b"data:" + _BODY + b"\n\n", 7),
    # before: ~3x (the decoded chunk, its lines and the data slice all alive)
    "one long event in one chunk": lambda: iter([b"data:" + _BODY + b"\n\n"]),
    # before: ~20x (one small str per data line, in a list)
    "short data lines in 64 KiB chunks": lambda: _split(_SHORT_LINES, 65536),
    # before: ~45x (the whole chunk split into lines at once)
    "short data lines in one chunk": lambda: iter([_SHORT_LINES + b"\n"]),
    "short data lines in 11-byte chunks": lambda: _split(_SHORT_LINES, 11),
    "empty data lines in 64 KiB chunks": lambda: _split(b"data\n" * (LIMIT - 16), 65536),
}


@pytest.mark.parametrize("name", list(_SCENARIOS))
def test_memory_held_is_a_small_multiple_of_the_event_limit(name: str) -> None:
    ratio, _ = _peak_ratio(SSEDecoder(max_event_bytes=LIMIT), _SCENARIOS[name]())
    assert ratio <= 3.0, f"{name}: peak {ratio:.1f}x max_event_bytes"


def test_memory_stays_bounded_up_to_the_limit_error() -> None:
    decoder = SSEDecoder(max_event_bytes=LIMIT)
    with pytest.raises(SSEProtocolError, match="max_line_bytes"):
        _peak_ratio(decoder, _split(b"data:" + _BODY * 2, 65536))
    decoder = SSEDecoder(max_event_bytes=LIMIT)
    with pytest.raises(SSEProtocolError, match="max_event_bytes"):
        _peak_ratio(decoder, _split(b"data\n" * (LIMIT + 8192) + b"\n", 65536))


def test_events_decoded_through_the_pending_buffers_are_exact() -> None:
    # The bounded buffers (joined groups of lines, joined pieces of a line) lose nothing.
    stream = b"data:ab\n" * 5000 + b"data:\n" * 70 + b"data: " + b"yz" * 3000 + b"\n\n"
    expected = "\n".join(["ab"] * 5000 + [""] * 70 + ["yz" * 3000])
    for size in (1, 2, 3, 7, 100, 40000, len(stream)):
        decoder = SSEDecoder()
        events = [e for chunk in _split(stream, size) for e in decoder.feed(chunk)]
        assert events == [ServerSentEvent(data=expected)], size


@pytest.mark.parametrize("option", ["max_event_bytes", "max_line_bytes"])
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 1.5, 16.0, True, False, "10"])
def test_non_int_limits_are_refused(option: str, value: object) -> None:
    with pytest.raises(TypeError, match=f"{option} must be positive"):
        SSEDecoder(**{option: value})  # type: ignore[arg-type]


@pytest.mark.parametrize("option", ["max_event_bytes", "max_line_bytes"])
@pytest.mark.parametrize("value", [0, -1, -(2**70)])
def test_out_of_range_limits_are_refused(option: str, value: int) -> None:
    with pytest.raises(ValueError, match=f"{option} must be positive"):
        SSEDecoder(**{option: value})


def test_a_huge_int_limit_is_accepted() -> None:
    decoder = SSEDecoder(max_event_bytes=2**70)
    assert decoder.feed(b"data: x\n\n") == [ServerSentEvent(data="x")]
