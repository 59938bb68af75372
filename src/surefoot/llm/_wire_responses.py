"""The OpenAI Responses API dialect (``POST {base_url}/responses``).

Requests: system messages are joined (blank line between) into the top-level
``instructions`` ("a system (or developer) message inserted into the model's context", as the
API documents it); user and assistant text become ``{"role", "content"}`` input messages, an
assistant's tool calls ``function_call`` items (``call_id``, ``name``, raw ``arguments``) and
tool results ``function_call_output`` items (``call_id``, ``output``; the API has no error
flag, so ``is_error`` is not sent, nor a message ``name``). Tools are flat
``{"type": "function", name, description, parameters, "strict": false}``: the Responses API
makes functions strict by default, which rejects ordinary schemas, and ``false`` keeps the
chat completions behaviour. ``max_tokens`` is sent as ``max_output_tokens``; ``store`` is left
to the server's default. ``extra`` keys are merged last and override.

Responses: a ``response`` object; text from the ``output_text`` parts of its ``message``
items, a ``refusal`` part as :attr:`Completion.refusal` (finish reason ``refusal``), tool calls
from its ``function_call`` items (id = ``call_id``); other items (``reasoning``, built-in tool
calls) are skipped. The finish reason comes from ``status`` and ``incomplete_details.reason``
(see :func:`normalize_status`).

A stream is typed events (``event: <type>``, ``data: {"type", "sequence_number", ...}``):
``response.output_text.delta`` gives text, ``response.output_item.added`` of a
``function_call`` starts a tool call and ``response.function_call_arguments.delta`` continues
it (by ``item_id``, else ``output_index``); ``response.completed`` or ``response.incomplete``
ends the stream with the completion of its ``response`` (or what was accumulated, when that
carries no output). Other events (``response.created``, ``response.content_part.*``,
``*.done``, reasoning...) are ignored. ``error`` and ``response.failed`` are errors: the
caller classifies them before feeding; fed anyway they raise :class:`StreamErrorEvent`.

For resuming a background response, the state exposes the last ``sequence_number`` and the
``response_id``; :meth:`ResponsesWire.resume_url` builds
``GET {base}/responses/{id}?stream=true&starting_after={n}``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import quote, urlsplit, urlunsplit

from surefoot.llm._messages import Completion, Message, ToolCall, Usage
from surefoot.llm._wire import (
    StreamDelta,
    StreamEnd,
    StreamErrorEvent,
    TextDelta,
    ToolCallDelta,
    WireFormatError,
    as_int,
    dumps,
    join_endpoint,
    load_event,
)
from surefoot.llm._wire_openai import bearer_headers, str_or_none

if TYPE_CHECKING:
    from surefoot.llm._tools import ToolSpec

__all__ = ["ResponsesStreamState", "ResponsesWire", "normalize_status"]

#: ``incomplete_details.reason`` to the normalized finish reason (``max_tokens`` appears in
#: older examples of the API reference).
_INCOMPLETE: Final = {
    "max_output_tokens": "length",
    "max_tokens": "length",
    "content_filter": "content_filter",
}
#: Statuses of a response still running: no finish reason yet.
_RUNNING: Final = frozenset(("in_progress", "queued"))
#: Event types that report a failure (classified by the caller before feeding).
_ERROR_EVENTS: Final = frozenset(("error", "response.failed"))
#: Event types that end the stream with a completion.
_END_EVENTS: Final = frozenset(("response.completed", "response.incomplete"))
#: Event types whose ``response`` carries the id and model of the response being streamed.
_LIFECYCLE_EVENTS: Final = frozenset(
    ("response.created", "response.in_progress", "response.queued", *_END_EVENTS)
)


def normalize_status(
    status: str | None, reason: str | None, *, has_calls: bool, refusal: str | None = None
) -> tuple[str | None, str | None]:
    """``(finish_reason, raw_finish_reason)`` of a response's ``status`` and
    ``incomplete_details.reason``.

    ``completed`` is ``stop``, or ``tool_calls`` when the output has function calls (a missing
    status, as some compatible servers send, counts as ``completed``); ``incomplete`` is
    ``length`` or ``content_filter`` by its reason, which is then the raw reason; ``failed`` is
    ``error``; a running response (``in_progress``, ``queued``) has none yet; other statuses
    (``cancelled``) pass raw. A refusal makes it ``refusal``, whatever the status.
    """
    if status in _RUNNING:
        return ("refusal" if refusal else None), None
    if status == "incomplete":
        raw = reason or "incomplete"
        normalized = _INCOMPLETE.get(raw, raw)
    elif status is None or status == "completed":
        raw = status or "completed"
        normalized = "tool_calls" if has_calls else "stop"
    elif status == "failed":
        raw, normalized = status, "error"
    else:
        raw = normalized = status
    return ("refusal" if refusal else normalized), raw


def _input_items(messages: Sequence[Message]) -> tuple[list[str], list[dict[str, Any]]]:
    system: list[str] = []
    items: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "system":
            system.append(m.content)
        elif m.role == "tool":
            items.append(
                {"type": "function_call_output", "call_id": m.tool_call_id, "output": m.content}
            )
        else:
            if m.content or not m.tool_calls:
                items.append({"role": m.role, "content": m.content})
            for c in m.tool_calls:
                items.append(
                    {
                        "type": "function_call",
                        "call_id": c.id,
                        "name": c.name,
                        "arguments": c.arguments,
                    }
                )
    return system, items


def _usage(obj: Any) -> Usage:
    """``input_tokens`` (cached ones included, as the API counts them) and
    ``output_tokens`` (reasoning ones included)."""
    if not isinstance(obj, dict):
        return Usage()
    return Usage(as_int(obj.get("input_tokens")), as_int(obj.get("output_tokens")))


def _arguments(value: Any) -> str:
    """Raw argument text; a non-string (a lenient server's object) is re-encoded."""
    if isinstance(value, str):
        return value
    return "" if value is None else json.dumps(value)


def _reason(obj: Mapping[str, Any]) -> str | None:
    details = obj.get("incomplete_details")
    return str_or_none(details.get("reason")) if isinstance(details, dict) else None


def _status(obj: Mapping[str, Any]) -> str | None:
    status = obj.get("status")
    if status is not None and not isinstance(status, str):
        raise WireFormatError(f"the response 'status' is a {type(status).__name__}, not a str")
    return status


def _parse_output(output: list[Any]) -> tuple[str, str | None, tuple[ToolCall, ...]]:
    """``(text, refusal, calls)`` of a response's ``output`` items."""
    texts: list[str] = []
    refusals: list[str] = []
    calls: list[ToolCall] = []
    for i, item in enumerate(output):
        if not isinstance(item, dict):
            raise WireFormatError(f"output item {i} is a JSON {type(item).__name__}, not an object")
        kind = item.get("type")
        if kind == "message":
            content = item.get("content")
            if content is None:
                continue
            if not isinstance(content, list):
                raise WireFormatError(f"output item {i} (message) has no 'content' list")
            for part in content:
                if not isinstance(part, dict):
                    raise WireFormatError(f"a content part of output item {i} is not an object")
                ptype = part.get("type")
                if ptype == "output_text" and isinstance(part.get("text"), str):
                    texts.append(part["text"])
                elif ptype == "refusal" and isinstance(part.get("refusal"), str):
                    refusals.append(part["refusal"])
        elif kind == "function_call":
            call_id = (
                str_or_none(item.get("call_id"))
                or str_or_none(item.get("id"))
                or f"call_{len(calls)}"
            )
            name = str_or_none(item.get("name")) or ""
            calls.append(ToolCall(call_id, name, _arguments(item.get("arguments"))))
    return "".join(texts), "".join(refusals) or None, tuple(calls)


def _completion(obj: Any) -> Completion:
    """The completion of a ``response`` object."""
    if not isinstance(obj, dict):
        raise WireFormatError(f"the response is a JSON {type(obj).__name__}, not an object")
    output = obj.get("output")
    if not isinstance(output, list):
        raise WireFormatError(
            "the response has no 'output' list; it is not a Responses API response"
        )
    text, refusal, calls = _parse_output(output)
    finish, raw = normalize_status(
        _status(obj), _reason(obj), has_calls=bool(calls), refusal=refusal
    )
    return Completion(
        message=Message("assistant", text, calls),
        finish_reason=finish,
        usage=_usage(obj.get("usage")),
        model=str_or_none(obj.get("model")),
        id=str_or_none(obj.get("id")),
        raw_finish_reason=raw,
        refusal=refusal,
    )


class ResponsesWire:
    """The ``"responses"`` wire format (the OpenAI Responses API)."""

    style: Final = "responses"
    path: Final = "/responses"

    def endpoint(self, base_url: str) -> str:
        return join_endpoint(base_url, self.path)

    def headers(self, api_key: str | None, *, stream: bool = False) -> dict[str, str]:
        return bearer_headers(api_key, stream=stream)

    def build_request(
        self,
        messages: Sequence[Message],
        *,
        model: str,
        tools: Sequence[ToolSpec] | None = None,
        stream: bool = False,
        max_tokens: int | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> bytes:
        system, items = _input_items(messages)
        body: dict[str, Any] = {"model": model}
        if system:
            body["instructions"] = "\n\n".join(system)
        body["input"] = items
        if tools:
            body["tools"] = [
                {
                    "type": "function",
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters,
                    "strict": False,
                }
                for t in tools
            ]
        if max_tokens is not None:
            body["max_output_tokens"] = max_tokens
        if stream:
            body["stream"] = True
        if extra:
            body.update(extra)
        return dumps(body)

    def parse_response(self, obj: Any) -> Completion:
        return _completion(obj)

    def new_stream_state(self) -> ResponsesStreamState:
        return ResponsesStreamState()

    def resume_url(self, base_endpoint_url: str, response_id: str, after: int | None) -> str:
        """The URL that resumes streaming the (background) response ``response_id`` after the
        event of sequence number ``after`` (from the start when ``None``):
        ``GET {base}/responses/{id}?stream=true&starting_after={after}``.

        ``base_endpoint_url`` is the endpoint (or the base URL it was built from); a query
        string on it (``?api-version=...``) is kept after the resume parameters.
        """
        if not isinstance(response_id, str) or not response_id.strip():
            raise ValueError("response_id is empty; pass the id of response.created")
        if after is not None and (
            not isinstance(after, int) or isinstance(after, bool) or after < 0
        ):
            raise ValueError(f"after must be a sequence number >= 0 or None, got {after!r}")
        parts = urlsplit(self.endpoint(base_endpoint_url))
        path = f"{parts.path}/{quote(response_id.strip(), safe='')}"
        query = ["stream=true"]
        if after is not None:
            query.append(f"starting_after={after}")
        query.extend(
            p
            for p in parts.query.split("&")
            if p and p.split("=", 1)[0] not in ("stream", "starting_after")
        )
        return urlunsplit((parts.scheme, parts.netloc, path, "&".join(query), parts.fragment))


class _Call:
    __slots__ = ("args", "id", "name", "ordinal")

    def __init__(self, ordinal: int, call_id: str, name: str) -> None:
        self.ordinal = ordinal
        self.id = call_id
        self.name = name
        self.args: list[str] = []


class ResponsesStreamState:
    """Accumulates Responses API stream events; ``response.completed`` or
    ``response.incomplete`` ends the stream."""

    def __init__(self) -> None:
        self.done = False
        self._text: list[str] = []
        self._refusal: list[str] = []
        self._calls: list[_Call] = []
        self._by_item: dict[str, _Call] = {}
        self._by_index: dict[int, _Call] = {}
        self._status: str | None = None
        self._reason: str | None = None
        self._usage = Usage()
        self._model: str | None = None
        self._id: str | None = None
        self._seq: int | None = None
        self._result: Completion | None = None

    @property
    def sequence_number(self) -> int | None:
        """The ``sequence_number`` of the last event fed (``None`` before any): resume with
        ``starting_after`` set to it."""
        return self._seq

    @property
    def response_id(self) -> str | None:
        """The id of the response being streamed, from ``response.created`` (or a later
        lifecycle event); ``None`` until one came."""
        return self._id

    def feed(self, event_name: str, data: str) -> list[StreamDelta]:
        if self.done or not data.strip():
            return []
        obj = load_event(data)
        kind = obj.get("type")
        if not isinstance(kind, str):
            kind = event_name
        if (
            kind in _ERROR_EVENTS
            or event_name in _ERROR_EVENTS
            or isinstance(obj.get("error"), dict)
        ):
            raise StreamErrorEvent(f"the stream sent an error event ({kind!r})", obj)
        seq = obj.get("sequence_number")
        if isinstance(seq, int) and not isinstance(seq, bool):
            self._seq = seq
        if kind == "response.output_text.delta":
            delta = obj.get("delta")
            if isinstance(delta, str) and delta:
                self._text.append(delta)
                return [TextDelta(delta)]
            return []
        if kind == "response.function_call_arguments.delta":
            return self._arguments_delta(obj)
        if kind == "response.output_item.added":
            return self._item_added(obj)
        if kind == "response.refusal.delta":
            delta = obj.get("delta")
            if isinstance(delta, str):
                self._refusal.append(delta)
            return []
        if kind in _LIFECYCLE_EVENTS:
            response = obj.get("response")
            if not isinstance(response, dict):
                if kind in _END_EVENTS:
                    raise WireFormatError(f"the {kind!r} event has no 'response' object")
                return []
            self._id = str_or_none(response.get("id")) or self._id
            self._model = str_or_none(response.get("model")) or self._model
            if isinstance(response.get("usage"), dict):
                self._usage = _usage(response["usage"])
            self._status = _status(response) or self._status
            self._reason = _reason(response) or self._reason
            if kind in _END_EVENTS:
                return self._end(kind, response)
        return []

    def _call(self, obj: Mapping[str, Any]) -> _Call | None:
        item_id = obj.get("item_id")
        if isinstance(item_id, str) and item_id in self._by_item:
            return self._by_item[item_id]
        index = obj.get("output_index")
        return self._by_index.get(index) if isinstance(index, int) else None

    def _start(self, item_id: Any, index: Any, call_id: str, name: str) -> _Call:
        call = _Call(len(self._calls), call_id, name)
        self._calls.append(call)
        if isinstance(item_id, str):
            self._by_item[item_id] = call
        if isinstance(index, int):
            self._by_index[index] = call
        return call

    def _item_added(self, obj: Mapping[str, Any]) -> list[StreamDelta]:
        item = obj.get("item")
        if not isinstance(item, dict) or item.get("type") != "function_call":
            return []
        item_id = item.get("id")
        call = self._start(
            item_id,
            obj.get("output_index"),
            str_or_none(item.get("call_id")) or str_or_none(item_id) or "",
            str_or_none(item.get("name")) or "",
        )
        out: list[StreamDelta] = [ToolCallDelta(call.ordinal, call.id, call.name, "")]
        initial = _arguments(item.get("arguments"))
        if initial:  # a server that sends the arguments whole, with the item
            call.args.append(initial)
            out.append(ToolCallDelta(call.ordinal, call.id, call.name, initial))
        return out

    def _arguments_delta(self, obj: Mapping[str, Any]) -> list[StreamDelta]:
        piece = obj.get("delta")
        if not isinstance(piece, str):
            return []
        out: list[StreamDelta] = []
        call = self._call(obj)
        if call is None:  # no output_item.added came for it: start the call here
            item_id = obj.get("item_id")
            call = self._start(item_id, obj.get("output_index"), str_or_none(item_id) or "", "")
            out.append(ToolCallDelta(call.ordinal, call.id, call.name, ""))
        if piece:
            call.args.append(piece)
            out.append(ToolCallDelta(call.ordinal, call.id, call.name, piece))
        return out

    def _end(self, kind: str, response: Mapping[str, Any]) -> list[StreamDelta]:
        output = response.get("output")
        if isinstance(output, list) and output:
            completion = _completion(response)
            if completion.id is None or completion.model is None:
                completion = Completion(
                    completion.message,
                    completion.finish_reason,
                    completion.usage,
                    completion.model or self._model,
                    completion.id or self._id,
                    completion.raw_finish_reason,
                    completion.refusal,
                )
        else:
            if self._status is None or self._status in _RUNNING:
                self._status = "incomplete" if kind == "response.incomplete" else "completed"
            completion = self.partial()
        self.done = True
        self._result = completion
        return [StreamEnd(completion)]

    def partial(self) -> Completion:
        calls = tuple(
            ToolCall(c.id or f"call_{c.ordinal}", c.name, "".join(c.args)) for c in self._calls
        )
        refusal = "".join(self._refusal) or None
        if self._status is None:
            finish, raw = ("refusal" if refusal else None), None
        else:
            finish, raw = normalize_status(
                self._status, self._reason, has_calls=bool(calls), refusal=refusal
            )
        return Completion(
            message=Message("assistant", "".join(self._text), calls),
            finish_reason=finish,
            usage=self._usage,
            model=self._model,
            id=self._id,
            raw_finish_reason=raw,
            refusal=refusal,
        )

    def result(self) -> Completion:
        if self._result is None:
            raise WireFormatError("the stream ended before its final 'response.completed' event")
        return self._result
