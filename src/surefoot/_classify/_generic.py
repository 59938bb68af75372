"""Bodies without a provider envelope: Cohere and other ``{"message": ...}`` JSON, FastAPI's
``{"detail": ...}``, proxies' HTML error pages (nginx, Cloudflare, envoy) and plain text.

An HTML page says little beyond its status; its ``<title>`` (or first ``<h1>``) becomes the
message, and the tables decide from the status. Cloudflare's 52x codes and its ``error code:
1015`` (rate limited) page are recognised by :mod:`surefoot._classify._rules`.
"""

from __future__ import annotations

import re

from surefoot._classify._input import text_of
from surefoot._classify._rules import Finding
from surefoot._classify._util import as_dict, as_str, status_of

__all__ = ["extract_html", "extract_json", "extract_text", "is_html"]

# ``<title[^>]*>(.*?)</title>`` (and the same for ``<h1>``), found in linear time: as a regex
# it tries every unclosed ``<title`` against the rest of the page, quadratic on a page of them.
_TAGS = (
    (re.compile(r"<title", re.IGNORECASE), re.compile(r"</title>", re.IGNORECASE)),
    (re.compile(r"<h1", re.IGNORECASE), re.compile(r"</h1>", re.IGNORECASE)),
)
_TAG = re.compile(r"<[^>]{0,256}>")
_MESSAGE_KEYS = ("message", "Message", "error_message", "errorMessage", "msg", "detail", "title")
#: Where a flat error adds the cause to its message (n8n's ``errorDescription``, OAuth's
#: ``error_description``).
_DESCRIPTION_KEYS = ("errorDescription", "error_description", "description")


def is_html(text: str, headers: dict[str, str]) -> bool:
    head = text[:1024].lstrip().lower()
    return "text/html" in headers.get("content-type", "") or head.startswith(
        ("<!doctype html", "<html", "<head", "<body", "<!--")
    )


def _element(window: str, open_tag: re.Pattern[str], close_tag: re.Pattern[str]) -> str | None:
    """The content of the first ``<tag ...>...</tag>`` of ``window``, exactly as the regex
    ``<tag[^>]*>(.*?)</tag>`` (IGNORECASE, DOTALL) finds it, in linear time.

    The leftmost opening ``<tag`` is the only candidate: its ``[^>]*>`` ends at the first ``>``
    after it, and any later opening ends at that ``>`` or later, so it sees no closing tag the
    first one does not see.
    """
    m = open_tag.search(window)
    if m is None:
        return None
    gt = window.find(">", m.end())
    if gt < 0:
        return None
    end = close_tag.search(window, gt + 1)
    if end is None:
        return None
    return window[gt + 1 : end.start()]


def extract_html(text: str) -> Finding:
    """The page's title (or first heading) as the message; the status decides the rest."""
    window = text[:65536]
    parts: list[str] = []
    for open_tag, close_tag in _TAGS:
        content = _element(window, open_tag, close_tag)
        if content is not None:
            parts.append(" ".join(_TAG.sub(" ", content).split())[:512])
    message = parts[0] if parts else ""
    if "cloudflare" in window.lower() and "cloudflare" not in message.lower():
        message = f"{message} (cloudflare)" if message else "cloudflare error page"
    return Finding("html", message=message)


def extract_json(obj: object) -> Finding | None:
    """A :class:`Finding` for a flat JSON error (``message``/``detail``...), else ``None``."""
    d = as_dict(obj)
    if d is None:
        return None
    for key in _MESSAGE_KEYS:
        value = d.get(key)
        if isinstance(value, str) and value:
            message = value
            break
        if key == "detail" and isinstance(value, (list, dict)):
            message = text_of(value, 2048)
            break
    else:
        return None
    # a wrapper's own words, then the cause it describes ("Bad request - please check your
    # parameters" + "Your input exceeds the context window of this model")
    for key in _DESCRIPTION_KEYS:
        value = d.get(key)
        if isinstance(value, str) and value and value not in message:
            message = f"{message}: {value}"
            break
    codes = [v[:128] for k in ("code", "type", "error_code") if isinstance(v := d.get(k), str)]
    f = Finding("generic", message=message[:4096], codes=codes)
    f.status = status_of(d.get("status")) or status_of(d.get("code"))
    rid = as_str(d.get("request_id"), 128)
    f.request_id = rid or None
    return f


#: The exception a plain-text failure names: its leading type (``ServiceUnavailableException:
#: ...``, ``botocore.errorfactory.ThrottlingException: ...``) or botocore's ``An error
#: occurred (ThrottlingException) when calling the X operation``.
_NAMED = re.compile(
    r"^\W{0,3}(?:[A-Za-z_][\w]*\.){0,4}([A-Z][A-Za-z0-9]{2,60}(?:Exception|Error|Fault)):"
    r"|\bAn error occurred \(([A-Za-z][A-Za-z0-9]{2,60})\) when calling\b"
)


#: Base classes an SDK raises for any failure (Cohere's ``ApiError``, the openai SDK's
#: ``APIStatusError``): they name no cause, and ``ApiError`` would read as Anthropic's
#: ``api_error`` (a server error).
_GENERIC_NAMES = frozenset(
    {
        "apierror",
        "apistatuserror",
        "apiresponseerror",
        "httperror",
        "httpstatuserror",
        "clienterror",
        "responseerror",
        "requesterror",
        "eventstreamerror",
        "error",
        "exception",
        "runtimeerror",
        "valueerror",
        "typeerror",
        "keyerror",
        "sdkerror",
        "openaierror",
        "openaiapierror",
        "anthropicerror",
        "providererror",
        "upstreamerror",
    }
)


def extract_text(text: str) -> Finding:
    """Plain text: the first 4 KiB is the message; an exception it names is a code (the most
    specific, botocore's inner one, first)."""
    head = text[:4096]
    found = list(_NAMED.finditer(head[:1024]))
    inner = [m.group(2) for m in found if m.group(2)]
    outer = [m.group(1) for m in found if m.group(1)]
    codes = [c for c in dict.fromkeys(inner + outer) if c.lower() not in _GENERIC_NAMES]
    return Finding("text", message=" ".join(head.split()), codes=codes)
