"""The async transport on aiohttp: one pooled session, bounded bodies, per-call timeouts."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from types import EllipsisType
from typing import Any

import aiohttp

from surefoot.http._types import DEFAULT_MAX_BODY, BodyTooLargeError, LowerHeaders, Response

__all__ = ["AiohttpTransport"]


class _Stream:
    __slots__ = ("_max", "_resp", "headers", "status")

    def __init__(self, resp: aiohttp.ClientResponse, max_body: int) -> None:
        self._resp = resp
        self._max = max_body
        self.status = resp.status
        self.headers: Mapping[str, str] = LowerHeaders(resp.headers)

    async def chunks(self) -> AsyncIterator[bytes]:
        async for chunk in self._resp.content.iter_any():
            yield chunk

    async def read(self) -> bytes:
        return await _read_bounded(self._resp, self._max)

    async def aclose(self) -> None:
        self._resp.close()


async def _read_bounded(resp: aiohttp.ClientResponse, limit: int) -> bytes:
    length = resp.content_length
    if length is not None and length > limit:
        resp.close()
        raise BodyTooLargeError(limit)
    if length is not None:
        return await resp.read()
    return await _read_chunks(resp, limit)


async def _read_chunks(resp: aiohttp.ClientResponse, limit: int) -> bytes:
    parts: list[bytes] = []
    total = 0
    async for chunk in resp.content.iter_any():
        total += len(chunk)
        if total > limit:
            resp.close()
            raise BodyTooLargeError(limit)
        parts.append(chunk)
    return b"".join(parts)


class AiohttpTransport:
    """An :class:`~surefoot.http.AsyncTransport` on one :class:`aiohttp.ClientSession`.

    The session is created lazily in the running loop. ``max_connections`` bounds open
    connections (the pool size).
    """

    def __init__(
        self,
        *,
        max_connections: int = 100,
        max_body: int = DEFAULT_MAX_BODY,
        connect_timeout: float | None = 10.0,
        read_timeout: float | None = None,
        session: aiohttp.ClientSession | None = None,
    ) -> None:
        self._limit = max_connections
        self._max = max_body
        self._connect_timeout = connect_timeout
        self._read_timeout = read_timeout
        self._session = session
        self._own = session is None
        # The timeout of a call without a deadline, built once (the hot path).
        self._default_timeout = aiohttp.ClientTimeout(
            total=None, sock_connect=connect_timeout, sock_read=read_timeout
        )

    def _get_session(self) -> aiohttp.ClientSession:
        session = self._session
        if session is None or session.closed:
            connector = aiohttp.TCPConnector(limit=self._limit, ttl_dns_cache=300)
            session = aiohttp.ClientSession(
                connector=connector,
                auto_decompress=True,
                skip_auto_headers=("User-Agent",),
                timeout=aiohttp.ClientTimeout(total=None),
            )
            self._session = session
            self._own = True
        return session

    def _timeout(self, total: float | None, read: float | None) -> aiohttp.ClientTimeout:
        if total is None and read == self._read_timeout:
            return self._default_timeout
        connect = self._connect_timeout
        if total is not None and connect is not None:
            connect = min(connect, total)
        return aiohttp.ClientTimeout(total=total, sock_connect=connect, sock_read=read)

    async def post(
        self,
        url: str,
        headers: Mapping[str, str],
        body: bytes,
        *,
        timeout: float | None,
        read_timeout: float | EllipsisType | None = ...,
    ) -> Response:
        session = self._session
        if session is None or session.closed:
            session = self._get_session()
        # The hot path: the response is awaited and released in ``finally`` rather than used
        # through ``async with`` (two context managers and a wait for the already finished
        # request writer per call), and _read_bounded is inlined for a known length.
        resp = await session.post(
            url,
            data=body,
            headers=headers,
            timeout=self._timeout(
                timeout, self._read_timeout if read_timeout is ... else read_timeout
            ),
        )
        try:
            length = resp.content_length
            if length is None:
                data = await _read_chunks(resp, self._max)
            elif length > self._max:
                resp.close()
                raise BodyTooLargeError(self._max)
            else:
                data = await resp.read()
        finally:
            resp.release()
        return Response(resp.status, LowerHeaders(resp.headers), data)

    async def open_stream(
        self,
        url: str,
        headers: Mapping[str, str],
        body: bytes,
        *,
        timeout: float | None,
        read_timeout: float | None,
        method: str = "POST",
    ) -> _Stream:
        session = self._get_session()
        kwargs: dict[str, Any] = {"timeout": self._timeout(timeout, read_timeout)}
        if method != "POST":
            resp = await session.request(method, url, headers=headers, **kwargs)
        else:
            resp = await session.post(url, data=body, headers=headers, **kwargs)
        return _Stream(resp, self._max)

    async def aclose(self) -> None:
        if self._session is not None and self._own and not self._session.closed:
            await self._session.close()
        self._session = None
