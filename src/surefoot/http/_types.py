"""What a transport hands back: a status, lower-cased headers and a body or a byte stream."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass, field
from types import EllipsisType
from typing import Any, Protocol

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


class LowerHeaders(Mapping[str, str]):
    """A response's headers with lower-case names (a repeated name keeps its last value): the
    dict ``{name.lower(): value for name, value in headers.items()}``, built on first use.

    A successful call rarely reads its response headers, so the transports hand this view
    over instead of copying every header of every response. ``headers`` must not change after.
    """

    __slots__ = ("_dict", "_raw")

    def __init__(self, headers: Any) -> None:
        self._raw: Any = headers
        self._dict: dict[str, str] | None = None

    def _lower(self) -> dict[str, str]:
        d = self._dict
        if d is None:
            d = self._dict = {k.lower(): v for k, v in self._raw.items()}
        return d

    def __getitem__(self, name: str) -> str:
        return self._lower()[name]

    def get(self, name: str, default: Any = None) -> Any:
        return self._lower().get(name, default)

    def __contains__(self, name: object) -> bool:
        return name in self._lower()

    def __iter__(self) -> Iterator[str]:
        return iter(self._lower())

    def __len__(self) -> int:
        return len(self._lower())

    def items(self) -> Any:
        return self._lower().items()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LowerHeaders):
            other = other._lower()
        return self._lower() == other

    def __repr__(self) -> str:
        return repr(self._lower())


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
        self,
        url: str,
        headers: Mapping[str, str],
        body: bytes,
        *,
        timeout: float | None,
        read_timeout: float | EllipsisType | None = ...,
    ) -> Response: ...

    async def open_stream(
        self,
        url: str,
        headers: Mapping[str, str],
        body: bytes,
        *,
        timeout: float | None,
        read_timeout: float | None,
        method: str = "POST",
    ) -> AsyncStream: ...

    async def aclose(self) -> None: ...


class SyncTransport(Protocol):
    def post(
        self,
        url: str,
        headers: Mapping[str, str],
        body: bytes,
        *,
        timeout: float | None,
        read_timeout: float | EllipsisType | None = ...,
    ) -> Response: ...

    def open_stream(
        self,
        url: str,
        headers: Mapping[str, str],
        body: bytes,
        *,
        timeout: float | None,
        read_timeout: float | None,
        method: str = "POST",
    ) -> SyncStream: ...

    def close(self) -> None: ...
