"""The sync transport on urllib3: one pool manager, bounded bodies, per-call timeouts.

A call with a timeout is bounded by it as a whole, not read by read: once the headers are in,
the connection's socket is armed with :func:`surefoot._backends._shutter.shut_at` for the time
left, so a body that drips a byte at a time (each read quick, their sum not) ends at the
deadline with a :class:`TimeoutError`. The socket timeout bounds the connect and the headers.
A response that fails is closed before the error is raised: the error (and its traceback, which
holds the response) never keeps the connection open.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator, Mapping
from types import EllipsisType

import urllib3

from surefoot._backends._shutter import Armed, shut_at
from surefoot.http._types import DEFAULT_MAX_BODY, BodyTooLargeError, LowerHeaders, Response

__all__ = ["Urllib3Transport"]


_DEADLINE_MESSAGE = "the response did not arrive before the deadline"


def _arm(resp: urllib3.BaseHTTPResponse, end: float | None) -> Armed | None:
    """Shut the response's socket at ``end`` (monotonic), so no read blocks past it."""
    if end is None:
        return None
    sock = getattr(getattr(resp, "connection", None), "sock", None)
    if not isinstance(sock, socket.socket):
        return None
    return shut_at(end - time.monotonic(), sock)


def _fired(armed: Armed | None) -> bool:
    """Whether the deadline shut the socket (call before :meth:`Armed.disarm`)."""
    return armed is not None and armed.sock is None


class _Stream:
    __slots__ = ("_armed", "_max", "_resp", "headers", "status")

    def __init__(
        self, resp: urllib3.BaseHTTPResponse, max_body: int, armed: Armed | None = None
    ) -> None:
        self._resp = resp
        self._max = max_body
        self._armed = armed
        self.status = resp.status
        self.headers: Mapping[str, str] = LowerHeaders(resp.headers)

    def chunks(self) -> Iterator[bytes]:
        try:
            yield from self._resp.stream(8192, decode_content=True)
        except Exception:
            self._fail()
            raise
        if _fired(self._armed):  # the shut socket read as the end: the deadline's doing
            self._fail()

    def read(self) -> bytes:
        try:
            data = _read_bounded(self._resp, self._max)
        except Exception:
            self._fail()
            raise
        if _fired(self._armed):
            self._fail()
        return data

    def _fail(self) -> None:
        """Close the connection, then raise the deadline's error if it shut the socket."""
        fired = _fired(self._armed)
        self.close()
        if fired:
            raise TimeoutError(_DEADLINE_MESSAGE) from None

    def close(self) -> None:
        armed, self._armed = self._armed, None
        if armed is not None:
            armed.disarm()
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
        self,
        url: str,
        headers: Mapping[str, str],
        body: bytes,
        *,
        timeout: float | None,
        read_timeout: float | EllipsisType | None = ...,
    ) -> Response:
        end = None if timeout is None else time.monotonic() + timeout
        resp = self._pool.urlopen(
            "POST",
            url,
            body=body,
            headers=headers,
            timeout=self._timeout(
                timeout, self._read_timeout if read_timeout is ... else read_timeout
            ),
            retries=False,
            redirect=False,
            preload_content=False,
        )
        armed = _arm(resp, end)
        try:
            data = _read_bounded(resp, self._max, end)
            if _fired(armed):  # the shut socket read as the end: the deadline's doing
                raise TimeoutError(_DEADLINE_MESSAGE)
        except BaseException as exc:
            fired = _fired(armed)
            if armed is not None:
                armed.disarm()
            resp.close()  # before the error leaves: its traceback holds ``resp``
            resp.release_conn()
            if fired and not isinstance(exc, TimeoutError):
                raise TimeoutError(_DEADLINE_MESSAGE) from None
            raise
        if armed is not None:
            armed.disarm()
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
        method: str = "POST",
    ) -> _Stream:
        start = time.monotonic()
        resp = self._pool.urlopen(
            method,
            url,
            body=body if method == "POST" else None,
            headers=headers,
            timeout=self._timeout(timeout, read_timeout),
            retries=False,
            redirect=False,
            preload_content=False,
        )
        end = None if timeout is None else start + timeout
        return _Stream(resp, self._max, _arm(resp, end))

    def close(self) -> None:
        """Close every pooled connection now. ``PoolManager.clear()`` alone only forgets the
        pools: a pool still referenced (by the traceback of an error the caller keeps) would
        keep its idle connections open for as long as that error is alive."""
        pools = self._pool.pools
        for key in list(pools.keys()):
            pool = pools.get(key)
            if pool is not None:
                pool.close()
        self._pool.clear()
