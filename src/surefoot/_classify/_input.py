"""Untrusted input made safe: headers normalised, bodies decoded within fixed bounds.

Every function here accepts anything and never raises: a classifier that fails on a garbage
body would turn one failure into two.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable
from typing import Any

__all__ = [
    "MAX_BODY_BYTES",
    "MAX_TEXT_CHARS",
    "Body",
    "decode_body",
    "loads",
    "norm_headers",
    "text_of",
]

#: The most of a body the classifier looks at; the rest is ignored.
MAX_BODY_BYTES = 1 << 20
#: The most characters of text the message rules are matched against.
MAX_TEXT_CHARS = 16_384
#: How many times a JSON string that holds JSON is decoded again.
MAX_JSON_LAYERS = 4
#: The longest Python literal read as a body (``ast.literal_eval`` is slower than JSON).
_MAX_LITERAL = 1 << 16
_MAX_HEADERS = 256
_MAX_HEADER_VALUE = 8192


def norm_headers(headers: object) -> dict[str, str]:
    """Lower-cased names to string values; repeated names keep the first. Never raises."""
    out: dict[str, str] = {}
    if headers is None:
        return out
    try:
        items: Iterable[Any]
        if isinstance(headers, (str, bytes)):
            return out
        if hasattr(headers, "items") and callable(headers.items):
            items = headers.items()
        else:
            items = headers  # type: ignore[assignment]
        for n, item in enumerate(items):
            if n >= _MAX_HEADERS:
                break
            try:
                name, value = item
            except (TypeError, ValueError):
                continue
            name_s = _as_str(name).strip().lower()
            if not name_s or name_s in out:
                continue
            out[name_s] = _as_str(value)[:_MAX_HEADER_VALUE].strip()
    except Exception:
        return out
    return out


def _as_str(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        return bytes(value[:_MAX_HEADER_VALUE]).decode("latin-1")
    try:
        return str(value)
    except Exception:
        return ""


def loads(text: str) -> object:
    """JSON of ``text``, with JSON-in-a-JSON-string decoded again a bounded number of times.

    Returns ``None`` for anything that is not JSON (or is nested too deeply to parse).
    """
    obj: object = text
    for _ in range(MAX_JSON_LAYERS):
        if not isinstance(obj, str):
            break
        s = obj.strip().lstrip("\ufeff")
        if not s or s[0] not in '{["':
            return None if obj is text else obj
        try:
            obj = json.loads(s)
        except (ValueError, RecursionError, MemoryError):
            if obj is text and s.startswith(("{'", "[{'")):
                return _python_literal(s)
            return None if obj is text else obj
    return obj


def _python_literal(s: str) -> object:
    """A Python dict or list literal (``str()`` of a parsed error, as SDKs and logs print it:
    ``{'error': {'message': ..., 'code': None}}``), or ``None``. ``ast.literal_eval`` builds
    only literals, never runs code; the text is bounded first."""
    if len(s) > _MAX_LITERAL:
        return None
    try:
        value = ast.literal_eval(s)
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        return None
    return value if isinstance(value, (dict, list)) else None


class Body:
    """A decoded body: ``text`` (bounded) and ``obj`` (parsed JSON, or ``None``).

    A body handed over already parsed keeps its value and writes its ``text`` only when a
    reader asks (most envelopes are read from ``obj`` alone): ``source`` is that value."""

    __slots__ = ("_source", "_text", "obj")

    def __init__(self, text: str | None, obj: object, source: object = None) -> None:
        self._text = text
        self._source = source
        self.obj = obj

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = text_of(self._source)
        return self._text


def decode_body(body: object) -> Body:
    """Bytes, text or an already parsed value, as a :class:`Body`. Never raises."""
    try:
        if body is None:
            return Body("", None)
        if isinstance(body, (bytes, bytearray, memoryview)):
            raw = bytes(body[:MAX_BODY_BYTES])
            text = raw.decode("utf-8", errors="replace")
        elif isinstance(body, str):
            text = body[:MAX_BODY_BYTES]
        else:
            return Body(None, _unwrap(body), body)
        text = text.lstrip("\ufeff")
        return Body(text, loads(text))
    except Exception:
        return Body("", None)


def _unwrap(obj: object) -> object:
    if isinstance(obj, str):
        parsed = loads(obj)
        return obj if parsed is None else parsed
    return obj


def text_of(obj: object, limit: int = MAX_TEXT_CHARS) -> str:
    """A short text for an arbitrary value, for message rules; never raises."""
    if obj is None:
        return ""
    if isinstance(obj, str):
        return obj[:limit]
    try:
        return json.dumps(obj, ensure_ascii=False, default=str)[:limit]
    except Exception:
        try:
            return repr(obj)[:limit]
        except Exception:
            return ""
