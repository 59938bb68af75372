"""The Anthropic dialect: ``{"type": "error", "error": {"type", "message"}, "request_id"}``.

The same envelope arrives over HTTP and as the data of an ``event: error`` SSE event, so both
paths read it here. Stop reasons of successful responses (``refusal``,
``model_context_window_exceeded``) are read by :mod:`surefoot._classify._response`.
"""

from __future__ import annotations

from surefoot._classify._rules import Finding
from surefoot._classify._util import as_dict, as_str

__all__ = ["extract"]


def extract(obj: object) -> Finding | None:
    """A :class:`Finding` for an Anthropic error body, or ``None`` if it is not one."""
    d = as_dict(obj)
    if d is None or d.get("type") != "error":
        return None
    e = as_dict(d.get("error"))
    if e is None:
        return None
    code = as_str(e.get("type"), 128)
    rid = as_str(d.get("request_id"), 128) or None
    return Finding(
        "anthropic",
        message=as_str(e.get("message")),
        codes=[code] if code else [],
        request_id=rid,
    )
