"""Failures in the shape of a 2xx body (or of one stream event's data): the error envelopes
that are not a provider's own HTTP error dialect.

:func:`error_in_body` tries :data:`SHAPES` in order, each a small recogniser of one envelope
(an ``error`` member, Bedrock's exception members, Cloudflare's ``errors`` list, a bare
message, a status-coded message, a gateway's ``{"code", "msg"}``, an error inside a stream's
wrapper members, a key that names the error, an empty answer); the first to
answer wins. Text that is not JSON has its own: an error object whose JSON does not parse
(:func:`broken_json_error`), an SDK's protocol-buffer text dump (:func:`proto_text_finding`),
and the test that a plain-text body opens like an error message (:func:`opens_like_an_error`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from surefoot._classify import _bedrock
from surefoot._classify._dialects import json_finding
from surefoot._classify._kinds import Kind
from surefoot._classify._response import reason_finding
from surefoot._classify._rules import Finding
from surefoot._classify._util import as_dict, as_list

__all__ = [
    "SHAPES",
    "broken_json_error",
    "error_in_body",
    "opens_like_an_error",
    "proto_text_finding",
]

#: The members a body may have to be nothing but an error message.
_BARE_ERROR_KEYS = frozenset(
    ("message", "Message", "__type", "code", "type", "status", "request_id", "requestId")
)
#: Members that carry an answer's content.
_ANSWER_KEYS = frozenset(("choices", "candidates", "output", "content", "delta", "text"))
#: Members that make a body an answer (or part of one), whatever else it holds.
_SUCCESS_KEYS = frozenset(
    (
        "choices", "candidates", "output", "content", "data", "delta", "response", "text",
        "usage", "embeddings", "results", "completion", "generations", "outputs",
        "predictions", "object", "model", "id", "messageStart", "contentBlockDelta",
        "contentBlockStart", "contentBlockStop", "messageStop", "metadata", "done",
        "stop_reason", "stopReason", "finish_reason", "role",
    )
)  # fmt: skip


def _error_member(d: dict[str, Any]) -> Finding | None:
    """``{"error": ...}``, ``{"object": "error", ...}``, ``{"type": "error", ...}``,
    ``{"Error": {"Message": ...}}``."""
    if d.get("error") or d.get("object") == "error" or d.get("type") == "error":
        return json_finding(d, {}, None)
    inner = as_dict(d.get("Error"))
    if inner:
        # the same object in PascalCase, as .NET and Go gateways write it (``{"Error":
        # {"Message": ..., "Type": "server_error", "Code": 500}, "StatusCode": 200}``)
        return json_finding(
            {"error": {k[:1].lower() + k[1:]: v for k, v in inner.items()}}, {}, None
        )
    return None


def _exception_member(d: dict[str, Any]) -> Finding | None:
    """Bedrock ConverseStream's exception members, as an SDK prints the event
    (``{"throttlingException": {"message": ...}}``)."""
    if len(d) != 1:
        return None
    ((key, value),) = d.items()
    if key.lower().endswith("exception") and as_dict(value) is not None:
        return _bedrock.extract(value, {":exception-type": key}, force=True)
    return None


def _errors_list(d: dict[str, Any]) -> Finding | None:
    """Cloudflare's ``{"success": false, "errors": [{"code": ..., "message": ...}]}``."""
    if d.get("success") is not False:
        return None
    first = next((as_dict(e) for e in as_list(d.get("errors")) if as_dict(e)), None)
    if first is None or not isinstance(first.get("message"), str):
        return None
    code = first.get("code")
    return Finding("generic", message=first["message"][:4096], codes=[str(code)] if code else [])


def _bare_message(d: dict[str, Any]) -> Finding | None:
    """An error envelope and nothing else (Bedrock's stream sends ``{"message": "The model
    returned the following errors: ..."}`` with status 200)."""
    if d.keys() <= _BARE_ERROR_KEYS and (
        isinstance(d.get("message"), str) or isinstance(d.get("Message"), str)
    ):
        return json_finding(d, {}, None)
    return None


def _status_coded_message(d: dict[str, Any]) -> Finding | None:
    """A message with an HTTP error status as its code (OpenRouter's mid-stream
    ``{"message": "Upstream error from ...", "code": 502, "metadata": {...}}``)."""
    code = d.get("code")
    if (
        isinstance(code, int)
        and not isinstance(code, bool)
        and 400 <= code <= 599
        and isinstance(d.get("message"), str)
        and _ANSWER_KEYS.isdisjoint(d)
    ):
        return json_finding(d, {}, None)
    return None


def _small_message(d: dict[str, Any]) -> Finding | None:
    """A small object of bookkeeping and one message, no success member (a gateway's
    ``{"html-message": "Network connection lost."}``, an agent service's stream event
    ``{"sequence_number": 3, "code": ..., "message": ...}``, ``{"detail": "..."}``,
    ``{"code": 400, "details": "..."}``)."""
    if len(d) > 6 or not _SUCCESS_KEYS.isdisjoint(d):
        return None
    text = next(
        (
            v
            for k, v in d.items()
            if isinstance(v, str) and v and ("message" in k.lower() or k in ("detail", "details"))
        ),
        "",
    )
    if not text:
        return None
    f = json_finding(d, {}, None) or Finding("text")
    if not f.message:
        f.message = text[:4096]
    code = d.get("code")
    # ``{"code": 400, "details": "..."}`` (a guardrails orchestrator's stream event): the status
    # it declares, when its words name no cause
    if f.status is None and type(code) is int and 400 <= code <= 599:
        f.status = code
    return f


#: The message members of a ``{"code": ..., "msg": ...}`` envelope (the convention of many
#: gateways: Higress, one-api, Chinese cloud APIs), where a code of 0 or 200 is success.
_MSG_KEYS = ("msg", "errmsg", "error_msg", "err_msg")


def _coded_msg(d: dict[str, Any]) -> Finding | None:
    """``{"code": -1, "msg": "Too many requests"}``: a gateway's rejection in a 2xx body."""
    if len(d) > 4 or not _SUCCESS_KEYS.isdisjoint(d):
        return None
    code = d.get("code")
    if isinstance(code, bool) or not isinstance(code, (int, str)) or str(code) in ("0", "200"):
        return None
    text = next((d[k] for k in _MSG_KEYS if isinstance(d.get(k), str) and d[k]), "")
    if not text:
        return None
    return Finding("generic", message=text[:4096], codes=[str(code)])


#: The members a stream wraps its payload in (xAI's ``{"result": {"response": {...}}}``).
_WRAPPERS = ("result", "response", "payload")


def _wrapped_error(d: dict[str, Any], depth: int = 0) -> Finding | None:
    """An ``error`` object with a message inside one or two wrapper members and nothing else
    of an answer (``{"result": {"response": {"error": {"message": ...}, ...}}}``)."""
    if depth > 2 or len(d) > 3:
        return None
    for key in _WRAPPERS:
        inner = as_dict(d.get(key))
        if inner is None:
            continue
        err = as_dict(inner.get("error"))
        if err is not None and isinstance(err.get("message"), str) and err["message"]:
            return json_finding({"error": err}, {}, None)
        found = _wrapped_error(inner, depth + 1)
        if found is not None:
            return found
    return None


def _error_named_key(d: dict[str, Any]) -> Finding | None:
    """An error named by its key (Ollama's stream: ``{"error parsing tool call": "invalid
    character ..."}``)."""
    if len(d) > 2:
        return None
    for k, v in d.items():
        if isinstance(v, str) and k.lower().startswith("error "):
            return Finding("text", message=f"{k[:256]}: {v[:4096]}")
    return None


def _empty_answer(d: dict[str, Any]) -> Finding | None:
    """An answer with nothing in it: no choice, no id, no usage (a proxy's empty reply)."""
    if d != {"choices": []}:
        return None
    f = Finding("text", message="the response has no choices", kind=Kind.NETWORK)
    f.reason = "an empty 2xx body (no choices)"
    return f


#: The envelope recognisers, in the order :func:`error_in_body` tries them.
SHAPES: tuple[Callable[[dict[str, Any]], Finding | None], ...] = (
    _error_member,
    _exception_member,
    _errors_list,
    _bare_message,
    _status_coded_message,
    _small_message,
    _coded_msg,
    _wrapped_error,
    _error_named_key,
    _empty_answer,
)


def error_in_body(obj: object) -> Finding | None:
    """The failure an error envelope in a 2xx body (or an event's data) reports, or ``None``."""
    if isinstance(obj, list) and obj:
        obj = obj[0]  # Gemini's REST stream: a JSON array of chunks, the error as one of them
    d = as_dict(obj)
    if d is None:
        return None
    for shape in SHAPES:
        f = shape(d)
        if f is not None:
            return f
    return None


_BROKEN_ERROR = re.compile(r'^\s*\{\s*"error"\s*:')
_JSON_MESSAGE = re.compile(r'"message"\s*:\s*"((?:[^"\\]|\\.){1,4096})"')
_JSON_TYPE = re.compile(r'"(?:type|code)"\s*:\s*"([\w.-]{1,128})"')


def broken_json_error(text: str) -> Finding | None:
    """An error object whose JSON does not parse (a server's typo: ``...,"code":null)}``):
    its message and type read by pattern, so that the failure is not lost."""
    if not text or _BROKEN_ERROR.match(text) is None:
        return None
    m = _JSON_MESSAGE.search(text, 0, 8192)
    if m is None:
        return None
    t = _JSON_TYPE.search(text, 0, 8192)
    return Finding("text", message=m.group(1), codes=[t.group(1)] if t else [])


# A plain-text 2xx body is read as a failure only when it opens like one (never an answer that
# happens to mention a timeout).
_ERROR_OPENING = re.compile(
    # after up to five marks (emoji with their variation selectors, an icon such as U+2139,
    # which is a letter to ``\w``, spaces)
    r"(?:\W|[^\x00-\x7f]){0,5}(error\b|[\w.]*(error|exception)\b"
    r"|stream (disconnected|closed|ended|error)"
    # a client's word that the answer was cut ("Response stopped due to recitation policy.")
    r"|(response|generation|output|completion) (was )?(stopped|blocked|halted)\b"
    r"|connection\b"
    r"|request (failed|timed out)|failed to\b|timed out|socket\b|network\b"
    # a provider's own words for a refusal of the call ("Rate limit reached for organization
    # ...", printed by a client as the stream's whole error)
    r"|rate limit (reached|exceeded)\b|too many requests\b|quota exceeded\b"
    # an agent's words for a tool call it could not read ("Tool call could not be parsed: ...")
    r"|tool calls? (could not|couldn'?t|cannot|failed to) be (parsed|decoded|read)\b)",
    re.IGNORECASE,
)


def opens_like_an_error(text: str) -> bool:
    """Whether plain ``text`` starts the way a client's error message does."""
    return _ERROR_OPENING.match(text) is not None


# The protocol-buffer text format an SDK prints a response in ("candidates {\n
# finish_reason: BLOCKLIST ...", Vertex's Python SDK), or the repr google-genai's pydantic
# objects print ("block_reason=<BlockedReason.OTHER: 'OTHER'>"): its finish and block reasons.
_PROTO_REASON = re.compile(
    r"\b(finish_reason|block_reason)(?:: *|=<?(?:[A-Za-z]+\.)?|['\"]: *['\"])"
    # an enum's name, or a quoted value in any case (a repr of OpenAI's chat.completion:
    # "'finish_reason': 'content_filter'")
    r"([A-Z][A-Z_]{1,40}\b|(?<=['\"])[a-z][a-z_]{1,40}(?=['\"]))"
    # a client's own words for the reason ("Unhandled stop reason: model_context_window_exceeded",
    # "Finish reason: 4 -", Gemini's enum as a number)
    r"|\b(?i:(finish|stop) reason): *['\"]?([a-z][a-z_]{2,40}|\d{1,2})\b"
)
#: Gemini's ``FinishReason`` enum by number, as a client prints it without its name.
_GEMINI_FINISH = {
    "3": "SAFETY",
    "4": "RECITATION",
    "6": "BLOCKLIST",
    "7": "PROHIBITED_CONTENT",
    "8": "SPII",
    "9": "MALFORMED_FUNCTION_CALL",
}


def proto_text_finding(text: str) -> Finding | None:
    """The failing finish or block reason in a protocol-buffer text dump or an SDK object's
    repr, or ``None``."""
    for m in _PROTO_REASON.finditer(text[: 1 << 16]):
        if m.group(1) is None:  # a client's words: a name in any case, or Gemini's number
            value = _GEMINI_FINISH.get(m.group(4), m.group(4))
            found = reason_finding(value, "", "finish_reason")
            if found is not None:
                return found
            continue
        field, value = m.group(1), m.group(2)
        if field == "block_reason":
            if value != "BLOCK_REASON_UNSPECIFIED":
                blocked = Finding("gemini", message=f"prompt blocked: {value}", codes=[value])
                blocked.kind = Kind.CONTENT_FILTERED
                blocked.reason = "block_reason (protobuf text)"
                return blocked
            continue
        found = reason_finding(value, "", "finish_reason")
        if found is not None:
            return found
    return None
