"""The async client: :class:`AsyncLLMClient`, a thin driver of the pure run flow on aiohttp.

The driver carries out the flow's ops (:mod:`surefoot.llm._ops`). Each op bounded by the run's
deadline runs inside ``asyncio.timeout(time left)``; when that fires the flow raises
:class:`surefoot.RunTimeoutError`. The caller's own cancellation is never caught: it reaches
the caller as :class:`asyncio.CancelledError`.

Tools: coroutine functions are awaited; plain functions run in the default thread pool
(``asyncio.to_thread``) so they do not block the loop; the parallel calls of one turn run
concurrently (``asyncio.gather``).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import AsyncIterator, Generator
from types import TracebackType
from typing import Any

import pydantic

from surefoot.http import AiohttpTransport, AsyncStream, AsyncTransport
from surefoot.llm._base import ClientBase
from surefoot.llm._ctx import RunCtx
from surefoot.llm._loop import run_flow
from surefoot.llm._ops import (
    Close,
    DeadlineHit,
    Emit,
    Observe,
    Op,
    Open,
    Post,
    Read,
    ReadAll,
    RunTools,
    Sleep,
    Throttle,
    ToolJob,
)
from surefoot.llm._result import ResultEvent, RunResult
from surefoot.policy import deadline

__all__ = ["AsyncLLMClient"]

_log = logging.getLogger("surefoot.llm")


class _Conn:
    __slots__ = ("chunks", "stream")

    def __init__(self) -> None:
        self.stream: AsyncStream | None = None
        self.chunks: AsyncIterator[bytes] | None = None

    async def close(self) -> None:
        stream, self.stream, self.chunks = self.stream, None, None
        if stream is not None:
            await stream.aclose()


async def _one_tool(job: ToolJob) -> Any:
    try:
        fn = job.fn
        if inspect.iscoroutinefunction(fn):
            return await fn(**job.arguments)
        out = await asyncio.to_thread(fn, **job.arguments)
        if inspect.isawaitable(out):
            out = await out
        return out
    except Exception as exc:  # the flow turns it into a tool error message
        return exc


class AsyncLLMClient(ClientBase):
    """The resilient async LLM client. See :mod:`surefoot.llm` for every option.

    ``transport`` injects an :class:`~surefoot.http.AsyncTransport`; otherwise one
    :class:`~surefoot.http.AiohttpTransport` is created with ``max_connections``, ``max_body``
    and ``connect_timeout``. Close with ``await client.aclose()`` or ``async with``.
    """

    def __init__(self, *, transport: AsyncTransport | None = None, **options: Any) -> None:
        super().__init__(**options)
        if transport is None:
            transport = AiohttpTransport(
                limit=self._max_connections,
                max_body=self._max_body,
                connect_timeout=self._connect_timeout,
                read_timeout=self._opts.read_timeout,
            )
        elif not callable(getattr(transport, "post", None)):
            raise TypeError("transport must implement surefoot.http.AsyncTransport")
        self._transport: AsyncTransport = transport

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
            return await self._drive(ctx, run_flow(ctx, msgs, registry, response_model))
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

    async def stream(
        self,
        prompt_or_messages: Any = None,
        *,
        messages: Any = None,
        tools: Any = None,
        response_model: type[pydantic.BaseModel] | None = None,
        task_id: str | None = None,
        timeout: float | None = None,
    ) -> AsyncIterator[Any]:
        """Run while streaming: text and tool-call deltas, tool results, then the result."""
        ctx, msgs, registry = self._prepare(
            prompt_or_messages, messages, tools, response_model, task_id, timeout, "stream"
        )
        gen = run_flow(ctx, msgs, registry, response_model, stream=True)
        conn = _Conn()
        value: Any = None
        exc: BaseException | None = None
        try:
            while True:
                try:
                    op = gen.send(value) if exc is None else gen.throw(exc)
                except StopIteration as stop:
                    yield ResultEvent(stop.value)
                    return
                except BaseException as err:
                    ctx.give_up(err)
                    raise
                value = exc = None
                if type(op) is Emit:
                    yield op.event
                    continue
                try:
                    value = await self._perform(op, conn)
                except Exception as e:
                    exc = e
        finally:
            await conn.close()
            gen.close()
            if task_id is not None:
                self._done(task_id)

    # -- the driver ----------------------------------------------------------------------------

    async def _drive(self, ctx: RunCtx, gen: Generator[Op, Any, RunResult]) -> RunResult:
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
                except BaseException as err:
                    ctx.give_up(err)
                    raise
                value = exc = None
                try:
                    if type(op) is Post and op.timeout is None:
                        value = await transport.post(op.url, op.headers, op.body, timeout=None)
                    else:
                        if conn is None:
                            conn = _Conn()
                        value = await self._perform(op, conn)
                except Exception as e:
                    exc = e
        finally:
            if conn is not None and conn.stream is not None:
                await conn.close()
            gen.close()

    async def _perform(self, op: Op, conn: _Conn) -> Any:
        timeout = getattr(op, "timeout", None)
        if timeout is None:
            return await self._do(op, conn)
        try:
            async with asyncio.timeout(timeout) as scope:
                return await self._do(op, conn)
        except TimeoutError as e:
            if scope.expired():
                raise DeadlineHit() from e
            raise

    async def _do(self, op: Op, conn: _Conn) -> Any:
        t = type(op)
        if t is Read:
            assert conn.chunks is not None
            try:
                return await conn.chunks.__anext__()
            except StopAsyncIteration:
                return b""
        if t is Post:
            assert isinstance(op, Post)
            return await self._transport.post(op.url, op.headers, op.body, timeout=op.timeout)
        if t is Open:
            assert isinstance(op, Open)
            await conn.close()
            stream = await self._transport.open_stream(
                op.url,
                op.headers,
                op.body,
                timeout=None,
                read_timeout=self._opts.read_timeout,
            )
            conn.stream = stream
            conn.chunks = stream.chunks()
            return stream.status, stream.headers
        if t is ReadAll:
            assert conn.stream is not None
            return await conn.stream.read()
        if t is Close:
            await conn.close()
            return None
        if t is Sleep:
            assert isinstance(op, Sleep)
            await self._opts.clock.asleep(op.seconds)
            return None
        if t is Throttle:
            assert isinstance(op, Throttle)
            limiter = op.limiter
            if op.timeout is None:
                await limiter.athrottle(op.tokens)
            else:
                with deadline(op.timeout, clock=limiter.clock):
                    await limiter.athrottle(op.tokens)
            return None
        if t is Observe:
            assert isinstance(op, Observe) and self._opts.rate_limiter is not None
            try:
                await self._opts.rate_limiter.aobserve(op.headers)
            except Exception:  # a limiter that cannot learn must not fail the call
                _log.warning(
                    "surefoot: the rate limiter could not observe a response", exc_info=True
                )
            return None
        if t is RunTools:
            assert isinstance(op, RunTools)
            jobs = op.jobs
            if len(jobs) == 1:
                return [await _one_tool(jobs[0])]
            return list(await asyncio.gather(*(_one_tool(j) for j in jobs)))
        raise AssertionError(f"unknown op {op!r}")
