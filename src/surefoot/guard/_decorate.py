"""``@surefoot.resilient(...)``: a :class:`Guard` as a decorator for functions and coroutines."""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, cast, overload

from surefoot.clock import SystemClock
from surefoot.guard import _async
from surefoot.guard._async import current_task_fast
from surefoot.guard._run import DeadlineExpired, Run
from surefoot.policy._classifier import CANCELLATION
from surefoot.policy._deadline import DEADLINE

if TYPE_CHECKING:
    from surefoot.guard._core import Guard
    from surefoot.guard._records import GuardHooks

__all__ = ["resilient", "wrap"]

P = ParamSpec("P")
_dget, _dset, _dreset = DEADLINE.get, DEADLINE.set, DEADLINE.reset
R = TypeVar("R")


def wrap(guard: Guard, fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` run through ``guard``; the wrapper exposes the guard as ``.guard``.

    The wrappers inline the guard's success path (the same steps as :meth:`Guard.call` and
    :meth:`Guard.acall`, with the settings bound once) and hand any failure to the shared loop.
    """
    if guard._instrumented:
        return _plain(guard, fn)
    if inspect.iscoroutinefunction(fn):
        return cast(Callable[P, R], _async_wrapper(guard, cast(Callable[..., Awaitable[Any]], fn)))
    return _sync_wrapper(guard, fn)


def _plain(guard: Guard, fn: Callable[P, R]) -> Callable[P, R]:
    if inspect.iscoroutinefunction(fn):
        afn = cast(Callable[..., Awaitable[Any]], fn)
        acall = guard.acall

        @functools.wraps(fn)
        async def awrapper(*args: Any, **kwargs: Any) -> Any:
            return await acall(afn, *args, **kwargs)

        awrapper.guard = guard  # type: ignore[attr-defined]
        return cast(Callable[P, R], awrapper)
    call = guard.call

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        return call(fn, *args, **kwargs)

    wrapper.guard = guard  # type: ignore[attr-defined]
    return wrapper


def _sync_wrapper(guard: Guard, fn: Callable[P, R]) -> Callable[P, R]:
    timeout, now, clock = guard.timeout, guard._now, guard.clock
    view, admit, record = guard._view, guard._admit, guard._record_breaker
    budget_ok, budget_key, run_sync = guard._budget_ok, guard.budget_key, guard._run_sync

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        token = None
        if timeout is not None:
            when = now() + timeout
            outer = _dget()
            if outer is None or when < outer[0]:
                token = _dset((when, clock))
        try:
            if view is not None:
                ticket = view.ticket
                if ticket < 0:
                    ticket = admit()  # type: ignore[misc]
            elif admit is not None:
                ticket = admit()
            else:
                ticket = -1
            try:
                result = fn(*args, **kwargs)
            except CANCELLATION:
                if ticket >= 0:
                    Run(guard, None).release(ticket)
                raise
            except BaseException as exc:
                return run_sync(None, fn, args, kwargs, exc, ticket)[0]
            if ticket >= 0 and (view is None or ticket != view.ticket or view.failures):
                record(ticket, None)  # type: ignore[misc]
            if budget_ok is not None:
                budget_ok(budget_key)
            return result
        finally:
            if token is not None:
                _dreset(token)

    wrapper.guard = guard  # type: ignore[attr-defined]
    return wrapper


def _async_wrapper(guard: Guard, fn: Callable[..., Awaitable[Any]]) -> Callable[..., Any]:
    if guard.timeout is not None and type(guard.clock) is not SystemClock:
        return _plain(guard, fn)  # a fake clock: the general path arms its own timers
    if guard._astore:
        return _plain(guard, fn)  # an asyncio store (Redis): acall awaits its round trips
    timeout, now, clock = guard.timeout, guard._now, guard.clock
    view, admit, record = guard._view, guard._admit, guard._record_breaker
    budget_ok, budget_key = guard._budget_ok, guard.budget_key
    acall = guard.acall

    @functools.wraps(fn)
    async def awrapper(*args: Any, **kwargs: Any) -> Any:
        scope = _dget()
        if scope is not None and type(scope[1]) is not SystemClock:
            return await acall(fn, *args, **kwargs)
        token = None
        if timeout is not None:
            when = now() + timeout
            if scope is None or when < scope[0]:
                scope = (when, clock)
                token = _dset(scope)
        try:
            if view is not None:
                ticket = view.ticket
                if ticket < 0:
                    ticket = admit()  # type: ignore[misc]
            elif admit is not None:
                ticket = admit()
            else:
                ticket = -1
            try:
                if scope is None:
                    result = await fn(*args, **kwargs)
                else:
                    loop, task = current_task_fast()
                    last = _async._last
                    watch = last[1] if last[0] is loop else _async._watch_for(loop)
                    active = watch.active
                    prev = active.get(task)
                    when = scope[0]
                    active[task] = when
                    baseline = task.cancelling()
                    if when < watch.armed_at:
                        watch.arm(when)
                    try:
                        result = await fn(*args, **kwargs)
                    except asyncio.CancelledError:
                        if watch.expired(task, baseline):
                            raise DeadlineExpired() from None
                        raise
                    finally:
                        watch.leave(task, prev)
            except CANCELLATION:
                if ticket >= 0:
                    Run(guard, None).release(ticket)
                raise
            except BaseException as exc:
                return (await _async._arun(guard, fn, args, kwargs, exc, ticket))[0]
            if ticket >= 0 and (view is None or ticket != view.ticket or view.failures):
                record(ticket, None)  # type: ignore[misc]
            if budget_ok is not None:
                budget_ok(budget_key)
            return result
        finally:
            if token is not None:
                _dreset(token)

    awrapper.guard = guard  # type: ignore[attr-defined]
    return awrapper


@overload
def resilient(fn: Callable[P, R], /) -> Callable[P, R]: ...


@overload
def resilient(
    fn: None = None,
    /,
    *,
    retries: int = 2,
    retry_base: float = 0.5,
    max_delay: float = 8.0,
    max_hint: float = 120.0,
    on_error: Any = None,
    timeout: float | None = None,
    breaker: Any = None,
    budget: Any = None,
    budget_key: str | None = None,
    clock: Any = None,
    random: Callable[[], float] | None = None,
    hooks: GuardHooks | object | None = None,
    operation: str | None = None,
) -> Callable[[Callable[P, R]], Callable[P, R]]: ...


def resilient(fn: Callable[P, R] | None = None, /, **options: Any) -> Any:
    """Retry, deadline, breaker and budget for a function or a coroutine function.

    ``@resilient`` or ``@resilient(retries=3, timeout=30, breaker=b)``: takes the options of
    :class:`surefoot.Guard`. Validated at decoration time. The guard is ``wrapper.guard``.
    """
    from surefoot.guard._core import Guard

    guard = Guard(**options)
    if fn is None:
        return functools.partial(wrap, guard)
    return wrap(guard, fn)
