"""The :class:`Guard`: retries, one deadline, breaker and budget around calls, sync and async.

Its methods are the drivers of ``_driver_sync.py`` (generated) and ``_driver_async.py`` (loaded
on first use, so that ``import surefoot`` does not import asyncio); the rules are the engine's
(:mod:`surefoot.policy._attempts`, :mod:`surefoot.policy._retry`).
"""

from __future__ import annotations

import random as _random
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, NoReturn, ParamSpec, TypeVar

from surefoot import _check
from surefoot.clock import SYSTEM_CLOCK, Clock, SystemClock
from surefoot.guard import _driver_sync
from surefoot.guard._lazy import AsyncMethod
from surefoot.guard._wrap import wrap
from surefoot.policy._retry import RetryPolicy
from surefoot.policy._types import OnError

if TYPE_CHECKING:
    from surefoot.errors import RunTimeoutError
    from surefoot.guard._breaker import CircuitBreaker
    from surefoot.guard._budget import BoundBudget, RetryBudget
    from surefoot.guard._driver_async import AsyncAttempts
    from surefoot.guard._driver_sync import SyncAttempts
    from surefoot.guard._hooks import GuardHooks
    from surefoot.policy._attempts import GaveUp, Plan
    from surefoot.policy._records import AttemptRecord, RunRecord
    from surefoot.stores import StoreEvent

__all__ = ["Guard"]

P = ParamSpec("P")
R = TypeVar("R")

_DRIVER = "surefoot.guard._driver_async"


class Guard:
    """Retry, deadline, breaker and budget settings, applied to calls.

    ``retries`` (2) retries after the first attempt; ``retry_base`` (0.5 s) the backoff base,
    capped at ``max_delay`` (8 s); a server hint over ``max_hint`` (120 s) fails at once;
    ``on_error`` classifies failures (``None``: the default classifier); ``timeout`` (``None``)
    bounds the whole run, attempts and waits included, within any deadline already in force;
    ``breaker``, ``budget`` (with ``budget_key``) are shared objects; ``clock`` and ``random``
    are injectable; ``hooks`` a :class:`GuardHooks`; ``operation`` names the call in errors and
    records.
    """

    def __init__(
        self,
        retries: int = 2,
        retry_base: float = 0.5,
        max_delay: float = 8.0,
        max_hint: float = 120.0,
        on_error: OnError | None = None,
        timeout: float | None = None,
        breaker: CircuitBreaker | None = None,
        budget: RetryBudget | BoundBudget | None = None,
        budget_key: str | None = None,
        clock: Clock | None = None,
        random: Callable[[], float] | None = None,
        hooks: GuardHooks | object | None = None,
        operation: str | None = None,
    ) -> None:
        _check.function("random", random, "returning a float in [0, 1)")
        self.policy = RetryPolicy(
            retries=retries,
            retry_base=retry_base,
            max_delay=max_delay,
            max_hint=max_hint,
            on_error=on_error,
            random=random if random is not None else _random.random,
        )
        self.timeout = _check.timeout("timeout", timeout)
        if breaker is not None:  # the breaker's and the budget's modules load when used
            from surefoot.guard._breaker import CircuitBreaker

            _check.instance("breaker", breaker, CircuitBreaker, "a surefoot.CircuitBreaker")
        self.breaker: CircuitBreaker | None = breaker
        if budget is not None:
            from surefoot.guard._budget import BoundBudget, RetryBudget

            _check.instance("budget", budget, (RetryBudget, BoundBudget), "a surefoot.RetryBudget")
        if budget_key is not None:
            _check.text("budget_key", budget_key)
        if operation is not None:
            _check.text("operation", operation)
        self.budget = budget
        self.budget_key = budget_key
        self.clock: Clock = _check.clock("clock", clock) or SYSTEM_CLOCK
        self.hooks: GuardHooks | None = None
        if hooks is not None:
            from surefoot.guard._hooks import GuardHooks

            self.hooks = GuardHooks.coerce(hooks)
        self.operation = operation
        #: ``(entry, operation, name)`` of this guard's telemetry trace (an agent action's
        #: guard says ``("agent", "execute_tool", <action>)``).
        self._span: tuple[str, str, str | None] = ("guard", "guard", operation)
        # Precomputed for the success path.
        self._now = self.clock.now
        self._system_clock = type(self.clock) is SystemClock
        self._admit: Any = breaker._admit if breaker is not None else None
        self._report: Any = breaker._record if breaker is not None else None
        self._release: Any = breaker._release if breaker is not None else None
        self._view: Any = breaker._view if breaker is not None else None
        self._budget: RetryBudget | None = None
        self._budget_key = budget_key
        if budget is not None:
            from surefoot.guard._budget import unbind

            self._budget, self._budget_key = unbind(budget, budget_key)
        self._refill: Any = self._budget.on_success if self._budget is not None else None
        instrumented = self.hooks is not None and (
            self.hooks.on_attempt is not None or self.hooks.on_breaker_state_change is not None
        )
        #: The sync paths go straight to the recorded loop when hooks listen to every attempt;
        #: the async ones also when a store does real I/O (its asyncio client is awaited).
        self._recorded = instrumented
        self._arecorded = instrumented or (
            (breaker is not None and breaker.async_io)
            or (self._budget is not None and self._budget.async_io)
        )
        policy = self.policy
        self._decide = lambda e, a, n, d, s: policy.decide(e, a, n, d, streak=s)
        if self.hooks is not None and self.hooks.on_store_event is not None:
            self._subscribe_store_events()

    def _subscribe_store_events(self) -> None:
        """Subscribe to the breaker's and the budget's stores that report events (each once);
        weakly, so a store outliving this guard keeps no reference to it."""
        stores: list[object] = []
        if self.breaker is not None:
            stores.append(self.breaker.store)
        if self._budget is not None:
            stores.append(self._budget.store)
        seen: list[object] = []
        for store in stores:
            add = getattr(store, "add_event_listener", None)
            if add is not None and not any(store is s for s in seen):
                seen.append(store)
                add(self._store_event, weak=True)

    def _store_event(self, event: StoreEvent) -> None:
        from surefoot.guard._hooks import safe_call

        hooks = self.hooks
        if hooks is not None:
            safe_call(hooks.on_store_event, event)

    @property
    def retries(self) -> int:
        return self.policy.retries

    def __repr__(self) -> str:
        p = self.policy
        return (
            f"Guard(retries={p.retries}, retry_base={p.retry_base:g}, timeout={self.timeout!r}, "
            f"breaker={self.breaker!r}, budget={self.budget!r})"
        )

    # -- what the drivers share (the failure path: its modules load on the first failure) ------

    def _plan(self, deadline: float | None, trace: Any = None) -> Plan:
        from surefoot._translate import subject
        from surefoot.policy._attempts import Plan
        from surefoot.telemetry import _logs

        return Plan(
            trace=trace,
            log=_logs.AGENT if self._span[0] == "agent" else _logs.GUARD,
            decide=self._decide,
            timed_out=self._timed_out,
            deadline=deadline,
            breaker=self.breaker,
            budget=self._budget,
            budget_key=self._budget_key,
            hooks=self.hooks,
            subject=subject,
        )

    def _timed_out(self, cause: BaseException | None, attempt: int) -> RunTimeoutError:
        from surefoot.errors import RunTimeoutError

        timeout = self.timeout
        what = f"the run's {timeout:g}s deadline" if timeout is not None else "the deadline"
        err = RunTimeoutError(
            f"{what} elapsed during attempt {attempt + 1}",
            timeout=timeout,
            operation=self.operation,
        )
        err.__cause__ = cause
        return err

    def _trace(self) -> Any:
        """A telemetry trace of one run, or ``None`` when no sink listens."""
        from surefoot.telemetry import _hub

        entry, operation, name = self._span
        return _hub.start(entry, operation, name=name)

    def _give_up(self, records: list[AttemptRecord], out: GaveUp) -> NoReturn:
        from surefoot.guard._hooks import safe_call
        from surefoot.policy._records import attach_attempts

        err = out.error
        attach_attempts(err, records, self.operation)
        hooks = self.hooks
        if hooks is not None and records:
            safe_call(hooks.on_give_up, records[-1], err)
        raise err

    # -- sync (generated from the async driver) -------------------------------------------------

    call = _driver_sync.call
    call_with_record = _driver_sync.call_with_record

    def attempts(self) -> SyncAttempts:
        """``for attempt in guard.attempts(): with attempt: ...`` for code that is not one call.

        A failure inside ``with attempt:`` is suppressed when it will be retried (the loop then
        waits and goes round) and raised when the run gives up; ``.record`` on the iterator
        holds the :class:`RunRecord` afterwards.
        """
        return _driver_sync.SyncAttempts(self)

    # -- async ------------------------------------------------------------------------------------

    if TYPE_CHECKING:

        async def acall(
            self, fn: Callable[P, Awaitable[R]], /, *args: P.args, **kwargs: P.kwargs
        ) -> R:
            """``await fn(*args, **kwargs)`` under the guard; each attempt is cut off at the
            deadline (raising :class:`surefoot.RunTimeoutError`)."""
            ...

        async def acall_with_record(
            self, fn: Callable[P, Awaitable[R]], /, *args: P.args, **kwargs: P.kwargs
        ) -> tuple[R, RunRecord]:
            """Like :meth:`acall`, and also the :class:`RunRecord` of every attempt."""
            ...

    else:
        acall = AsyncMethod("call", _DRIVER)
        acall_with_record = AsyncMethod("call_with_record", _DRIVER)

    def aattempts(self) -> AsyncAttempts:
        """``async for attempt in guard.aattempts(): async with attempt: ...``; each attempt's
        body is cut off at the deadline. (``with attempt:`` works too, with the store's sync
        calls; prefer ``async with`` with a shared Redis store.)"""
        from surefoot.guard._driver_async import AsyncAttempts

        return AsyncAttempts(self)

    def __call__(self, fn: Callable[P, R]) -> Callable[P, R]:
        """Use the guard as a decorator (sync functions and coroutine functions)."""
        return wrap(self, fn)
