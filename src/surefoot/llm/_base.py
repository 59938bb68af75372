"""What the sync and async clients share: the constructor, argument checks, stop and resume."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pydantic

from surefoot import _check
from surefoot.clock import Clock
from surefoot.guard._breaker import CircuitBreaker
from surefoot.guard._budget import BoundBudget, RetryBudget
from surefoot.guard._limiter import SharedRateLimiter
from surefoot.http._types import DEFAULT_MAX_BODY, AsyncTransport, SyncTransport
from surefoot.llm._ctx import RunCtx
from surefoot.llm._loop import schema_instruction
from surefoot.llm._messages import Message, normalize_messages
from surefoot.llm._options import (
    DEFAULT_FAILOVER_ATTEMPTS,
    DEFAULT_FAILOVER_WAIT,
    DEFAULT_MAX_BAD_CHUNKS,
    DEFAULT_MAX_REPEATS,
    DEFAULT_MAX_TOOL_ERRORS,
    DEFAULT_MAX_TURNS,
    DEFAULT_MAX_VALIDATION_RETRIES,
    DEFAULT_STREAM_ATTEMPTS,
    ModelSpec,
    Options,
)
from surefoot.llm._result import RunResult
from surefoot.llm._tools import ToolRegistry, ToolSpec
from surefoot.policy._types import OnError

__all__ = ["DEFAULT_READ_TIMEOUT", "ClientBase"]

#: The longest silence tolerated on a connection (seconds) unless ``read_timeout=`` says otherwise.
DEFAULT_READ_TIMEOUT = 600.0

_NO_STOP: Callable[[], str | None] = lambda: None  # noqa: E731


class ClientBase:
    """The configuration and the bookkeeping both clients share (not public)."""

    def __init__(
        self,
        *,
        base_url: str,
        model: str | ModelSpec | Sequence[str | ModelSpec],
        api_key: str | None = None,
        style: str = "openai",
        retries: int = 2,
        retry_base: float = 0.5,
        max_delay: float = 8.0,
        max_hint: float = 120.0,
        on_error: OnError | None = None,
        timeout: float | None = None,
        breaker: CircuitBreaker | Mapping[str, CircuitBreaker] | None = None,
        budget: RetryBudget | BoundBudget | None = None,
        rate_limiter: SharedRateLimiter | None = None,
        hooks: object | None = None,
        read_timeout: float | None = DEFAULT_READ_TIMEOUT,
        first_token_timeout: float | None = None,
        idle_timeout: float | None = None,
        stream_rescue: str = "restart",
        max_bad_chunks: int = DEFAULT_MAX_BAD_CHUNKS,
        failover_attempts: int = DEFAULT_FAILOVER_ATTEMPTS,
        failover_wait: float = DEFAULT_FAILOVER_WAIT,
        background: bool = False,
        connect_timeout: float | None = 10.0,
        max_body: int = DEFAULT_MAX_BODY,
        max_connections: int = 100,
        max_turns: int = DEFAULT_MAX_TURNS,
        stream_attempts: int = DEFAULT_STREAM_ATTEMPTS,
        max_tool_errors: int = DEFAULT_MAX_TOOL_ERRORS,
        max_repeats: int = DEFAULT_MAX_REPEATS,
        max_validation_retries: int = DEFAULT_MAX_VALIDATION_RETRIES,
        clock: Clock | None = None,
        headers: Mapping[str, str] | None = None,
        transport: AsyncTransport | SyncTransport | None = None,
    ) -> None:
        self._opts = Options(
            base_url=base_url,
            api_key=api_key,
            model=model,
            style=style,
            retries=retries,
            retry_base=retry_base,
            max_delay=max_delay,
            max_hint=max_hint,
            on_error=on_error,
            timeout=timeout,
            breaker=breaker,
            budget=budget,
            hooks=hooks,
            read_timeout=read_timeout,
            first_token_timeout=first_token_timeout,
            idle_timeout=idle_timeout,
            stream_rescue=stream_rescue,
            max_bad_chunks=max_bad_chunks,
            failover_attempts=failover_attempts,
            failover_wait=failover_wait,
            background=background,
            max_turns=max_turns,
            stream_attempts=stream_attempts,
            max_tool_errors=max_tool_errors,
            max_repeats=max_repeats,
            max_validation_retries=max_validation_retries,
            clock=clock,
            headers=headers,
            rate_limiter=rate_limiter,
        )
        self._max_body = _check.count("max_body", max_body, low=1, fix="a size in bytes")
        self._max_connections = _check.count("max_connections", max_connections, low=1)
        self._connect_timeout = _check.timeout("connect_timeout", connect_timeout)
        self._stops: dict[str, str] = {}
        self._lock = threading.Lock()
        self._registries: dict[tuple[Any, ...], ToolRegistry] = {}
        self._transport = self._make_transport(transport)

    def _make_transport(self, transport: object) -> Any:
        """The transport the driver uses: ``transport``, or the driver's default one."""
        raise NotImplementedError  # pragma: no cover - each client driver defines it

    def __repr__(self) -> str:
        o = self._opts
        models = [m.name for m in o.models]
        return f"{type(self).__name__}(base_url={o.base_url!r}, style={o.style!r}, models={models})"

    @property
    def models(self) -> tuple[ModelSpec, ...]:
        """The fallback chain, in order."""
        return self._opts.models

    def stop(self, task_id: str, reason: str | None = None) -> None:
        """Stop the run with ``task_id`` at its next step: it raises
        :class:`surefoot.TaskStoppedError` carrying ``reason``. A run that has not started yet
        stops at its first step."""
        if not isinstance(task_id, str) or not task_id:
            raise ValueError("task_id must be the non-empty str given to run(task_id=...)")
        with self._lock:
            self._stops[task_id] = reason or "stopped"

    # -- shared by run() and stream() ----------------------------------------------------------

    def _prepare(
        self,
        prompt_or_messages: Any,
        messages: Any,
        tools: Any,
        response_model: Any,
        task_id: Any,
        timeout: Any,
        operation: str,
    ) -> tuple[RunCtx, list[Message], ToolRegistry | None]:
        if prompt_or_messages is None:
            if messages is None:
                raise TypeError("run() needs a prompt or messages=[...]")
            prompt_or_messages = messages
        elif messages is not None:
            raise TypeError("pass either a prompt (or message list) or messages=, not both")
        msgs = normalize_messages(prompt_or_messages)
        if response_model is not None and not (
            isinstance(response_model, type) and issubclass(response_model, pydantic.BaseModel)
        ):
            raise TypeError("response_model must be a pydantic.BaseModel subclass")
        if task_id is not None and (not isinstance(task_id, str) or not task_id):
            raise ValueError("task_id must be a non-empty str, or None")
        t = _check.timeout("timeout", timeout) if timeout is not None else self._opts.timeout
        registry = None if tools is None else self._registry(tools)
        if response_model is not None and not any(
            m.role == "system" and m.content.startswith("Answer with only a JSON") for m in msgs
        ):
            msgs.insert(0, Message("system", schema_instruction(response_model)))
        stops = self._stops
        stop_reason = _NO_STOP if task_id is None else (lambda: stops.get(task_id))
        ctx = RunCtx(
            self._opts, task_id=task_id, timeout=t, operation=operation, stop_reason=stop_reason
        )
        return ctx, msgs, registry

    def _registry(self, tools: Any) -> ToolRegistry | None:
        if tools is None:
            return None
        if isinstance(tools, ToolRegistry):
            return tools
        if callable(tools) or isinstance(tools, (str, bytes)) or not isinstance(tools, Sequence):
            raise TypeError(
                "tools must be a list of functions (sync or async) or ToolSpecs, "
                "like tools=[get_weather]"
            )
        if not tools:
            return None
        key = tuple(tools)
        reg = self._registries.get(key)
        if reg is None:
            for i, t in enumerate(tools):
                if not (callable(t) or isinstance(t, ToolSpec)):
                    raise TypeError(f"tools[{i}] is a {type(t).__name__}, not a function")
            reg = ToolRegistry(tools)
            if len(self._registries) < 64:
                self._registries[key] = reg
        return reg

    def _done(self, task_id: str | None) -> None:
        if task_id is not None and self._stops:
            with self._lock:
                self._stops.pop(task_id, None)

    @staticmethod
    def _resumed(result: RunResult, answer: Any) -> list[Message]:
        if not isinstance(result, RunResult):
            raise TypeError("resume() takes the RunResult a pending run returned")
        if result.status != "pending" or result.pending is None:
            raise ValueError(
                f"this run is {result.status!r}, not 'pending'; only a suspended run resumes"
            )
        text = answer if isinstance(answer, str) else _json_text(answer)
        call_id = result.pending.tool_call.id
        return [*result.messages, Message("tool", text, tool_call_id=call_id)]


def _json_text(value: Any) -> str:
    import json

    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)
