"""The faults a :class:`FaultServer` or :class:`ChaosProxy` can inject, as plain dataclasses.

Every fault takes an optional ``delay`` (seconds of latency before the response headers), so
``Status(429, retry_after=2, delay=0.5)`` is a slow rate limit. The YAML name of each fault is
its ``kind`` class attribute (``status``, ``hang``, ``reset``...); :data:`FAULT_TYPES` maps the
names to the classes. The faults that answer with an HTTP error (:class:`Status`,
:class:`ContentFilter` with ``mode="error"``) take ``should_retry`` for the ``x-should-retry``
header the official SDKs obey.

========================  =========================================================
fault                     effect
========================  =========================================================
``Ok``                    answer normally (useful in a queue: ``[Status(429), Ok()]``)
``Latency(seconds)``      wait, then answer normally
``Status(status, ...)``   an HTTP error with the provider's body and headers
``Hang(after_events)``    never answer (or stall a stream after N events)
``Reset(at, ...)``        TCP reset before the headers or in the middle of the body
``Truncate(...)``         a stream that ends without its final event / a short body
``StreamError(...)``      an error event in the stream after K deltas
``MalformedToolCall``     a tool call whose arguments are not valid JSON (as each provider sends it)
``ContentFilter(mode)``   the answer withheld by a content filter, as each provider says it
``ErrorIn200(...)``       HTTP 200 whose JSON body is the provider's error object
``HugeBody(megabytes)``   a valid answer whose text is N MB long
``Drip(chunk_bytes, ..)`` the body sent a few bytes at a time, spaced by ``interval``
``SlowFirstToken(..)``    headers at once, then ``seconds`` of silence (or pings) before the
                          first content delta
``MalformedChunk(..)``    ``count`` data lines that are not JSON after ``after_events`` events
``NoDone()``              a complete stream that ends without ``[DONE]`` / ``message_stop``
``PrefillRejected()``     the 400 a model without assistant prefill answers to a prefilled
                          request (others are answered normally)
========================  =========================================================
"""

from __future__ import annotations

import dataclasses
import functools
import math
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Union

from surefoot._check import shown

__all__ = [
    "ERROR_KINDS",
    "FAULT_TYPES",
    "ContentFilter",
    "Drip",
    "ErrorIn200",
    "Fault",
    "Hang",
    "HugeBody",
    "Latency",
    "MalformedChunk",
    "MalformedToolCall",
    "NoDone",
    "Ok",
    "PrefillRejected",
    "Reset",
    "SlowFirstToken",
    "Status",
    "StreamError",
    "Truncate",
    "check_types",
]

#: The error kinds a :class:`Status`, :class:`StreamError` or :class:`ErrorIn200` can render.
ERROR_KINDS = (
    "auth",
    "bad_request",
    "content_filter",
    "context_length",
    "insufficient_quota",
    "not_found",
    "overloaded",
    "permission",
    "rate_limit",
    "request_too_large",
    "server",
    "timeout",
    "unavailable",
)


def _rule(hint: Any) -> str:
    """How a message names the values a type hint allows."""
    if hint is type(None):
        return "None"
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        return " or ".join(_rule(h) for h in typing.get_args(hint))
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in typing.get_args(hint))
    if origin is not None and isinstance(origin, type) and issubclass(origin, Mapping):
        key, item = typing.get_args(hint) or (Any, Any)
        return "a mapping" if item is Any else f"a mapping of {_rule(key)} to {_rule(item)}"
    if origin is not None and isinstance(origin, type) and issubclass(origin, Sequence):
        (item,) = typing.get_args(hint) or (Any,)
        return f"a list of {_rule(item)}"
    return {int: "an int", float: "a number", str: "a str", bool: "True or False"}.get(
        hint, getattr(hint, "__name__", str(hint))
    )


def _fits(value: object, hint: Any) -> bool:
    """Whether ``value`` is of the (simple) type ``hint``; ``bool`` is never a number."""
    if hint is type(None):
        return value is None
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        return any(_fits(value, h) for h in typing.get_args(hint))
    if origin is Literal:
        return isinstance(value, str) or value in typing.get_args(hint)
    if origin is not None and isinstance(origin, type) and issubclass(origin, Mapping):
        key, item = typing.get_args(hint) or (Any, Any)
        return isinstance(value, Mapping) and all(
            _fits(k, key) and _fits(v, item) for k, v in value.items()
        )
    if origin is not None and isinstance(origin, type) and issubclass(origin, Sequence):
        (item,) = typing.get_args(hint) or (Any,)
        return (
            isinstance(value, Sequence)
            and not isinstance(value, (str, bytes))
            and all(_fits(v, item) for v in value)
        )
    if hint is Any:
        return True
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(hint, type) and isinstance(value, hint)


@functools.cache
def _hints(cls: type) -> tuple[tuple[str, Any], ...]:
    hints = typing.get_type_hints(cls)
    return tuple((f.name, hints[f.name]) for f in dataclasses.fields(cls))


def check_types(obj: object) -> None:
    """Every field of the dataclass ``obj`` of its annotated type, else a ``TypeError`` whose
    message names the class and the field: ``"Status.status must be an int, got str '429'"``.
    A wrong value of the right type is each class's own check (a ``ValueError``)."""
    cls: Any = type(obj)
    for name, hint in _hints(cls):
        value = getattr(obj, name)
        if not _fits(value, hint):
            raise TypeError(
                f"{cls.__name__}.{name} must be {_rule(hint)}, got {shown(value)}; "
                f"like {cls.__name__}({name}={_example(cls, name, hint)})"
            )
        if isinstance(value, float) and math.isnan(value):
            raise ValueError(f"{cls.__name__}.{name} must be a number, got nan")


def _example(cls: type, name: str, hint: Any) -> str:
    default = next(f.default for f in dataclasses.fields(cls) if f.name == name)
    if default is not None and default is not dataclasses.MISSING and _fits(default, hint):
        return repr(default)
    return _example_of(hint)


def _example_of(hint: Any) -> str:
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        return _example_of(next(h for h in typing.get_args(hint) if h is not type(None)))
    if origin is Literal:
        return repr(typing.get_args(hint)[0])
    if origin is not None and isinstance(origin, type) and issubclass(origin, Sequence):
        return "[...]"
    if origin is not None:
        return '{"x-name": "value"}'
    return {int: "1", float: "0.5", str: "'text'", bool: "True"}.get(hint, "...")


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise ValueError(message)


def _check_kind(kind: str | None) -> None:
    _check(
        kind is None or kind in ERROR_KINDS,
        f"`error` names an error kind, and `kind` must be one of {', '.join(ERROR_KINDS)}, "
        f"not {kind!r}",
    )


@dataclass(frozen=True, kw_only=True)
class Fault:
    """Base of every fault: ``delay`` seconds of latency before the response headers."""

    kind: ClassVar[str] = "fault"
    delay: float = 0.0

    def __post_init__(self) -> None:
        check_types(self)
        _check(self.delay >= 0, f"`delay` must be non-negative seconds, not {self.delay!r}")


@dataclass(frozen=True)
class Ok(Fault):
    """No fault: the scripted model answers (after ``delay``)."""

    kind: ClassVar[str] = "ok"


@dataclass(frozen=True)
class Latency(Fault):
    """Wait ``seconds`` before the headers, then answer normally."""

    kind: ClassVar[str] = "latency"
    seconds: float = 1.0

    def __post_init__(self) -> None:
        super().__post_init__()
        _check(self.seconds >= 0, f"`seconds` must be non-negative, not {self.seconds!r}")


@dataclass(frozen=True)
class Status(Fault):
    """An HTTP error status with a provider-faithful body and headers.

    ``error`` picks the error kind (``rate_limit`` vs ``insufficient_quota`` for a 429, for
    instance); by default it follows from the status (``402`` is ``insufficient_quota``).
    ``message`` overrides the error's message; ``code`` overrides its machine-readable code
    (OpenAI ``error.code``; Anthropic ``error.details.error_code``, which the Anthropic SDK maps
    to its exception class, e.g. ``Status(429, code="ramp_limit_exceeded")``).

    ``retry_after`` sets ``Retry-After`` (seconds, or a string sent verbatim such as an HTTP
    date), ``retry_after_ms`` sets ``retry-after-ms``, ``ratelimit_headers`` adds
    ``x-ratelimit-*`` / ``anthropic-ratelimit-*`` (default: on for 429), ``headers`` adds any
    other header.

    ``should_retry`` sends ``x-should-retry: true`` / ``false``, which both official SDKs obey
    before their own retry rules (``Status(503, should_retry=False)`` is not retried). By
    default (``None``) the header is what the provider sends: the Anthropic API marks its
    errors (``true`` for 408, 409, 429 and 5xx, ``false`` for the other 4xx, the same decision
    the SDK would make) except a spend limit reached (the 429 ``insufficient_quota``), the
    OpenAI API sends none.
    """

    kind: ClassVar[str] = "status"
    status: int = 500
    error: str | None = None
    message: str | None = None
    retry_after: float | str | None = None
    retry_after_ms: int | None = None
    ratelimit_headers: bool | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    code: str | None = None
    should_retry: bool | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        _check(100 <= self.status <= 599, f"`status` must be 100..599, not {self.status!r}")
        _check(self.status >= 400, f"`status` must be an error (>= 400), not {self.status}")
        _check_kind(self.error)
        if isinstance(self.retry_after, int | float):
            _check(self.retry_after >= 0, "`retry_after` must be non-negative seconds")
        if self.retry_after_ms is not None:
            _check(self.retry_after_ms >= 0, "`retry_after_ms` must be non-negative")


@dataclass(frozen=True)
class Hang(Fault):
    """Never answer until the client gives up or the server closes.

    With ``after_events``, a streaming answer sends that many events first and then stalls
    (a non-streaming request still hangs before the headers).
    """

    kind: ClassVar[str] = "hang"
    after_events: int | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.after_events is not None:
            _check(self.after_events >= 0, "`after_events` must be non-negative")


@dataclass(frozen=True)
class Reset(Fault):
    """Abort the connection with a TCP reset (SO_LINGER 0).

    ``at="before_headers"`` resets before any byte of the response; ``at="mid_body"`` sends
    the headers and ``after_events`` stream events (default: half of them), or half of a
    non-streaming body, then resets.
    """

    kind: ClassVar[str] = "reset"
    at: Literal["before_headers", "mid_body"] = "before_headers"
    after_events: int | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        _check(
            self.at in ("before_headers", "mid_body"),
            f"`at` must be one of before_headers, mid_body, not {self.at!r}",
        )
        if self.after_events is not None:
            _check(self.after_events >= 0, "`after_events` must be non-negative")


@dataclass(frozen=True)
class Truncate(Fault):
    """End the answer early, cleanly at the HTTP level.

    A stream closes without its final event (OpenAI ``[DONE]``, Anthropic ``message_stop``),
    or after ``after_events`` events; a JSON answer announces its full ``Content-Length`` and
    sends only half of it.
    """

    kind: ClassVar[str] = "truncate"
    after_events: int | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.after_events is not None:
            _check(self.after_events >= 0, "`after_events` must be non-negative")


@dataclass(frozen=True)
class StreamError(Fault):
    """An error event in the stream after ``after_deltas`` content deltas, then the end.

    The stream (HTTP 200) stops without its final event, as the providers end a stream that
    failed after it started. OpenAI: ``data: {"error": {"message", "type", "param",
    "code"}}``, which the OpenAI SDK raises as ``openai.APIError`` (no status; the error object
    in ``.body``). Anthropic: ``event: error`` with ``{"type": "error", "error": {"details":
    null, "type": "overloaded_error", "message": "Overloaded"}, "request_id"}`` by default,
    which the Anthropic SDK raises as a bare ``anthropic.APIStatusError`` with
    ``status_code == 200`` and ``.type == "overloaded_error"``. ``error`` picks another kind,
    ``message`` overrides the message. A non-streaming request gets the same error inside an
    HTTP 200 (as :class:`ErrorIn200`).

    The OpenAI Responses API (``POST /v1/responses``) shows it as ``responses_event`` says:
    ``"error"`` (the default) an ``event: error`` with ``{"type": "error", "code", "message",
    "param", "sequence_number"}``, ``"response.failed"`` a ``response.failed`` event whose
    ``response`` has ``status: "failed"`` and ``error: {"code", "message"}``.
    """

    kind: ClassVar[str] = "stream_error"
    after_deltas: int = 2
    error: str = "overloaded"
    message: str | None = None
    responses_event: Literal["error", "response.failed"] = "error"

    def __post_init__(self) -> None:
        super().__post_init__()
        _check(self.after_deltas >= 0, "`after_deltas` must be non-negative")
        _check_kind(self.error)
        _check(
            self.responses_event in ("error", "response.failed"),
            f"`responses_event` must be one of error, response.failed, not "
            f"{self.responses_event!r}",
        )


@dataclass(frozen=True)
class MalformedToolCall(Fault):
    """The answer is a tool call ``name`` whose ``arguments`` text is not valid JSON.

    Each provider and mode shows it as the real API shows a broken tool call:

    * OpenAI, plain and streamed: ``function.arguments`` is the text as is (the API sends the
      arguments as a string, valid JSON or not; streamed, in ``tool_calls`` delta fragments).
    * Anthropic, streamed: ``input_json_delta.partial_json`` fragments that assemble to the
      text, after a ``tool_use`` block started with ``input: {}``.
    * Anthropic, plain: the Messages API always sends ``input`` as an object, so ``input`` is
      what can be salvaged of the text: the members completed before it broke off (an
      incomplete trailing value is dropped, as the SDK's partial-JSON parser does), ``{}`` when
      none (the default, ``'{"city": "Par'``, gives ``{}``), or ``{}`` when the text is not an
      object at all. A client then sees a call that fails the tool's schema.
    """

    kind: ClassVar[str] = "malformed_tool_call"
    name: str = "get_weather"
    arguments: str = '{"city": "Par'


@dataclass(frozen=True)
class ContentFilter(Fault):
    """The answer is withheld by a content filter, provider-faithfully.

    ``mode="finish_reason"`` (the default): HTTP 200 whose answer stops early. OpenAI:
    ``finish_reason: "content_filter"`` with ``text``, what was produced before the filter
    (empty by default; ``content`` is ``null`` then); streamed, the deltas of ``text`` and a
    ``content_filter`` finish chunk before ``[DONE]``. Anthropic: ``stop_reason: "refusal"``
    with ``stop_details: {"type": "refusal", ...}`` (streamed in the ``message_delta``), as the
    Messages API reports a refusal by its safety classifiers.

    ``mode="error"``: an HTTP 400 error. OpenAI: Azure OpenAI's filtered-prompt error
    (``code: "content_filter"``, ``innererror.code: "ResponsibleAIPolicyViolation"``);
    Anthropic: ``invalid_request_error`` "Output blocked by content filtering policy". A
    streamed request gets it before any event. ``message`` overrides the error's message;
    ``should_retry`` sends ``x-should-retry`` as for :class:`Status`.
    """

    kind: ClassVar[str] = "content_filter"
    mode: Literal["finish_reason", "error"] = "finish_reason"
    text: str = ""
    message: str | None = None
    should_retry: bool | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        _check(
            self.mode in ("finish_reason", "error"),
            f"`mode` must be one of finish_reason, error, not {self.mode!r}",
        )


@dataclass(frozen=True)
class ErrorIn200(Fault):
    """HTTP 200 whose JSON body is the provider's error object (as some gateways answer).

    Neither official SDK checks a 200 body for an error: both return a response object whose
    fields are ``None`` and whose extra ``error`` attribute holds the error object.
    """

    kind: ClassVar[str] = "error_in_200"
    error: str = "server"
    message: str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_kind(self.error)


@dataclass(frozen=True)
class HugeBody(Fault):
    """A valid answer whose text is ``megabytes`` MB (10**6 bytes) long."""

    kind: ClassVar[str] = "huge_body"
    megabytes: float = 5.0

    def __post_init__(self) -> None:
        super().__post_init__()
        _check(0 < self.megabytes <= 1024, "`megabytes` must be > 0 and <= 1024")


@dataclass(frozen=True)
class Drip(Fault):
    """Send the body ``chunk_bytes`` bytes at a time, ``interval`` seconds apart."""

    kind: ClassVar[str] = "drip"
    chunk_bytes: int = 1
    interval: float = 0.05

    def __post_init__(self) -> None:
        super().__post_init__()
        _check(self.chunk_bytes >= 1, "`chunk_bytes` must be at least 1")
        _check(self.interval >= 0, "`interval` must be non-negative seconds")


@dataclass(frozen=True)
class SlowFirstToken(Fault):
    """A slow time to first token: the stream starts, then goes quiet before its first delta.

    Streamed: the headers (``200``, ``text/event-stream``) and the events before the first
    content delta (OpenAI's role chunk; Anthropic's ``message_start``, ``content_block_start``
    and ``ping``) are sent at once, then nothing for ``seconds``, then the rest of the stream.
    With ``ping_every``, keep-alives fill the wait every ``ping_every`` seconds, as real
    servers send them: an SSE comment ``: ping`` (OpenAI) or an ``event: ping`` with ``data:
    {"type": "ping"}`` (Anthropic); they carry no ``id:`` and do not count as events for the
    other faults. (The OpenAI SDK fails on a comment in a stream *with* ids: it dispatches the
    blank line after it as an empty event; use ``FaultServer(event_ids=False)``, as the
    providers stream.) Not streamed: the whole answer waits ``seconds`` before its headers (as
    :class:`Latency`).
    """

    kind: ClassVar[str] = "slow_first_token"
    seconds: float = 1.0
    ping_every: float | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        _check(self.seconds >= 0, f"`seconds` must be non-negative, not {self.seconds!r}")
        if self.ping_every is not None:
            _check(self.ping_every > 0, f"`ping_every` must be positive, not {self.ping_every!r}")


@dataclass(frozen=True)
class MalformedChunk(Fault):
    """Data lines that are not JSON in the middle of a stream, which then goes on normally.

    After ``after_events`` events, ``count`` events whose ``data:`` is ``text`` (default: a
    chunk cut off mid-JSON, OpenAI ``data: {"choices":[{"index":0,"delta":{"content":"x"``,
    Anthropic ``event: content_block_delta`` with ``data: {"type":"content_block_delta",
    "index":0,"delta":{"type":"text_delta","text":"x"``), without ``id:``; then the rest of
    the stream, complete. Not streamed: HTTP 200 whose JSON body is cut in half, its
    ``Content-Length`` that of the half (complete at the HTTP level, not valid JSON). Neither
    official SDK skips such a line: both raise ``json.JSONDecodeError`` (unwrapped) where it
    arrives, streamed or not.
    """

    kind: ClassVar[str] = "malformed_chunk"
    after_events: int = 3
    count: int = 1
    text: str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        _check(self.after_events >= 0, "`after_events` must be non-negative")
        _check(self.count >= 1, f"`count` must be at least 1, not {self.count!r}")
        if self.text is not None:
            _check(
                "\n" not in self.text and "\r" not in self.text,
                "`text` must be one line (no line breaks)",
            )


@dataclass(frozen=True)
class NoDone(Fault):
    """A complete stream that ends without its terminator, cleanly at the HTTP level.

    OpenAI: every chunk up to the finish chunk (and the usage chunk when
    ``stream_options.include_usage`` was asked), then the end of the body without ``data:
    [DONE]``; Anthropic: every event up to the ``message_delta`` with its ``stop_reason`` and
    usage, without ``message_stop``. (A stream is cut there by :class:`Truncate` too; this
    fault names the case of an answer that is whole.) Not streamed: the complete JSON answer
    without ``Content-Length``, ended by closing the connection (``connection: close``).
    Neither official SDK needs the terminator: both return the whole answer.
    """

    kind: ClassVar[str] = "no_done"


@dataclass(frozen=True)
class PrefillRejected(Fault):
    """Reject a prefilled request as a model without assistant prefill does.

    A request whose last message is an ``assistant`` message gets HTTP 400
    ``invalid_request_error`` "This model does not support assistant message prefill. The
    conversation must end with a user message." (the Anthropic API's; OpenAI's error shape
    with the same message); any other request is answered normally. ``Model(prefill=False)``
    rejects every prefilled request the same way.
    """

    kind: ClassVar[str] = "prefill_rejected"


#: YAML name → fault class.
FAULT_TYPES: dict[str, type[Fault]] = {
    cls.kind: cls
    for cls in (
        Ok,
        Latency,
        Status,
        Hang,
        Reset,
        Truncate,
        StreamError,
        MalformedToolCall,
        ContentFilter,
        ErrorIn200,
        HugeBody,
        Drip,
        SlowFirstToken,
        MalformedChunk,
        NoDone,
        PrefillRejected,
    )
}
