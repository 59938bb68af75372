"""The wire formats by style: :func:`get_wire` (``"openai"`` chat completions, ``"anthropic"``
messages). The registry is its own module so that the dialects and their base types in
:mod:`surefoot.llm._wire` import each other in one direction only."""

from __future__ import annotations

from surefoot.llm._wire import STYLES, WireFormat
from surefoot.llm._wire_anthropic import AnthropicWire
from surefoot.llm._wire_openai import OpenAIWire

__all__ = ["STYLES", "get_wire"]

_WIRES: dict[str, WireFormat] = {}


def get_wire(style: str) -> WireFormat:
    """The (stateless, shared) wire format of ``style``: ``"openai"`` or ``"anthropic"``."""
    wire = _WIRES.get(style)
    if wire is not None:
        return wire
    if style == "openai":
        wire = OpenAIWire()
    elif style == "anthropic":
        wire = AnthropicWire()
    else:
        raise ValueError(
            f"unknown wire style {style!r}; use 'openai' (chat completions) or "
            "'anthropic' (messages)"
        )
    _WIRES[style] = wire
    return wire
