"""``inspect_response(body)``: failures hidden in an HTTP 200 body.

- an error object inside the body (OpenRouter's ``{"choices": [], "error": {...}}``, a
  Responses API object with ``status: "failed"``);
- stop and finish reasons that mean the answer was withheld: OpenAI/Azure ``content_filter``,
  Gemini ``SAFETY``/``RECITATION``/``PROHIBITED_CONTENT``/``BLOCKLIST``/``SPII`` and
  ``promptFeedback.blockReason``, Anthropic ``refusal``, Bedrock ``guardrail_intervened``,
  Responses ``incomplete_details.reason == "content_filter"``, Bedrock InvokeModel's
  ``amazon-bedrock-guardrailAction: INTERVENED``;
- an OpenAI refusal: a non-empty ``message.refusal`` (or a streamed ``delta.refusal``), sent
  with finish reason ``stop``, and a Responses ``refusal`` output part -> content_filtered,
  like Anthropic's ``refusal`` stop reason;
- ``model_context_window_exceeded`` (Anthropic) -> context_too_long;
- Gemini ``MALFORMED_FUNCTION_CALL``/``UNEXPECTED_TOOL_CALL``, OpenAI tool-call
  ``function.arguments`` that are not valid JSON, and a streamed tool call whose first
  fragment's arguments cannot begin a JSON object -> malformed_tool_call;
- DeepSeek's ``insufficient_system_resource`` finish reason -> model_overloaded;
- an Anthropic server tool (web search, web fetch, code execution) whose result is an error
  of the server's (``error_code`` ``unavailable`` -> server_error, ``too_many_requests`` ->
  rate_limit), even when the message ends normally: another try can get the tool's answer.

``length`` / ``max_tokens`` stop reasons are not errors: the caller asked for that bound.
"""

from __future__ import annotations

import json
import re
from typing import Any

from surefoot._classify._kinds import Kind
from surefoot._classify._rules import Finding, phrase_kind
from surefoot._classify._util import MAX_ITEMS, as_dict, as_list, as_str

__all__ = [
    "FINISH_REASONS",
    "NORMAL_REASONS",
    "REFUSAL_EVENTS",
    "inspect_object",
    "reason_finding",
    "refusal_finding",
    "responses_finding",
]

K = Kind

#: Finish/stop reasons (compared lower-case) that are failures, and their kind.
FINISH_REASONS: dict[str, Kind] = {
    "content_filter": K.CONTENT_FILTERED,
    "content_filtered": K.CONTENT_FILTERED,
    "safety": K.CONTENT_FILTERED,
    "recitation": K.CONTENT_FILTERED,
    "prohibited_content": K.CONTENT_FILTERED,
    "blocklist": K.CONTENT_FILTERED,
    "spii": K.CONTENT_FILTERED,
    "image_safety": K.CONTENT_FILTERED,
    "image_prohibited_content": K.CONTENT_FILTERED,
    "refusal": K.CONTENT_FILTERED,
    "guardrail_intervened": K.CONTENT_FILTERED,
    "error_toxic": K.CONTENT_FILTERED,
    # Cohere: the generation hit the model's context limit
    "error_limit": K.CONTEXT_TOO_LONG,
    "image_recitation": K.CONTENT_FILTERED,
    "model_context_window_exceeded": K.CONTEXT_TOO_LONG,
    "malformed_function_call": K.MALFORMED_TOOL_CALL,
    "unexpected_tool_call": K.MALFORMED_TOOL_CALL,
    "too_many_tool_calls": K.MALFORMED_TOOL_CALL,
    # Bedrock Converse: the model's output (or its tool use) could not be parsed
    "malformed_model_output": K.MALFORMED_TOOL_CALL,
    "malformed_tool_use": K.MALFORMED_TOOL_CALL,
    # Gemini: the answer was invalid, or a thought signature was not passed back
    "malformed_response": K.MALFORMED_TOOL_CALL,
    "missing_thought_signature": K.INVALID_REQUEST,
    # Gemini: the prompt's language is not supported by the model
    "language": K.CAPABILITY_MISMATCH,
    # OpenRouter: the upstream failed mid-generation (HTTP 200, truncated content)
    "error": K.SERVER_ERROR,
    # DeepSeek: the generation was cut for lack of inference capacity
    "insufficient_system_resource": K.MODEL_OVERLOADED,
    # Vertex: a Model Armor template's filters removed the answer
    "model_armor": K.CONTENT_FILTERED,
    # vLLM: the engine aborted the request (shutdown, scale-down, a sleep pause)
    "abort": K.SERVER_ERROR,
}

#: Finish/stop reasons of an answer that ended as asked (compared lower-case): any other
#: reason that comes with a message is a failure the message describes.
NORMAL_REASONS = frozenset(
    (
        "stop", "length", "max_tokens", "end_turn", "tool_calls", "tool_use", "function_call",
        "stop_sequence", "pause_turn", "finish_reason_unspecified", "max_output_tokens",
        "complete", "completed", "end", "eos", "eos_token", "done", "null", "none", "",
    )
)  # fmt: skip

#: ``classified_by`` labels of the finish reasons, per field, computed once.
_FIELDS = (
    "stop_reason",
    "stopReason",
    "finish_reason",
    "finishReason",
    "incomplete_details.reason",
)
_LABELS: dict[tuple[str, str], str] = {(f, r): f"{f}={r}" for f in _FIELDS for r in FINISH_REASONS}


def reason_finding(value: object, message: str = "", fld: str = "finish_reason") -> Finding | None:
    """A :class:`Finding` for a finish/stop reason that is a failure, else ``None``.

    A reason :data:`FINISH_REASONS` does not know, sent with a message (Gemini's
    ``finishMessage``), is a failure when the phrase tables read the message as one."""
    reason = as_str(value, 64).lower()
    kind = FINISH_REASONS.get(reason)
    if kind is None:
        if not message or reason in NORMAL_REASONS:
            return None
        kind = phrase_kind(message)
        if kind is None:
            return None
        f = Finding("response", message=message, codes=[reason], kind=kind)
        f.reason = f"{fld}={reason} (an unlisted reason, read by its message)"
        return f
    text = message or f"the response stopped with reason {reason!r}"
    f = Finding("response", message=text, codes=[reason], kind=kind)
    f.reason = _LABELS.get((fld, reason), fld)
    return f


def _bad_args(fn: dict[str, Any], what: str, reason: str) -> Finding:
    """A malformed tool call: ``what`` says what is wrong with the arguments of ``fn``."""
    name = as_str(fn.get("name"), 128) or "?"
    return Finding(
        "response",
        message=f"tool call {name!r} {what}",
        codes=["invalid_tool_arguments"],
        kind=K.MALFORMED_TOOL_CALL,
        reason=reason,
    )


def _tool_args(message: dict[str, Any]) -> Finding | None:
    calls = as_list(message.get("tool_calls"))
    legacy = as_dict(message.get("function_call"))
    fns: list[dict[str, Any] | None] = []
    for c in calls:
        cd = as_dict(c)
        fns.append(as_dict(cd.get("function")) if cd is not None else None)
    if legacy is not None:
        fns.append(legacy)
    for fn in fns:
        if fn is None:
            continue
        args = fn.get("arguments")
        if not isinstance(args, str) or not args.strip():
            continue
        try:
            json.loads(args[: 1 << 20])
        except (ValueError, RecursionError):
            return _bad_args(
                fn,
                "has arguments that are not valid JSON",
                "tool call arguments are not valid JSON",
            )
    return None


def _first_fragment(delta: dict[str, Any] | None) -> Finding | None:
    """A streamed tool call's first fragment (the one naming the function) whose arguments
    cannot begin a JSON object: later fragments only append, so the call can never parse."""
    if delta is None:
        return None
    for c in as_list(delta.get("tool_calls")):
        fn = as_dict((as_dict(c) or {}).get("function"))
        if fn is None or not fn.get("name"):
            continue
        args = fn.get("arguments")
        if isinstance(args, str) and args.strip() and not args.lstrip().startswith("{"):
            return _bad_args(
                fn,
                "streams arguments that cannot begin a JSON object",
                "streamed tool call arguments cannot begin a JSON object",
            )
    return None


def _native_reason(value: object) -> Finding | None:
    """OpenRouter's ``native_finish_reason``, the upstream's own, under a normalised ``stop``
    (``"network_error"``): a failure when it is one, or names an error."""
    reason = as_str(value, 64).lower()
    if not reason or reason in NORMAL_REASONS:
        return None
    f = reason_finding(reason, fld="native_finish_reason")
    if f is None and "error" in reason:
        f = Finding("response", message=f"the upstream stopped with {reason!r}", codes=[reason])
        f.kind = K.SERVER_ERROR
        f.reason = f"native_finish_reason={reason} (an upstream error)"
    return f


#: Responses stream events that carry a refusal (by event name or by the data's ``type``).
REFUSAL_EVENTS = ("response.refusal.delta", "response.refusal.done")
#: How a tool call the server failed to parse opens when it is left in the content: the
#: OpenAI shape (``{"type": "function", "function": ...``) or a bare ``{"name": ...``.
_TOOL_CALL_OPENING = re.compile(r'\s*\{\s*"(type"\s*:\s*"function"|name"\s*:)')


def _tool_call_in_content(msg: dict[str, Any], finish: object) -> Finding | None:
    """A tool call the server's parser left in the content as JSON that does not parse, and no
    tool call beside it (vLLM's ``llama3_json`` parser on unbalanced braces): the model's call
    was malformed. A cut answer (``length``) and valid JSON are answers."""
    content = msg.get("content")
    if not isinstance(content, str) or msg.get("tool_calls") or finish == "length":
        return None
    if len(content) > 65536 or not _TOOL_CALL_OPENING.match(content):
        return None
    try:
        json.loads(content)
    except ValueError:
        f = Finding(
            "response",
            message="a tool call left unparsed in the content",
            kind=K.MALFORMED_TOOL_CALL,
        )
        f.reason = "message.content: a tool call that is not valid JSON, no tool_calls"
        return f
    return None


#: The members of a completion's message that hold an answer.
_ANSWER_PARTS = (
    "content", "refusal", "tool_calls", "function_call", "audio", "reasoning", "reasoning_content",
)  # fmt: skip


def _tokens_of_nothing(msg: dict[str, Any], d: dict[str, Any]) -> object:
    """The usage's ``completion_tokens`` of a message that holds nothing (no content, refusal,
    tool call or reasoning), or ``None`` when it holds an answer or no usage is given."""
    if any(msg.get(k) for k in _ANSWER_PARTS):
        return None
    usage = as_dict(d.get("usage"))
    return usage.get("completion_tokens") if usage is not None else None


def _empty_completion(msg: dict[str, Any], d: dict[str, Any]) -> bool:
    """A chat completion whose message holds nothing and whose usage counts no completion
    token: an answer that never came."""
    return _tokens_of_nothing(msg, d) == 0


def _window_filled(finish: object, msg: dict[str, Any], d: dict[str, Any]) -> bool:
    """An answer cut by its length with nothing in it, after at most one completion token: the
    prompt filled the window (Ollama truncates a prompt longer than ``num_ctx`` to one token
    short of it and stops at once)."""
    if finish != "length":
        return False
    tokens = _tokens_of_nothing(msg, d)
    return type(tokens) is int and tokens <= 1


def _window_filled_finding() -> Finding:
    f = Finding(
        "response",
        message="the answer stopped for its length before one token: the prompt fills the window",
        kind=K.CONTEXT_TOO_LONG,
    )
    f.reason = "finish_reason=length with an empty answer after at most one token"
    return f


def inspect_object(obj: object, *, check_tool_args: bool = True) -> Finding | None:
    """A :class:`Finding` for a failure inside a successful body, or ``None``."""
    if isinstance(obj, list):
        for item in obj[:MAX_ITEMS]:
            f = inspect_object(item, check_tool_args=check_tool_args)
            if f is not None:
                return f
        return None
    d = as_dict(obj)
    if d is None:
        return None
    # Bedrock InvokeModel with a guardrail: the body is the model's own shape, the verdict
    # beside it ("amazon-bedrock-guardrailAction": "INTERVENED"), the stop reason normal
    action = d.get("amazon-bedrock-guardrailAction")
    if isinstance(action, str) and action.upper() == "INTERVENED":
        f = Finding("bedrock", message="guardrail intervened", codes=["guardrail_intervened"])
        f.kind = K.CONTENT_FILTERED
        f.reason = "amazon-bedrock-guardrailAction=INTERVENED"
        return f
    # Anthropic messages and streamed message_delta; Bedrock Converse.
    delta = as_dict(d.get("delta")) or {}
    for holder in (d, delta, as_dict(d.get("messageStop")) or {}):
        for key in ("stop_reason", "stopReason"):
            f = reason_finding(holder.get(key), _refusal_text(d), key)
            if f is not None:
                return f
    f = _server_tool_fault(d)
    if f is not None:
        return f
    # Cohere v2's message-end event: the finish reason (and any error text) in its delta
    f = reason_finding(delta.get("finish_reason"), as_str(delta.get("error")))
    if f is not None:
        return f
    # OpenAI chat completions (and chunks), Cohere.
    for choice in as_list(d.get("choices")):
        c = as_dict(choice)
        if c is None:
            continue
        f = reason_finding(c.get("finish_reason")) or _native_reason(c.get("native_finish_reason"))
        if f is not None:
            return f
        msg = as_dict(c.get("message"))
        if msg is not None and _window_filled(c.get("finish_reason"), msg, d):
            return _window_filled_finding()
        if msg is not None and _empty_completion(msg, d):
            f = Finding("response", message="the completion is empty", kind=K.SERVER_ERROR)
            f.reason = "an empty completion (no content, no tool call, 0 completion tokens)"
            return f
        for part in (msg, as_dict(c.get("delta"))):
            if part is not None and part.get("refusal"):
                f = refusal_finding(part.get("refusal"))
                if f is not None:
                    return f
        if check_tool_args and msg is not None:
            f = _tool_args(msg) or _tool_call_in_content(msg, c.get("finish_reason"))
            if f is not None:
                return f
        # a stream's first fragment is judged alone: later ones only append to it
        f = _first_fragment(as_dict(c.get("delta")))
        if f is not None:
            return f
    f = reason_finding(d.get("finish_reason"))
    if f is not None:
        return f
    if _window_filled(d.get("finish_reason"), d, d):
        return _window_filled_finding()
    # Gemini / Vertex, in the REST API's camelCase or the SDKs' snake_case.
    feedback = as_dict(d.get("promptFeedback")) or as_dict(d.get("prompt_feedback"))
    if feedback is not None:
        block = as_str(feedback.get("blockReason") or feedback.get("block_reason"), 64)
        if block and block.upper() != "BLOCK_REASON_UNSPECIFIED":
            text = (
                as_str(feedback.get("blockReasonMessage") or feedback.get("block_reason_message"))
                or f"prompt blocked: {block}"
            )
            f = Finding("gemini", message=text, codes=[block], kind=K.CONTENT_FILTERED)
            f.reason = "promptFeedback.blockReason"
            return f
    # a candidate on its own (``{"content": {}, "finishReason": "MALFORMED_FUNCTION_CALL"}``,
    # what an adapter logs of ``candidates[0]``)
    bare = [d] if "content" in d and ("finishReason" in d or "finish_reason" in d) else []
    for cand in bare or as_list(d.get("candidates")):
        c = as_dict(cand)
        if c is not None:
            camel = "finishReason" in c
            f = reason_finding(
                c.get("finishReason") if camel else c.get("finish_reason"),
                as_str(c.get("finishMessage") or c.get("finish_message")),
                "finishReason" if camel else "finish_reason",
            )
            if f is not None:
                f.dialect = "gemini"
                return f
    # Vertex Imagen: every prediction withheld by the Responsible-AI filter (some images
    # kept is an answer)
    preds = [as_dict(p) for p in as_list(d.get("predictions"))]
    if preds and all(p is not None and p.get("raiFilteredReason") for p in preds):
        first = preds[0] or {}
        f = Finding(
            "gemini",
            message=as_str(first.get("raiFilteredReason")),
            codes=["raiFilteredReason"],
            kind=K.CONTENT_FILTERED,
        )
        f.reason = "predictions[].raiFilteredReason"
        return f
    # OpenAI Responses API objects, bare or inside their stream event
    # (``{"type": "response.failed", "response": {...}}``).
    if d.get("object") == "response" or "incomplete_details" in d:
        return responses_finding(d)
    inner = as_dict(d.get("response"))
    typ = as_str(d.get("type"), 64)
    if typ in REFUSAL_EVENTS:
        # a Responses stream's refusal event, its data alone (``{"type":
        # "response.refusal.done", "refusal": "I'm sorry..."}``)
        return refusal_finding(d.get("refusal") or d.get("delta"))
    if inner is not None and typ.startswith("response."):
        return responses_finding(inner, typ)
    if d.get("status") in ("failed", "incomplete") and as_dict(d.get("error")) is not None:
        return responses_finding(d)
    return None


#: The status a Responses stream event's type implies for the object it carries.
_EVENT_STATUS = {"response.failed": "failed", "response.incomplete": "incomplete"}


#: The error codes of an Anthropic server tool's result (web search, web fetch, code
#: execution: a ``*_tool_result_error`` block) that are the server's own fault, where another
#: try can get the tool's answer. The others (``invalid_tool_input``, ``max_uses_exceeded``,
#: ``url_not_accessible``, ...) are the model's or the caller's, and the model answers them.
_SERVER_TOOL_FAULTS: dict[str, Kind] = {
    "unavailable": K.SERVER_ERROR,
    "too_many_requests": K.RATE_LIMIT,
}
_SERVER_TOOL_LABELS = {c: f"server tool result error_code={c}" for c in _SERVER_TOOL_FAULTS}


def _server_tool_fault(d: dict[str, Any]) -> Finding | None:
    """A server tool that failed on the server's side inside an Anthropic message (or a
    streamed ``content_block_start``), or ``None``."""
    if d.get("type") == "message":
        blocks = as_list(d.get("content"))[:MAX_ITEMS]
    elif "content_block" in d:
        blocks = [d.get("content_block")]
    else:
        return None
    for block in blocks:
        b = as_dict(block)
        inner = as_dict(b.get("content")) if b is not None else None
        if inner is None or not as_str(inner.get("type"), 64).endswith("_tool_result_error"):
            continue
        code = as_str(inner.get("error_code"), 64)
        kind = _SERVER_TOOL_FAULTS.get(code)
        if kind is not None:
            tool = as_str((b or {}).get("type"), 64) or "server tool"
            f = Finding("anthropic", message=f"{tool}: {code}", codes=[code], kind=kind)
            f.reason = _SERVER_TOOL_LABELS[code]
            return f
    return None


def _refusal_text(d: dict[str, Any]) -> str:
    details = as_dict(d.get("stop_details"))
    return as_str(details.get("explanation")) if details is not None else ""


def refusal_finding(value: object) -> Finding | None:
    """An OpenAI refusal (``message.refusal``, ``delta.refusal``, a Responses ``refusal`` part):
    content_filtered when the refusal is a non-empty string, else ``None``."""
    text = as_str(value).strip()
    if not text:
        return None
    return Finding(
        "openai", message=text, codes=["refusal"], kind=K.CONTENT_FILTERED, reason="refusal"
    )


def responses_finding(d: dict[str, Any], event: str = "") -> Finding | None:
    """A failed, content-filtered or refused Responses API object. ``event`` is the type of the
    stream event that carried it: a ``response.failed`` event says the status its object may
    leave out (xAI's carries only ``error`` and ``usage``)."""
    status = d.get("status") or _EVENT_STATUS.get(event)
    err = as_dict(d.get("error"))
    if status == "failed" and err is not None:
        code = as_str(err.get("code"), 128)
        return Finding("openai", message=as_str(err.get("message")), codes=[code] if code else [])
    if status == "failed":
        # failed, and no word on why: the provider's side, as a 5xx without a body would be
        return Finding(
            "openai", kind=K.SERVER_ERROR, reason="Responses status failed, no error given"
        )
    inc = as_dict(d.get("incomplete_details"))
    if status == "incomplete" and inc is not None:
        f = reason_finding(inc.get("reason"), "", "incomplete_details.reason")
        if f is not None:
            return f
    for item in as_list(d.get("output")):
        it = as_dict(item)
        if it is None:
            continue
        for part in as_list(it.get("content")):
            p = as_dict(part)
            if p is not None and p.get("type") == "refusal":
                f = refusal_finding(p.get("refusal"))
                if f is not None:
                    return f
    return None
