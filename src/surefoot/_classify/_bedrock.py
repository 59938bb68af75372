"""The AWS Bedrock dialect.

The error type arrives in the ``x-amzn-ErrorType`` header
(``ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/``), in a
``__type`` member (``com.amazon.coral.service#ThrottlingException``), or, on an event stream,
in the frame's ``:exception-type`` header (``throttlingException``); the message in
``message`` or ``Message`` (inside AWS's ``{"Output": {...}}`` envelope when the front end
answered); a relayed model failure's status in ``originalStatusCode``. Type names
compare case-insensitively, so an event-stream
exception classifies exactly as the same exception over HTTP.
"""

from __future__ import annotations

from surefoot._classify._rules import Finding
from surefoot._classify._util import as_dict, as_str, status_of

__all__ = ["extract"]

_TYPE_HEADERS = ("x-amzn-errortype", ":exception-type", ":error-code")


def extract(obj: object, headers: dict[str, str], *, force: bool = False) -> Finding | None:
    """A :class:`Finding` for a Bedrock error, or ``None`` if it is not one."""
    d = as_dict(obj)
    if d is not None and "__type" not in d:
        # AWS's coral envelope (``{"Output": {"__type": "...#UnknownOperationException"},
        # "Version": "1.0"}``): the error is the object inside
        d = as_dict(d.get("Output")) or d
    etype = ""
    for name in _TYPE_HEADERS:
        if headers.get(name):
            etype = headers[name]
            break
    if not etype and d is not None:
        etype = as_str(d.get("__type"), 256)
    if not etype and not force:
        return None
    message = ""
    if d is not None:
        message = as_str(d.get("message")) or as_str(d.get("Message"))
    message = message or headers.get(":error-message", "")
    if not etype and not message:
        return None  # a provider hint, but not Bedrock's shape (its OpenAI-compatible API)
    f = Finding("bedrock", message=message, codes=[etype[:256]] if etype else [])
    if d is not None:
        # a model's own failure relayed (``modelStreamErrorException``, ``ModelErrorException``:
        # ``originalStatusCode`` 500): the model's status speaks for the failure when the
        # frame has none
        f.status = status_of(d.get("originalStatusCode"))
    return f
