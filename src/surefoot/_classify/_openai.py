"""The OpenAI dialect and its many compatibles.

Shapes read here:

- OpenAI, Groq, DeepSeek, Together, Fireworks, xAI, ...: ``{"error": {"message", "type",
  "param", "code"}}``; ``code`` may be a number or a digit string (Azure's ``"429"``), read as
  the status the body declares.
- Azure OpenAI: the same, plus ``innererror`` / ``inner_error`` with ``code``
  (``ResponsibleAIPolicyViolation``) and ``content_filter_result(s)``.
- OpenRouter: ``error.metadata.raw`` holds the upstream provider's error, often as a JSON
  *string*; it is decoded (a bounded number of times) and classified in its own dialect, and
  ``error.metadata.provider_name`` names the upstream.
- Ollama: ``{"error": "model 'llama2' not found, try pulling it first"}``.
- vLLM, Mistral and other FastAPI servers: ``{"object": "error", "message", "type", "code"}``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from surefoot._classify._input import loads
from surefoot._classify._rules import Finding
from surefoot._classify._util import as_dict, as_str, status_of

__all__ = ["extract"]

SubExtract = Callable[[object, int], Finding | None]


def extract(obj: object, sub: SubExtract, depth: int = 0) -> Finding | None:
    """A :class:`Finding` for an OpenAI-style error body, or ``None`` if it is not one."""
    d = as_dict(obj)
    if d is None:
        return None
    err = d.get("error")
    if isinstance(err, str) and err:
        # the codes beside it (xAI's ``{"code": "invalid-argument", "error": "..."}``); a
        # sentence in ``code`` (xAI's "The caller does not have permission ...") is no code
        codes, status = _codes(d)
        codes = [c for c in codes if " " not in c]
        return Finding("openai", message=err[:4096], codes=codes, status=status)
    e = as_dict(err)
    if e is not None:
        if depth < 2 and as_dict(e.get("error")) is not None and not _words(e):
            # a client's wrapper around another dialect's whole envelope (``{"message": "400
            # ...", "error": {"type": "error", "error": {...}}}``, Anthropic's inside): the
            # envelope inside speaks for the failure
            inner = sub(e, depth + 1)
            if inner is not None and (inner.message or inner.kind):
                return inner
        f = _from_error(e, sub, depth)
        if not f.message:
            f.message = as_str(d.get("message"))
        return f
    if d.get("object") == "error" or ("message" in d and ("type" in d or "code" in d)):
        return _flat(d)
    return None


def _words(e: dict[str, Any]) -> str:
    """An error object's own words (``message``, else ``msg``)."""
    return as_str(e.get("message")) or as_str(e.get("msg"))


def _codes(e: dict[str, Any]) -> tuple[list[str], int | None]:
    codes: list[str] = []
    status: int | None = None
    for key in ("code", "type", "status"):
        value = e.get(key)
        s = status_of(value)
        if s is not None:
            status = status if status is not None else s
        elif isinstance(value, str) and value:
            codes.append(value[:128])
    if status is None and "bad_response_status_code" in codes:
        # one-api / new-api: the upstream's own status, named in ``param`` ("524")
        status = status_of(e.get("param"))
    return codes, status


def _flat(d: dict[str, Any]) -> Finding:
    codes, status = _codes(d)
    f = Finding("openai", message=as_str(d.get("message")), codes=codes, status=status)
    _meta_codes(f, as_dict(d.get("metadata")))
    return f


def _meta_codes(f: Finding, meta: dict[str, Any] | None) -> None:
    """OpenRouter's ``metadata.error_type`` (``provider_unavailable``): the cause its router
    names, after the error's own codes (a weak code: the words decide first)."""
    if meta is None:
        return
    kind = as_str(meta.get("error_type"), 128)
    if kind:
        f.codes.append(kind)


def _from_error(e: dict[str, Any], sub: SubExtract, depth: int) -> Finding:
    codes, status = _codes(e)
    message = _words(e)
    for inner_key in ("innererror", "inner_error"):
        inner = as_dict(e.get(inner_key))
        if inner is not None:
            code = inner.get("code")
            if isinstance(code, str) and code:
                codes.insert(0, code[:128])
            if inner.get("content_filter_result") or inner.get("content_filter_results"):
                codes.append("content_filter")
    f = Finding("openai", message=message, codes=codes, status=status)
    meta = as_dict(e.get("metadata"))
    if meta is None:
        return f
    _meta_codes(f, meta)
    provider = meta.get("provider_name")
    if isinstance(provider, str) and provider:
        f.provider = provider[:64]
    # OpenRouter names which limit tripped (``upstream_provider_shared_pool``, a per-day
    # free-model bucket, a key's budget...): read as a code after the body's own.
    # ``metadata.reason`` (``in_flight_budget_exhausted``) names the cause more exactly still.
    reason = as_str(meta.get("reason"), 128)
    if reason:
        f.codes.append(reason)
    source = as_str(meta.get("limit_source"), 128)
    if source:
        f.codes.append(source)
    raw = meta.get("raw")
    if raw is None or depth >= 2:
        return f
    parsed = loads(raw) if isinstance(raw, str) else raw
    upstream = sub(parsed, depth + 1) if parsed is not None else None
    if upstream is not None and (upstream.message or upstream.codes or upstream.kind):
        upstream.dialect = "openrouter"
        upstream.status = upstream.status if upstream.status is not None else status
        upstream.provider = f.provider
        if source:
            upstream.codes.append(source)
        if message and message not in upstream.message:
            upstream.message = f"{upstream.message} ({message})" if upstream.message else message
        return upstream
    raw_text = raw if isinstance(raw, str) else ""
    if raw_text:
        f.message = f"{message}: {raw_text[:2048]}" if message else raw_text[:2048]
    f.dialect = "openrouter"
    return f


def is_openai_error(obj: Any) -> bool:
    """Whether ``obj`` has the OpenAI error envelope (used by the stream and 200 checks)."""
    d = as_dict(obj)
    return d is not None and (isinstance(d.get("error"), (dict, str)) and bool(d.get("error")))
