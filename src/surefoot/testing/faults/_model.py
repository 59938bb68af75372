"""The deterministic scripted model behind the fault server.

A :class:`Model` answers by one of three behaviours:

* **echo** (the default): the reply is the text of the last user message;
* **fixed**: ``reply="..."`` is always the answer;
* **scripted**: ``turns=[Turn(tool_calls=...), Turn(text=...)]``; the turn played is the
  number of assistant messages already in the conversation, so a retried request gets the
  same turn, and the last turn repeats once the script is exhausted.

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

__all__ = [
    "Model",
    "Reply",
    "ToolCall",
    "Turn",
    "answer",
    "count_tokens",
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
    error.
    """

    name: str = "*"
    reply: str | None = None
    turns: Sequence[Turn] = ()
    context_window: int | None = None

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


def answer(model: Model, body: Mapping[str, Any]) -> Reply:
    """The model's deterministic reply to a chat request ``body``."""
    tool_calls: Sequence[ToolCall] = ()
    if model.turns:
        played = sum(1 for m in _messages(body) if m.get("role") == "assistant")
        turn = model.turns[min(played, len(model.turns) - 1)]
        text, tool_calls = turn.text, turn.tool_calls
    elif model.reply is not None:
        text = model.reply
    else:
        text = _last_user_text(body)
    completion = count_tokens(text) + sum(
        count_tokens(c.arguments_json().replace(",", " ")) for c in tool_calls
    )
    return Reply(text, tuple(tool_calls), prompt_tokens(body), max(completion, 1))
