"""The sync backend (see :mod:`surefoot._backends`)."""

from __future__ import annotations

import contextvars
import inspect
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from surefoot.clock import Clock

__all__ = ["NullScope", "arm", "call_blocking", "loop_running", "resolve", "run_tools"]

#: At most this many threads run the parallel tool calls of one turn.
MAX_TOOL_THREADS = 8


class NullScope:
    """A sync attempt cannot be preempted: arming a deadline does nothing."""

    __slots__ = ()

    def disarm(self) -> None:
        return None

    def expired(self) -> bool:
        return False


_NULL = NullScope()


def arm(when: float, clock: Clock) -> NullScope:
    return _NULL


def loop_running() -> bool:
    """True when an asyncio event loop runs in this thread (then ``asyncio.run`` cannot)."""
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


async def _awaited(value: Awaitable[Any]) -> Any:
    return await value


def resolve(value: Any, what: str) -> Any:
    """``value``, or the result of running it when it is awaitable (``what`` returned it)."""
    if not inspect.isawaitable(value):
        return value
    if loop_running():
        if inspect.iscoroutine(value):
            value.close()
        raise TypeError(
            f"{what} returned an awaitable while an event loop runs in this thread; "
            "use the async method instead"
        )
    import asyncio

    return asyncio.run(_awaited(value))


def call_blocking(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in place; an awaitable it returns is run (see :func:`resolve`)."""
    return resolve(fn(*args), "a function")


def _one_tool(fn: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    try:
        if inspect.iscoroutinefunction(fn):
            import asyncio

            return asyncio.run(fn(**kwargs))
        return resolve(fn(**kwargs), "a tool")
    except Exception as exc:  # the flow turns it into a tool error message
        return exc


def run_tools(calls: list[tuple[Callable[..., Any], dict[str, Any]]]) -> list[Any]:
    """Each call's result or raised exception; one call runs in this thread, several in a
    small pool, each in a copy of the caller's context (deadline included)."""
    if len(calls) == 1:
        fn, kwargs = calls[0]
        return [_one_tool(fn, kwargs)]
    with ThreadPoolExecutor(max_workers=min(MAX_TOOL_THREADS, len(calls))) as pool:
        futures = []
        for fn, kwargs in calls:
            ctx = contextvars.copy_context()
            run: Callable[..., Any] = ctx.run
            futures.append(pool.submit(run, _one_tool, fn, kwargs))
        return [f.result() for f in futures]
