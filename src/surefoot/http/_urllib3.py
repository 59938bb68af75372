"""The sync transport on urllib3: one pool manager, bounded bodies, per-call timeouts."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping

import urllib3

from surefoot.http._types import DEFAULT_MAX_BODY, BodyTooLargeError, LowerHeaders, Response

__all__ = ["Urllib3Transport"]


class _Stream:
    __slots__ = ("_max", "_resp", "headers", "status")

    def __init__(self, resp: urllib3.BaseHTTPResponse, max_body: int) -> None:
        self._resp = resp
        self._max = max_body
        self.status = resp.status
        self.headers: Mapping[str, str] = LowerHeaders(resp.headers)

    def chunks(self) -> Iterator[bytes]:
        yield from self._resp.stream(8192, decode_content=True)

    def read(self) -> bytes:
        return _read_bounded(self._resp, self._max)

    def close(self) -> None:
        self._resp.close()
        self._resp.release_conn()


def _read_bounded(resp: urllib3.BaseHTTPResponse, limit: int, end: float | None = None) -> bytes:
    """The body, at most ``limit`` bytes; ``TimeoutError`` once ``end`` (monotonic) passes."""
    length = resp.headers.get("content-length")
    if length is not None and length.isdigit():
        if int(length) > limit:
            resp.close()
            raise BodyTooLargeError(limit)
        if end is None:
            return resp.read(decode_content=True)
    parts: list[bytes] = []
    total = 0
    for chunk in resp.stream(65536, decode_content=True):
        total += len(chunk)
        if total > limit:
            resp.close()
            raise BodyTooLargeError(limit)
        if end is not None and time.monotonic() > end:
            resp.close()
            raise TimeoutError("the response body did not arrive before the deadline")
        parts.append(chunk)
    return b"".join(parts)


class Urllib3Transport:
    """A :class:`~surefoot.http.SyncTransport` on one :class:`urllib3.PoolManager`;
    ``max_connections`` is the pool size per host."""

    def __init__(
        self,
        *,
        max_connections: int = 10,
        max_body: int = DEFAULT_MAX_BODY,
        connect_timeout: float | None = 10.0,
        read_timeout: float | None = None,
        pool: urllib3.PoolManager | None = None,
    ) -> None:
        self._pool = pool or urllib3.PoolManager(
            maxsize=max_connections, retries=False, block=False
        )
        self._max = max_body
        self._connect_timeout = connect_timeout
        self._read_timeout = read_timeout
        self._default_timeout = urllib3.Timeout(connect=connect_timeout, read=read_timeout)

    def _timeout(self, total: float | None, read: float | None) -> urllib3.Timeout:
        if total is None and read == self._read_timeout:
            return self._default_timeout
        connect = self._connect_timeout
        if total is not None:
            connect = total if connect is None else min(connect, total)
            read = total if read is None else min(read, total)
        return urllib3.Timeout(connect=connect, read=read, total=total)

    def post(
        self, url: str, headers: Mapping[str, str], body: bytes, *, timeout: float | None
    ) -> Response:
        end = None if timeout is None else time.monotonic() + timeout
        resp = self._pool.urlopen(
            "POST",
            url,
            body=body,
            headers=headers,
            timeout=self._timeout(timeout, self._read_timeout),
            retries=False,
            redirect=False,
            preload_content=False,
        )
        try:
            data = _read_bounded(resp, self._max, end)
        finally:
            resp.release_conn()
        return Response(resp.status, LowerHeaders(resp.headers), data)

    def open_stream(
        self,
        url: str,
        headers: Mapping[str, str],
        body: bytes,
        *,
        timeout: float | None,
        read_timeout: float | None,
    ) -> _Stream:
        resp = self._pool.urlopen(
            "POST",
            url,
            body=body,
            headers=headers,
            timeout=self._timeout(timeout, read_timeout),
            retries=False,
            redirect=False,
            preload_content=False,
        )
        return _Stream(resp, self._max)

    def close(self) -> None:
        self._pool.clear()
