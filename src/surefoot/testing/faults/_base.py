"""A loopback HTTP/1.1 server on asyncio streams, running its own loop in a background thread.

Subclasses implement :meth:`ThreadedServer.handle`, which answers one request through a
:class:`~surefoot.testing.faults._http.Wire` and returns whether the connection stays open.
The server is a sync and async context manager; :meth:`close` cancels handlers that are still
running (a hang, a drip) so it never waits on a client.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import errno
import threading
from types import TracebackType
from typing import Self

from surefoot import _check
from surefoot.testing.faults._http import (
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_HEAD_BYTES,
    BadRequest,
    Request,
    Wire,
    read_request,
)

__all__ = ["PortInUseError", "ThreadedServer"]

_CLOSE_TIMEOUT = 5.0


class PortInUseError(OSError):
    """The port asked for is taken."""

    def __init__(self, host: str, port: int) -> None:
        super().__init__(
            errno.EADDRINUSE,
            f"port {port} on {host} is already in use; choose another port, or 0 for a free one",
        )
        self.host = host
        self.port = port

    def __str__(self) -> str:
        return str(self.strerror)


class ThreadedServer:
    """Base of :class:`FaultServer` and :class:`ChaosProxy`."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    ) -> None:
        self.host = _check.text("host", host, fix="an address to bind, like '127.0.0.1'")
        self.port = _check.port("port", port)
        self.max_body_bytes = _check.count(
            "max_body_bytes", max_body_bytes, low=1, fix="a size in bytes"
        )
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """``http://HOST:PORT`` once started."""
        if self._server is None:
            raise RuntimeError("the server is not started; call start() or use `with`")
        return f"http://{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        return self._server is not None

    def start(self) -> Self:
        """Bind and serve in a background thread; raises :class:`PortInUseError`."""
        if self._server is not None:
            return self
        loop = asyncio.new_event_loop()
        ready: concurrent.futures.Future[asyncio.Server] = concurrent.futures.Future()
        thread = threading.Thread(
            target=self._run, args=(loop, ready), name=f"{type(self).__name__}", daemon=True
        )
        thread.start()
        try:
            self._server = ready.result(timeout=10)
        except BaseException:
            thread.join(timeout=_CLOSE_TIMEOUT)
            loop.close()
            raise
        self._loop, self._thread = loop, thread
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def _run(
        self,
        loop: asyncio.AbstractEventLoop,
        ready: concurrent.futures.Future[asyncio.Server],
    ) -> None:
        asyncio.set_event_loop(loop)
        try:
            server = loop.run_until_complete(self._bind())
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                ready.set_exception(PortInUseError(self.host, self.port))
            else:
                ready.set_exception(exc)
            return
        except BaseException as exc:  # pragma: no cover - defensive
            ready.set_exception(exc)
            return
        ready.set_result(server)
        loop.run_forever()

    async def _bind(self) -> asyncio.Server:
        await self.on_start()
        try:
            return await asyncio.start_server(
                self._on_client, self.host, self.port, limit=DEFAULT_MAX_HEAD_BYTES
            )
        except BaseException:
            await self.on_close()
            raise

    def close(self) -> None:
        """Stop serving, cancel running handlers, stop the thread. Safe to call twice."""
        loop, thread, server = self._loop, self._thread, self._server
        if loop is None or thread is None or server is None:
            return
        self._loop = self._thread = self._server = None
        future = asyncio.run_coroutine_threadsafe(self._shutdown(server), loop)
        try:
            future.result(timeout=_CLOSE_TIMEOUT)
        except (concurrent.futures.TimeoutError, RuntimeError):
            pass
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=_CLOSE_TIMEOUT)
        if not thread.is_alive():
            loop.close()

    async def _shutdown(self, server: asyncio.Server) -> None:
        server.close()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.on_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> Self:
        return await asyncio.to_thread(self.start)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await asyncio.to_thread(self.close)

    def __repr__(self) -> str:
        where = self.base_url if self._server is not None else "not started"
        return f"<{type(self).__name__} {where}>"

    # -- hooks -------------------------------------------------------------------------------

    async def on_start(self) -> None:
        """Runs in the server loop before binding."""

    async def on_close(self) -> None:
        """Runs in the server loop after the handlers are cancelled."""

    async def handle(
        self, request: Request, reader: asyncio.StreamReader, wire: Wire
    ) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- connections -------------------------------------------------------------------------

    async def _on_client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        wire = Wire(writer)
        try:
            while True:
                try:
                    request = await read_request(reader, writer, max_body_bytes=self.max_body_bytes)
                except BadRequest as exc:
                    body = exc.message.encode()
                    wire.head(
                        exc.status,
                        [
                            ("content-type", "text/plain"),
                            ("content-length", str(len(body))),
                            ("connection", "close"),
                        ],
                    )
                    wire.body(body)
                    break
                if request is None:
                    break
                wire.chunked = False
                keep = await self.handle(request, reader, wire)
                if not keep or not request.keep_alive or writer.is_closing():
                    break
                await wire.flush()
            await wire.close()
        except (ConnectionError, OSError, asyncio.IncompleteReadError):
            writer.transport.abort()
        except asyncio.CancelledError:
            writer.transport.abort()
        finally:
            self._tasks.discard(task)
