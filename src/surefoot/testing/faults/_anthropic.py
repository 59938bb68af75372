"""The Anthropic messages wire format: a ``message`` object, or the event stream
``message_start``, ``content_block_start``/``_delta``/``_stop``, ``ping``, ``message_delta``,
``message_stop``."""

from __future__ import annotations

import json
from typing import Any

from surefoot.testing.faults._model import Reply
from surefoot.testing.faults._wire import Event, split_text

__all__ = ["message", "message_events"]

_ARG_SLICE = 8


def _tool_id(rid: str, index: int) -> str:
    return f"toolu_{rid[:20]}{index}"


def _tool_input(arguments: str) -> Any:
    """The parsed input of a tool call; malformed arguments stay a (wrongly typed) string."""
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


def _dumps(doc: dict[str, Any]) -> str:
    return json.dumps(doc, separators=(",", ":"))


def _stop(reply: Reply, stop: str | None) -> str:
    if stop is not None:
        return stop
    return "tool_use" if reply.tool_calls else "end_turn"


def message(reply: Reply, model: str, rid: str, stop: str | None = None) -> dict[str, Any]:
    """The non-streaming ``message`` object; ``stop`` overrides the stop reason
    (``"refusal"``: the text so far, no content block when there is none)."""
    content: list[dict[str, Any]] = []
    if reply.text or (not reply.tool_calls and stop != "refusal"):
        content.append({"type": "text", "text": reply.text})
    for i, call in enumerate(reply.tool_calls):
        content.append(
            {
                "type": "tool_use",
                "id": _tool_id(rid, i),
                "name": call.name,
                "input": _tool_input(call.arguments_json()),
            }
        )
    return {
        "id": f"msg_{rid}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": _stop(reply, stop),
        "stop_sequence": None,
        "usage": {"input_tokens": reply.prompt_tokens, "output_tokens": reply.completion_tokens},
    }


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
    delta = {
        "type": "message_delta",
        "delta": {"stop_reason": _stop(reply, stop), "stop_sequence": None},
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
