"""The wire formats by style: :func:`get_wire` (``"openai"`` chat completions, ``"anthropic"``
messages, ``"responses"`` the OpenAI Responses API). The registry is its own module so that
the dialects and their base types in :mod:`surefoot.llm._wire` import each other in one
direction only."""

from __future__ import annotations

from surefoot.llm._wire import STYLES, WireFormat
from surefoot.llm._wire_anthropic import AnthropicWire
from surefoot.llm._wire_openai import OpenAIWire
from surefoot.llm._wire_responses import ResponsesWire

__all__ = ["STYLES", "get_wire"]

_WIRES: dict[str, WireFormat] = {}


def get_wire(style: str) -> WireFormat:
    """The (stateless, shared) wire format of ``style``: ``"openai"``, ``"anthropic"`` or
    ``"responses"``."""
    wire = _WIRES.get(style)
    if wire is not None:
        return wire
    if style == "openai":
        wire = OpenAIWire()
    elif style == "anthropic":
        wire = AnthropicWire()
    elif style == "responses":
        wire = ResponsesWire()
    else:
        raise ValueError(
            f"unknown wire style {style!r}; use 'openai' (chat completions), "
            "'anthropic' (messages) or 'responses' (the OpenAI Responses API)"
        )
    _WIRES[style] = wire
    return wire
