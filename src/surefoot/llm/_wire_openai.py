"""The OpenAI chat completions dialect (``POST {base_url}/chat/completions``).

Requests: ``messages`` with assistant ``tool_calls`` and ``tool`` results by ``tool_call_id``;
tools as ``{"type": "function", "function": {name, description, parameters}}``; a stream asks
for ``stream_options.include_usage`` so its last chunk carries the usage. ``max_tokens`` is
sent as ``max_tokens`` (widest compatibility); for reasoning models pass
``extra={"max_completion_tokens": n}`` and leave ``max_tokens`` unset. ``extra`` keys are
merged last and override.

Responses: ``choices[0].message`` (``content``, ``tool_calls``, ``refusal``) and
``finish_reason``. A stream is ``chat.completion.chunk`` objects ended by ``data: [DONE]``;
tool calls are assembled by ``index`` (id and name first, arguments in pieces).
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

__all__ = ["OpenAIStreamState", "OpenAIWire", "normalize_finish_reason"]

_FINISH: Final = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "length",
    "content_filter": "content_filter",
    "error": "error",
}


def normalize_finish_reason(raw: str | None, refusal: str | None = None) -> str | None:
    """The normalized reason; a refusal (OpenAI reports it as ``stop``) becomes ``refusal``."""
    if refusal:
        return "refusal"
    if raw is None:
        return None
    return _FINISH.get(raw, raw)


def _message_dict(m: Message) -> dict[str, Any]:
    if m.role == "tool":
        return {"role": "tool", "tool_call_id": m.tool_call_id, "content": m.content}
    out: dict[str, Any] = {"role": m.role, "content": m.content}
    if m.tool_calls:
        out["content"] = m.content or None
        out["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in m.tool_calls
        ]
    if m.name is not None:
        out["name"] = m.name
    return out


def _usage(obj: Any) -> Usage:
    if not isinstance(obj, dict):
        return Usage()
    return Usage(as_int(obj.get("prompt_tokens")), as_int(obj.get("completion_tokens")))


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
    raise WireFormatError(f"message content is a {type(content).__name__}, not text")


def _parse_calls(raw_calls: Any) -> tuple[ToolCall, ...]:
    if not isinstance(raw_calls, list):
        raise WireFormatError("message.tool_calls is not a list")
    calls: list[ToolCall] = []
    for i, c in enumerate(raw_calls):
        fn = c.get("function") if isinstance(c, dict) else None
        if not isinstance(fn, dict):
            raise WireFormatError(f"tool call {i} has no 'function'")
        args = fn.get("arguments")
        if not isinstance(args, str):
            args = "" if args is None else json.dumps(args)
        call_id = str_or_none(c.get("id")) or f"call_{i}"
        calls.append(ToolCall(call_id, str_or_none(fn.get("name")) or "", args))
    return tuple(calls)


def str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def bearer_headers(api_key: str | None, *, stream: bool = False) -> dict[str, str]:
    """The headers of the OpenAI APIs (chat completions and Responses): JSON, the answer's
    media type, and the key as a bearer token."""
    out = {
        "Content-Type": "application/json",
        "Accept": "text/event-stream" if stream else "application/json",
    }
    if api_key:
        out["Authorization"] = f"Bearer {api_key}"
    return out


class OpenAIWire:
    """The ``"openai"`` wire format."""

    style: Final = "openai"
    path: Final = "/chat/completions"

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
        body: dict[str, Any] = {"model": model, "messages": [_message_dict(m) for m in messages]}
        if tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": t.parameters,
                    },
                }
                for t in tools
            ]
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        if extra:
            body.update(extra)
        return dumps(body)

    def parse_response(self, obj: Any) -> Completion:
        if not isinstance(obj, dict):
            raise WireFormatError(f"the response is a JSON {type(obj).__name__}, not an object")
        choices = obj.get("choices")
        if not isinstance(choices, list) or not choices:
            raise WireFormatError("the response has no 'choices'; it is not a chat completion")
        choice = choices[0]
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(message, dict):
            raise WireFormatError("choices[0] has no 'message'; it is not a chat completion")
        raw_calls = message.get("tool_calls")
        calls = _parse_calls(raw_calls) if raw_calls else ()
        # The hot path: str_or_none, _text and normalize_finish_reason inlined.
        refusal = message.get("refusal")
        if not isinstance(refusal, str):
            refusal = None
        raw = choice.get("finish_reason")
        if not isinstance(raw, str):
            raw = None
        content = message.get("content")
        text = content if isinstance(content, str) else _text(content)
        model = obj.get("model")
        ident = obj.get("id")
        return Completion(
            Message("assistant", text, calls),
            "refusal" if refusal else (None if raw is None else _FINISH.get(raw, raw)),
            _usage(obj.get("usage")),
            model if isinstance(model, str) else None,
            ident if isinstance(ident, str) else None,
            raw,
            refusal,
        )

    def new_stream_state(self) -> OpenAIStreamState:
        return OpenAIStreamState()


class _Call:
    __slots__ = ("args", "id", "name")

    def __init__(self) -> None:
        self.id = ""
        self.name = ""
        self.args: list[str] = []


class OpenAIStreamState:
    """Accumulates ``chat.completion.chunk`` events; ``[DONE]`` ends the stream."""

    def __init__(self) -> None:
        self.done = False
        self._text: list[str] = []
        self._refusal: list[str] = []
        self._calls: dict[int, _Call] = {}
        self._raw_finish: str | None = None
        self._usage = Usage()
        self._model: str | None = None
        self._id: str | None = None
        self._result: Completion | None = None

    def feed(self, event_name: str, data: str) -> list[StreamDelta]:
        if self.done:
            return []
        text = data.strip()
        if not text:
            return []
        if text == "[DONE]":
            self.done = True
            self._result = self.partial()
            return [StreamEnd(self._result)]
        obj = load_event(text)
        if "error" in obj or event_name == "error":
            raise StreamErrorEvent("the stream sent an error event", obj)
        if isinstance(obj.get("id"), str):
            self._id = obj["id"]
        if isinstance(obj.get("model"), str):
            self._model = obj["model"]
        if isinstance(obj.get("usage"), dict):
            self._usage = _usage(obj["usage"])
        out: list[StreamDelta] = []
        choices = obj.get("choices")
        if not isinstance(choices, list):
            return out
        for choice in choices:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta")
            if isinstance(delta, dict):
                self._delta(delta, out)
            finish = choice.get("finish_reason")
            if isinstance(finish, str):
                self._raw_finish = finish
        return out

    def _delta(self, delta: Mapping[str, Any], out: list[StreamDelta]) -> None:
        content = delta.get("content")
        if isinstance(content, str) and content:
            self._text.append(content)
            out.append(TextDelta(content))
        refusal = delta.get("refusal")
        if isinstance(refusal, str) and refusal:
            self._refusal.append(refusal)
        tool_calls = delta.get("tool_calls")
        if not isinstance(tool_calls, list):
            return
        for position, tc in enumerate(tool_calls):
            if not isinstance(tc, dict):
                continue
            index = tc.get("index", position)
            if not isinstance(index, int):
                continue
            call = self._calls.get(index)
            if call is None:
                call = self._calls[index] = _Call()
            if isinstance(tc.get("id"), str) and not call.id:
                call.id = tc["id"]
            fn = tc.get("function")
            piece = ""
            if isinstance(fn, dict):
                if isinstance(fn.get("name"), str) and not call.name:
                    call.name = fn["name"]
                args = fn.get("arguments")
                if isinstance(args, str):
                    piece = args
                    call.args.append(args)
            out.append(ToolCallDelta(index, call.id, call.name, piece))

    def partial(self) -> Completion:
        calls = tuple(
            ToolCall(c.id or f"call_{i}", c.name, "".join(c.args))
            for i, c in sorted(self._calls.items())
        )
        refusal = "".join(self._refusal) or None
        return Completion(
            message=Message("assistant", "".join(self._text), calls),
            finish_reason=normalize_finish_reason(self._raw_finish, refusal),
            usage=self._usage,
            model=self._model,
            id=self._id,
            raw_finish_reason=self._raw_finish,
            refusal=refusal,
        )

    def result(self) -> Completion:
        if self._result is None:
            raise WireFormatError("the stream ended before its final 'data: [DONE]' event")
        return self._result
