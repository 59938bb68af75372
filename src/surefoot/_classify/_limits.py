"""Numbers in a limit message that change its kind.

Two messages read wrongly by their words alone:

- "maximum context length is 131072 tokens ... (7884 of text input, 131072 in the output)":
  the output budget alone fills the window, so the request asks for too many output tokens
  (``invalid_request``: lower ``max_tokens``), not for a shorter input;
- "Rate limit reached ... tokens per minute (TPM): Limit 7000, Used 0, Requested 12903": one
  request larger than the whole per-minute budget never fits, however long it waits
  (``context_too_long``: the input must shrink).

Both are looked at only when the tables already said ``context_too_long`` or ``rate_limit``
and a cheap keyword is present.
"""

from __future__ import annotations

import re

from surefoot._classify._kinds import Kind

__all__ = ["limits_kind"]

_WINDOW = re.compile(
    r"context length is (\d+) tokens.{0,200}?\((\d+) (?:of text input|in the messages|in the"
    r" prompt)[^)]{0,80}?, (\d+) in the (?:output|completion)",
    re.IGNORECASE | re.DOTALL,
)
_BUDGET = re.compile(
    r"\blimit:? ?(\d+)\b.{0,80}?\brequested:? ?~?(\d+)\b", re.IGNORECASE | re.DOTALL
)

OUTPUT_FILLS_WINDOW = "output tokens alone fill the context window (numbers in the message)"
REQUEST_OVER_BUDGET = "one request exceeds the whole per-minute budget (numbers in the message)"


def limits_kind(kind: Kind, message: str) -> tuple[Kind, str] | None:
    """A better ``(kind, reason)`` than ``kind`` for ``message``, or ``None``."""
    if kind is Kind.CONTEXT_TOO_LONG:
        if " in the " not in message:
            return None
        m = _WINDOW.search(message[:4096])
        if m is not None and int(m.group(3)) >= int(m.group(1)):
            return Kind.INVALID_REQUEST, OUTPUT_FILLS_WINDOW
        return None
    if "equested" not in message:
        return None
    m = _BUDGET.search(message[:4096])
    if m is not None and int(m.group(2)) > int(m.group(1)) > 0:
        return Kind.CONTEXT_TOO_LONG, REQUEST_OVER_BUDGET
    return None
