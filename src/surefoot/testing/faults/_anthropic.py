"""The Anthropic messages wire format: a ``message`` object, or the event stream
``message_start``, ``content_block_start``/``_delta``/``_stop``, ``ping``, ``message_delta``,
``message_stop``.

A malformed tool call cannot be sent as such in a ``message`` (``input`` is always an object):
:func:`salvage_object` keeps what a partial-JSON parser can of its text, as the Anthropic SDK's
stream accumulator (jiter's ``partial_mode``) would.
"""

from __future__ import annotations

import json
import re
from typing import Any

from surefoot.testing.faults._model import Reply
from surefoot.testing.faults._wire import Event, split_text

__all__ = ["message", "message_events", "salvage_object"]

_ARG_SLICE = 8
_REFUSAL_DETAILS = {"type": "refusal", "category": None, "explanation": None}
_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_NUMBER_CHARS = frozenset("0123456789+-.eE")
_LITERALS = {"true": True, "false": False, "null": None}


class _End(Exception):
    """The text ended inside a scalar: the value is dropped."""


def _ws(text: str, at: int) -> int:
    match = _WS.match(text, at)
    assert match is not None
    return match.end()


def _string_end(text: str, at: int) -> int:
    """The index after the string starting at ``at``; :class:`_End` if the text ends first."""
    index = at + 1
    while index < len(text):
        char = text[index]
        if char == '"':
            return index + 1
        if char == "\\":
            index += 1
        elif char < " ":
            raise ValueError(index)
        index += 1
    raise _End


def _scalar(text: str, at: int) -> tuple[Any, int]:
    """A string, number or literal at ``at``; :class:`_End` when the text ends inside it."""
    if text[at] == '"':
        end = _string_end(text, at)
        return json.loads(text[at:end]), end
    rest = text[at:]
    match = _NUMBER.match(text, at)
    if all(char in _NUMBER_CHARS for char in rest) and (match is None or match.end() < len(text)):
        raise _End  # "-", "12.", "1e": a number cut short by the end of the text
    if match is not None:
        if match.end() < len(text) and text[match.end()] in _NUMBER_CHARS:
            raise ValueError(at)
        return json.loads(match.group()), match.end()
    for word, value in _LITERALS.items():
        if rest.startswith(word):
            return value, at + len(word)
        if word.startswith(rest):
            raise _End
    raise ValueError(at)


def _partial(text: str, at: int) -> tuple[Any, int, bool]:
    """The value at ``at``, the index after it, and whether it was complete."""
    at = _ws(text, at)
    if at >= len(text):
        raise _End
    if text[at] not in "{[":
        value, end = _scalar(text, at)
        return value, end, True
    is_object = text[at] == "{"
    out_obj: dict[str, Any] = {}
    out_list: list[Any] = []
    closer = "}" if is_object else "]"
    at = _ws(text, at + 1)
    if at < len(text) and text[at] == closer:
        return (out_obj if is_object else out_list), at + 1, True
    while True:
        try:
            if is_object:
                if at >= len(text) or text[at] != '"':
                    raise _End if at >= len(text) else ValueError(at)
                key, at = _scalar(text, at)
                at = _ws(text, at)
                if at >= len(text) or text[at] != ":":
                    raise _End if at >= len(text) else ValueError(at)
                value, at, complete = _partial(text, at + 1)
                out_obj[key] = value
            else:
                value, at, complete = _partial(text, at)
                out_list.append(value)
        except (_End, ValueError):
            return (out_obj if is_object else out_list), len(text), False
        if not complete:
            return (out_obj if is_object else out_list), at, False
        at = _ws(text, at)
        if at >= len(text):
            return (out_obj if is_object else out_list), at, False
        if text[at] == closer:
            return (out_obj if is_object else out_list), at + 1, True
        if text[at] != ",":
            return (out_obj if is_object else out_list), len(text), False
        at = _ws(text, at + 1)


def salvage_object(text: str) -> dict[str, Any]:
    """What a partial-JSON parser keeps of ``text`` as an object: the members completed before
    it broke off or went wrong, an incomplete trailing value dropped; ``{}`` when nothing is
    left or the text is not an object."""
    try:
        value, _, _ = _partial(text, 0)
    except (_End, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _tool_id(rid: str, index: int) -> str:
    return f"toolu_{rid[:20]}{index}"


def _tool_input(arguments: str, salvage: bool) -> Any:
    """The parsed input of a tool call. Malformed arguments become their salvaged object with
    ``salvage`` (what the API sends), else stay a (wrongly typed) string: a scripted raw
    string is sent as is."""
    try:
        parsed = json.loads(arguments)
    except ValueError:
        return salvage_object(arguments) if salvage else arguments
    if salvage and not isinstance(parsed, dict):
        return {}
    return parsed


def _dumps(doc: dict[str, Any]) -> str:
    return json.dumps(doc, separators=(",", ":"))


def _stop(reply: Reply, stop: str | None) -> str:
    if stop is not None:
        return stop
    return "tool_use" if reply.tool_calls else "end_turn"


def message(
    reply: Reply, model: str, rid: str, stop: str | None = None, salvage: bool = False
) -> dict[str, Any]:
    """The non-streaming ``message`` object; ``stop`` overrides the stop reason
    (``"refusal"``: the text so far, no content block when there is none, and
    ``stop_details``); ``salvage`` sends malformed tool arguments as :func:`salvage_object`."""
    content: list[dict[str, Any]] = []
    if reply.text or (not reply.tool_calls and stop != "refusal"):
        content.append({"type": "text", "text": reply.text})
    for i, call in enumerate(reply.tool_calls):
        content.append(
            {
                "type": "tool_use",
                "id": _tool_id(rid, i),
                "name": call.name,
                "input": _tool_input(call.arguments_json(), salvage),
            }
        )
    doc: dict[str, Any] = {
        "id": f"msg_{rid}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": _stop(reply, stop),
        "stop_sequence": None,
    }
    if stop == "refusal":
        doc["stop_details"] = dict(_REFUSAL_DETAILS)
    doc["usage"] = {"input_tokens": reply.prompt_tokens, "output_tokens": reply.completion_tokens}
    return doc


def message_events(reply: Reply, model: str, rid: str, stop: str | None = None) -> list[Event]:
    """The full event stream for ``reply``; ``stop`` overrides the ``message_delta``'s stop
    reason."""
    start = message(reply, model, rid)
    start.update(content=[], stop_reason=None)
    start["usage"] = {"input_tokens": reply.prompt_tokens, "output_tokens": 1}
    events = [Event(_dumps({"type": "message_start", "message": start}), "message_start")]
    index = 0
    if reply.text or (not reply.tool_calls and stop != "refusal"):
        events.append(_block_start(index, {"type": "text", "text": ""}))
        events.append(Event(_dumps({"type": "ping"}), "ping"))
        for piece in split_text(reply.text):
            events.append(_delta(index, {"type": "text_delta", "text": piece}))
        events.append(_block_stop(index))
        index += 1
    for i, call in enumerate(reply.tool_calls):
        block: dict[str, Any] = {
            "type": "tool_use",
            "id": _tool_id(rid, i),
            "name": call.name,
            "input": {},
        }
        events.append(_block_start(index, block))
        text = call.arguments_json()
        for at in range(0, len(text), _ARG_SLICE):
            piece = text[at : at + _ARG_SLICE]
            events.append(_delta(index, {"type": "input_json_delta", "partial_json": piece}))
        events.append(_block_stop(index))
        index += 1
    delta_body: dict[str, Any] = {"stop_reason": _stop(reply, stop), "stop_sequence": None}
    if stop == "refusal":
        delta_body["stop_details"] = dict(_REFUSAL_DETAILS)
    delta = {
        "type": "message_delta",
        "delta": delta_body,
        "usage": {"output_tokens": reply.completion_tokens},
    }
    events.append(Event(_dumps(delta), "message_delta"))
    events.append(Event(_dumps({"type": "message_stop"}), "message_stop", role="final"))
    return events


def _block_start(index: int, block: dict[str, Any]) -> Event:
    doc = {"type": "content_block_start", "index": index, "content_block": block}
    return Event(_dumps(doc), "content_block_start")


def _delta(index: int, delta: dict[str, Any]) -> Event:
    doc = {"type": "content_block_delta", "index": index, "delta": delta}
    return Event(_dumps(doc), "content_block_delta", role="delta")


def _block_stop(index: int) -> Event:
    return Event(_dumps({"type": "content_block_stop", "index": index}), "content_block_stop")
