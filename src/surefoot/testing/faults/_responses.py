"""The OpenAI Responses API, server side: ``POST /v1/responses`` and ``GET /v1/responses/{id}``.

A request ``{"model", "input": str | [items], "instructions"?, "tools"?, "stream"?,
"background"?, "max_output_tokens"?, "store"?}`` is answered by the scripted model (the input
items read as chat messages: ``message`` items by role, ``function_call`` items as assistant
turns, ``function_call_output`` items as tool results; ``instructions`` as the system prompt).

* Not streamed: a ``response`` object (``id: "resp_..."``, ``object: "response"``,
  ``status``, ``output``: a ``message`` item with one ``output_text`` part and/or
  ``function_call`` items, ``usage: {input_tokens, output_tokens, total_tokens}``). With
  ``background: true`` the POST answers the object with ``status: "queued"`` and an empty
  ``output``; ``GET`` has the finished one.
* Streamed: ``event: <type>`` + ``data: <json>`` events, no ``id:`` lines (the API sends none),
  each with a ``sequence_number`` from 0: ``response.created``, ``response.in_progress``,
  ``response.output_item.added``, ``response.content_part.added``, one
  ``response.output_text.delta`` per word, ``response.output_text.done``,
  ``response.content_part.done``, ``response.output_item.done`` (function calls:
  ``response.output_item.added``, ``response.function_call_arguments.delta`` slices,
  ``.done``, ``response.output_item.done``), then ``response.completed`` with the whole
  response.
* ``response.incomplete`` (``status: "incomplete"``, ``incomplete_details.reason``) ends an
  answer cut by ``max_output_tokens`` (the text is its first ``max_output_tokens`` words) or
  withheld by :class:`ContentFilter` (``reason: "content_filter"``, the fault's ``text``).

Every response (unless ``store: false``) is kept by id: ``GET /v1/responses/{id}`` returns the
object; ``GET /v1/responses/{id}?stream=true&starting_after=N`` streams, for a response made
with ``background: true``, its stored events with ``sequence_number > N``, so a client whose
stream was cut resumes without a repeated or a lost event (others: HTTP 400). Faults act as for
chat: :class:`Status` and the early faults answer the OpenAI error JSON; the stream faults
(truncate, reset mid-body, hang after N events, slow first token, malformed chunks) act on
the POST's stream (and on a resumed stream when a rule or the queue selects the GET); a
:class:`StreamError` is an ``error`` event or ``response.failed`` (its ``responses_event``).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

from surefoot.testing.faults._errors import error_spec
from surefoot.testing.faults._faults import ContentFilter, Fault, Status, StreamError
from surefoot.testing.faults._http import Request, Wire
from surefoot.testing.faults._model import Reply, answer, ends_with_assistant
from surefoot.testing.faults._record import RecordedRequest
from surefoot.testing.faults._respond import Outgoing, Piece, prefill_error, send, send_error
from surefoot.testing.faults._synth import Synthesizer, apply_content_fault, iterate, response_id
from surefoot.testing.faults._wire import Event, encode_event, split_text

__all__ = ["RESPONSES_PATHS", "ResponsesAPI", "chat_view"]

#: The paths of ``POST`` (create); ``GET`` is on ``<path>/{id}``.
RESPONSES_PATHS = ("/v1/responses", "/responses")

_ARG_SLICE = 8


def _dumps(doc: Mapping[str, Any]) -> str:
    return json.dumps(doc, separators=(",", ":"))


def _text(content: Any) -> Any:
    """Responses content parts (``input_text``/``output_text``) as chat content."""
    if isinstance(content, list):
        return [
            {"type": "text", "text": part.get("text", "")}
            for part in content
            if isinstance(part, Mapping) and isinstance(part.get("text"), str)
        ]
    return content


def chat_view(doc: Mapping[str, Any]) -> dict[str, Any]:
    """A Responses request as the chat body the scripted model reads."""
    messages: list[dict[str, Any]] = []
    items = doc.get("input")
    if isinstance(items, str):
        messages.append({"role": "user", "content": items})
    elif isinstance(items, list):
        for item in items:
            if not isinstance(item, Mapping):
                continue
            kind = item.get("type", "message")
            if kind == "message" or ("role" in item and "type" not in item):
                messages.append({"role": item.get("role"), "content": _text(item.get("content"))})
            elif kind == "function_call":
                call = {"function": {"arguments": item.get("arguments", "")}}
                messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
            elif kind == "function_call_output":
                output = item.get("output")
                messages.append({"role": "tool", "content": _text(output)})
    instructions = doc.get("instructions")
    return {"system": instructions if isinstance(instructions, str) else "", "messages": messages}


@dataclass
class _Stored:
    response: dict[str, Any]
    events: list[Event]
    background: bool


class _Builder:
    """The output items, response object and events of one answer."""

    def __init__(
        self, reply: Reply, doc: Mapping[str, Any], rid: str, created: int, reason: str | None
    ) -> None:
        self.reply, self.doc, self.rid, self.created, self.reason = (
            reply,
            doc,
            rid,
            created,
            reason,
        )
        self.status = "completed" if reason is None else "incomplete"

    def message_item(self, status: str, text: str | None) -> dict[str, Any]:
        content = [] if text is None else [_part(text)]
        return {
            "type": "message",
            "id": f"msg_{self.rid}",
            "status": status,
            "role": "assistant",
            "content": content,
        }

    def call_item(self, index: int, status: str, arguments: str) -> dict[str, Any]:
        call = self.reply.tool_calls[index]
        return {
            "type": "function_call",
            "id": f"fc_{self.rid[:20]}{index}",
            "call_id": f"call_{self.rid[:16]}{index}",
            "name": call.name,
            "arguments": arguments,
            "status": status,
        }

    def has_message(self) -> bool:
        return bool(self.reply.text) or not self.reply.tool_calls

    def output(self) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        if self.has_message():
            items.append(self.message_item(self.status, self.reply.text))
        for index, call in enumerate(self.reply.tool_calls):
            items.append(self.call_item(index, "completed", call.arguments_json()))
        return items

    def response(self, status: str, output: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        done = status in ("completed", "incomplete", "failed")
        tools = self.doc.get("tools")
        limit = self.doc.get("max_output_tokens")
        usage = {
            "input_tokens": self.reply.prompt_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": self.reply.completion_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": self.reply.prompt_tokens + self.reply.completion_tokens,
        }
        return {
            "id": f"resp_{self.rid}",
            "object": "response",
            "created_at": self.created,
            "status": status,
            "background": bool(self.doc.get("background")),
            "error": None,
            "incomplete_details": (
                {"reason": self.reason} if status == "incomplete" and self.reason else None
            ),
            "instructions": self.doc.get("instructions"),
            "max_output_tokens": limit if isinstance(limit, int) else None,
            "model": str(self.doc.get("model", "")),
            "output": self.output() if output is None and done else (output or []),
            "parallel_tool_calls": True,
            "previous_response_id": self.doc.get("previous_response_id"),
            "temperature": 1.0,
            "text": {"format": {"type": "text"}},
            "tool_choice": self.doc.get("tool_choice", "auto"),
            "tools": tools if isinstance(tools, list) else [],
            "top_p": 1.0,
            "truncation": "disabled",
            "usage": usage if done else None,
            "metadata": {},
        }

    def events(self) -> list[Event]:
        docs: list[tuple[dict[str, Any], str]] = []

        def add(kind: str, role: str = "other", **body: Any) -> None:
            docs.append(({"type": kind, **body}, role))

        add("response.created", response=self.response("in_progress"))
        add("response.in_progress", response=self.response("in_progress"))
        index = 0
        if self.has_message():
            item_id = f"msg_{self.rid}"
            where: dict[str, Any] = {"item_id": item_id, "output_index": index, "content_index": 0}
            add("response.output_item.added", output_index=index,
                item=self.message_item("in_progress", None))  # fmt: skip
            add("response.content_part.added", **where, part=_part(""))
            for piece in split_text(self.reply.text):
                add("response.output_text.delta", "delta", **where, delta=piece, logprobs=[])
            add("response.output_text.done", **where, text=self.reply.text, logprobs=[])
            add("response.content_part.done", **where, part=_part(self.reply.text))
            add("response.output_item.done", output_index=index,
                item=self.message_item(self.status, self.reply.text))  # fmt: skip
            index += 1
        for call_index, call in enumerate(self.reply.tool_calls):
            item = self.call_item(call_index, "in_progress", "")
            where = {"item_id": item["id"], "output_index": index}
            add("response.output_item.added", output_index=index, item=item)
            text = call.arguments_json()
            for at in range(0, len(text), _ARG_SLICE):
                add("response.function_call_arguments.delta", "delta", **where,
                    delta=text[at : at + _ARG_SLICE])  # fmt: skip
            add("response.function_call_arguments.done", **where, arguments=text)
            add("response.output_item.done", output_index=index,
                item=self.call_item(call_index, "completed", text))  # fmt: skip
            index += 1
        final = "response.completed" if self.status == "completed" else "response.incomplete"
        add(final, "final", response=self.response(self.status))
        out = []
        for number, (doc, role) in enumerate(docs):
            doc["sequence_number"] = number
            out.append(Event(_dumps(doc), doc["type"], role))  # type: ignore[arg-type]
        return out

    def error_event(self, fault: StreamError, number: int) -> bytes:
        spec = error_spec(fault.error)
        message = fault.message or spec.openai_message.format(model=self.doc.get("model", ""))
        code = "rate_limit_exceeded" if fault.error == "rate_limit" else "server_error"
        if fault.responses_event == "error":
            doc: dict[str, Any] = {"type": "error", "code": code, "message": message}
            doc.update(param=None, sequence_number=number)
            return encode_event(Event(_dumps(doc), "error"), None)
        failed = self.response("failed", output=[])
        failed["error"] = {"code": code, "message": message}
        doc = {"type": "response.failed", "sequence_number": number, "response": failed}
        return encode_event(Event(_dumps(doc), "response.failed"), None)


def _part(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": []}


def _cut(reply: Reply, doc: Mapping[str, Any], fault: Fault | None) -> tuple[Reply, str | None]:
    """The reply with a content filter or ``max_output_tokens`` applied, and why it stopped."""
    if isinstance(fault, ContentFilter):
        return Reply(fault.text, (), reply.prompt_tokens, len(fault.text.split())), "content_filter"
    limit = doc.get("max_output_tokens")
    if isinstance(limit, int) and not isinstance(limit, bool) and reply.completion_tokens > limit:
        words = split_text(reply.text)[:limit]
        return Reply("".join(words), (), reply.prompt_tokens, limit), "max_output_tokens"
    return reply, None


class ResponsesAPI:
    """Answers ``/v1/responses`` with a synthesizer's models and keeps the responses by id."""

    def __init__(self, synth: Synthesizer) -> None:
        self._synth = synth
        self._lock = threading.Lock()
        self._store: dict[str, _Stored] = {}
        self.created = int(time.time())

    def stored(self, response_id: str) -> dict[str, Any] | None:
        """The stored response object ``response_id`` (``None``: unknown)."""
        with self._lock:
            found = self._store.get(response_id)
        return None if found is None else found.response

    async def create(
        self,
        wire: Wire,
        reader: asyncio.StreamReader,
        request: Request,
        record: RecordedRequest,
        doc: Mapping[str, Any],
        fault: Fault | None,
        request_id: str,
    ) -> bool:
        name = str(doc.get("model", ""))
        model = self._synth.model_for(name)
        if model is None:
            return await send_error(wire, record, "openai", Status(404), request_id, model=name)
        chat = chat_view(doc)
        if not model.prefill and ends_with_assistant(chat):
            return await send_error(wire, record, "openai", prefill_error(), request_id)
        reply = answer(model, chat)
        window = model.context_window
        limit = doc.get("max_output_tokens")
        needed = reply.prompt_tokens + (limit if isinstance(limit, int) else 0)
        if window is not None and needed > window:
            too_long = Status(400, error="context_length")
            return await send_error(
                wire, record, "openai", too_long, request_id, tokens=needed, window=window
            )
        reply, reason = _cut(apply_content_fault(reply, fault), doc, fault)
        rid = response_id(request.body)
        build = _Builder(reply, doc, rid, self.created, reason)
        events = build.events()
        background = bool(doc.get("background"))
        final = build.response(build.status)
        if doc.get("store") is not False:
            with self._lock:
                self._store[final["id"]] = _Stored(final, events, background)
        header = ("x-request-id", request_id)
        if not record.stream:
            obj = build.response("queued", output=[]) if background else final
            body = _dumps(obj).encode()
            out = Outgoing(200, [("content-type", "application/json"), header], body=body)
            return await send(wire, reader, record, out, fault)
        return await _stream(wire, reader, record, events, fault, header, build.error_event)

    async def retrieve(
        self,
        wire: Wire,
        reader: asyncio.StreamReader,
        request: Request,
        record: RecordedRequest,
        response_id: str,
        fault: Fault | None,
        request_id: str,
    ) -> bool:
        with self._lock:
            found = self._store.get(response_id)
        if found is None:
            missing = Status(404, message=f"Response with id '{response_id}' not found.")
            return await send_error(wire, record, "openai", missing, request_id)
        query = parse_qs(urlsplit(request.target).query)
        header = ("x-request-id", request_id)
        if (query.get("stream") or ["false"])[-1].lower() != "true":
            body = _dumps(found.response).encode()
            out = Outgoing(200, [("content-type", "application/json"), header], body=body)
            return await send(wire, reader, record, out, fault)
        if not found.background:
            message = (
                "This response cannot be streamed because it was not created with background=true."
            )
            return await send_error(
                wire, record, "openai", Status(400, message=message), request_id
            )
        after_text = (query.get("starting_after") or ["-1"])[-1]
        try:
            after = int(after_text)
        except ValueError:
            bad = Status(
                400, message=f"Invalid 'starting_after': {after_text!r} is not an integer."
            )
            return await send_error(wire, record, "openai", bad, request_id)
        events = [e for e in found.events if json.loads(e.data)["sequence_number"] > after]
        doc = found.response
        reply = Reply("", (), 0, 0)
        build = _Builder(reply, {"model": doc["model"]}, doc["id"][5:], doc["created_at"], None)
        return await _stream(
            wire, reader, record, events, fault, header, build.error_event, after + 1
        )


async def _stream(
    wire: Wire,
    reader: asyncio.StreamReader,
    record: RecordedRequest,
    events: Sequence[Event],
    fault: Fault | None,
    header: tuple[str, str],
    error_event: Callable[[StreamError, int], bytes],
    first: int = 0,
) -> bool:

    pieces = [Piece(encode_event(event, None), event.role) for event in events]
    headers = [
        ("content-type", "text/event-stream; charset=utf-8"),
        ("cache-control", "no-cache"),
        header,
    ]

    def numbered(error: StreamError, sent: int) -> bytes:
        return error_event(error, first + sent)

    out = Outgoing(
        200,
        headers,
        pieces=iterate(pieces),
        total=len(pieces),
        dialect="openai",
        request_id=header[1],
        error_event=numbered,
    )
    return await send(wire, reader, record, out, fault)
