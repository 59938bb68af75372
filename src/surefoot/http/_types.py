"""What a transport hands back: a status, lower-cased headers and a body or a byte stream."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Protocol

__all__ = [
    "DEFAULT_MAX_BODY",
    "AsyncStream",
    "AsyncTransport",
    "BodyTooLargeError",
    "Response",
    "SyncStream",
    "SyncTransport",
]

#: The largest response body read into memory by default (bytes).
DEFAULT_MAX_BODY = 32 * 1024 * 1024


class BodyTooLargeError(ValueError):
    """The response body is larger than ``max_body``; nothing past the limit was kept."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"response body exceeds the {limit}-byte limit; raise max_body= if it is legitimate"
        )
        self.limit = limit


@dataclass(slots=True)
class Response:
    """A whole response: ``headers`` keys are lower-case."""

    status: int
    headers: Mapping[str, str]
    body: bytes = b""
    elapsed: float = 0.0
    extra: dict[str, object] = field(default_factory=dict)


class AsyncStream(Protocol):
    status: int
    headers: Mapping[str, str]

    def chunks(self) -> AsyncIterator[bytes]: ...

    async def read(self) -> bytes: ...

    async def aclose(self) -> None: ...


class SyncStream(Protocol):
    status: int
    headers: Mapping[str, str]

    def chunks(self) -> Iterator[bytes]: ...

    def read(self) -> bytes: ...

    def close(self) -> None: ...


class AsyncTransport(Protocol):
    """Sends one POST; raises the library's own exceptions (the caller classifies them)."""

    async def post(
        self, url: str, headers: Mapping[str, str], body: bytes, *, timeout: float | None
    ) -> Response: ...

    async def open_stream(
        self,
        url: str,
        headers: Mapping[str, str],
        body: bytes,
        *,
        timeout: float | None,
        read_timeout: float | None,
    ) -> AsyncStream: ...

    async def aclose(self) -> None: ...


class SyncTransport(Protocol):
    def post(
        self, url: str, headers: Mapping[str, str], body: bytes, *, timeout: float | None
    ) -> Response: ...

    def open_stream(
        self,
        url: str,
        headers: Mapping[str, str],
        body: bytes,
        *,
        timeout: float | None,
        read_timeout: float | None,
    ) -> SyncStream: ...

    def close(self) -> None: ...
