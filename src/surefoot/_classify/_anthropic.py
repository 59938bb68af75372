"""The Anthropic dialect: ``{"type": "error", "error": {"type", "message", "details":
{"error_code"}}, "request_id"}``.

The same envelope arrives over HTTP and as the data of an ``event: error`` SSE event, so both
paths read it here. Stop reasons of successful responses (``refusal``,
``model_context_window_exceeded``) are read by :mod:`surefoot._classify._response`.
"""

from __future__ import annotations

from surefoot._classify._rules import Finding
from surefoot._classify._util import as_dict, as_str, status_of

__all__ = ["extract"]


def extract(obj: object) -> Finding | None:
    """A :class:`Finding` for an Anthropic error body, or ``None`` if it is not one."""
    d = as_dict(obj)
    if d is None or d.get("type") != "error":
        return None
    e = as_dict(d.get("error"))
    if e is None:
        return None
    details = as_dict(e.get("details")) or {}
    # error.details.error_code names the cause within the broad type (a 429 rate_limit_error
    # may be enforced_spend_limit_reached, a spent quota): it is read before the type. The
    # same envelope relayed by the OpenAI Responses API (Codex) carries an ``error.code``.
    codes = [
        c
        for c in (
            as_str(details.get("error_code"), 128),
            as_str(e.get("code"), 128),
            as_str(e.get("type"), 128),
        )
        if c
    ]
    rid = as_str(d.get("request_id"), 128) or None
    return Finding(
        "anthropic",
        message=as_str(e.get("message")),
        codes=codes,
        request_id=rid,
        status=status_of(d.get("status_code")) or status_of(e.get("status_code")),
    )
