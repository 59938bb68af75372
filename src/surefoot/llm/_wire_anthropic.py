"""The Anthropic messages dialect (``POST {base_url}/v1/messages``).

Requests: system messages are joined (blank line between) into the top-level ``system``;
assistant tool calls become ``tool_use`` blocks whose ``input`` is the parsed arguments (``{}``
when they do not parse, so a conversation with one bad call can still be sent); tool results
become ``tool_result`` blocks of a user message, with ``is_error`` when the result is a
failure. Consecutive messages of the same role are merged into one turn (tool results first,
as the API requires). ``max_tokens`` is required by the API: 1024 when not given.

Responses: ``content`` blocks ``text`` and ``tool_use`` (arguments = ``json.dumps(input)``;
other blocks such as ``thinking`` are skipped) and ``stop_reason``. A stream is
``message_start``, ``content_block_start``/``_delta``/``_stop``, ``message_delta`` and
``message_stop``; ``ping`` and unknown events are ignored.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

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

if TYPE_CHECKING:
    from surefoot.llm._tools import ToolSpec

__all__ = [
    "ANTHROPIC_VERSION",
    "DEFAULT_MAX_TOKENS",
    "AnthropicStreamState",
    "AnthropicWire",
    "normalize_stop_reason",
]

ANTHROPIC_VERSION: Final = "2023-06-01"
DEFAULT_MAX_TOKENS: Final = 1024

_STOP: Final = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "refusal": "refusal",
    "model_context_window_exceeded": "context_window",
}


def normalize_stop_reason(raw: str | None) -> str | None:
    return None if raw is None else _STOP.get(raw, raw)


def _input(arguments: str) -> Any:
    try:
        value = json.loads(arguments) if arguments.strip() else {}
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _blocks(m: Message) -> list[dict[str, Any]]:
    if m.role == "tool":
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": m.tool_call_id,
            "content": m.content,
        }
        if m.is_error:
            block["is_error"] = True
        return [block]
    blocks: list[dict[str, Any]] = []
    if m.content or not m.tool_calls:
        blocks.append({"type": "text", "text": m.content})
    for c in m.tool_calls:
        blocks.append(
            {"type": "tool_use", "id": c.id, "name": c.name, "input": _input(c.arguments)}
        )
    return blocks


def _turns(messages: Sequence[Message]) -> tuple[list[str], list[dict[str, Any]]]:
    system: list[str] = []
    turns: list[tuple[str, list[dict[str, Any]]]] = []
    for m in messages:
        if m.role == "system":
            system.append(m.content)
            continue
        role = "assistant" if m.role == "assistant" else "user"
        blocks = _blocks(m)
        if turns and turns[-1][0] == role:
            prev = turns[-1][1]
            if m.role == "tool":  # tool results lead their user turn
                at = sum(1 for b in prev if b["type"] == "tool_result")
                prev[at:at] = blocks
            else:
                prev.extend(blocks)
        else:
            turns.append((role, blocks))
    out: list[dict[str, Any]] = []
    for role, blocks in turns:
        if len(blocks) == 1 and blocks[0]["type"] == "text":
            out.append({"role": role, "content": blocks[0]["text"]})
        else:
            out.append({"role": role, "content": blocks})
    return system, out


def _usage(obj: Any, base: Usage | None = None) -> Usage:
    """Input tokens include cache reads and writes (they all fill the context window)."""
    if not isinstance(obj, dict):
        return base or Usage()
    has_input = any(
        k in obj for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    )
    inp = (
        as_int(obj.get("input_tokens"))
        + as_int(obj.get("cache_read_input_tokens"))
        + as_int(obj.get("cache_creation_input_tokens"))
    )
    if base is not None:
        return Usage(
            inp if has_input else base.input_tokens,
            as_int(obj["output_tokens"]) if "output_tokens" in obj else base.output_tokens,
        )
    return Usage(inp, as_int(obj.get("output_tokens")))


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


class AnthropicWire:
    """The ``"anthropic"`` wire format."""

    style: Final = "anthropic"
    path: Final = "/v1/messages"

    def endpoint(self, base_url: str) -> str:
        return join_endpoint(base_url, self.path, "/v1")

    def headers(self, api_key: str | None, *, stream: bool = False) -> dict[str, str]:
        out = {
            "Content-Type": "application/json",
            "Accept": "text/event-stream" if stream else "application/json",
            "anthropic-version": ANTHROPIC_VERSION,
        }
        if api_key:
            out["x-api-key"] = api_key
        return out

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
        system, turns = _turns(messages)
        body: dict[str, Any] = {
            "model": model,
            "max_tokens": DEFAULT_MAX_TOKENS if max_tokens is None else max_tokens,
            "messages": turns,
        }
        if system:
            body["system"] = "\n\n".join(system)
        if tools:
            body["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.parameters}
                for t in tools
            ]
        if stream:
            body["stream"] = True
        if extra:
            body.update(extra)
        return dumps(body)

    def parse_response(self, obj: Any) -> Completion:
        if not isinstance(obj, dict):
            raise WireFormatError(f"the response is a JSON {type(obj).__name__}, not an object")
        content = obj.get("content")
        if not isinstance(content, list):
            raise WireFormatError("the response has no 'content' list; it is not a message")
        texts: list[str] = []
        calls: list[ToolCall] = []
        for block in content:
            if not isinstance(block, dict):
                raise WireFormatError("a content block is not a JSON object")
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif kind == "tool_use":
                raw_input = block.get("input")
                # A malformed input may arrive as a string: keep it raw for the caller.
                args = raw_input if isinstance(raw_input, str) else json.dumps(raw_input)
                call_id = _str_or_none(block.get("id")) or f"toolu_{len(calls)}"
                calls.append(ToolCall(call_id, _str_or_none(block.get("name")) or "", args))
        raw = _str_or_none(obj.get("stop_reason"))
        return Completion(
            message=Message("assistant", "".join(texts), tuple(calls)),
            finish_reason=normalize_stop_reason(raw),
            usage=_usage(obj.get("usage")),
            model=_str_or_none(obj.get("model")),
            id=_str_or_none(obj.get("id")),
            raw_finish_reason=raw,
        )

    def new_stream_state(self) -> AnthropicStreamState:
        return AnthropicStreamState()


class _Call:
    __slots__ = ("args", "id", "initial", "name", "ordinal")

    def __init__(self, ordinal: int, call_id: str, name: str, initial: Any) -> None:
        self.ordinal = ordinal
        self.id = call_id
        self.name = name
        self.initial = initial
        self.args: list[str] = []

    def arguments(self) -> str:
        text = "".join(self.args)
        if text:
            return text
        return json.dumps(self.initial if isinstance(self.initial, dict) else {})


class AnthropicStreamState:
    """Accumulates message events; ``message_stop`` ends the stream."""

    def __init__(self) -> None:
        self.done = False
        self._text: list[str] = []
        self._calls: dict[int, _Call] = {}  # by content block index
        self._raw_stop: str | None = None
        self._usage = Usage()
        self._model: str | None = None
        self._id: str | None = None
        self._result: Completion | None = None

    def feed(self, event_name: str, data: str) -> list[StreamDelta]:
        if self.done or not data.strip():
            return []
        obj = load_event(data)
        kind = obj.get("type")
        if not isinstance(kind, str):
            kind = event_name
        if kind == "error" or event_name == "error":
            raise StreamErrorEvent("the stream sent an error event", obj)
        if kind == "content_block_delta":
            return self._block_delta(obj)
        if kind == "content_block_start":
            return self._block_start(obj)
        if kind == "message_start":
            message = obj.get("message")
            if isinstance(message, dict):
                self._id = _str_or_none(message.get("id")) or self._id
                self._model = _str_or_none(message.get("model")) or self._model
                self._usage = _usage(message.get("usage"), self._usage)
        elif kind == "message_delta":
            delta = obj.get("delta")
            if isinstance(delta, dict) and isinstance(delta.get("stop_reason"), str):
                self._raw_stop = delta["stop_reason"]
            self._usage = _usage(obj.get("usage"), self._usage)
        elif kind == "message_stop":
            self.done = True
            self._result = self.partial()
            return [StreamEnd(self._result)]
        return []

    def _block_start(self, obj: Mapping[str, Any]) -> list[StreamDelta]:
        block = obj.get("content_block")
        index = obj.get("index")
        if not isinstance(block, dict) or not isinstance(index, int):
            return []
        if block.get("type") == "text":
            text = block.get("text")
            if isinstance(text, str) and text:
                self._text.append(text)
                return [TextDelta(text)]
        elif block.get("type") == "tool_use":
            ordinal = len(self._calls)
            call = _Call(
                ordinal,
                _str_or_none(block.get("id")) or f"toolu_{ordinal}",
                _str_or_none(block.get("name")) or "",
                block.get("input"),
            )
            self._calls[index] = call
            return [ToolCallDelta(ordinal, call.id, call.name, "")]
        return []

    def _block_delta(self, obj: Mapping[str, Any]) -> list[StreamDelta]:
        delta = obj.get("delta")
        if not isinstance(delta, dict):
            return []
        kind = delta.get("type")
        if kind == "text_delta":
            text = delta.get("text")
            if isinstance(text, str) and text:
                self._text.append(text)
                return [TextDelta(text)]
        elif kind == "input_json_delta":
            piece = delta.get("partial_json")
            call = self._calls.get(obj["index"]) if isinstance(obj.get("index"), int) else None
            if call is not None and isinstance(piece, str):
                call.args.append(piece)
                if not piece:
                    return []
                return [ToolCallDelta(call.ordinal, call.id, call.name, piece)]
        return []

    def partial(self) -> Completion:
        calls = tuple(ToolCall(c.id, c.name, c.arguments()) for c in self._calls.values())
        return Completion(
            message=Message("assistant", "".join(self._text), calls),
            finish_reason=normalize_stop_reason(self._raw_stop),
            usage=self._usage,
            model=self._model,
            id=self._id,
            raw_finish_reason=self._raw_stop,
        )

    def result(self) -> Completion:
        if self._result is None:
            raise WireFormatError("the stream ended before its final 'message_stop' event")
        return self._result
