"""The OpenAI chat completions wire format: a ``chat.completion`` object, or a stream of
``chat.completion.chunk`` objects as ``data: {...}`` events ending with ``data: [DONE]``."""

from __future__ import annotations

import json
from typing import Any

from surefoot.testing.faults._model import Reply
from surefoot.testing.faults._wire import Event, split_text

__all__ = ["completion", "completion_events"]

_FINGERPRINT = "fp_surefoot"
_ARG_SLICE = 8


def _call_id(rid: str, index: int) -> str:
    return f"call_{rid[:16]}{index}"


def _usage(reply: Reply) -> dict[str, int]:
    return {
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "total_tokens": reply.prompt_tokens + reply.completion_tokens,
    }


def _finish(reply: Reply, finish: str | None) -> str:
    if finish is not None:
        return finish
    return "tool_calls" if reply.tool_calls else "stop"


def completion(
    reply: Reply, model: str, rid: str, created: int, finish: str | None = None
) -> dict[str, Any]:
    """The non-streaming ``chat.completion`` object; ``finish`` overrides the finish reason
    (``"content_filter"``: the text so far, ``null`` content when there is none)."""
    content: str | None = reply.text if reply.text or not reply.tool_calls else None
    if finish == "content_filter" and not reply.text:
        content = None
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": _call_id(rid, i),
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments_json()},
            }
            for i, call in enumerate(reply.tool_calls)
        ]
    return {
        "id": f"chatcmpl-{rid}",
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": _finish(reply, finish),
            }
        ],
        "usage": _usage(reply),
        "system_fingerprint": _FINGERPRINT,
    }


def completion_events(
    reply: Reply,
    model: str,
    rid: str,
    created: int,
    include_usage: bool,
    finish: str | None = None,
) -> list[Event]:
    """The full stream: role chunk, content/tool-call deltas, finish chunk, usage, ``[DONE]``;
    ``finish`` overrides the finish reason of the finish chunk."""
    base: dict[str, Any] = {
        "id": f"chatcmpl-{rid}",
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "system_fingerprint": _FINGERPRINT,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        doc = {**base, "choices": [choice], **extra}
        if include_usage:
            doc.setdefault("usage", None)
        return json.dumps(doc, separators=(",", ":"))

    events = [Event(chunk({"role": "assistant", "content": "", "refusal": None}))]
    events.extend(
        Event(chunk({"content": piece}), role="delta") for piece in split_text(reply.text)
    )
    for index, call in enumerate(reply.tool_calls):
        head = {
            "index": index,
            "id": _call_id(rid, index),
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        events.append(Event(chunk({"tool_calls": [head]}), role="delta"))
        text = call.arguments_json()
        for start in range(0, len(text), _ARG_SLICE):
            part = {"index": index, "function": {"arguments": text[start : start + _ARG_SLICE]}}
            events.append(Event(chunk({"tool_calls": [part]}), role="delta"))
    events.append(Event(chunk({}, _finish(reply, finish))))
    if include_usage:
        usage_doc = {**base, "choices": [], "usage": _usage(reply)}
        events.append(Event(json.dumps(usage_doc, separators=(",", ":"))))
    events.append(Event("[DONE]", role="final"))
    return events
