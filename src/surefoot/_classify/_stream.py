"""Failures inside successful responses: :func:`inspect_response` for a 200 body and
:func:`classify_event` for one server-sent event, both built exactly as the same failure over
plain HTTP would be (same class, kind and retryability).

Events read by :func:`classify_event`:

- OpenAI chat chunks ``data: {"error": {...}}`` and vLLM's ``{"object": "error", ...}``;
  OpenRouter chunks with an ``error`` member;
- Anthropic ``event: error`` with ``{"type": "error", "error": {...}}``, and a
  ``message_delta`` whose ``stop_reason`` is ``refusal``/``model_context_window_exceeded``;
- OpenAI Responses API ``error`` (``{"type": "error", "code", "message"}``),
  ``response.failed`` (``response.error``) and ``response.incomplete`` for a content filter;
- an OpenAI refusal: a chat chunk with a non-empty ``delta.refusal``, and the Responses
  ``response.refusal.delta`` / ``response.refusal.done`` events (content_filtered);
- Bedrock event-stream exceptions: the event name is the frame's ``:exception-type``
  (``throttlingException``, ``modelStreamErrorException``...), the data its JSON payload.

Error envelopes that are not a provider's HTTP dialect (a bare message, Bedrock's exception
members, Cloudflare's ``errors`` list, ...), broken JSON and protocol-buffer text dumps are
recognised in :mod:`surefoot._classify._envelopes`; a parsed JSON body sent with an
event-stream content type is one event's data (or a list of them).

A 5xx-class failure during a stream is retryable (``in_stream``).
"""

from __future__ import annotations

import re
import time

from surefoot._classify import _bedrock
from surefoot._classify._build import build, fallback_error, refine, retry_hint
from surefoot._classify._envelopes import (
    broken_json_error,
    error_in_body,
    opens_like_an_error,
    proto_text_finding,
)
from surefoot._classify._generic import extract_text
from surefoot._classify._input import MAX_BODY_BYTES, Body, decode_body, loads
from surefoot._classify._kinds import Kind
from surefoot._classify._response import (
    FINISH_REASONS,
    REFUSAL_EVENTS,
    inspect_object,
    refusal_finding,
    responses_finding,
)
from surefoot._classify._rules import Finding, decide, transport_finding
from surefoot._classify._util import as_dict, as_str
from surefoot._classify._wordmodel import guess_unnamed
from surefoot.errors import SurefootError

__all__ = ["classify_event", "inspect_response", "scan_success"]

_MAX_EVENTS = 100_000
#: An event-stream exception frame's type header in a body read as text (the frame's
#: binary length and type bytes, or a ``: `` where it was printed, before the name).
_EXCEPTION_FRAME = re.compile(r":exception-type[^A-Za-z]{0,8}([A-Za-z]{2,60}Exception)\b")
#: A finish or block reason in a protocol-buffer dump or an SDK object's repr
#: (``finish_reason: SAFETY``, ``block_reason=<...>``, ``'finish_reason': 'SAFETY'``).
_PROTO_HINT = re.compile(r"_reason(?::|=|['\"]:)|(?i:(?:finish|stop) reason):")
#: An error object printed inside a text body: ``{'error': {'message': ...`` or ``'type':
#: 'error', 'error': {'type': ...``, in a repr's quotes or JSON's.
_EMBEDDED_ERROR = re.compile(
    r"""[{,]\s*['"]?error['"]?\s*:\s*\{\s*['"]?(?:message|type|code|details)['"]?\s*:"""
)
#: A later line of a short 2xx text that opens like a client's error ("Reconnecting... 3/5\n
#: └ Stream disconnected before completion: idle timeout"): its words are the failure.
_ERROR_LINE = re.compile(r"\n\W{0,5}(?=\w)")
#: Events whose name alone says the response failed, whatever their data leaves out.
_FAILED_EVENTS = ("response.failed",)


def _finish(
    f: Finding,
    *,
    headers: dict[str, str] | None = None,
    provider: str | None,
    model: str | None,
    in_stream: bool,
) -> SurefootError:
    h = headers or {}
    now = time.time()
    # a failure found inside a 2xx response or a stream: its status says nothing of it
    kind = guess_unnamed(decide(f, None), f, lambda: " ".join([*f.codes, f.message]))
    retry_after = retry_hint(h, f, now)
    kind = refine(kind, f, retry_after)
    return build(
        kind,
        f,
        status=None,
        headers=h,
        provider=provider,
        model=model,
        in_stream=in_stream,
        now=now,
        retry_after=retry_after,
        hinted=True,
    )


def inspect_response(
    body: object, *, provider: str | None = None, model: str | None = None
) -> SurefootError | None:
    """The failure inside an HTTP 200 JSON body, or ``None`` when the response is fine."""
    try:
        obj = decode_body(body).obj if isinstance(body, (bytes, bytearray, str)) else body
        f = error_in_body(obj) or inspect_object(obj)
        if f is None:
            return None
        return _finish(f, provider=provider, model=model, in_stream=False)
    except Exception as exc:
        return fallback_error(f"unclassifiable response ({type(exc).__name__})", provider, model)


def _event_finding(name: str, obj: object, text: str) -> Finding | None:
    lname = name.lower()
    if lname.endswith("exception"):
        return _bedrock.extract(obj, {":exception-type": name}, force=True)
    d = as_dict(obj)
    if d is not None:
        typ = as_str(d.get("type"), 64)
        if (lname == "error" or typ == "error") and as_dict(d.get("error")) is None:
            code = as_str(d.get("code"), 128)
            msg = as_str(d.get("message")) or as_str(d.get("details")) or text[:4096]
            event = Finding("openai", message=msg, codes=[code] if code else [])
            number = d.get("code")
            if isinstance(number, int) and not isinstance(number, bool) and 400 <= number <= 599:
                event.status = number  # ``{"code": 500, "details": ...}``: the status it declares
            return event
        if lname in ("response.failed", "response.incomplete") or typ in (
            "response.failed",
            "response.incomplete",
        ):
            failed = "response.failed" in (lname, typ)
            event_type = "response.failed" if failed else "response.incomplete"
            return responses_finding(as_dict(d.get("response")) or {}, event_type)
        if lname in REFUSAL_EVENTS or typ in REFUSAL_EVENTS:
            return refusal_finding(d.get("refusal") or d.get("delta"))
        f = error_in_body(d)
        if f is not None:
            return f
        return inspect_object(d, check_tool_args=False)
    if lname == "error":
        return Finding("text", message=text[:4096])
    return broken_json_error(text)


def classify_event(
    event: str | None,
    data: str | bytes | object,
    *,
    provider: str | None = None,
    model: str | None = None,
) -> SurefootError | None:
    """The failure one decoded SSE event reports, or ``None`` when it reports none."""
    try:
        name = event if isinstance(event, str) and event else "message"
        if isinstance(data, (bytes, bytearray, str)):
            body = decode_body(data)
            obj, text = body.obj, body.text
        else:
            obj, text = data, ""
        f = _event_finding(name, obj, text)
        if f is None:
            return None
        return _finish(f, provider=provider, model=model, in_stream=True)
    except Exception as exc:
        return fallback_error(f"unclassifiable event ({type(exc).__name__})", provider, model)


# Every failure classify_event can find in an ordinary event (not "error", a Bedrock
# "...Exception" frame or a refusal event) needs one of these in its data, lower-cased: an
# ``error`` member or type, a refusal, Gemini's ``promptFeedback``, a failing finish/stop
# reason (compared lower-case, so "SAFETY" counts) or an unlisted one with its
# ``finishMessage``, Imagen's ``raiFilteredReason``, a gateway's ``msg``, or a tool call's
# first fragment. A backslash may be a JSON escape spelling any of them (or a JSON string
# holding JSON): such data is always classified.
_TRIGGER_WORDS = {
    "error",
    "refusal",
    "promptfeedback",
    "finishmessage",
    "finish_message",
    "raifilteredreason",
    "msg",
    "tool_calls",
    "\\",
    *FINISH_REASONS,
}
_TRIGGERS = re.compile(
    "|".join(
        re.escape(w)
        for w in sorted(_TRIGGER_WORDS)
        if not any(o != w and o in w for o in _TRIGGER_WORDS)
    )
)


def _may_fail(name: str, data: str) -> bool:
    """False only when :func:`classify_event` certainly returns ``None`` for this event: a
    linear pre-filter sparing the JSON decoding and walk of a stream's ordinary chunks."""
    lname = name.lower()
    if (
        lname == "error"
        or lname.endswith("exception")
        or lname in REFUSAL_EVENTS
        or lname in _FAILED_EVENTS
    ):
        return True
    return _TRIGGERS.search(data.lower()) is not None


def _iter_sse(text: str) -> list[tuple[str, str]]:
    from surefoot.sse import SSEDecoder

    decoder = SSEDecoder(max_event_bytes=MAX_BODY_BYTES)
    raw = text.encode("utf-8", errors="replace") + b"\n\n"
    events = decoder.feed(raw) + decoder.flush()
    out = [(e.event or "message", e.data) for e in events[:_MAX_EVENTS]]
    if text.startswith("error:") or "\nerror:" in text:
        # llama.cpp's server sends an overflow as a non-standard ``error:`` field, which the
        # SSE rules say to ignore: read it as an error event
        out[:0] = [
            ("error", line[6:].strip())
            for line in text.splitlines()[:_MAX_EVENTS]
            if line.startswith("error:")
        ]
    return out


def _is_ndjson(body: Body, h: dict[str, str]) -> bool:
    """Newline-delimited JSON (Ollama's native streams): ``application/x-ndjson``, or a body
    that is not one JSON value but starts as one and has more lines."""
    ctype = h.get("content-type", "")
    if "ndjson" in ctype or "jsonl" in ctype or "json-seq" in ctype:
        return True
    return body.obj is None and body.text[:1].startswith("{") and "\n{" in body.text


def _iter_ndjson(text: str) -> list[tuple[str, str]]:
    lines = (line.strip() for line in text.splitlines()[:_MAX_EVENTS])
    return [("message", line) for line in lines if line]


def _is_sse(body: Body, h: dict[str, str]) -> bool:
    if "text/event-stream" in h.get("content-type", ""):
        return True
    return body.obj is None and body.text[:256].lstrip().startswith(("data:", "event:", ":"))


def _bare_tail(text: str) -> str | None:
    """The JSON error object a stream's text ends with outside any event, or ``None``."""
    cut = text.rfind("\n{")
    if cut < 0 or '"error"' not in text[cut:]:
        return None
    tail = text[cut + 1 :].strip()
    return tail if isinstance(as_dict(loads(tail)), dict) else None


def named_failure(text: str) -> Finding | None:
    """A 2xx plain-text body that opens like an error and names its cause in words or an
    exception type a row knows ("ServiceUnavailableException: ...", "EventStreamError: An
    error occurred (validationException) ...: Input is too long"): its finding, or ``None``
    when nothing but its opening says it failed."""
    f = extract_text(text)
    probe = Finding(f.dialect, message=f.message, codes=list(f.codes))
    if decide(probe, None) is Kind.UNKNOWN:
        return None
    return f


def scan_success(
    body: Body, h: dict[str, str], *, provider: str | None, model: str | None
) -> SurefootError | None:
    """The first failure in a 2xx response: an event-stream exception frame, an SSE error
    event, or an error inside a JSON body."""
    if h.get(":exception-type") or h.get(":message-type") == "exception":
        name = h.get(":exception-type") or "exception"
        return classify_event(
            name, body.obj if body.obj is not None else body.text, provider=provider, model=model
        )
    if body.obj is None and ":exception-type" in (text := body.text):
        frame = _EXCEPTION_FRAME.search(text[:4096])
        if frame is not None:
            # an event-stream exception frame read as text (its headers, then its JSON payload)
            start, end = text.find("{", frame.end()), text.rfind("}")
            data = text[start : end + 1] if 0 <= start < end else text
            return classify_event(frame.group(1), data, provider=provider, model=model)
    sse = _is_sse(body, h)
    if sse and body.obj is not None:
        # one event's data, already a JSON value (a parsed chunk with its stream's headers),
        # or a list of them
        items = body.obj[:_MAX_EVENTS] if isinstance(body.obj, list) else [body.obj]
        for item in items:
            err = classify_event("message", item, provider=provider, model=model)
            if err is not None:
                return err
        return None
    if sse or _is_ndjson(body, h):
        try:
            events = _iter_sse(body.text) if sse else _iter_ndjson(body.text)
        except Exception:
            events = []
        for name, data in events:
            if not _may_fail(name, data):
                continue
            err = classify_event(name, data, provider=provider, model=model)
            if err is not None:
                return err
        if sse:
            # Gemini ends a stream that failed with the error object bare, not as an event
            # ("data: {...}\n\n{\n  "error": {"code": 503, ...}}")
            tail = _bare_tail(body.text)
            if tail is not None:
                return classify_event("error", tail, provider=provider, model=model)
        if events or body.obj is not None:
            return None
        # no event at all: a client's dump of the failure under the stream's content type
    if body.obj is None:
        # not JSON: a protocol-buffer text dump, or a client's message for a broken exchange
        text = body.text
        if text and not text.strip():
            # keep-alive blank lines, and the answer never came after them
            blank = Finding(
                "text", message="the response body holds only blank lines", kind=Kind.NETWORK
            )
            blank.reason = "a 2xx body of blank lines (no answer)"
            return _finish(blank, provider=provider, model=model, in_stream=False)
        f = proto_text_finding(text) if _PROTO_HINT.search(text) else None
        if f is None and len(text) <= 4096:
            for m in _ERROR_LINE.finditer(text) if "\n" in text else ():
                line = text[m.end() :]
                if opens_like_an_error(line):
                    f = transport_finding(line) or named_failure(line)
                    if f is not None:
                        break
        if f is None and len(text) <= 4096 and opens_like_an_error(text):
            f = transport_finding(text) or named_failure(text)
        if f is None and len(text) <= 4096 and _EMBEDDED_ERROR.search(text):
            # a log or a wrapper that prints the provider's error object inside a 2xx
            # ("summary=HTTP 200: Overloaded error={'type': 'error', 'error': {...}}")
            f = extract_text(text)
        return None if f is None else _finish(f, provider=provider, model=model, in_stream=False)
    return inspect_response(body.obj, provider=provider, model=model)
