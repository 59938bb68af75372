"""A spec-exact, fast decoder for Server-Sent Events (``text/event-stream``).

The decoder follows the WHATWG HTML "event stream interpretation" rules
(https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):

* the stream is decoded as UTF-8 with replacement characters for invalid bytes, incrementally,
  so a multi-byte character split across two chunks decodes correctly;
* exactly one leading byte order mark (U+FEFF) is stripped, and only at the very start of the
  stream;
* a line ends with CRLF, LF or CR, and nothing else (``str.splitlines`` would also split on
  U+000B, U+000C, U+001C..U+001E, U+0085, U+2028 and U+2029, which SSE must not). A CR at the
  end of one chunk followed by an LF at the start of the next is a single line end;
* a line starting with ``:`` is a comment; ``field:value`` loses one optional space after the
  colon; a line without a colon is a field name with an empty value;
* ``event`` sets the event type, ``data`` appends a line to the data buffer, ``id`` sets the
  last event id *buffer* (even to ``""``) unless the value contains U+0000, ``retry`` sets the
  reconnection time if the value is ASCII digits only; any other field is ignored;
* a blank line dispatches the event: the last event id buffer becomes the stream's last event
  id (:attr:`SSEDecoder.last_event_id`, even when no ``data`` line was seen), then, unless no
  ``data`` line was seen, the event is delivered; the event type and data buffers are reset
  and the last event id buffer persists. An ``id`` line whose block is cut before its blank
  line therefore never becomes ``last_event_id``: resuming from it cannot skip that event.

At the end of the stream, an unterminated final line and an event that was not yet dispatched
by a blank line are discarded, as the specification requires (see :meth:`SSEDecoder.flush`).

Typical use, with any source of ``bytes`` chunks::

    decoder = SSEDecoder()
    for chunk in response_chunks:
        for event in decoder.feed(chunk):
            handle(event.json())
    decoder.flush()
    resume_from = decoder.last_event_id

or simply ``for event in iter_events(response_chunks): ...`` (``aiter_events`` for async).
"""

from __future__ import annotations

import codecs
import json
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from surefoot import _check

__all__ = [
    "DEFAULT_MAX_EVENT_BYTES",
    "SSEDecoder",
    "SSEProtocolError",
    "ServerSentEvent",
    "aiter_events",
    "iter_events",
]

DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024
"""Default bound on the UTF-8 size of one event's data (16 MiB)."""

_LINE_ALLOWANCE = 64
"""Room for a field name: the default line bound is ``max_event_bytes`` plus this."""

_BLOCK = 8 * 1024
"""feed() decodes a larger chunk in blocks of this many bytes: splitting a block into lines
costs a small multiple of its size (an object per line), which must not scale with a chunk."""

_FANOUT = 32
"""Pieces of a pending line or event joined at a time (see :func:`_rope_push`)."""


def _rope_push(levels: list[list[str]], piece: str, sep: str) -> None:
    """Append ``piece`` to a rope: ``levels[0]`` holds the newest pieces, and whenever a level
    holds ``_FANOUT`` pieces they are joined into one piece of the next level.

    A text that arrives in many small pieces (a long line in tiny chunks, an event of many short
    data lines) is thus held in few large strings: per-object overhead is a few kilobytes in
    all, where a plain list of pieces costs up to 30 times the text's size, and each character
    is copied once per level (log base ``_FANOUT`` of the number of pieces), not once per piece.
    """
    level = 0
    while True:
        if level == len(levels):
            levels.append([])
        pieces = levels[level]
        pieces.append(piece)
        if len(pieces) < _FANOUT:
            return
        piece = sep.join(pieces)
        pieces.clear()
        level += 1


def _rope_pieces(levels: list[list[str]]) -> list[str]:
    """The pieces of a rope, oldest first."""
    return [piece for pieces in reversed(levels) for piece in pieces]


def _limit(name: str, value: object) -> int:
    """A size limit: an ``int >= 1`` (``bool``, floats, NaN and infinities are refused, as a
    NaN or an infinite bound would silently switch the limit off)."""
    rule = "positive (an int >= 1)"
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be {rule}, got {_check.shown(value)}")
    if value < 1:
        raise ValueError(f"{name} must be {rule}, got {_check.shown(value)}")
    return value


class SSEProtocolError(ValueError):
    """The event stream broke a limit of the decoder (a line or an event too large)."""


@dataclass(frozen=True, slots=True)
class ServerSentEvent:
    """One dispatched event.

    ``id`` is the stream's last event id buffer when the event was dispatched (``""`` if none
    was ever set), which is then the decoder's ``last_event_id``; ``retry`` is the reconnection
    time in milliseconds if this event's block set one.
    """

    event: str = "message"
    data: str = ""
    id: str = ""
    retry: int | None = None

    def json(self) -> Any:
        """Return ``json.loads(self.data)``."""
        return json.loads(self.data)


# Building an event is the hottest step of decoding. The generated __init__ of a frozen dataclass
# sets each field through object.__setattr__, which costs about twice as much as the slot
# descriptors' own setters. SSEDecoder.feed() therefore builds events as object.__new__ plus
# these setters, which gives the same object as ServerSentEvent(event, data, id, retry) (there
# is no __post_init__ to skip).
_new_instance = object.__new__
_set_event: Any = ServerSentEvent.__dict__["event"].__set__
_set_data: Any = ServerSentEvent.__dict__["data"].__set__
_set_id: Any = ServerSentEvent.__dict__["id"].__set__
_set_retry: Any = ServerSentEvent.__dict__["retry"].__set__


def _utf8_size(text: str) -> int:
    # str.isascii() is O(1) in CPython; decoded text never holds lone surrogates.
    return len(text) if text.isascii() else len(text.encode("utf-8"))


class SSEDecoder:
    """Incremental ``text/event-stream`` decoder: feed it bytes, get :class:`ServerSentEvent`.

    ``last_event_id`` is the stream's last event id: the value of the ``id`` buffer when an
    event was last dispatched by a blank line (``""`` if none), so it never names an event that
    was not delivered (an ``id`` line of a block cut before its blank line does not count);
    ``retry`` is the reconnection time in milliseconds the stream asked for (``None`` if it
    never did). Both persist across events and across :meth:`flush`, so they can drive a
    reconnection.

    Memory is bounded: an event whose data exceeds ``max_event_bytes`` (UTF-8 bytes, default
    16 MiB) or a line longer than ``max_line_bytes`` (default ``max_event_bytes`` + 64, so that
    any data line the event bound allows fits) makes :meth:`feed` raise
    :class:`SSEProtocolError`. Data still pending is checked after every 8 KiB of input, and
    pending text is held in few large strings, so the decoder holds at most about twice the
    bounds (once more while it joins an event's data) plus a constant, however the stream is
    chunked; a text with characters beyond U+00FF takes 2 or 4 bytes per character in a Python
    ``str``. After that error the decoder is unusable: every later :meth:`feed` or
    :meth:`flush` raises it again.
    """

    __slots__ = (
        "_at_start",
        "_block_retry",
        "_data",
        "_data_size",
        "_decode",
        "_decoder",
        "_error",
        "_event_quick",
        "_event_type",
        "_id_buffer",
        "_line_quick",
        "_partial",
        "_partial_size",
        "_skip_lf",
        "last_event_id",
        "max_event_bytes",
        "max_line_bytes",
        "retry",
    )

    def __init__(
        self,
        *,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        max_line_bytes: int | None = None,
    ) -> None:
        max_event_bytes = _limit("max_event_bytes", max_event_bytes)
        if max_line_bytes is None:
            max_line_bytes = max_event_bytes + _LINE_ALLOWANCE
        else:
            max_line_bytes = _limit("max_line_bytes", max_line_bytes)
        self.max_event_bytes = max_event_bytes
        self.max_line_bytes = max_line_bytes
        # A text of n characters has between n and 4n UTF-8 bytes: at or below limit // 4
        # characters it is certainly within the limit, and needs no exact measurement.
        self._event_quick = max_event_bytes // 4
        self._line_quick = max_line_bytes // 4
        self.last_event_id = ""
        self._id_buffer = ""
        self.retry: int | None = None
        self._error: str | None = None
        self._reset_stream()

    def _reset_stream(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._decode = self._decoder.decode
        self._at_start = True  # no character decoded yet: a BOM may still come
        self._skip_lf = False  # the last chunk ended with CR: an LF now is part of that line end
        self._partial: list[list[str]] = []  # the unterminated line so far: a rope of pieces
        self._partial_size = 0  # its UTF-8 size
        # A new stream starts from the last dispatched id: an id whose event was cut is gone.
        self._id_buffer = self.last_event_id
        self._reset_event()

    def _reset_event(self) -> None:
        # The data lines of an event pending at the end of a feed() block: a rope of groups of
        # lines, each group its lines joined by "\n"; _data_size is their UTF-8 size, plus 1
        # per group (for the "\n" joining it to the next one).
        self._data: list[list[str]] = []
        self._data_size = 0
        self._event_type = ""
        self._block_retry: int | None = None

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        """Decode the next chunk of the stream; return the events it completed, in order."""
        if self._error is not None:
            raise SSEProtocolError(self._error)
        if len(chunk) <= _BLOCK:
            return self._feed(chunk)
        view = memoryview(chunk)
        events: list[ServerSentEvent] = []
        for start in range(0, len(view), _BLOCK):
            events += self._feed(view[start : start + _BLOCK])
        return events

    def _feed(self, chunk: bytes | memoryview) -> list[ServerSentEvent]:
        text: str = self._decode(chunk)
        if not text:
            return []
        if self._at_start:
            self._at_start = False
            if text[0] == "\ufeff":
                text = text[1:]
                if not text:
                    return []
        if self._skip_lf:
            self._skip_lf = False
            if text[0] == "\n":
                text = text[1:]
                if not text:
                    return []
        if "\r" not in text:
            lines = text.split("\n")
        else:
            self._skip_lf = text[-1] == "\r"
            if "\n" not in text:
                lines = text.split("\r")
            else:
                lines = text.split("\r\n")
                crlf = len(lines) - 1
                if text.count("\r") != crlf or text.count("\n") != crlf:
                    # Mixed line ends: make CRLF, then each lone CR, an LF (faster than a regex).
                    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        long_text = len(text) > self._line_quick
        del text  # the lines hold it, in pieces
        tail = lines.pop()
        if not lines:  # no line end in this chunk: the line goes on
            self._extend_partial(tail)
            return []
        if self._partial_size:
            first = lines[0]
            size = self._partial_size + len(first)
            if size > self._line_quick:
                size = self._partial_size + _utf8_size(first)
                if size > self.max_line_bytes:
                    raise self._fail(
                        f"SSE line of {size} bytes exceeds max_line_bytes={self.max_line_bytes}"
                    )
            pieces = _rope_pieces(self._partial)
            pieces.append(first)
            self._partial = []
            self._partial_size = 0
            lines[0] = "".join(pieces)
            del pieces
        if long_text:
            self._check_lines(lines)

        events: list[ServerSentEvent] = []
        data: list[str] = []  # this block's data lines of the pending event
        pending = self._data_size != 0  # and its lines from earlier blocks, in self._data
        event_type = self._event_type
        block_retry = self._block_retry
        last_id = self._id_buffer
        dispatched_id = self.last_event_id
        event_quick = self._event_quick
        new, set_event, set_data, set_id, set_retry = (
            _new_instance,
            _set_event,
            _set_data,
            _set_id,
            _set_retry,
        )
        for line in lines:
            if not line:  # a blank line dispatches
                dispatched_id = last_id
                if data or pending:
                    if pending:
                        value = self._take_data(data)
                        pending = False
                    else:
                        value = "\n".join(data)  # returns data[0] itself if it is the only line
                    if len(value) > event_quick:
                        self._check_event(value)
                    sse = new(ServerSentEvent)
                    set_event(sse, event_type or "message")
                    set_data(sse, value)
                    set_id(sse, last_id)
                    set_retry(sse, block_retry)
                    events.append(sse)
                    data = []
                event_type = ""
                block_retry = None
            elif line[:6] == "data: ":  # the fast path: by far the most common line
                data.append(line[6:])
            elif line[:5] == "data:":  # and no space to strip, as it is not "data: "
                data.append(line[5:])
            elif line[:7] == "event: ":
                event_type = line[7:]
            else:
                name, _, value = line.partition(":")  # no colon: the value is ""
                if not name:  # a comment (the line is not empty, so it starts with ":")
                    continue
                if value[:1] == " ":
                    value = value[1:]
                if name == "data":
                    data.append(value)
                elif name == "event":
                    event_type = value
                elif name == "id":
                    if "\0" not in value:
                        last_id = value
                elif name == "retry" and value.isdigit() and value.isascii():
                    try:
                        block_retry = int(value)
                    except ValueError:  # more digits than sys.get_int_max_str_digits()
                        value = value.lstrip("0") or "0"
                        try:
                            block_retry = int(value)
                        except ValueError:  # thousands of digits: not a real delay, ignored
                            continue
                    self.retry = block_retry
        self._event_type = event_type
        self._block_retry = block_retry
        self._id_buffer = last_id
        self.last_event_id = dispatched_id
        if data:
            self._add_pending_data(data)
        del lines, data
        if tail:
            self._extend_partial(tail)
        return events

    def flush(self) -> list[ServerSentEvent]:
        """End the stream; return the events still to dispatch, which per the spec is none.

        Per the specification, "once the end of the file is reached, any pending data must be
        discarded": an unterminated final line is not interpreted (a connection cut in the
        middle of ``id: 1234`` must not make ``12`` the last event id), and an event not yet
        dispatched by a blank line is dropped, as are the bytes of an incomplete UTF-8
        character. A final line ended by CR is complete and was already interpreted by
        :meth:`feed` (which never holds a line back waiting for a possible LF), so this only
        discards what is pending; it always returns an empty list, for symmetry with
        :meth:`feed`.

        The decoder is then ready for a new stream (a reconnection): a leading BOM is stripped
        again, while ``last_event_id`` and ``retry`` are kept; an ``id`` whose event was cut
        before its blank line is dropped with that event, so the new stream's events carry
        ``last_event_id`` until it sends an ``id`` of its own.
        """
        if self._error is not None:
            raise SSEProtocolError(self._error)
        self._reset_stream()
        return []

    def _fail(self, message: str) -> SSEProtocolError:
        self._error = message
        self._partial = []
        self._partial_size = 0
        self._reset_event()
        return SSEProtocolError(message)

    def _extend_partial(self, piece: str) -> None:
        _rope_push(self._partial, piece, "")
        self._partial_size += _utf8_size(piece)
        if self._partial_size > self.max_line_bytes:
            raise self._fail(
                f"SSE line longer than max_line_bytes={self.max_line_bytes} "
                f"(at least {self._partial_size} bytes without a line end)"
            )

    def _check_lines(self, lines: list[str]) -> None:
        for line in lines:
            if len(line) > self._line_quick:
                size = _utf8_size(line)
                if size > self.max_line_bytes:
                    raise self._fail(
                        f"SSE line of {size} bytes exceeds max_line_bytes={self.max_line_bytes}"
                    )

    def _check_event(self, data: str) -> None:
        size = _utf8_size(data)
        if size > self.max_event_bytes:
            raise self._fail(
                f"SSE event data of {size} bytes exceeds max_event_bytes={self.max_event_bytes}"
            )

    def _add_pending_data(self, data: list[str]) -> None:
        group = "\n".join(data)
        size = self._data_size + _utf8_size(group) + 1  # + 1 for the "\n" after it
        if size - 1 > self.max_event_bytes:
            raise self._fail(
                f"SSE event data exceeds max_event_bytes={self.max_event_bytes} "
                f"(at least {size - 1} bytes before its end)"
            )
        _rope_push(self._data, group, "\n")
        self._data_size = size

    def _take_data(self, data: list[str]) -> str:
        """The pending event's data: its lines from earlier blocks, then ``data``."""
        groups = _rope_pieces(self._data)
        if data:
            groups.append("\n".join(data))
        self._data = []
        self._data_size = 0
        return "\n".join(groups)


def iter_events(
    chunks: Iterable[bytes], *, decoder: SSEDecoder | None = None
) -> Iterator[ServerSentEvent]:
    """Yield the events of a stream of ``bytes`` chunks, then :meth:`SSEDecoder.flush` it.

    Pass your own ``decoder`` to set its limits or to read ``last_event_id`` and ``retry``
    afterwards (to resume the stream).
    """
    if decoder is None:
        decoder = SSEDecoder()
    feed = decoder.feed
    for chunk in chunks:
        yield from feed(chunk)
    yield from decoder.flush()


async def aiter_events(
    chunks: AsyncIterable[bytes], *, decoder: SSEDecoder | None = None
) -> AsyncIterator[ServerSentEvent]:
    """Async version of :func:`iter_events`."""
    if decoder is None:
        decoder = SSEDecoder()
    feed = decoder.feed
    async for chunk in chunks:
        for event in feed(chunk):
            yield event
    for event in decoder.flush():
        yield event
