"""Server-sent events as the fault server writes them, and the helpers both dialects share.

An :class:`Event` is one SSE event (optional ``event:`` name and one ``data:`` line) tagged
with its role in the stream: a content ``delta``, the ``final`` event (OpenAI ``[DONE]``,
Anthropic ``message_stop``) or ``other``. Ids are the 1-based position in the full stream, so
a request with ``Last-Event-ID: 3`` gets exactly the events after the third.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["Event", "EventRole", "encode_event", "split_text"]

EventRole = Literal["delta", "final", "other"]

_WORDS = re.compile(r"\s*\S+|\s+")
_BIG = 64 * 1024
_SLICE = 16 * 1024


@dataclass(frozen=True)
class Event:
    """One SSE event: ``data`` is a single line (JSON or ``[DONE]``)."""

    data: str
    event: str | None = None
    role: EventRole = "other"


def encode_event(event: Event, event_id: int | None) -> bytes:
    """The bytes of ``event`` on the wire, with an ``id:`` field when ``event_id`` is given."""
    parts: list[str] = []
    if event.event is not None:
        parts.append(f"event: {event.event}\n")
    if event_id is not None:
        parts.append(f"id: {event_id}\n")
    parts.append(f"data: {event.data}\n\n")
    return "".join(parts).encode()


def split_text(text: str) -> list[str]:
    """Deterministic deltas: one word (with its leading space) each; big texts by slices."""
    if len(text) > _BIG:
        return [text[i : i + _SLICE] for i in range(0, len(text), _SLICE)]
    return _WORDS.findall(text)
