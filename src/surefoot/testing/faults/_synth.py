"""The scripted model's answer to one chat request, in the request's dialect.

:class:`Synthesizer` finds the model, enforces its context window (and, with
``strict_models``, answers 404 for unknown models), asks the model for a :class:`Reply`,
applies the content faults (a malformed tool call, a content filter, a huge body), renders
JSON or SSE events, and sends it all through :func:`send`. Stream events carry ``id:`` lines
(their 1-based position) unless ids are off (``FaultServer(event_ids=False)`` or
``Model(event_ids=False)``, as every real provider streams); with ids, the events up to
``Last-Event-ID`` are skipped, without them the header is ignored and the stream starts over.
A model with ``prefill=False`` answers a request that ends with an assistant message with the
400 of :func:`~surefoot.testing.faults._respond.prefill_error`.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from surefoot.testing.faults._anthropic import message, message_events
from surefoot.testing.faults._errors import Dialect
from surefoot.testing.faults._faults import (
    ContentFilter,
    Fault,
    HugeBody,
    MalformedToolCall,
    Status,
)
from surefoot.testing.faults._http import Request, Wire
from surefoot.testing.faults._model import (
    Model,
    Reply,
    ToolCall,
    answer,
    ends_with_assistant,
    find_model,
)
from surefoot.testing.faults._openai import completion, completion_events
from surefoot.testing.faults._record import RecordedRequest
from surefoot.testing.faults._respond import Outgoing, Piece, prefill_error, send, send_error
from surefoot.testing.faults._wire import Event, encode_event

__all__ = ["Synthesizer", "apply_content_fault", "iterate", "response_id"]

_DEFAULT_MODEL = Model()
_HUGE_WORD = "lorem ipsum dolor sit amet "


def response_id(body: bytes) -> str:
    """A deterministic id for the answer to ``body`` (the same on a resumed request)."""
    return hashlib.sha256(body).hexdigest()[:24]


def apply_content_fault(reply: Reply, fault: Fault | None) -> Reply:
    if isinstance(fault, MalformedToolCall):
        call = ToolCall(fault.name, fault.arguments)
        return Reply("", (call,), reply.prompt_tokens, reply.completion_tokens)
    if isinstance(fault, ContentFilter):  # what the model wrote before the filter stopped it
        return Reply(fault.text, (), reply.prompt_tokens, len(fault.text.split()))
    if isinstance(fault, HugeBody):
        size = int(fault.megabytes * 1_000_000)
        text = (_HUGE_WORD * (size // len(_HUGE_WORD) + 1))[:size]
        return Reply(text, (), reply.prompt_tokens, len(text.split()))
    return reply


async def iterate(pieces: Sequence[Piece]) -> AsyncIterator[Piece]:
    for index, piece in enumerate(pieces):
        if index and index % 64 == 0:
            await asyncio.sleep(0)
        yield piece


def _first_id(last_event_id: str | None) -> int:
    """The id of the first event to send given ``Last-Event-ID`` (ids start at 1)."""
    if last_event_id is None or not last_event_id.strip().isdigit():
        return 1
    return int(last_event_id.strip()) + 1


class Synthesizer:
    """Answers chat requests with the scripted models."""

    def __init__(
        self, models: Sequence[Model] = (), strict_models: bool = False, event_ids: bool = True
    ) -> None:
        self.models = list(models)
        self.strict_models = strict_models
        self.event_ids = event_ids
        self.created = int(time.time())

    def model_for(self, name: str) -> Model | None:
        found = find_model(self.models, name)
        if found is None and not self.strict_models:
            return _DEFAULT_MODEL
        return found

    async def respond(
        self,
        wire: Wire,
        reader: asyncio.StreamReader,
        request: Request,
        record: RecordedRequest,
        dialect: Dialect,
        doc: Mapping[str, Any],
        fault: Fault | None,
        request_id: str,
    ) -> bool:
        name = str(doc.get("model", ""))
        model = self.model_for(name)
        if model is None:
            return await send_error(wire, record, dialect, Status(404), request_id, model=name)
        if not model.prefill and ends_with_assistant(doc):
            return await send_error(wire, record, dialect, prefill_error(), request_id, model=name)
        reply = answer(model, doc)
        window = model.context_window
        if window is not None:
            needed = reply.prompt_tokens
            if dialect == "openai":
                limit = doc.get("max_completion_tokens") or doc.get("max_tokens") or 0
                needed += limit if isinstance(limit, int) else 0
            if needed > window:
                too_long = Status(400, error="context_length")
                return await send_error(
                    wire, record, dialect, too_long, request_id, tokens=needed, window=window
                )
        reply = apply_content_fault(reply, fault)
        finish: str | None = None
        if isinstance(fault, ContentFilter):
            finish = "content_filter" if dialect == "openai" else "refusal"
        rid = response_id(request.body)
        id_header = ("x-request-id" if dialect == "openai" else "request-id", request_id)
        if not record.stream:
            if dialect == "openai":
                obj = completion(reply, name, rid, self.created, finish)
            else:
                salvage = isinstance(fault, MalformedToolCall)
                obj = message(reply, name, rid, finish, salvage=salvage)
            body = json.dumps(obj, separators=(",", ":")).encode()
            headers = [("content-type", "application/json"), id_header]
            out = Outgoing(200, headers, body=body, dialect=dialect)
            return await send(wire, reader, record, out, fault)
        if dialect == "openai":
            options = doc.get("stream_options")
            usage = isinstance(options, Mapping) and bool(options.get("include_usage"))
            events = completion_events(reply, name, rid, self.created, usage, finish)
        else:
            events = message_events(reply, name, rid, finish)
        ids = self.event_ids if model.event_ids is None else model.event_ids
        return await self._stream(wire, reader, record, events, fault, dialect, id_header, ids)

    async def _stream(
        self,
        wire: Wire,
        reader: asyncio.StreamReader,
        record: RecordedRequest,
        events: list[Event],
        fault: Fault | None,
        dialect: Dialect,
        id_header: tuple[str, str],
        ids: bool = True,
    ) -> bool:
        first = _first_id(record.last_event_id) if ids else 1
        pieces = [
            Piece(encode_event(event, number if ids else None), event.role)
            for number, event in enumerate(events, start=1)
            if number >= first
        ]
        headers = [
            ("content-type", "text/event-stream; charset=utf-8"),
            ("cache-control", "no-cache"),
            id_header,
        ]
        out = Outgoing(
            200,
            headers,
            pieces=iterate(pieces),
            total=len(pieces),
            next_id=max(first, 1) if ids else None,
            dialect=dialect,
            request_id=id_header[1],
        )
        return await send(wire, reader, record, out, fault)
