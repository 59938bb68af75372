"""A small HTTP/1.1 layer on asyncio streams: read one request, write a response byte by byte.

The servers need exact control of the wire (resets, truncation, drip-feed, hangs), so this
module reads requests itself (``Content-Length`` and chunked bodies, bounded sizes) and
:class:`Wire` writes heads, bodies and chunks, flushes, closes and aborts with a TCP reset.
"""

from __future__ import annotations

import asyncio
import socket
import struct
from dataclasses import dataclass
from http import HTTPStatus
from urllib.parse import urlsplit

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_MAX_HEAD_BYTES",
    "BadRequest",
    "Request",
    "Wire",
    "read_request",
    "reason_phrase",
]

DEFAULT_MAX_HEAD_BYTES = 64 * 1024
DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024

_EXTRA_REASONS = {529: "Site Overloaded"}


def reason_phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return _EXTRA_REASONS.get(status, "Unknown")


class BadRequest(Exception):
    """The request cannot be read: answer ``status`` and close the connection."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class Request:
    """One parsed request; header names are lower-case, in arrival order."""

    method: str
    target: str
    version: str
    headers: list[tuple[str, str]]
    body: bytes

    @property
    def path(self) -> str:
        return urlsplit(self.target).path or "/"

    def header(self, name: str) -> str | None:
        name = name.lower()
        for key, value in self.headers:
            if key == name:
                return value
        return None

    @property
    def keep_alive(self) -> bool:
        connection = (self.header("connection") or "").lower()
        if self.version == "HTTP/1.0":
            return "keep-alive" in connection
        return "close" not in connection


async def read_request(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    max_head_bytes: int = DEFAULT_MAX_HEAD_BYTES,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
) -> Request | None:
    """Read one request; ``None`` when the client closed the connection between requests."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as exc:
        if not exc.partial.strip():
            return None
        raise BadRequest(400, "incomplete request head") from exc
    except asyncio.LimitOverrunError as exc:
        raise BadRequest(431, "request head too large") from exc
    if len(head) > max_head_bytes:
        raise BadRequest(431, "request head too large")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise BadRequest(400, f"malformed request line {lines[0][:80]!r}")
    headers: list[tuple[str, str]] = []
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip():
            raise BadRequest(400, f"malformed header line {line[:80]!r}")
        headers.append((name.lower(), value.strip()))
    request = Request(parts[0].upper(), parts[1], parts[2], headers, b"")
    if (request.header("expect") or "").lower() == "100-continue":
        writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
    request.body = await _read_body(reader, request, max_body_bytes)
    return request


async def _read_body(reader: asyncio.StreamReader, request: Request, limit: int) -> bytes:
    encoding = (request.header("transfer-encoding") or "").lower()
    try:
        if "chunked" in encoding:
            return await _read_chunked(reader, limit)
        length_text = request.header("content-length")
        if length_text is None:
            return b""
        if not length_text.isdigit():
            raise BadRequest(400, f"bad Content-Length {length_text!r}")
        length = int(length_text)
        if length > limit:
            raise BadRequest(413, f"request body over {limit} bytes")
        return await reader.readexactly(length)
    except asyncio.IncompleteReadError as exc:
        raise BadRequest(400, "request body ended early") from exc


async def _read_chunked(reader: asyncio.StreamReader, limit: int) -> bytes:
    body = bytearray()
    while True:
        line = await reader.readuntil(b"\r\n")
        size_text = line.split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError as exc:
            raise BadRequest(400, f"bad chunk size {size_text[:20]!r}") from exc
        if size == 0:
            while (await reader.readuntil(b"\r\n")) != b"\r\n":  # trailers
                pass
            return bytes(body)
        if len(body) + size > limit:
            raise BadRequest(413, f"request body over {limit} bytes")
        body += await reader.readexactly(size)
        await reader.readexactly(2)


class Wire:
    """The response side of one connection."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        self.chunked = False

    def head(self, status: int, headers: list[tuple[str, str]]) -> None:
        lines = [f"HTTP/1.1 {status} {reason_phrase(status)}"]
        lines.extend(f"{name}: {value}" for name, value in headers)
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))

    def body(self, data: bytes) -> None:
        """Raw body bytes, or one chunk when the response is chunked."""
        if not data:
            return
        if self.chunked:
            self.writer.write(b"%x\r\n%b\r\n" % (len(data), data))
        else:
            self.writer.write(data)

    def end_chunks(self) -> None:
        self.writer.write(b"0\r\n\r\n")

    async def flush(self) -> None:
        """Wait until every written byte has left for the kernel."""
        await self.writer.drain()
        transport = self.writer.transport
        while transport.get_write_buffer_size() and not transport.is_closing():
            await asyncio.sleep(0.001)

    async def close(self) -> None:
        """Flush and close (FIN)."""
        try:
            await self.flush()
        except (ConnectionError, OSError):
            pass
        self.writer.close()

    async def reset(self) -> None:
        """Flush what was written, then abort with a TCP reset (SO_LINGER 0)."""
        try:
            await self.flush()
            await asyncio.sleep(0.01)  # let the peer read what was sent before the RST
        except (ConnectionError, OSError):
            pass
        sock = self.writer.get_extra_info("socket")
        if sock is not None:
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            except OSError:
                pass
        self.writer.transport.abort()
