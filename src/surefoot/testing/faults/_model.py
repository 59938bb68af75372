"""The deterministic scripted model behind the fault server.

A :class:`Model` answers by one of three behaviours:

* **echo** (the default): the reply is the text of the last user message;
* **fixed**: ``reply="..."`` is always the answer;
* **scripted**: ``turns=[Turn(tool_calls=...), Turn(text=...)]``; the turn played is the
  number of assistant messages already in the conversation, so a retried request gets the
  same turn, and the last turn repeats once the script is exhausted.

**Assistant prefill**: when the last message is an ``assistant`` message (a partial answer
to continue), it is not counted as a played turn, and the model continues it: when its reply
starts with the partial text, the answer is the rest (the continuation only, as the Anthropic
API answers); otherwise the answer is the whole reply, unchanged (the scripted model does not
rewrite its script to fit). ``Model(prefill=False)`` rejects such requests instead (HTTP 400,
:data:`PREFILL_MESSAGE`).

Tokens are counted as whitespace-separated words, so usage and the context window check are
deterministic. :func:`answer` returns a :class:`Reply` that the wire modules render.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from surefoot.testing.faults._faults import check_types

#: The message of the 400 a model without assistant prefill answers (the Anthropic API's).
PREFILL_MESSAGE = (
    "This model does not support assistant message prefill. The conversation must end with a "
    "user message."
)

__all__ = [
    "PREFILL_MESSAGE",
    "Model",
    "Reply",
    "ToolCall",
    "Turn",
    "answer",
    "count_tokens",
    "ends_with_assistant",
    "find_model",
    "prompt_tokens",
]


@dataclass(frozen=True)
class ToolCall:
    """A tool call: ``arguments`` is a JSON object, or a raw string sent as is."""

    name: str
    arguments: Mapping[str, Any] | str = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_types(self)

    def arguments_json(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(dict(self.arguments), separators=(",", ":"))


@dataclass(frozen=True)
class Turn:
    """One scripted assistant turn: some text, some tool calls, or both."""

    text: str = ""
    tool_calls: Sequence[ToolCall] = ()

    def __post_init__(self) -> None:
        check_types(self)


@dataclass(frozen=True)
class Model:
    """A model the server knows. ``name`` may be a glob (``"gpt-*"``, ``"*"``).

    ``context_window`` (tokens) makes longer prompts fail with the provider's context-length
    error. ``event_ids`` overrides the server's choice of ``id:`` lines in this model's
    streams (``False``: none, as real providers send, and ``Last-Event-ID`` is ignored).
    ``prefill=False`` answers a request whose last message is an ``assistant`` message with
    HTTP 400 ``invalid_request_error`` (:data:`PREFILL_MESSAGE`), as a model without prefill
    support does; by default the model continues the partial answer.
    """

    name: str = "*"
    reply: str | None = None
    turns: Sequence[Turn] = ()
    context_window: int | None = None
    event_ids: bool | None = None
    prefill: bool = True

    def __post_init__(self) -> None:
        check_types(self)
        if self.context_window is not None and self.context_window < 1:
            raise ValueError(f"`context_window` must be at least 1, not {self.context_window}")
        if self.reply is not None and self.turns:
            raise ValueError("a model has either a fixed `reply` or scripted `turns`, not both")


@dataclass(frozen=True)
class Reply:
    """What the model says: text and tool calls, with deterministic token counts."""

    text: str
    tool_calls: Sequence[ToolCall]
    prompt_tokens: int
    completion_tokens: int

    @property
    def finish_tool(self) -> bool:
        return bool(self.tool_calls)


def count_tokens(text: str) -> int:
    """Tokens, estimated as whitespace-separated words."""
    return len(text.split())


def _content_text(content: Any) -> str:
    """The text of a message's content: a string, or a list of blocks (both dialects)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict):
                if isinstance(block.get("text"), str):
                    parts.append(block["text"])
                elif "content" in block:  # anthropic tool_result
                    parts.append(_content_text(block["content"]))
                elif "input" in block:  # anthropic tool_use
                    parts.append(json.dumps(block["input"]))
        return " ".join(p for p in parts if p)
    return ""


def _messages(body: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    messages = body.get("messages")
    if not isinstance(messages, list):
        return []
    return [m for m in messages if isinstance(m, Mapping)]


def prompt_tokens(body: Mapping[str, Any]) -> int:
    """Estimated prompt tokens: the words of the system prompt and of every message."""
    total = count_tokens(_content_text(body.get("system", "")))
    for message in _messages(body):
        total += count_tokens(_content_text(message.get("content")))
        for call in message.get("tool_calls") or ():
            if isinstance(call, Mapping):
                function = call.get("function") or {}
                total += count_tokens(str(function.get("arguments", "")))
    return total


def find_model(models: Sequence[Model], name: str) -> Model | None:
    """The first model whose name (or glob) matches ``name``."""
    for model in models:
        if model.name == name or fnmatch.fnmatchcase(name, model.name):
            return model
    return None


def _last_user_text(body: Mapping[str, Any]) -> str:
    for message in reversed(_messages(body)):
        if message.get("role") in ("user", "tool"):
            return _content_text(message.get("content"))
    return ""


def ends_with_assistant(body: object) -> bool:
    """Whether the request ``body``'s last message is an ``assistant`` message (a prefill)."""
    if not isinstance(body, Mapping):
        return False
    messages = _messages(body)
    return bool(messages) and messages[-1].get("role") == "assistant"


def answer(model: Model, body: Mapping[str, Any]) -> Reply:
    """The model's deterministic reply to a chat request ``body`` (the continuation only when
    the last message is an assistant prefill that the reply starts with)."""
    tool_calls: Sequence[ToolCall] = ()
    prefill = (
        _content_text(_messages(body)[-1].get("content")) if ends_with_assistant(body) else None
    )
    if model.turns:
        played = sum(1 for m in _messages(body) if m.get("role") == "assistant")
        played -= prefill is not None
        turn = model.turns[min(played, len(model.turns) - 1)]
        text, tool_calls = turn.text, turn.tool_calls
    elif model.reply is not None:
        text = model.reply
    else:
        text = _last_user_text(body)
    if prefill and text.startswith(prefill):
        text = text[len(prefill) :]
    completion = count_tokens(text) + sum(
        count_tokens(c.arguments_json().replace(",", " ")) for c in tool_calls
    )
    return Reply(text, tuple(tool_calls), prompt_tokens(body), max(completion, 1))
