"""The async client :class:`AsyncLLMClient`: a thin driver of the pure run flow, on aiohttp.

Written once: the sync client ``LLMClient`` (``_client_sync.py``, on urllib3) is generated from
this file by ``scripts/unasync.py``. The driver carries out the flow's ops
(:mod:`surefoot.llm._ops`) and the engine's (:func:`surefoot.guard._io_async.aperform`: breaker,
budget, waits, hooks; an async store is awaited, never called blocking on the loop).

Deadlines: the run's deadline is its ``timeout`` within any deadline already in force
(``surefoot.deadline()``, an enclosing guard). Each op bounded by it gets the time left: the
async driver runs it inside ``asyncio.timeout(time left)`` and the transport's timeouts; the sync
driver gives it to the transport as its connect and per-read timeouts, never longer than the
time left, and the transport shuts the socket at the deadline once the headers are in (a body
that drips a byte at a time ends on time). When it passes, the run raises
:class:`surefoot.RunTimeoutError`. The caller's own cancellation is never caught: it reaches
the caller (after a breaker probe is released).

Tools run with the run's deadline in force (:func:`surefoot.time_left` works inside them). Async:
coroutine functions are awaited, plain functions run in the default thread pool, the parallel
calls of one turn concurrently. Sync: one call in the calling thread, several in a small thread
pool, each in a copy of the caller's context; a coroutine function runs with ``asyncio.run``.
"""

from __future__ import annotations

# unasync: async-only
import asyncio

# unasync: end
import logging
from collections.abc import AsyncIterator, Generator
from types import TracebackType
from typing import Any

import pydantic

from surefoot._backends import _async as backend
from surefoot._scope import DEADLINE, deadline, publish
from surefoot.guard._io_async import aobserve, aperform, athrottle
from surefoot.http._aiohttp import AiohttpTransport
from surefoot.http._types import AsyncStream, AsyncTransport
from surefoot.llm._base import ClientBase
from surefoot.llm._ctx import RunCtx
from surefoot.llm._loop import run_flow
from surefoot.llm._ops import (
    Close,
    DeadlineHit,
    Emit,
    Observe,
    Open,
    Post,
    Read,
    ReadAll,
    RunTools,
    Throttle,
)
from surefoot.llm._result import ResultEvent, RunResult
from surefoot.policy._attempts import (
    Abandoned,
    Admit,
    Notify,
    Now,
    Refill,
    Release,
    Report,
    Sleep,
    Spend,
)

__all__ = ["AsyncLLMClient"]

_log = logging.getLogger("surefoot.llm")

#: The engine's ops, carried out by the engine's interpreter.
_ENGINE = frozenset((Now, Sleep, Admit, Report, Release, Spend, Refill, Notify))


class _Conn:
    """The one open streaming response of a run, if any."""

    __slots__ = ("chunks", "stream")

    def __init__(self) -> None:
        self.stream: AsyncStream | None = None
        self.chunks: AsyncIterator[bytes] | None = None

    async def aclose(self) -> None:
        stream, self.stream, self.chunks = self.stream, None, None
        if stream is not None:
            await stream.aclose()


class AsyncLLMClient(ClientBase):
    """The resilient LLM client. See :mod:`surefoot.llm` for every option.

    ``transport`` injects a transport (:class:`~surefoot.http.AsyncTransport`); otherwise one is
    created with ``max_connections`` (the pool size), ``max_body``, ``connect_timeout`` and
    ``read_timeout``. Close it with ``aclose()`` or use the client as a context manager.
    """

    _transport: AsyncTransport

    def _make_transport(self, transport: object) -> AsyncTransport:
        if transport is None:
            return AiohttpTransport(
                max_connections=self._max_connections,
                max_body=self._max_body,
                connect_timeout=self._connect_timeout,
                read_timeout=self._opts.read_timeout,
            )
        if not callable(getattr(transport, "post", None)):
            raise TypeError(
                "transport must implement surefoot.http.AsyncTransport (post, open_stream, "
                f"aclose), got {type(transport).__name__}"
            )
        return transport  # type: ignore[return-value]

    async def __aenter__(self) -> AsyncLLMClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._transport.aclose()

    # -- public calls --------------------------------------------------------------------------

    async def run(
        self,
        prompt_or_messages: Any = None,
        *,
        messages: Any = None,
        tools: Any = None,
        response_model: type[pydantic.BaseModel] | None = None,
        task_id: str | None = None,
        timeout: float | None = None,
    ) -> RunResult:
        """Run the conversation to its end; see :class:`~surefoot.llm.RunResult`."""
        ctx, msgs, registry = self._prepare(
            prompt_or_messages, messages, tools, response_model, task_id, timeout, "run"
        )
        try:
            return await self._adrive(ctx, run_flow(ctx, msgs, registry, response_model))
        finally:
            if task_id is not None:
                self._done(task_id)

    async def resume(
        self,
        result: RunResult,
        answer: Any,
        *,
        tools: Any = None,
        response_model: type[pydantic.BaseModel] | None = None,
        timeout: float | None = None,
    ) -> RunResult:
        """Continue a ``"pending"`` run with a person's ``answer`` to the waiting tool call."""
        return await self.run(
            messages=self._resumed(result, answer),
            tools=tools,
            response_model=response_model,
            task_id=result.task_id,
            timeout=timeout,
        )

    def stream(
        self,
        prompt_or_messages: Any = None,
        *,
        messages: Any = None,
        tools: Any = None,
        response_model: type[pydantic.BaseModel] | None = None,
        task_id: str | None = None,
        timeout: float | None = None,
    ) -> AsyncIterator[Any]:
        """Run while streaming: text and tool-call deltas, tool results, then the result.

        The arguments are checked at the call, before the first event is asked for.
        """
        ctx, msgs, registry = self._prepare(
            prompt_or_messages, messages, tools, response_model, task_id, timeout, "stream"
        )
        return self._astream(ctx, run_flow(ctx, msgs, registry, response_model, stream=True))

    # -- the driver ----------------------------------------------------------------------------

    async def _astream(
        self, ctx: RunCtx, gen: Generator[Any, Any, RunResult]
    ) -> AsyncIterator[Any]:
        conn = _Conn()
        value: Any = None
        exc: BaseException | None = None
        done = False
        try:
            while True:
                try:
                    op = gen.send(value) if exc is None else gen.throw(exc)
                except StopIteration as stop:
                    done = True
                    yield ResultEvent(stop.value)
                    return
                except Exception as err:
                    done = True
                    ctx.give_up(err)
                    raise
                except BaseException:
                    done = True
                    raise
                value = exc = None
                if type(op) is Emit:
                    yield op.event
                    continue
                try:
                    value = await self._aperform(op, conn, ctx)
                except BaseException as e:
                    exc = e
        finally:
            await conn.aclose()
            if not done:
                await self._aabandon(gen, ctx)
            gen.close()
            if ctx.task_id is not None:
                self._done(ctx.task_id)

    async def _aabandon(self, gen: Generator[Any, Any, RunResult], ctx: RunCtx) -> None:
        """The caller stopped reading the stream: let the flow release what it holds."""
        value: Any = None
        exc: BaseException | None = Abandoned()
        while True:
            try:
                op = gen.send(value) if exc is None else gen.throw(exc)
            except BaseException:
                return
            value = exc = None
            if type(op) not in _ENGINE:
                exc = Abandoned()  # no more I/O for a stream nobody reads
                continue
            try:
                value = await aperform(op, self._opts.clock)
            except Exception as e:
                exc = e

    async def _adrive(self, ctx: RunCtx, gen: Generator[Any, Any, RunResult]) -> RunResult:
        transport = self._transport
        conn: _Conn | None = None  # only for streamed ops: a plain run never needs one
        value: Any = None
        exc: BaseException | None = None
        try:
            while True:
                try:
                    op = gen.send(value) if exc is None else gen.throw(exc)
                except StopIteration as stop:
                    result: RunResult = stop.value
                    return result
                except Exception as err:
                    ctx.give_up(err)
                    raise
                value = exc = None
                try:
                    if type(op) is Post and op.timeout is None and op.read is None:
                        value = await transport.post(op.url, op.headers, op.body, timeout=None)
                    else:
                        if conn is None:
                            conn = _Conn()
                        value = await self._aperform(op, conn, ctx)
                except BaseException as e:
                    exc = e
        finally:
            if conn is not None and conn.stream is not None:
                await conn.aclose()
            gen.close()

    async def _aperform(self, op: Any, conn: _Conn, ctx: RunCtx) -> Any:
        if type(op) in _ENGINE:
            return await aperform(op, self._opts.clock)
        # unasync: async-only
        timeout = getattr(op, "timeout", None)
        if timeout is not None:
            try:
                async with asyncio.timeout(timeout) as scope:
                    return await self._ado(op, conn, ctx)
            except TimeoutError as e:
                if scope.expired():
                    raise DeadlineHit() from e
                raise
        # unasync: end
        return await self._ado(op, conn, ctx)

    async def _ado(self, op: Any, conn: _Conn, ctx: RunCtx) -> Any:
        t = type(op)
        if t is Read:
            assert conn.chunks is not None
            try:
                return await anext(conn.chunks)
            except StopAsyncIteration:
                return b""
        if t is Post:
            if op.read is not None and op.read != self._opts.read_timeout:
                return await self._transport.post(
                    op.url, op.headers, op.body, timeout=op.timeout, read_timeout=op.read
                )
            return await self._transport.post(op.url, op.headers, op.body, timeout=op.timeout)
        if t is Open:
            await conn.aclose()
            read = self._opts.read_timeout if op.read is None else op.read
            if op.timeout is not None:
                read = op.timeout if read is None else min(read, op.timeout)
            if op.method != "POST":
                stream = await self._transport.open_stream(
                    op.url,
                    op.headers,
                    op.body,
                    timeout=op.timeout,
                    read_timeout=read,
                    method=op.method,
                )
            else:
                stream = await self._transport.open_stream(
                    op.url, op.headers, op.body, timeout=op.timeout, read_timeout=read
                )
            conn.stream = stream
            conn.chunks = stream.chunks()
            return stream.status, stream.headers
        if t is ReadAll:
            assert conn.stream is not None
            return await conn.stream.read()
        if t is Close:
            await conn.aclose()
            return None
        if t is Throttle:
            limiter = op.limiter
            if op.timeout is None:
                await athrottle(limiter, op.tokens)
            else:
                with deadline(op.timeout, clock=limiter.clock):
                    await athrottle(limiter, op.tokens)
            return None
        if t is Observe:
            assert self._opts.rate_limiter is not None
            try:
                await aobserve(self._opts.rate_limiter, op.headers)
            except Exception:  # a limiter that cannot learn must not fail the call
                _log.warning(
                    "surefoot: the rate limiter could not observe a response", exc_info=True
                )
            return None
        if t is RunTools:
            token = publish(ctx.deadline, self._opts.clock)
            try:
                return await backend.run_tools([(j.fn, j.arguments) for j in op.jobs])
            finally:
                if token is not None:
                    DEADLINE.reset(token)
        raise AssertionError(f"unknown op {op!r}")
