"""Rate-limit headers as one :class:`RateLimitInfo`: OpenAI, Anthropic and the IETF fields.

- OpenAI (and Groq, Azure, ...): ``x-ratelimit-{limit,remaining,reset}-{requests,tokens}``,
  resets as Go durations (``6m0s``, ``12ms``) or plain seconds.
- Anthropic: ``anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-
  {limit,remaining,reset}``, resets as RFC 3339 instants.
- IETF (draft-ietf-httpapi-ratelimit-headers): ``RateLimit: "name";r=50;t=30`` with
  ``RateLimit-Policy: "name";q=100;w=60``, and the older ``RateLimit-Limit`` /
  ``RateLimit-Remaining`` / ``RateLimit-Reset`` and ``RateLimit: limit=.., remaining=..,
  reset=..`` forms.

Resets are seconds from ``now``. Every parser is total: garbage gives ``None`` for that field.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from datetime import datetime
from typing import Any

from surefoot._classify._input import norm_headers
from surefoot.policy._hints import parse_duration

__all__ = ["RateLimitInfo", "parse_ratelimit_headers", "ratelimit_of"]

_MAX_INT = 1 << 62


@dataclass(frozen=True, slots=True)
class RateLimitInfo:
    """What the server said about its limits. Every field is optional.

    ``reset_*_s`` are seconds until the bucket refills; ``policy`` is the raw IETF
    ``RateLimit-Policy`` value; ``source`` names the header family that was read.
    """

    limit_requests: int | None = None
    remaining_requests: int | None = None
    reset_requests_s: float | None = None
    limit_tokens: int | None = None
    remaining_tokens: int | None = None
    reset_tokens_s: float | None = None
    remaining_input_tokens: int | None = None
    remaining_output_tokens: int | None = None
    window_s: float | None = None
    policy: str | None = None
    source: str | None = None

    @property
    def empty(self) -> bool:
        return all(getattr(self, f.name) is None for f in fields(self))

    @property
    def remaining(self) -> int | None:
        """The tightest remaining count the server reported (requests first)."""
        values = [v for v in (self.remaining_requests, self.remaining_tokens) if v is not None]
        return min(values) if values else None

    @property
    def reset_s(self) -> float | None:
        """When the exhausted bucket refills: the later reset of the buckets at zero."""
        pairs = (
            (self.remaining_requests, self.reset_requests_s),
            (self.remaining_tokens, self.reset_tokens_s),
        )
        at_zero = [r for rem, r in pairs if rem == 0 and r is not None]
        if at_zero:
            return max(at_zero)
        known = [r for _, r in pairs if r is not None]
        return min(known) if known else None

    def as_dict(self) -> dict[str, Any]:
        """Only the known fields; JSON-safe."""
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RateLimitInfo:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


def _int(value: str | None) -> int | None:
    if value is None:
        return None
    v = value.strip()
    # ASCII only: str.isdigit() accepts superscripts ("\u00b2", "\u00b3", "\u00b9" in a
    # latin-1 header) that int() refuses, and float() takes other scripts' digits.
    if not v or not v.isascii():
        return None
    if len(v) > 19 or not v.isdigit():
        try:
            f = float(v)
        except ValueError:
            return None
        if not math.isfinite(f) or f < 0 or f > _MAX_INT:
            return None
        return int(f)
    return int(v)


def _seconds(value: str | None) -> float | None:
    if value is None:
        return None
    v = value.strip()
    if not v or len(v) > 64 or not v.isascii():
        return None
    try:
        f = float(v)
    except ValueError:
        return parse_duration(v)
    return f if math.isfinite(f) and f >= 0 else None


def _rfc3339(value: str | None, now: float) -> float | None:
    if value is None:
        return None
    v = value.strip()
    if not v or len(v) > 64:
        return None
    try:
        stamp = datetime.fromisoformat(v.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return _seconds(v)
    if stamp.tzinfo is None:
        return None
    try:
        return max(0.0, stamp.timestamp() - now)
    except (OverflowError, ValueError, OSError):
        return None


_SF_PARAM = re.compile(r";\s*([a-z*][a-z0-9_.*-]*)\s*=\s*(\"[^\"]*\"|[^;,\s]+)", re.I)
_KV = re.compile(r"([a-z-]+)\s*=\s*([0-9.]+)", re.I)


def _ietf(h: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    rl = h.get("ratelimit")
    if rl:
        params = {k.lower(): v for k, v in _SF_PARAM.findall(rl[:1024])}
        if params:  # structured field: "name";r=50;t=30
            out["remaining_requests"] = _int(params.get("r"))
            out["reset_requests_s"] = _seconds(params.get("t"))
        else:  # older draft: limit=100, remaining=50, reset=30
            kv = {k.lower(): v for k, v in _KV.findall(rl[:1024])}
            out["limit_requests"] = _int(kv.get("limit"))
            out["remaining_requests"] = _int(kv.get("remaining"))
            out["reset_requests_s"] = _seconds(kv.get("reset"))
    policy = h.get("ratelimit-policy")
    if policy:
        out["policy"] = policy[:256]
        params = {k.lower(): v for k, v in _SF_PARAM.findall(policy[:1024])}
        if "q" in params:
            out["limit_requests"] = _int(params.get("q"))
        if "w" in params:
            out["window_s"] = _seconds(params.get("w"))
        if not params:
            m = re.match(r"\s*(\d+)\s*;\s*w=(\d+)", policy)
            if m:
                out["limit_requests"] = _int(m.group(1))
                out["window_s"] = _seconds(m.group(2))
    for src, dst, conv in (
        ("ratelimit-limit", "limit_requests", _int),
        ("ratelimit-remaining", "remaining_requests", _int),
        ("ratelimit-reset", "reset_requests_s", _seconds),
    ):
        if src in h and out.get(dst) is None:
            out[dst] = conv(h[src])
    return {k: v for k, v in out.items() if v is not None}


def parse_ratelimit_headers(headers: object, *, now: float | None = None) -> RateLimitInfo:
    """Every rate-limit header family found in ``headers``; an empty info when there is none.

    ``headers`` is a mapping or ``(name, value)`` pairs; ``now`` the Unix time RFC 3339 resets
    are measured from (default :func:`time.time`). Never raises.
    """
    h = norm_headers(headers)
    if not h:
        return RateLimitInfo()
    now_s = time.time() if now is None else now
    vals: dict[str, Any] = {}
    sources: list[str] = []
    if any(k.startswith("x-ratelimit-") for k in h):
        sources.append("x-ratelimit")
        vals.update(
            limit_requests=_int(h.get("x-ratelimit-limit-requests")),
            remaining_requests=_int(h.get("x-ratelimit-remaining-requests")),
            reset_requests_s=_seconds(h.get("x-ratelimit-reset-requests")),
            limit_tokens=_int(h.get("x-ratelimit-limit-tokens")),
            remaining_tokens=_int(h.get("x-ratelimit-remaining-tokens")),
            reset_tokens_s=_seconds(h.get("x-ratelimit-reset-tokens")),
        )
        if vals["limit_requests"] is None:
            vals["limit_requests"] = _int(h.get("x-ratelimit-limit"))
        if vals["remaining_requests"] is None:
            vals["remaining_requests"] = _int(h.get("x-ratelimit-remaining"))
    if any(k.startswith("anthropic-ratelimit-") for k in h):
        sources.append("anthropic")
        a = "anthropic-ratelimit-"
        ant = {
            "limit_requests": _int(h.get(a + "requests-limit")),
            "remaining_requests": _int(h.get(a + "requests-remaining")),
            "reset_requests_s": _rfc3339(h.get(a + "requests-reset"), now_s),
            "limit_tokens": _int(h.get(a + "tokens-limit")),
            "remaining_tokens": _int(h.get(a + "tokens-remaining")),
            "reset_tokens_s": _rfc3339(h.get(a + "tokens-reset"), now_s),
            "remaining_input_tokens": _int(h.get(a + "input-tokens-remaining")),
            "remaining_output_tokens": _int(h.get(a + "output-tokens-remaining")),
        }
        if ant["remaining_tokens"] is None and ant["remaining_input_tokens"] is not None:
            ant["remaining_tokens"] = ant["remaining_input_tokens"]
            ant["reset_tokens_s"] = _rfc3339(h.get(a + "input-tokens-reset"), now_s)
        vals.update({k: v for k, v in ant.items() if v is not None})
    if any(k.startswith("ratelimit") for k in h):
        ietf = _ietf(h)
        if ietf:
            sources.append("ietf")
            for k, v in ietf.items():
                if vals.get(k) is None:
                    vals[k] = v
    if not sources:
        return RateLimitInfo()
    clean = {k: v for k, v in vals.items() if v is not None}
    return RateLimitInfo(source="+".join(sources), **clean)


def ratelimit_of(err: BaseException) -> RateLimitInfo | None:
    """The :class:`RateLimitInfo` the classifier attached to ``err``, if any."""
    ctx = getattr(err, "context", None)
    meta = getattr(ctx, "metadata", None)
    if not isinstance(meta, Mapping):
        return None
    data = meta.get("ratelimit")
    if not isinstance(data, Mapping):
        return None
    try:
        return RateLimitInfo.from_dict(data)
    except TypeError:
        return None
