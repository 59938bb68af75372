"""The Google dialect: Gemini API and Vertex AI.

Errors look like ``{"error": {"code": 429, "message", "status": "RESOURCE_EXHAUSTED",
"details": [...]}}``, or a JSON array of such objects (Vertex and the streaming endpoints).
``details`` may hold:

- ``google.rpc.ErrorInfo`` whose ``reason`` names the cause exactly (``API_KEY_INVALID`` on a
  400 is an authentication failure, not a bad request);
- ``google.rpc.QuotaFailure`` whose violations' ``quotaId`` / ``quotaMetric`` say which bucket
  ran dry: a per-day bucket is ``quota_exhausted`` (no short retry helps, whatever RetryInfo
  says), a per-minute one is ``rate_limit``;
- ``google.rpc.RetryInfo`` with the wait (read by the policy's hint parser).

A free-tier quota of ``limit: 0`` can never succeed: ``quota_exhausted``.
"""

from __future__ import annotations

import re
from typing import Any

from surefoot._classify._kinds import Kind
from surefoot._classify._rules import Finding
from surefoot._classify._util import as_dict, as_list, as_str, status_of

__all__ = ["extract", "unwrap"]

_PER_DAY = re.compile(r"per ?day|perday|daily", re.IGNORECASE)
_PER_MINUTE = re.compile(r"per ?(minute|second)|perminute|persecond", re.IGNORECASE)
_LIMIT_ZERO = re.compile(r"\blimit: 0\b")


def unwrap(obj: object) -> dict[str, Any] | None:
    """The error object of a Google body (a dict or the first item of an array)."""
    if isinstance(obj, list):
        for item in as_list(obj):
            d = as_dict(item)
            if d is not None and as_dict(d.get("error")) is not None:
                return as_dict(d["error"])
        return None
    d = as_dict(obj)
    return as_dict(d.get("error")) if d is not None else None


def _looks_google(e: dict[str, Any]) -> bool:
    status = e.get("status")
    return (isinstance(status, str) and status.isupper()) or (
        isinstance(e.get("code"), int) and ("details" in e or "errors" in e)
    )


def extract(obj: object, *, force: bool = False) -> Finding | None:
    """A :class:`Finding` for a Google error body, or ``None`` if it is not one."""
    e = unwrap(obj)
    if e is None or not (force or _looks_google(e)):
        return None
    status_s = as_str(e.get("status"), 64)
    f = Finding(
        "gemini",
        message=as_str(e.get("message")),
        codes=[status_s] if status_s else [],
        status=status_of(e.get("code")),
    )
    details = as_list(e.get("details"))
    f.google_details = details
    buckets: list[str] = []
    for d in details:
        item = as_dict(d)
        if item is None:
            continue
        typ = as_str(item.get("@type"), 256)
        if typ.endswith("ErrorInfo"):
            reason = as_str(item.get("reason"), 128)
            if reason:
                f.codes.insert(0, reason)
        elif typ.endswith("QuotaFailure"):
            for v in as_list(item.get("violations")):
                vd = as_dict(v)
                if vd is not None:
                    buckets.append(as_str(vd.get("quotaId"), 256))
                    buckets.append(as_str(vd.get("quotaMetric"), 256))
    for err in as_list(e.get("errors")):
        ed = as_dict(err)
        if ed is not None and as_str(ed.get("reason"), 128):
            f.codes.append(as_str(ed.get("reason"), 128))
    if any(_PER_DAY.search(b) for b in buckets):
        f.kind = Kind.QUOTA_EXHAUSTED
        f.reason = "QuotaFailure per-day bucket"
    elif any(_PER_MINUTE.search(b) for b in buckets):
        f.kind = Kind.RATE_LIMIT
        f.reason = "QuotaFailure per-minute bucket"
    elif status_s == "RESOURCE_EXHAUSTED" and _LIMIT_ZERO.search(f.message):
        f.kind = Kind.QUOTA_EXHAUSTED
        f.reason = "RESOURCE_EXHAUSTED with limit: 0"
    return f
