"""The wire-format protocol both LLM dialects implement, the stream deltas, and
:func:`get_wire`.

A :class:`WireFormat` is pure: it builds request bytes, headers and the endpoint URL, parses a
response body, and accumulates a stream event by event. It never does I/O; the client sends
and receives.

Endpoint convention (``endpoint(base_url)``):

* ``"openai"`` (chat completions): ``base_url`` *includes* the API version, like
  ``https://api.openai.com/v1``; the path ``/chat/completions`` is appended.
* ``"anthropic"`` (messages): ``base_url`` is the host, like ``https://api.anthropic.com``;
  ``/v1/messages`` is appended, or only ``/messages`` when ``base_url`` already ends in ``/v1``.

Both tolerate a trailing slash, a ``base_url`` that is already the full endpoint, and keep a
query string (``?api-version=...``) at the end.

Stream contract: feed each SSE event (``event`` name, ``data`` text) to
``state.feed``; it returns the deltas that event produced (:class:`TextDelta`,
:class:`ToolCallDelta`, and :class:`StreamEnd` once, on the final event). Error events are the
caller's to classify *before* feeding; one that is fed anyway raises :class:`StreamErrorEvent`.
Data that is not JSON raises :class:`WireFormatError`. Events after the end are ignored.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from json.encoder import encode_basestring_ascii
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit, urlunsplit

from surefoot.llm._messages import Completion, Message

if TYPE_CHECKING:
    from surefoot.llm._tools import ToolSpec

__all__ = [
    "STYLES",
    "StreamDelta",
    "StreamEnd",
    "StreamErrorEvent",
    "StreamState",
    "TextDelta",
    "ToolCallDelta",
    "WireFormat",
    "WireFormatError",
    "as_int",
    "dumps",
    "join_endpoint",
    "load_event",
]

STYLES = ("openai", "anthropic", "responses")


class WireFormatError(ValueError):
    """A body or stream event that is not the shape of a completion."""


class StreamErrorEvent(WireFormatError):
    """An error event reached the accumulator; ``payload`` is its decoded JSON for the
    classifier."""

    def __init__(self, message: str, payload: Any) -> None:
        super().__init__(message)
        self.payload = payload


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of the assistant's text."""

    text: str
    type: str = "text"


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A piece of tool call number ``index`` (0-based, in the order the calls started).

    ``id`` and ``name`` are those known so far (``""`` until received); ``arguments_delta``
    is the next piece of raw JSON text (``""`` on the delta that starts a call).
    """

    index: int
    id: str
    name: str
    arguments_delta: str
    type: str = "tool_call"


@dataclass(frozen=True, slots=True)
class StreamEnd:
    """The stream's final event: the assembled completion."""

    completion: Completion
    type: str = "end"


StreamDelta = TextDelta | ToolCallDelta | StreamEnd


class StreamState(Protocol):
    """Accumulates one streamed completion (see the module docstring)."""

    @property
    def done(self) -> bool: ...

    def feed(self, event_name: str, data: str) -> list[StreamDelta]: ...

    def result(self) -> Completion:
        """The completion; raises :class:`WireFormatError` if the final event never came."""
        ...

    def partial(self) -> Completion:
        """What has been accumulated so far (``finish_reason`` ``None`` until known)."""
        ...


class WireFormat(Protocol):
    """One request/response dialect."""

    @property
    def style(self) -> str: ...

    @property
    def path(self) -> str: ...

    def endpoint(self, base_url: str) -> str: ...

    def headers(self, api_key: str | None, *, stream: bool = False) -> dict[str, str]: ...

    def build_request(
        self,
        messages: Sequence[Message],
        *,
        model: str,
        tools: Sequence[ToolSpec] | None = None,
        stream: bool = False,
        max_tokens: int | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> bytes: ...

    def parse_response(self, obj: Any) -> Completion: ...

    def new_stream_state(self) -> StreamState: ...


_ENCODER = json.JSONEncoder(separators=(",", ":"))
#: The C encoder factory of the json module (``None`` without its C accelerator).
_c_make_encoder: Callable[..., Callable[[Any, int], Iterable[str]]] | None = getattr(
    json.encoder, "c_make_encoder", None
)


def dumps(obj: Any) -> bytes:
    """Compact JSON bytes (ASCII-escaped, so any str, even a lone surrogate, encodes)."""
    # The hot path: what ``_ENCODER.encode(obj)`` does with the C encoder, without the Python
    # set-up around it (``json.dumps`` with a keyword even builds a new JSONEncoder per call).
    # A new markers dict per call keeps the circular-reference check.
    if _c_make_encoder is None:
        return _ENCODER.encode(obj).encode()
    encode = _c_make_encoder(
        {}, _ENCODER.default, encode_basestring_ascii, None, ":", ",", False, False, True
    )
    return "".join(encode(obj, 0)).encode()


def join_endpoint(base_url: str, path: str, version: str = "") -> str:
    """``base_url`` + ``path``, tolerant of a trailing slash, of ``base_url`` already being the
    endpoint, and (when ``version`` is given, like ``"/v1"``) of ``base_url`` already ending in
    that version while ``path`` starts with it. A query string stays at the end."""
    if not isinstance(base_url, str) or not base_url.strip():
        raise ValueError("base_url is empty; pass the API root, like 'https://api.openai.com/v1'")
    parts = urlsplit(base_url.strip())
    if not parts.scheme or not parts.netloc:
        raise ValueError(
            f"base_url {base_url!r} is not an absolute http(s) URL; "
            "pass one like 'https://api.openai.com/v1'"
        )
    root = parts.path.rstrip("/")
    if root.endswith(path):
        full = root
    elif version and path.startswith(version + "/") and root.endswith(version):
        full = root + path[len(version) :]
    else:
        full = root + path
    return urlunsplit((parts.scheme, parts.netloc, full, parts.query, parts.fragment))


def load_event(data: str) -> dict[str, Any]:
    """The JSON object of one SSE ``data`` field; :class:`WireFormatError` otherwise."""
    try:
        obj = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise WireFormatError(
            f"stream event data is not valid JSON ({exc}): {data[:200]!r}"
        ) from None
    if not isinstance(obj, dict):
        raise WireFormatError(f"stream event data is not a JSON object: {data[:200]!r}")
    return obj


def as_int(value: Any) -> int:
    """A token count from JSON: ints (not bools) as they are, anything else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
