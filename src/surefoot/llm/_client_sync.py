"""The sync client: :class:`LLMClient`, a thin driver of the pure run flow on urllib3.

Deadlines: each request gets the time left as its transport timeout (connect and per-read),
and the flow checks the deadline between steps (and between the chunks of a stream), raising
:class:`surefoot.RunTimeoutError`. A server that hangs after its headers is bounded by the read
timeout, itself never longer than the time left when the request was sent.

Tools: one call runs in the calling thread; the parallel calls of one turn run concurrently in
a small thread pool (at most 8 threads), each in a copy of the caller's context. A coroutine
function used as a tool runs with ``asyncio.run`` in its thread.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import ThreadPoolExecutor
from types import TracebackType
from typing import Any

import pydantic

from surefoot.http import SyncStream, SyncTransport, Urllib3Transport
from surefoot.llm._base import ClientBase
from surefoot.llm._ctx import RunCtx
from surefoot.llm._loop import run_flow
from surefoot.llm._ops import (
    Close,
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

__all__ = ["LLMClient"]

_log = logging.getLogger("surefoot.llm")

_MAX_TOOL_THREADS = 8


class _Conn:
    __slots__ = ("chunks", "stream")

    def __init__(self) -> None:
        self.stream: SyncStream | None = None
        self.chunks: Iterator[bytes] | None = None

    def close(self) -> None:
        stream, self.stream, self.chunks = self.stream, None, None
        if stream is not None:
            stream.close()


def _one_tool(job: ToolJob) -> Any:
    try:
        fn = job.fn
        if inspect.iscoroutinefunction(fn):
            return asyncio.run(fn(**job.arguments))
        out = fn(**job.arguments)
        if inspect.iscoroutine(out):
            out = asyncio.run(out)
        return out
    except Exception as exc:  # the flow turns it into a tool error message
        return exc


def _run_tools(jobs: list[ToolJob]) -> list[Any]:
    if len(jobs) == 1:
        return [_one_tool(jobs[0])]
    with ThreadPoolExecutor(max_workers=min(_MAX_TOOL_THREADS, len(jobs))) as pool:
        futures = []
        for job in jobs:
            ctx = contextvars.copy_context()
            call: Callable[..., Any] = ctx.run
            futures.append(pool.submit(call, _one_tool, job))
        return [f.result() for f in futures]


class LLMClient(ClientBase):
    """The resilient sync LLM client. See :mod:`surefoot.llm` for every option.

    ``transport`` injects a :class:`~surefoot.http.SyncTransport`; otherwise one
    :class:`~surefoot.http.Urllib3Transport` is created with ``max_connections`` (pool size),
    ``max_body`` and ``connect_timeout``. Close with ``client.close()`` or ``with``.
    """

    def __init__(self, *, transport: SyncTransport | None = None, **options: Any) -> None:
        super().__init__(**options)
        if transport is None:
            transport = Urllib3Transport(
                maxsize=self._max_connections,
                max_body=self._max_body,
                connect_timeout=self._connect_timeout,
                read_timeout=self._opts.read_timeout,
            )
        elif not callable(getattr(transport, "post", None)):
            raise TypeError("transport must implement surefoot.http.SyncTransport")
        self._transport: SyncTransport = transport

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._transport.close()

    def run(
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
            return self._drive(ctx, run_flow(ctx, msgs, registry, response_model))
        finally:
            if task_id is not None:
                self._done(task_id)

    def resume(
        self,
        result: RunResult,
        answer: Any,
        *,
        tools: Any = None,
        response_model: type[pydantic.BaseModel] | None = None,
        timeout: float | None = None,
    ) -> RunResult:
        """Continue a ``"pending"`` run with a person's ``answer`` to the waiting tool call."""
        return self.run(
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
    ) -> Iterator[Any]:
        """Run while streaming: text and tool-call deltas, tool results, then the result."""
        ctx, msgs, registry = self._prepare(
            prompt_or_messages, messages, tools, response_model, task_id, timeout, "stream"
        )
        return self._stream(ctx, run_flow(ctx, msgs, registry, response_model, stream=True))

    def _stream(self, ctx: RunCtx, gen: Generator[Op, Any, RunResult]) -> Iterator[Any]:
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
                    value = self._do(op, conn)
                except Exception as e:
                    exc = e
        finally:
            conn.close()
            gen.close()
            if ctx.task_id is not None:
                self._done(ctx.task_id)

    def _drive(self, ctx: RunCtx, gen: Generator[Op, Any, RunResult]) -> RunResult:
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
                    if type(op) is Post:
                        value = transport.post(op.url, op.headers, op.body, timeout=op.timeout)
                    else:
                        if conn is None:
                            conn = _Conn()
                        value = self._do(op, conn)
                except Exception as e:
                    exc = e
        finally:
            if conn is not None and conn.stream is not None:
                conn.close()
            gen.close()

    def _do(self, op: Op, conn: _Conn) -> Any:
        t = type(op)
        if t is Read:
            assert conn.chunks is not None
            return next(conn.chunks, b"")
        if t is Post:
            assert isinstance(op, Post)
            return self._transport.post(op.url, op.headers, op.body, timeout=op.timeout)
        if t is Open:
            assert isinstance(op, Open)
            conn.close()
            read = self._opts.read_timeout
            if op.timeout is not None:
                read = op.timeout if read is None else min(read, op.timeout)
            stream = self._transport.open_stream(
                op.url, op.headers, op.body, timeout=op.timeout, read_timeout=read
            )
            conn.stream = stream
            conn.chunks = stream.chunks()
            return stream.status, stream.headers
        if t is ReadAll:
            assert conn.stream is not None
            return conn.stream.read()
        if t is Close:
            conn.close()
            return None
        if t is Sleep:
            assert isinstance(op, Sleep)
            self._opts.clock.sleep(op.seconds)
            return None
        if t is Throttle:
            assert isinstance(op, Throttle)
            limiter = op.limiter
            if op.timeout is None:
                limiter.throttle(op.tokens)
            else:
                with deadline(op.timeout, clock=limiter.clock):
                    limiter.throttle(op.tokens)
            return None
        if t is Observe:
            assert isinstance(op, Observe) and self._opts.rate_limiter is not None
            try:
                self._opts.rate_limiter.observe(op.headers)
            except Exception:  # a limiter that cannot learn must not fail the call
                _log.warning(
                    "surefoot: the rate limiter could not observe a response", exc_info=True
                )
            return None
        if t is RunTools:
            assert isinstance(op, RunTools)
            return _run_tools(op.jobs)
        raise AssertionError(f"unknown op {op!r}")
