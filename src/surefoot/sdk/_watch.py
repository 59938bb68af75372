"""What a provider's event stream says about itself, read from its bytes as they pass (pure).

The official SDKs parse the stream themselves; surefoot only watches the same bytes, unchanged,
for three facts:

- **started**: the first event that carries part of the answer, past the preamble events
  (OpenAI's role-only first chunk and Azure's prompt-filter chunk, Anthropic's
  ``message_start``/``content_block_start``/``ping``, the Responses API's ``response.created``
  family). Until then nothing has reached the caller, so a failure can be retried unseen;
- **error**: an error event (OpenAI's ``data: {"error": ...}``, any ``event: error``, the
  Responses API's ``response.failed``), with the byte offset where it begins, so that every
  event before it still reaches the SDK;
- **done**: the stream's final event (``data: [DONE]``, Anthropic's ``message_stop``, the
  Responses API's ``response.completed``/``response.incomplete``), or an OpenAI chunk with a
  ``finish_reason``, or Anthropic's ``message_delta`` with its ``stop_reason`` (a stream may
  end there without ``[DONE]``/``message_stop``: the answer is complete).

Events are split on their blank line, as the SDKs' SSE decoders split them: a line end (LF, CR or
CRLF) right after another, so an event ends at the first byte of its empty line (the ``\r`` of a
closing ``\r\n\r\n``: an SDK has the event by then). Only the preamble is parsed as
JSON; afterwards each event costs a few substring tests, and JSON only when it looks like an
error. An event larger than ``max_event`` is not inspected (it is passed on unread).
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["DEFAULT_MAX_EVENT", "StreamWatch"]

#: Events above this size (bytes) are passed on without inspection.
DEFAULT_MAX_EVENT = 4 * 1024 * 1024

#: A line end followed by the line end of an empty line. Any blank line holds one of these pairs
#: (CR LF is one line end, never two), and each pair is one: LF LF, LF CR (also the end of
#: CRLF CRLF), CR CR; a CR's LF is part of it when it has come.
_BLANK = re.compile(rb"\n\n|\n\r\n?|\r\r\n?")
#: Bytes that may begin an error or a final event; once the answer has started, an event (or a
#: whole chunk) without any of them needs no look (``bytes.find`` is far cheaper than a regex).
_MARKERS = (
    b"error",
    b"[DONE]",
    b'finish_reason":"',
    b'finish_reason": "',
    b'stop_reason":"',
    b'stop_reason": "',
    b"message_stop",
    b"response.completed",
    b"response.incomplete",
    b"response.failed",
)


def _marked(raw: bytes) -> bool:
    for marker in _MARKERS:  # noqa: SIM110 - a plain loop: this runs for every chunk
        if marker in raw:
            return True
    return False


_PREAMBLE_EVENTS = frozenset(
    (
        b"message_start",
        b"content_block_start",
        b"ping",
        b"response.created",
        b"response.in_progress",
        b"response.queued",
        b"response.output_item.added",
        b"response.content_part.added",
    )
)
_DONE_EVENTS = frozenset((b"message_stop", b"response.completed", b"response.incomplete"))
_ERROR_EVENTS = frozenset((b"error", b"response.failed"))
#: An unnamed event whose JSON begins with one of these ``"type"``s is read as if it were named
#: so: gateways that send the Responses API without ``event:`` lines (the openai SDK reads the
#: type from the JSON) still end with ``response.completed`` and fail with ``response.failed``.
_TYPED = (_PREAMBLE_EVENTS | _DONE_EVENTS | _ERROR_EVENTS) - {b"error"}
_TYPE = re.compile(rb'\{\s*"type"\s*:\s*"([a-z_.]{1,40})"')


class StreamWatch:
    """Feed it the stream's bytes in order (:meth:`feed`); read ``started``, ``error``,
    ``error_at`` and ``done``. ``error`` is ``(event name, data)`` of the first error event."""

    __slots__ = ("_buf", "_offset", "done", "error", "error_at", "max_event", "started")

    def __init__(self, max_event: int = DEFAULT_MAX_EVENT) -> None:
        self._buf = b""
        self._offset = 0  # stream offset of _buf[0]
        self.max_event = max_event
        self.started = False
        self.done = False
        self.error: tuple[str, str] | None = None
        self.error_at = -1

    def feed(self, chunk: bytes) -> None:
        """Read the complete events ``chunk`` ends; stops at the first error event."""
        if self.error is not None or not chunk:
            return
        buf = self._buf + chunk if self._buf else chunk
        if self.started and not _marked(buf):
            # The fast path of a stream under way: nothing to look at, keep the open event.
            end = _after_last_blank(buf)
            self._keep(buf, end)
            return
        pos = 0
        crlf = b"\r" in buf  # rare: split on every line-end form; else on LF LF alone
        while True:
            if crlf:
                m = _BLANK.search(buf, pos)
                if m is None:
                    break
                start, after = m.start(), m.end()
            else:
                start = buf.find(b"\n\n", pos)
                if start < 0:
                    break
                after = start + 2
            self._event(buf[pos:start], self._offset + pos)
            pos = after
            if self.error is not None:
                break
        self._keep(buf, pos)

    def _keep(self, buf: bytes, pos: int) -> None:
        """Keep ``buf[pos:]``, the event not yet ended, unless it is too large to inspect."""
        rest = buf[pos:]
        if len(rest) > self.max_event:  # too large to inspect: pass it on unread
            self.started = True
            pos = len(buf)
            rest = b""
        self._offset += pos
        self._buf = rest

    def _event(self, raw: bytes, at: int) -> None:
        if self.started and not _marked(raw):
            return
        name = b""
        data: list[bytes] = []
        for line in raw.splitlines():  # bytes split on LF, CR and CRLF only, as SSE does
            if line.startswith(b"data:"):
                v = line[5:]
                data.append(v[1:] if v.startswith(b" ") else v)
            elif line.startswith(b"event:"):
                name = line[6:].strip()
        if not data and not name:
            return  # a comment or a keep-alive
        body = b"\n".join(data)
        if not name and body.startswith(b"{"):
            m = _TYPE.match(body)
            if m is not None and m.group(1) in _TYPED:
                name = m.group(1)
        if name in _ERROR_EVENTS or (body.startswith(b'{"error"') or _is_error_obj(name, body)):
            event = name.decode("utf-8", "replace") or "message"
            self.error = (event, body.decode("utf-8", "replace"))
            # Where its first line begins: past any extra blank line before it (which of them
            # the event's bytes start with depends on where the reads split the stream).
            self.error_at = at + len(raw) - len(raw.lstrip(b"\r\n"))
            return
        if name in _DONE_EVENTS or body.startswith(b"[DONE]"):
            self.done = True
            self.started = True
            return
        if b'"finish_reason":"' in body or b'"finish_reason": "' in body:
            self.done = True
        elif name == b"message_delta" and (
            b'"stop_reason":"' in body or b'"stop_reason": "' in body
        ):
            self.done = True  # Anthropic's last message_delta: complete without message_stop
        if self.started:
            return
        if name in _PREAMBLE_EVENTS:
            return
        if name:
            self.started = True  # any other named event carries the answer
            return
        self.started = not _openai_preamble(body)


def _after_last_blank(buf: bytes) -> int:
    """The index just past the last blank line of ``buf`` (0 when it has none)."""
    end = 0
    for sep in (b"\n\n", b"\n\r", b"\r\r"):
        i = buf.rfind(sep)
        if i >= 0 and i + 2 > end:
            end = i + 2
    if end and buf[end - 1 : end + 1] == b"\r\n":
        end += 1  # the LF of the empty line's CRLF
    return end


def _is_error_obj(name: bytes, body: bytes) -> bool:
    """An unnamed event whose JSON is an error object (``{"type":"error"...}``, or an
    ``"error"`` key not first); cheap unless the bytes mention ``error``."""
    if name or b'"error"' not in body:
        return False
    obj = _loads(body)
    if not isinstance(obj, dict):
        return False
    return obj.get("type") == "error" or isinstance(obj.get("error"), dict)


def _openai_preamble(body: bytes) -> bool:
    """A chat-completions chunk that carries no part of the answer yet: no choices (Azure's
    prompt-filter results, a usage chunk), or only a role and empty content."""
    obj = _loads(body)
    if not isinstance(obj, dict):
        return False
    choices = obj.get("choices")
    if choices is None:
        return False
    if not isinstance(choices, list):
        return False
    for choice in choices:
        if not isinstance(choice, dict):
            return False
        if choice.get("finish_reason"):
            return False
        delta = choice.get("delta")
        if not isinstance(delta, dict):
            return False
        for key, value in delta.items():
            if key != "role" and value not in (None, "", [], {}):
                return False
    return True


def _loads(body: bytes) -> Any:
    try:
        return json.loads(body)
    except (ValueError, RecursionError):  # not JSON, or nested too deep to read
        return None
