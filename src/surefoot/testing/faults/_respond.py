"""Carry out a fault on the wire: shared by the fault server and the chaos proxy.

:func:`apply_early` handles what needs no answer body (latency, a hang, a reset before the
headers, an error status, an error in a 200, a content filter's error). :func:`send` writes
an :class:`Outgoing` answer, a JSON body or a stream of SSE pieces, and applies the faults
that act on the body (reset mid-body, truncation, a mid-stream error, a stalled stream,
drip-feed).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
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
    Reset,
    Status,
    StreamError,
    Truncate,
)
from surefoot.testing.faults._http import Wire
from surefoot.testing.faults._record import RecordedRequest
from surefoot.testing.faults._wire import Event, EventRole, encode_event

__all__ = ["Outgoing", "Piece", "apply_early", "hang", "send", "send_error"]


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
    if isinstance(fault, Latency):
        await asyncio.sleep(fault.seconds)
        return None
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
    sent = deltas = 0
    async for piece in out.pieces:
        if isinstance(fault, StreamError) and (
            piece.role == "final" or (piece.role == "delta" and deltas == fault.after_deltas)
        ):
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
        if isinstance(fault, Truncate) and piece.role == "final":
            break
        await _write(wire, piece.data, drip)
        sent += 1
        deltas += piece.role == "delta"
    if isinstance(fault, Reset):  # fewer events than asked: reset at the end anyway
        await wire.reset()
        return False
    wire.end_chunks()  # complete at the HTTP level, even when cut short at the SSE level
    return True


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
