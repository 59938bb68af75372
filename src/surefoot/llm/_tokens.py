"""A cheap, deterministic *estimate* of the prompt tokens of a request.

It is used for one decision only: refusing, before anything is sent, a request that fits no
configured model's context window (``LLM_CONFIG_CONTEXT_TOO_SMALL``), and choosing the first
model whose window it fits. It is not a tokenizer and does not try to match one.

The rule: about 4 bytes of UTF-8 per token (close for English prose; text in scripts of 2-4
bytes per character counts proportionally more), plus a fixed overhead per message (role and
separators), per tool call, per tool definition, and per request. Because a wrong refusal
blocks a request that would have worked, while an underestimate only costs one
context-too-long answer that moves to the next model, the estimate errs on the low side: the
caller compares it with the window without adding a margin.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from surefoot.llm._messages import Message
    from surefoot.llm._tools import ToolSpec

__all__ = [
    "BYTES_PER_TOKEN",
    "estimate_text_tokens",
    "estimate_tokens",
    "fits_context",
]

BYTES_PER_TOKEN: Final = 4
_PER_REQUEST: Final = 3
_PER_MESSAGE: Final = 4
_PER_TOOL_CALL: Final = 6
_PER_TOOL: Final = 8


def estimate_text_tokens(text: str) -> int:
    """Tokens of ``text``: its UTF-8 size / 4, rounded up."""
    size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    return -(-size // BYTES_PER_TOKEN)


def estimate_tokens(messages: Sequence[Message], tools: Sequence[ToolSpec] | None = None) -> int:
    """The estimated prompt tokens of ``messages`` plus the definitions of ``tools``."""
    total = _PER_REQUEST
    for m in messages:
        total += _PER_MESSAGE + estimate_text_tokens(m.content)
        for call in m.tool_calls:
            total += _PER_TOOL_CALL + estimate_text_tokens(call.name)
            total += estimate_text_tokens(call.arguments)
    for tool in tools or ():
        schema = json.dumps(tool.parameters, separators=(",", ":"))
        total += _PER_TOOL + estimate_text_tokens(tool.name)
        total += estimate_text_tokens(tool.description) + estimate_text_tokens(schema)
    return total


def fits_context(
    messages: Sequence[Message],
    tools: Sequence[ToolSpec] | None = None,
    *,
    context_window: int,
    max_output_tokens: int = 0,
) -> bool:
    """Whether the estimated prompt plus ``max_output_tokens`` fits ``context_window``."""
    if context_window <= 0:
        raise ValueError(
            f"context_window must be a positive number of tokens, got {context_window}"
        )
    if max_output_tokens < 0:
        raise ValueError(f"max_output_tokens must be >= 0, got {max_output_tokens}")
    return estimate_tokens(messages, tools) + max_output_tokens <= context_window
