"""Carry out a fault on the wire: shared by the fault server and the chaos proxy.

:func:`apply_early` handles what needs no answer body (latency, a hang, a reset before the
headers, an error status, an error in a 200, a content filter's error). :func:`send` writes
an :class:`Outgoing` answer, a JSON body or a stream of SSE pieces, and applies the faults
that act on the body (reset mid-body, truncation, a mid-stream error, a stalled stream,
drip-feed, a slow first token, malformed chunks, a stream without its terminator).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from surefoot.testing.faults._errors import (
    Dialect,
    error_body,
    error_event_data,
    error_headers,
    kind_for_status,
)
from surefoot.testing.faults._faults import (
    ContentFilter,
    Drip,
    ErrorIn200,
    Fault,
    Hang,
    Latency,
    MalformedChunk,
    NoDone,
    PrefillRejected,
    Reset,
    SlowFirstToken,
    Status,
    StreamError,
    Truncate,
)
from surefoot.testing.faults._http import Wire
from surefoot.testing.faults._model import PREFILL_MESSAGE, ends_with_assistant
from surefoot.testing.faults._record import RecordedRequest
from surefoot.testing.faults._wire import Event, EventRole, encode_event

__all__ = [
    "Outgoing",
    "Piece",
    "apply_early",
    "hang",
    "malformed_chunk",
    "prefill_error",
    "send",
    "send_error",
]

_PING = {"openai": b": ping\n\n", "anthropic": b'event: ping\ndata: {"type": "ping"}\n\n'}
_MALFORMED = {
    "openai": '{"choices":[{"index":0,"delta":{"content":"x"',
    "anthropic": '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"',
}


def malformed_chunk(dialect: str, fault: MalformedChunk) -> bytes:
    """The ``count`` broken events of ``fault`` (no ``id:``), in ``dialect``."""
    text = fault.text if fault.text is not None else _MALFORMED.get(dialect, _MALFORMED["openai"])
    name = "event: content_block_delta\n" if dialect == "anthropic" else ""
    return f"{name}data: {text}\n\n".encode() * fault.count


def prefill_error() -> Status:
    """The 400 a model without assistant prefill answers to a prefilled request."""
    return Status(400, error="bad_request", message=PREFILL_MESSAGE)


@dataclass(frozen=True)
class Piece:
    """One unit of a streamed body: an encoded SSE event (or raw bytes) and its role."""

    data: bytes
    role: EventRole = "other"


@dataclass
class Outgoing:
    """An answer to write: ``body`` for JSON, or ``pieces`` for a stream.

    ``total`` is the number of pieces when known; ``next_id`` is the SSE id an injected error
    event gets (``None``: no id); ``request_id`` is the id an injected Anthropic error event
    carries.
    """

    status: int
    headers: list[tuple[str, str]]
    body: bytes = b""
    pieces: AsyncIterator[Piece] | None = None
    total: int | None = None
    next_id: int | None = None
    dialect: Dialect = "openai"
    extra: dict[str, Any] = field(default_factory=dict)
    request_id: str | None = None
    error_event: Callable[[StreamError, int], bytes] | None = None


async def hang(reader: asyncio.StreamReader) -> bool:
    """Wait until the client closes the connection (or the handler is cancelled)."""
    while await reader.read(65536):
        pass
    return False


async def send_error(
    wire: Wire,
    record: RecordedRequest,
    dialect: Dialect,
    fault: Status,
    request_id: str,
    **context: Any,
) -> bool:
    """Write an error response for ``fault``; the connection stays open."""
    kind = fault.error or kind_for_status(fault.status)
    body = error_body(
        dialect, kind, fault.message, request_id, status=fault.status, code=fault.code, **context
    )
    headers = error_headers(dialect, fault, request_id)
    headers.append(("content-length", str(len(body))))
    record.status = fault.status
    wire.head(fault.status, headers)
    wire.body(body)
    return True


async def apply_early(
    wire: Wire,
    reader: asyncio.StreamReader,
    record: RecordedRequest,
    dialect: Dialect,
    fault: Fault | None,
    request_id: str,
    model: str | None,
) -> bool | None:
    """Apply the part of ``fault`` that comes before any answer; ``None`` if the answer is
    still to be written, else whether the connection stays open."""
    if fault is None:
        return None
    if fault.delay:
        await asyncio.sleep(fault.delay)
    if isinstance(fault, Latency) or (isinstance(fault, SlowFirstToken) and not record.stream):
        await asyncio.sleep(fault.seconds)
        return None
    if isinstance(fault, PrefillRejected) and ends_with_assistant(record.json):
        return await send_error(wire, record, dialect, prefill_error(), request_id, model=model)
    if isinstance(fault, Hang) and (fault.after_events is None or not record.stream):
        return await hang(reader)
    if isinstance(fault, Reset) and fault.at == "before_headers":
        await wire.reset()
        return False
    if isinstance(fault, Status):
        return await send_error(wire, record, dialect, fault, request_id, model=model)
    if isinstance(fault, ContentFilter) and fault.mode == "error":
        filtered = Status(
            400, error="content_filter", message=fault.message, should_retry=fault.should_retry
        )
        return await send_error(wire, record, dialect, filtered, request_id, model=model)
    error_in_200: ErrorIn200 | None = None
    if isinstance(fault, ErrorIn200):
        error_in_200 = fault
    elif isinstance(fault, StreamError) and not record.stream:
        error_in_200 = ErrorIn200(error=fault.error, message=fault.message)
    if error_in_200 is not None:
        body = error_body(
            dialect, error_in_200.error, error_in_200.message, request_id, model=model
        )
        record.status = 200
        id_header = "x-request-id" if dialect == "openai" else "request-id"
        wire.head(
            200,
            [
                ("content-type", "application/json"),
                (id_header, request_id),
                ("content-length", str(len(body))),
            ],
        )
        wire.body(body)
        return True
    return None


async def _write(wire: Wire, data: bytes, drip: Drip | None) -> None:
    if drip is None:
        wire.body(data)
        await wire.writer.drain()
        return
    for at in range(0, len(data), drip.chunk_bytes):
        wire.body(data[at : at + drip.chunk_bytes])
        await wire.flush()
        await asyncio.sleep(drip.interval)


async def send(
    wire: Wire, reader: asyncio.StreamReader, record: RecordedRequest, out: Outgoing,
    fault: Fault | None,
) -> bool:  # fmt: skip
    """Write ``out`` with the body-level part of ``fault``; returns whether to keep the
    connection open."""
    drip = fault if isinstance(fault, Drip) else None
    record.status = out.status
    if out.pieces is None:
        return await _send_body(wire, reader, out, fault, drip)
    wire.head(out.status, [*out.headers, ("transfer-encoding", "chunked")])
    wire.chunked = True
    stop_at = _stop_at(fault, out.total)
    malformed = fault if isinstance(fault, MalformedChunk) else None
    slow = fault if isinstance(fault, SlowFirstToken) else None
    sent = deltas = 0
    async for piece in out.pieces:
        if malformed is not None and sent == malformed.after_events:
            await _write(wire, malformed_chunk(out.dialect, malformed), drip)
            malformed = None
        if slow is not None and piece.role in ("delta", "final"):
            await _quiet(wire, slow, out.dialect)
            slow = None
        if isinstance(fault, StreamError) and (
            piece.role == "final" or (piece.role == "delta" and deltas == fault.after_deltas)
        ):
            if out.error_event is not None:
                await _write(wire, out.error_event(fault, sent), drip)
                break
            data = error_event_data(out.dialect, fault.error, fault.message, out.request_id)
            event = Event(data, "error" if out.dialect == "anthropic" else None)
            next_id = None if out.next_id is None else out.next_id + sent
            await _write(wire, encode_event(event, next_id), drip)
            break
        if sent == stop_at:
            if isinstance(fault, Hang):
                await wire.flush()
                return await hang(reader)
            if isinstance(fault, Reset):
                await wire.reset()
                return False
            break
        if isinstance(fault, Truncate | NoDone) and piece.role == "final":
            break
        await _write(wire, piece.data, drip)
        sent += 1
        deltas += piece.role == "delta"
    if malformed is not None:  # a stream shorter than `after_events`: at its end
        await _write(wire, malformed_chunk(out.dialect, malformed), drip)
    if isinstance(fault, Reset):  # fewer events than asked: reset at the end anyway
        await wire.reset()
        return False
    wire.end_chunks()  # complete at the HTTP level, even when cut short at the SSE level
    return True


async def _quiet(wire: Wire, fault: SlowFirstToken, dialect: str) -> None:
    """The wait before the first token: silence, or a keep-alive every ``ping_every``."""
    await wire.flush()
    loop = asyncio.get_running_loop()
    end = loop.time() + fault.seconds
    ping = _PING.get(dialect, _PING["openai"])
    while (left := end - loop.time()) > 0:
        if fault.ping_every is None or left <= fault.ping_every:
            await asyncio.sleep(left)
            return
        await asyncio.sleep(fault.ping_every)
        wire.body(ping)
        await wire.flush()


def _stop_at(fault: Fault | None, total: int | None) -> int | None:
    """After how many pieces a hang, reset or truncation acts (``None``: never by count)."""
    if isinstance(fault, Hang | Truncate) and fault.after_events is not None:
        return fault.after_events
    if isinstance(fault, Reset):
        if fault.after_events is not None:
            return fault.after_events
        return total // 2 if total is not None else 2
    return None


async def _send_body(
    wire: Wire, reader: asyncio.StreamReader, out: Outgoing, fault: Fault | None,
    drip: Drip | None,
) -> bool:  # fmt: skip
    body = out.body
    if isinstance(fault, MalformedChunk):  # complete at the HTTP level, not valid JSON
        body = body[: len(body) // 2]
    if isinstance(fault, NoDone):  # the body ends when the connection closes
        wire.head(out.status, [*out.headers, ("connection", "close")])
        await _write(wire, body, drip)
        return False
    headers = [*out.headers, ("content-length", str(len(body)))]
    if isinstance(fault, Truncate):  # the body will be short: no reuse of this connection
        headers.append(("connection", "close"))
    wire.head(out.status, headers)
    if isinstance(fault, Reset | Truncate | Hang):
        await _write(wire, body[: len(body) // 2], drip)
        if isinstance(fault, Reset):
            await wire.reset()
            return False
        if isinstance(fault, Hang):
            await wire.flush()
            return await hang(reader)
        return False
    await _write(wire, body, drip)
    return True
