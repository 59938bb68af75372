"""A provider-neutral conversation: :class:`Message`, :class:`ToolCall`, :class:`Usage` and
the :class:`Completion` a model call returns, plus :func:`normalize_messages`.

These are plain frozen, slotted dataclasses; the wire formats (``_wire_openai``,
``_wire_anthropic``) translate them to and from each provider's JSON. Nothing here does I/O.

A tool call's ``arguments`` is the raw JSON text exactly as the model sent it, which may be
invalid; :meth:`ToolCall.parsed` decodes it without ever raising, so the caller decides what
to do with bad arguments (usually: return them to the model as a tool error).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, cast

__all__ = [
    "FINISH_REASONS",
    "Completion",
    "Message",
    "Role",
    "ToolCall",
    "Usage",
    "normalize_messages",
]

Role = Literal["system", "user", "assistant", "tool"]
_ROLES: Final = frozenset(("system", "user", "assistant", "tool"))
#: The roles a message of only ``role`` and ``content`` may have (a tool message needs an id).
_PLAIN_ROLES: Final = frozenset(("system", "user", "assistant"))
#: OpenAI's newer name for a system message; accepted on input and mapped to ``"system"``.
_ROLE_ALIASES: Final = {"developer": "system"}

#: The normalized values of :attr:`Completion.finish_reason` (any other value is passed raw).
FINISH_REASONS: Final = frozenset(
    ("stop", "tool_calls", "length", "content_filter", "refusal", "context_window", "error")
)


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call requested by the model; ``arguments`` is raw JSON text."""

    id: str
    name: str
    arguments: str

    def parsed(self) -> tuple[dict[str, Any] | None, str | None]:
        """``(arguments, None)`` when they are a JSON object, else ``(None, why)``. Never raises.

        Empty (or all-blank) arguments count as ``{}``: some servers send nothing for a tool
        without parameters.
        """
        text = self.arguments
        if not text or text.isspace():
            return {}, None
        try:
            value = json.loads(text)
        except (ValueError, RecursionError) as exc:
            return None, (
                f"the arguments of tool call {self.name!r} are not valid JSON ({exc}); "
                "send one JSON object"
            )
        if not isinstance(value, dict):
            return None, (
                f"the arguments of tool call {self.name!r} are a JSON {type(value).__name__}, "
                "not an object; send one JSON object with the parameters as keys"
            )
        return value, None


@dataclass(frozen=True, slots=True)
class Message:
    """One conversation turn.

    ``tool_calls`` only on ``assistant`` messages; ``tool_call_id`` (required) only on ``tool``
    messages, which carry a tool's result in ``content``. ``is_error`` marks a tool result that
    reports a failure (sent as Anthropic's ``is_error``; OpenAI has no such field).
    """

    role: Role
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    is_error: bool = False

    def __post_init__(self) -> None:
        if self.role not in _ROLES:
            raise ValueError(
                f"unknown message role {self.role!r}; use one of 'system', 'user', "
                "'assistant' or 'tool'"
            )
        if not isinstance(self.content, str):
            raise TypeError(
                f"the content of a {self.role} message must be a str, "
                f"not {type(self.content).__name__}"
            )
        if self.tool_calls and self.role != "assistant":
            raise ValueError(f"only assistant messages carry tool_calls, not {self.role} ones")
        if self.role == "tool" and not self.tool_call_id:
            raise ValueError(
                "a tool message needs the tool_call_id of the call it answers; "
                "pass tool_call_id=call.id"
            )

    def to_dict(self) -> dict[str, Any]:
        """An OpenAI-style dict, accepted back by :func:`normalize_messages`."""
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            out["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for c in self.tool_calls
            ]
        if self.tool_call_id is not None:
            out["tool_call_id"] = self.tool_call_id
        if self.name is not None:
            out["name"] = self.name
        if self.is_error:
            out["is_error"] = True
        return out


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens billed for one call; ``+`` sums calls."""

    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(
            self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens
        )

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True, slots=True)
class Completion:
    """One model answer.

    ``finish_reason`` is normalized to one of :data:`FINISH_REASONS` when known, else the raw
    value; ``raw_finish_reason`` is the provider's own. ``refusal`` holds OpenAI's refusal text.
    """

    message: Message
    finish_reason: str | None
    usage: Usage
    model: str | None = None
    id: str | None = None
    raw_finish_reason: str | None = None
    refusal: str | None = None

    @property
    def text(self) -> str:
        return self.message.content

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        return self.message.tool_calls


def normalize_messages(
    prompt_or_messages: str | Sequence[Message | Mapping[str, Any]],
) -> list[Message]:
    """A list of :class:`Message` from a prompt string, Messages, or OpenAI-style dicts.

    Dicts take ``role``, ``content`` (a str; a list of ``{"type": "text", "text": ...}``
    parts; or null/absent on an assistant message with tool calls), ``tool_calls`` (OpenAI
    shape, or :class:`ToolCall`), ``tool_call_id``, ``name`` and ``is_error``.
    Raises ``TypeError`` for values of a wrong type and ``ValueError`` for wrong values.
    """
    if isinstance(prompt_or_messages, str):
        return [Message("user", prompt_or_messages)]
    if type(prompt_or_messages) is not list and (  # a list passes both checks
        isinstance(prompt_or_messages, (bytes, Mapping))
        or not isinstance(prompt_or_messages, Sequence)
    ):
        raise TypeError(
            "expected a prompt str or a list of messages (Message or dicts with 'role' and "
            f"'content'), not {type(prompt_or_messages).__name__}"
        )
    if not prompt_or_messages:
        raise ValueError("the conversation is empty; pass a prompt or at least one message")
    out: list[Message] = []
    for i, item in enumerate(prompt_or_messages):
        # The common case first: a plain {"role": ..., "content": "..."} dict of a role that
        # needs nothing else; what _from_dict would build from it, without its checks.
        if type(item) is dict and len(item) == 2:
            role = item.get("role")
            content = item.get("content")
            if type(role) is str and role in _PLAIN_ROLES and type(content) is str:
                out.append(Message(role, content))  # type: ignore[arg-type]
                continue
        if isinstance(item, Message):
            out.append(item)
        elif isinstance(item, Mapping):
            out.append(_from_dict(item, i))
        else:
            raise TypeError(
                f"message {i} is a {type(item).__name__}; pass a Message or a dict with "
                "'role' and 'content'"
            )
    return out


def _from_dict(d: Mapping[str, Any], i: int) -> Message:
    role = d.get("role")
    if not isinstance(role, str):
        raise ValueError(f"message {i} has no 'role'; use 'system', 'user', 'assistant' or 'tool'")
    role = _ROLE_ALIASES.get(role, role)
    if role not in _ROLES:
        raise ValueError(
            f"message {i} has unknown role {role!r}; use 'system', 'user', 'assistant' or 'tool'"
        )
    calls = _tool_calls(d.get("tool_calls"), i)
    if "content" not in d and not calls:
        raise ValueError(f"message {i} ({role}) has no 'content'; add the message text")
    content = _content(d.get("content"), i, role, allow_none=bool(calls))
    call_id = d.get("tool_call_id")
    name = d.get("name")
    if call_id is not None and not isinstance(call_id, str):
        raise TypeError(f"message {i}: 'tool_call_id' must be a str")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"message {i}: 'name' must be a str")
    try:
        return Message(
            cast(Role, role), content, calls, call_id, name, bool(d.get("is_error", False))
        )
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"message {i}: {exc}") from None


def _content(value: Any, i: int, role: str, *, allow_none: bool) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        if allow_none:
            return ""
        raise ValueError(f"message {i} ({role}) has null content; give it text")
    if isinstance(value, list):
        texts: list[str] = []
        for part in value:
            if isinstance(part, Mapping) and part.get("type") == "text":
                text = part.get("text")
                if isinstance(text, str):
                    texts.append(text)
                    continue
            kind = part.get("type") if isinstance(part, Mapping) else type(part).__name__
            raise ValueError(
                f"message {i} ({role}) has a content part of type {kind!r}; only text parts "
                "({'type': 'text', 'text': ...}) are supported"
            )
        return "".join(texts)
    raise TypeError(
        f"message {i} ({role}) content must be a str or a list of text parts, "
        f"not {type(value).__name__}"
    )


def _tool_calls(value: Any, i: int) -> tuple[ToolCall, ...]:
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise TypeError(f"message {i}: 'tool_calls' must be a list")
    calls: list[ToolCall] = []
    for j, c in enumerate(value):
        if isinstance(c, ToolCall):
            calls.append(c)
            continue
        fn = c.get("function") if isinstance(c, Mapping) else None
        if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str):
            raise ValueError(
                f"message {i}: tool call {j} needs the OpenAI shape "
                "{'id': ..., 'type': 'function', 'function': {'name': ..., 'arguments': ...}}"
            )
        args = fn.get("arguments", "")
        if not isinstance(args, str):
            args = json.dumps(args)
        assert isinstance(c, Mapping)
        call_id = c.get("id")
        calls.append(
            ToolCall(call_id if isinstance(call_id, str) else f"call_{j}", fn["name"], args)
        )
    return tuple(calls)
