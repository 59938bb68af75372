"""The :class:`Guard`: retries, whole-run deadline, breaker and budget around one call (sync).

The success path is kept to what it must do: with ``timeout`` set, one clock reading and one
context-variable set/reset (so callees see :func:`surefoot.time_left`); with a breaker, one
lock-free read before and one after; nothing is allocated for records or hooks unless asked.
Everything else (translation, the policy, records, hooks, waits) happens only after a failure,
in :class:`surefoot.guard._run.Run`.

Sync attempts cannot be preempted: a callee bounds its own I/O with :func:`surefoot.time_left`
(e.g. as its socket timeout); the deadline is checked after each failed attempt and before each
wait, and a wait never ends past it. A success is returned even when it arrived after the
deadline: the work is done.
"""

from __future__ import annotations

import math
import random as _random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from surefoot.clock import SYSTEM_CLOCK, Clock
from surefoot.errors import CircuitOpenError
from surefoot.guard import _async
from surefoot.guard._records import GuardHooks, RunRecord, safe_call
from surefoot.guard._run import Run
from surefoot.policy._breaker import CircuitBreaker
from surefoot.policy._budget import BoundBudget, RetryBudget
from surefoot.policy._classifier import CANCELLATION
from surefoot.policy._deadline import DEADLINE
from surefoot.policy._retry import RetryPolicy
from surefoot.policy._types import OnError

if TYPE_CHECKING:
    from surefoot.guard._iter import AsyncAttempts, SyncAttempts
    from surefoot.stores import StoreEvent

__all__ = ["Guard"]

_dget, _dset, _dreset = DEADLINE.get, DEADLINE.set, DEADLINE.reset

P = ParamSpec("P")
R = TypeVar("R")


class Guard:
    """Retry, deadline, breaker and budget settings, applied to calls.

    ``retries`` (2) retries after the first attempt; ``retry_base`` (0.5 s) the backoff base,
    capped at ``max_delay`` (8 s); a server hint over ``max_hint`` (120 s) fails at once;
    ``on_error`` classifies failures (``None``: the default classifier); ``timeout`` (``None``)
    bounds the whole run, attempts and waits included; ``breaker``, ``budget`` (with
    ``budget_key``) are shared objects; ``clock`` and ``random`` are injectable; ``hooks`` a
    :class:`GuardHooks`; ``operation`` names the call in errors and records.
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
        self.policy = RetryPolicy(
            retries=retries,
            retry_base=retry_base,
            max_delay=max_delay,
            max_hint=max_hint,
            on_error=on_error,
            random=random if random is not None else _random.random,
        )
        if timeout is not None:
            if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
                raise ValueError(f"timeout must be seconds or None, got {type(timeout).__name__}")
            if not math.isfinite(timeout) or timeout <= 0:
                raise ValueError(
                    f"timeout must be a finite number of seconds > 0, got {timeout!r}; "
                    "use None for no deadline"
                )
            timeout = float(timeout)
        if breaker is not None and not isinstance(breaker, CircuitBreaker):
            raise ValueError("breaker must be a surefoot.CircuitBreaker or None")
        if budget is not None and not isinstance(budget, (RetryBudget, BoundBudget)):
            raise ValueError("budget must be a surefoot.RetryBudget or None")
        self.timeout = timeout
        self.breaker = breaker
        self.budget = budget
        self.budget_key = budget_key
        self.clock: Clock = clock if clock is not None else SYSTEM_CLOCK
        self.hooks = GuardHooks.coerce(hooks)
        self.operation = operation
        # Precomputed for the success path.
        self._now = self.clock.now
        self._admit = breaker._admit if breaker is not None else None
        self._record_breaker = breaker._record if breaker is not None else None
        self._view: Any = breaker._view if breaker is not None else None
        self._budget_ok = budget.on_success if budget is not None else None
        #: True when the breaker's store has async methods (Redis): the async drivers then
        #: await its round trips instead of taking the (blocking) sync success path.
        self._astore = breaker is not None and breaker._astore is not None
        self._instrumented = self.hooks is not None and (
            self.hooks.on_attempt is not None or self.hooks.on_breaker_state_change is not None
        )
        self._arecorded = self._instrumented or self._astore  # acall goes straight to _arun
        if self.hooks is not None and self.hooks.on_store_event is not None:
            self._subscribe_store_events()

    def _subscribe_store_events(self) -> None:
        """Subscribe to the breaker's and the budget's stores that report events (each once);
        weakly, so a store outliving this guard keeps no reference to it."""
        stores: list[object] = []
        if self.breaker is not None:
            stores.append(self.breaker.store)
        budget = self.budget
        if isinstance(budget, BoundBudget):
            budget = budget.budget
        if budget is not None:
            stores.append(budget.store)
        seen: list[object] = []
        for store in stores:
            add = getattr(store, "add_event_listener", None)
            if add is not None and not any(store is s for s in seen):
                seen.append(store)
                add(self._store_event, weak=True)

    def _store_event(self, event: StoreEvent) -> None:
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

    # -- sync ---------------------------------------------------------------------------------

    def call(self, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        """``fn(*args, **kwargs)`` under this guard's retries, deadline, breaker and budget."""
        if self._instrumented:
            return self._run_sync(None, fn, args, kwargs)[0]
        token = None
        timeout = self.timeout
        if timeout is not None:
            when = self._now() + timeout
            outer = _dget()
            if outer is None or when < outer[0]:
                token = _dset((when, self.clock))
        try:
            view = self._view
            if view is not None:
                ticket = view.ticket
                if ticket < 0:
                    ticket = self._admit()  # type: ignore[misc]
            elif self._admit is not None:
                ticket = self._admit()
            else:
                ticket = -1
            try:
                result = fn(*args, **kwargs)
            except CANCELLATION:
                if ticket >= 0:
                    Run(self, None).release(ticket)
                raise
            except BaseException as exc:
                return self._run_sync(None, fn, args, kwargs, exc, ticket)[0]
            if ticket >= 0 and (view is None or ticket != view.ticket or view.failures):
                self._record_breaker(ticket, None)  # type: ignore[misc]
            if self._budget_ok is not None:
                self._budget_ok(self.budget_key)
            return result
        finally:
            if token is not None:
                _dreset(token)

    def call_with_record(
        self, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs
    ) -> tuple[R, RunRecord]:
        """Like :meth:`call`, and also the :class:`RunRecord` of every attempt."""
        return self._run_sync(None, fn, args, kwargs)

    def _run_sync(
        self,
        run: Run | None,
        fn: Callable[..., R],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        exc: BaseException | None = None,
        ticket: int = -1,
    ) -> tuple[R, RunRecord]:
        """The recorded loop; entered with ``exc`` after a fast-path failure."""
        token = None
        scope = DEADLINE.get()
        if exc is None and self.timeout is not None:  # a fresh run: open its deadline
            when = self._now() + self.timeout
            if scope is None or when < scope[0]:
                scope = (when, self.clock)
                token = DEADLINE.set(scope)
        run = Run(self, None if scope is None else scope[0])
        clock = self.clock
        try:
            while True:
                if exc is not None:
                    try:
                        delay = run.failed(exc, ticket)
                    finally:
                        exc = None
                    if delay > 0:
                        clock.sleep(delay)
                    run.before_attempt()
                run.started = clock.now()
                try:
                    ticket = run.admit()
                except CircuitOpenError as rej:
                    run.rejected(rej)
                try:
                    result = fn(*args, **kwargs)
                except CANCELLATION:
                    run.release(ticket)
                    raise
                except BaseException as e:
                    exc = e
                    continue
                run.succeeded(ticket)
                return result, run.record("success")
        finally:
            if token is not None:
                DEADLINE.reset(token)

    def attempts(self) -> SyncAttempts:
        """``for attempt in guard.attempts(): with attempt: ...`` for code that is not one call.

        A failure inside ``with attempt:`` is suppressed when it will be retried (the loop then
        waits and goes round) and raised when the run gives up; ``.record`` on the iterator
        holds the :class:`RunRecord` afterwards.
        """
        from surefoot.guard._iter import SyncAttempts

        return SyncAttempts(self)

    # -- async (implemented in surefoot.guard._async) -------------------------------------------

    acall = _async.acall
    acall_with_record = _async.acall_with_record

    def aattempts(self) -> AsyncAttempts:
        """``async for attempt in guard.aattempts(): with attempt: ...``; each attempt's body is
        cut off at the deadline."""
        from surefoot.guard._iter import AsyncAttempts

        return AsyncAttempts(self)

    def __call__(self, fn: Callable[P, R]) -> Callable[P, R]:
        """Use the guard as a decorator (sync functions and coroutine functions)."""
        from surefoot.guard._decorate import wrap

        return wrap(self, fn)
