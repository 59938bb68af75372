"""Which dialect a failure body speaks, and what it says: :func:`find` (the dispatch over the
dialect modules: problem+json, Bedrock, Google, Anthropic, OpenAI and its compatibles, then
generic JSON, HTML and text)."""

from __future__ import annotations

from surefoot._classify import _anthropic, _bedrock, _generic, _google, _openai, _problem
from surefoot._classify._input import Body
from surefoot._classify._rules import Finding

__all__ = ["find", "json_finding"]

_GOOGLE = frozenset({"gemini", "google", "vertex", "vertex_ai", "vertexai", "palm"})
_BEDROCK = frozenset({"bedrock", "aws", "amazon", "sagemaker"})


def _sub(obj: object, depth: int) -> Finding | None:
    """Extract a nested (upstream) error body in any dialect; used by OpenRouter."""
    return json_finding(obj, {}, None, depth)


def json_finding(
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
            f = json_finding(body.obj, h, provider)
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
