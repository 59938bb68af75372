"""``classify(status, headers, body)``: one failed HTTP exchange (or a transport failure
described by text) to a typed error. Never raises."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping

from surefoot.classify import _anthropic, _bedrock, _generic, _google, _openai, _problem
from surefoot.classify._build import build, refine, retry_hint
from surefoot.classify._input import Body, decode_body, norm_headers
from surefoot.classify._kinds import Kind
from surefoot.classify._rules import Finding, decide
from surefoot.errors import LLMError, LLMErrorType, SurefootError

__all__ = ["classify", "find", "fallback_error", "status_or_none"]

_GOOGLE = frozenset({"gemini", "google", "vertex", "vertex_ai", "vertexai", "palm"})
_BEDROCK = frozenset({"bedrock", "aws", "amazon", "sagemaker"})


def status_or_none(status: object) -> int | None:
    if isinstance(status, bool):
        return None
    if isinstance(status, int):
        return status if 100 <= status <= 999 else None
    if isinstance(status, str) and status.strip().isdigit() and len(status.strip()) == 3:
        return int(status.strip())
    return None


def _sub(obj: object, depth: int) -> Finding | None:
    """Extract a nested (upstream) error body in any dialect; used by OpenRouter."""
    return _json_finding(obj, {}, None, depth)


def _json_finding(
    obj: object, h: dict[str, str], provider: str | None, depth: int = 0
) -> Finding | None:
    p = (provider or "").lower()
    if _problem.is_problem(obj, h) or p == "problem":
        f = _problem.extract(obj)
        if f is not None:
            return f
    if h.get("x-amzn-errortype") or h.get(":exception-type") or p in _BEDROCK:
        f = _bedrock.extract(obj, h, force=p in _BEDROCK)
        if f is not None:
            return f
    f = _google.extract(obj, force=p in _GOOGLE)
    if f is not None:
        return f
    f = _anthropic.extract(obj)
    if f is not None:
        return f
    f = _openai.extract(obj, _sub, depth)
    if f is not None:
        return f
    f = _bedrock.extract(obj, h)
    if f is not None:
        return f
    return _generic.extract_json(obj)


def find(body: Body, h: dict[str, str], provider: str | None) -> Finding:
    """The dialect's reading of a body: JSON envelopes first, then HTML, then plain text."""
    f: Finding | None = None
    if body.obj is not None:
        try:
            f = _json_finding(body.obj, h, provider)
        except RecursionError:
            f = None
    if f is None:
        f = _bedrock.extract(None, h)
        if f is not None:
            f.message = f.message or " ".join(body.text[:4096].split())
    if f is None:
        if _generic.is_html(body.text, h):
            f = _generic.extract_html(body.text)
        else:
            f = _generic.extract_text(body.text)
    return f


def classify(
    status: int | None,
    headers: Mapping[str, str] | Iterable[tuple[str, str]] | None,
    body: bytes | str | object | None,
    *,
    provider: str | None = None,
    model: str | None = None,
    in_stream: bool = False,
) -> SurefootError:
    """The typed error for one failed call. ``status`` is ``None`` for a transport failure
    described only by ``body`` text; ``body`` may be bytes, text or parsed JSON; ``provider``
    is a hint (the dialect is otherwise recognised from the body and the headers).

    A 2xx ``status`` has its body inspected for an error inside it (see
    :func:`~surefoot.classify.inspect_response`, and for an SSE body
    :func:`~surefoot.classify.classify_event` on each event); when none is found the result
    is an ``unknown`` error. Never raises: garbage gives a typed error of kind ``unknown`` or
    better, after looking at no more than the first MiB of the body.
    """
    try:
        return _classify(status, headers, body, provider, model, in_stream)
    except Exception as exc:  # the classifier must never turn one failure into two
        return fallback_error(f"unclassifiable failure ({type(exc).__name__})", provider, model)


def fallback_error(message: str, provider: str | None, model: str | None) -> SurefootError:
    return LLMError(
        message,
        error_type=LLMErrorType.UNKNOWN,
        retryable=False,
        provider=provider if isinstance(provider, str) else None,
        model=model if isinstance(model, str) else None,
    )


def _classify(
    status_in: object,
    headers: object,
    body: object,
    provider: str | None,
    model: str | None,
    in_stream: bool,
) -> SurefootError:
    status = status_or_none(status_in)
    provider = provider if isinstance(provider, str) and provider else None
    model = model if isinstance(model, str) and model else None
    h = norm_headers(headers)
    b = decode_body(body)
    now = time.time()
    if status is not None and status < 400:
        from surefoot.classify._stream import scan_success

        found = scan_success(b, h, provider=provider, model=model)
        if found is not None:
            found.context.http_status = status
            return found
        return build(
            Kind.UNKNOWN,
            Finding("none", message=f"HTTP {status}: no failure found in the response"),
            status=status,
            headers=h,
            provider=provider,
            model=model,
            now=now,
        )
    f = find(b, h, provider)
    kind = decide(f, status, transport=status is None)
    retry_after = retry_hint(h, f, now)
    kind = refine(kind, f, retry_after)
    return build(
        kind,
        f,
        status=status,
        headers=h,
        provider=provider,
        model=model,
        in_stream=in_stream,
        now=now,
        retry_after=retry_after,
    )
