"""Numbers in a limit message that change its kind.

Three messages read wrongly by their words alone:

- "maximum context length is 131072 tokens ... (7884 of text input, 200000 in the output)",
  or "max_tokens=131072 cannot be greater than max_model_len=28672": the output budget alone
  is larger than the window, so the request asks for more output tokens than the model can
  ever give (``invalid_request``: lower ``max_tokens``), not for a shorter input. An output
  budget *equal* to the window is input and output together over it (``context_too_long``: a
  model with a larger window takes the same request);
- "'max_tokens' is too large: 8192. This model's maximum context length is 8192 tokens and
  your request has 1210 input tokens" (vLLM): the words name the output budget, but one no
  larger than the window is, again, input and output together over it (``context_too_long``);
  over the window it stays ``invalid_request``;
- "Rate limit reached ... tokens per minute (TPM): Limit 7000, Used 0, Requested 12903": one
  request larger than the whole per-minute budget never fits, however long it waits
  (``context_too_long``: the input must shrink).

Each is looked at only when the tables already said ``context_too_long``, ``invalid_request``
or ``rate_limit`` and a cheap keyword is present.

And the window a limit is counted over decides between a throttle and a spent allowance,
whatever the code's name says (:func:`window_kind`): a limit per second, minute or hour
refills while the caller waits (``rate_limit``, although Cerebras codes it ``token_quota_exceeded``
and Together types it ``credit_limit``); a limit per month or year does not
(``quota_exhausted``, although sent as a 429), nor does a daily one unless the message names
a wait of minutes ("Please try again in 7m12s").
"""

from __future__ import annotations

import re

from surefoot._classify._kinds import Kind

__all__ = ["limits_kind", "window_kind"]

_WINDOW = re.compile(
    r"context length is (\d+) tokens.{0,200}?\((\d+) (?:of text input|in the messages|in the"
    r" prompt)[^)]{0,80}?, (\d+) in the (?:output|completion)",
    re.IGNORECASE | re.DOTALL,
)
# "max_tokens=131072 cannot be greater than max_model_len=max_total_tokens=28672" (vLLM and
# the hosts that run it): the output budget alone against the model's whole length
_OUTPUT_OVER_MODEL = re.compile(
    r"\bmax_(?:new_|completion_|output_)?tokens\s*=\s*(\d+)\s+(?:cannot|can not|must not|should"
    r" not|may not) be (?:greater|larger|more) than\s+[\w=]*?max_model_len[\w=]*?(\d+)\b",
    re.IGNORECASE,
)
# "'max_tokens' or 'max_completion_tokens' is too large: 8192. This model's maximum context
# length is 8192 tokens and your request has 1210 input tokens" (vLLM): an output budget no
# larger than the window leaves input and output together over it
_OUTPUT_NAMED_TOO_LARGE = re.compile(
    r"\bmax_(?:completion_|output_)?tokens['`\"]?(?: or ['`\"]?max_completion_tokens['`\"]?)? is"
    r" too large: (\d+)\b.{0,80}?\bmaximum context length is (\d+) tokens",
    re.IGNORECASE | re.DOTALL,
)
_BUDGET = re.compile(
    r"\blimit:? ?(\d+)\b.{0,80}?\brequested:? ?~?(\d+)\b", re.IGNORECASE | re.DOTALL
)

OUTPUT_FILLS_WINDOW = "output tokens alone exceed the context window (numbers in the message)"
OUTPUT_WITHIN_WINDOW = (
    "the output budget fits the window, input and output together do not (numbers in the message)"
)
REQUEST_OVER_BUDGET = "one request exceeds the whole per-minute budget (numbers in the message)"


def limits_kind(kind: Kind, message: str) -> tuple[Kind, str] | None:
    """A better ``(kind, reason)`` than ``kind`` for ``message``, or ``None``."""
    if kind is Kind.INVALID_REQUEST:
        if "too large: " not in message:
            return None
        m = _OUTPUT_NAMED_TOO_LARGE.search(message[:4096])
        if m is not None and int(m.group(1)) <= int(m.group(2)):
            return Kind.CONTEXT_TOO_LONG, OUTPUT_WITHIN_WINDOW
        return None
    if kind is Kind.CONTEXT_TOO_LONG:
        if "max_" in message:
            m = _OUTPUT_OVER_MODEL.search(message[:4096])
            if m is not None and int(m.group(1)) > int(m.group(2)):
                return Kind.INVALID_REQUEST, OUTPUT_FILLS_WINDOW
        if " in the " not in message:
            return None
        m = _WINDOW.search(message[:4096])
        if m is not None and int(m.group(3)) > int(m.group(1)):
            return Kind.INVALID_REQUEST, OUTPUT_FILLS_WINDOW
        return None
    if "equested" not in message:
        return None
    m = _BUDGET.search(message[:4096])
    if m is not None and int(m.group(2)) > int(m.group(1)) > 0:
        return Kind.CONTEXT_TOO_LONG, REQUEST_OVER_BUDGET
    return None


# Searched in the lower-cased message, each behind a literal every match contains.
_SHORT = re.compile(
    r"(?<![a-z])(per|/|a|each|every) ?(second|sec|minute|min|hour|hr)\b|\b(rpm|tpm|rps|tps|rph)\b"
    r"|per-(minute|hour)"
)
_LONG = re.compile(
    r"(?<![a-z])(per|/|a|each|every) ?(week|month|year)\b|\b(weekly|monthly|yearly|annual(ly)?)\b"
    r"|per-(week|month)"
)
_DAY = re.compile(r"(?<![a-z])(per|/|a|each|every) ?day\b|\bdaily\b|per-day|\b(rpd|tpd)\b")
_SOON = re.compile(r"(try again|retry|retry after|reset|resets) in \d")
_SHORT_LITS = ("sec", "min", "hour", "hr", "rpm", "tpm", "rps", "tps", "rph")
_LONG_LITS = ("week", "month", "year", "annual")
_DAY_LITS = ("day", "rpd", "tpd")


def _names(low: str, lits: tuple[str, ...], pattern: re.Pattern[str]) -> bool:
    return any(map(low.__contains__, lits)) and pattern.search(low) is not None


SHORT_WINDOW = "the limit is counted per second, minute or hour (window in the message)"
LONG_WINDOW = "the limit is counted per day, week, month or year (window in the message)"


def window_kind(kind: Kind, message: str, *, from_family: bool) -> tuple[Kind, str] | None:
    """``rate_limit`` or ``quota_exhausted`` by the window ``message`` names, or ``None``.

    A spent quota is turned into a throttle only when a code *family* decided it (an exact
    code such as ``insufficient_quota`` is the provider's own word); a throttle into a spent
    quota whenever the window is a month or a year, or a day with no short wait named.
    """
    if kind is not Kind.QUOTA_EXHAUSTED and kind is not Kind.RATE_LIMIT:
        return None
    low = message[:4096].lower()
    short = _names(low, _SHORT_LITS, _SHORT)
    if kind is Kind.QUOTA_EXHAUSTED:
        if (
            from_family
            and short
            and not _names(low, _LONG_LITS, _LONG)
            and not _names(low, _DAY_LITS, _DAY)
        ):
            return Kind.RATE_LIMIT, SHORT_WINDOW
        return None
    if not short:
        if _names(low, _LONG_LITS, _LONG):
            return Kind.QUOTA_EXHAUSTED, LONG_WINDOW
        if _names(low, _DAY_LITS, _DAY) and _SOON.search(low) is None:
            return Kind.QUOTA_EXHAUSTED, LONG_WINDOW
    return None
