"""The circuit breaker: stop calling a service that keeps failing, and probe it for recovery.

Default behaviour (the consecutive mode): every *counted* failure adds one, a success resets the
count; ``failure_threshold`` (10) consecutive counted failures open the circuit. While open,
calls are rejected at once with :class:`surefoot.CircuitOpenError` (a ``RuntimeError``) carrying
``retry_after``, the seconds until a probe can be admitted. After ``recovery_timeout`` (30 s)
exactly one probe call is admitted while concurrent callers are rejected; its success closes the
circuit, its counted failure re-opens it for another ``recovery_timeout``, and any other outcome
(a cancellation, a non-counted error) releases the reservation for the next caller.

Counted: connection errors and retryable failures unless the server's problem details say
``retryable: false`` (:func:`surefoot.policy.breaker_counts`). Not counted: cancellations, local
errors, non-retryable failures.

Ratio mode (``mode="ratio"``): the circuit opens when, over the last ``window`` seconds, at least
``minimum_throughput`` calls completed and the share of counted failures reached
``failure_ratio`` (Polly's and resilience4j's sliding time window).

State lives in a :class:`~surefoot.stores.BreakerStore` (in memory by default); no lock is held
while the guarded call runs, and every transition is one atomic store operation. Pass
``store="redis://host:6379/0"``, a redis-py client or a :class:`surefoot.stores.RedisStore` to
share the breaker with every process using the same Redis, namespace and ``name``.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any, Literal, ParamSpec, TypeVar, cast

from surefoot.clock import SYSTEM_CLOCK, Clock
from surefoot.errors import CircuitOpenError
from surefoot.policy._classifier import CANCELLATION, breaker_counts
from surefoot.policy._retry import check_seconds
from surefoot.stores._base import (
    FAILURE,
    NEUTRAL,
    REJECTED,
    SUCCESS,
    BreakerConfig,
    BreakerSnapshot,
    BreakerState,
    BreakerStore,
    Transition,
)
from surefoot.stores._memory import MemoryStore
from surefoot.stores._resolve import resolve_store

__all__ = ["BreakerListener", "CircuitBreaker", "Permit"]

_log = logging.getLogger("surefoot.breaker")
P = ParamSpec("P")
R = TypeVar("R")

#: Called as ``listener(name, old_state, new_state)`` after a transition, outside any lock.
BreakerListener = Callable[[str, BreakerState, BreakerState], None]


def _positive_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be an int >= 1, got {value!r}")
    return value


def _seconds(name: str, value: object) -> float:
    seconds = check_seconds(name, value)
    assert seconds is not None  # check_seconds returns None only when allow_none is set
    return seconds


class Permit:
    """One admitted call. Report exactly one outcome: :meth:`success`, :meth:`failure` or
    :meth:`release`; later reports are ignored. Also a context manager that reports for you."""

    __slots__ = ("_breaker", "_done", "ticket")

    def __init__(self, breaker: CircuitBreaker, ticket: int) -> None:
        self._breaker = breaker
        self.ticket = ticket
        self._done = False

    @property
    def is_probe(self) -> bool:
        """True for the single half-open probe."""
        return bool(self.ticket & 1)

    def success(self) -> None:
        if not self._done:
            self._done = True
            self._breaker._record(self.ticket, None)

    def failure(self, error: BaseException) -> None:
        """Report a failed call; whether it counts is decided by the breaker's classifier."""
        if not self._done:
            self._done = True
            self._breaker._record(self.ticket, error)

    def release(self) -> None:
        """Report no outcome (the call was abandoned); a probe reservation is freed."""
        if not self._done:
            self._done = True
            self._breaker._record_outcome(self.ticket, NEUTRAL)

    def __enter__(self) -> Permit:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is None:
            self.success()
        else:
            self.failure(exc)


class CircuitBreaker:
    """A circuit breaker; see the module docstring for the rules.

    Use it through :class:`surefoot.Guard` (``breaker=``), as a decorator (sync or async), with
    :meth:`call`, or by hand: ``with breaker.acquire(): ...``. ``counts`` overrides which
    exceptions count as failures; ``probe_timeout`` (default ``recovery_timeout``) is how long a
    probe reservation lasts if its holder never reports.
    """

    def __init__(
        self,
        name: str = "default",
        failure_threshold: int = 10,
        recovery_timeout: float = 30.0,
        *,
        store: BreakerStore | str | Any = None,
        clock: Clock | None = None,
        mode: Literal["consecutive", "ratio"] = "consecutive",
        failure_ratio: float = 0.5,
        window: float = 60.0,
        minimum_throughput: int = 10,
        probe_timeout: float | None = None,
        counts: Callable[[BaseException], bool] | None = None,
        on_state_change: BreakerListener | None = None,
    ) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError(
                "name must be a non-empty str; breakers sharing a store need distinct names"
            )
        if mode not in ("consecutive", "ratio"):
            raise ValueError(f"mode must be 'consecutive' or 'ratio', got {mode!r}")
        ratio = _seconds("failure_ratio", failure_ratio)
        if not 0.0 < ratio <= 1.0:
            raise ValueError(f"failure_ratio must be in (0, 1], got {failure_ratio!r}")
        recovery = _seconds("recovery_timeout", recovery_timeout)
        win = _seconds("window", window)
        if mode == "ratio" and win <= 0:
            raise ValueError("window must be > 0 seconds in ratio mode")
        self.name = name
        self.config = BreakerConfig(
            failure_threshold=_positive_int("failure_threshold", failure_threshold),
            recovery_timeout=recovery,
            probe_timeout=recovery
            if probe_timeout is None
            else _seconds("probe_timeout", probe_timeout),
            mode=mode,
            failure_ratio=ratio,
            window=win,
            minimum_throughput=_positive_int("minimum_throughput", minimum_throughput),
        )
        if store is not None and not isinstance(store, MemoryStore):
            store = resolve_store(store)  # a Redis URL or client -> RedisStore
        self.store: BreakerStore = store if store is not None else MemoryStore()
        #: The store's async methods (``aadmit``...), used by :meth:`acall` when it has them.
        self._astore: Any = self.store if hasattr(self.store, "aadmit") else None
        self.clock: Clock = clock if clock is not None else SYSTEM_CLOCK
        self._counts = counts if counts is not None else breaker_counts
        self._listeners: list[BreakerListener] = (
            [] if on_state_change is None else [on_state_change]
        )
        self._ratio = mode == "ratio"
        # Bound methods, looked up once: the success path is two calls.
        self._closed_ticket = self.store.closed_ticket
        self._store_record = self.store.record
        #: For the drivers' success path: a record with ``ticket`` and ``failures`` attributes
        #: readable without a lock, when the store keeps one in this process (consecutive mode).
        view = getattr(self.store, "local_view", None)
        self._view: Any = view(name) if view is not None and mode == "consecutive" else None

    def __repr__(self) -> str:
        return f"CircuitBreaker({self.name!r}, state={self.state.value})"

    # -- the engine (used by the guard drivers) ------------------------------------------------

    def _admit(self) -> int:
        """A ticket for one call, or :class:`CircuitOpenError`."""
        ticket = self._closed_ticket(self.name)
        if ticket >= 0:
            return ticket
        now = self.clock.now()
        ticket = self.store.admit(self.name, now, self.config)
        if ticket == REJECTED:
            snap = self.store.snapshot(self.name, now, self.config)
            raise CircuitOpenError(name=self.name, retry_after=snap.retry_after)
        if ticket & 1:
            self._notify((BreakerState.OPEN, BreakerState.HALF_OPEN))
        return ticket

    def _record(self, ticket: int, error: BaseException | None) -> Transition | None:
        """Record a success (``error is None``) or a failure; returns the transition, if any."""
        return self._record_outcome(ticket, self._outcome(error))

    def _outcome(self, error: BaseException | None) -> int:
        if error is None:
            return SUCCESS
        if isinstance(error, CANCELLATION):
            return NEUTRAL
        try:
            return FAILURE if self._counts(error) else NEUTRAL
        except Exception:
            _log.exception("breaker %r: the counts= predicate raised", self.name)
            return NEUTRAL

    def _record_outcome(self, ticket: int, outcome: int) -> Transition | None:
        now = self.clock.now() if (outcome != SUCCESS or self._ratio or ticket & 1) else 0.0
        tr = self._store_record(self.name, ticket, outcome, now, self.config)
        if tr is not None:
            self._notify(tr)
        return tr

    def _notify(self, tr: Transition) -> None:
        for fn in self._listeners:
            try:
                fn(self.name, tr[0], tr[1])
            except Exception:
                _log.exception("breaker %r: a state-change listener raised", self.name)

    # -- the public surface --------------------------------------------------------------------

    def acquire(self) -> Permit:
        """Admit one call or raise :class:`surefoot.CircuitOpenError`; report on the permit."""
        return Permit(self, self._admit())

    def add_listener(self, fn: BreakerListener) -> None:
        """Call ``fn(name, old, new)`` after every state change."""
        self._listeners.append(fn)

    def remove_listener(self, fn: BreakerListener) -> None:
        self._listeners = [f for f in self._listeners if f is not fn]

    def snapshot(self) -> BreakerSnapshot:
        return self.store.snapshot(self.name, self.clock.now(), self.config)

    @property
    def state(self) -> BreakerState:
        """``CLOSED``, ``OPEN``, or ``HALF_OPEN`` (a probe is in flight or would be admitted)."""
        return self.snapshot().state

    @property
    def failure_count(self) -> int:
        return self.snapshot().failures

    def reset(self) -> None:
        """Close the circuit and forget every count."""
        tr = self.store.reset(self.name)
        if tr is not None:
            self._notify(tr)

    def call(self, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
        """``fn(*args, **kwargs)`` through the breaker."""
        ticket = self._admit()
        try:
            result = fn(*args, **kwargs)
        except BaseException as exc:
            self._record(ticket, exc)
            raise
        self._record(ticket, None)
        return result

    async def acall(self, fn: Callable[P, Awaitable[R]], /, *args: P.args, **kwargs: P.kwargs) -> R:
        """``await fn(*args, **kwargs)`` through the breaker (with a store's asyncio client
        when it has one, e.g. :class:`surefoot.stores.RedisStore`)."""
        if self._astore is not None:
            return await self._acall_async_store(fn, *args, **kwargs)
        ticket = self._admit()
        try:
            result = await fn(*args, **kwargs)
        except BaseException as exc:
            self._record(ticket, exc)
            raise
        self._record(ticket, None)
        return result

    async def _aadmit(self) -> int:
        """:meth:`_admit` through the store's async methods."""
        ticket = self.store.closed_ticket(self.name)
        if ticket >= 0:
            return ticket
        now = self.clock.now()
        ticket = int(await self._astore.aadmit(self.name, now, self.config))
        if ticket == REJECTED:
            snap = await self._astore.asnapshot(self.name, now, self.config)
            raise CircuitOpenError(name=self.name, retry_after=snap.retry_after)
        if ticket & 1:
            self._notify((BreakerState.OPEN, BreakerState.HALF_OPEN))
        return ticket

    async def _arecord(self, ticket: int, error: BaseException | None) -> Transition | None:
        """:meth:`_record` through the store's async methods."""
        outcome = self._outcome(error)
        tr = await self._astore.arecord(self.name, ticket, outcome, self.clock.now(), self.config)
        if tr is not None:
            self._notify(tr)
        return cast("Transition | None", tr)

    async def _arelease(self, ticket: int) -> Transition | None:
        """Report no outcome for ``ticket`` through the store's async methods. Only a probe's
        release changes anything (it frees the reservation), so any other ticket costs no round
        trip."""
        if ticket < 0 or not ticket & 1:
            return None
        tr = await self._astore.arecord(self.name, ticket, NEUTRAL, self.clock.now(), self.config)
        if tr is not None:
            self._notify(tr)
        return cast("Transition | None", tr)

    async def _acall_async_store(
        self, fn: Callable[P, Awaitable[R]], /, *args: P.args, **kwargs: P.kwargs
    ) -> R:
        ticket = await self._aadmit()
        try:
            result = await fn(*args, **kwargs)
        except BaseException as exc:
            await self._arecord(ticket, exc)
            raise
        await self._arecord(ticket, None)
        return result

    def __call__(self, fn: Callable[P, R]) -> Callable[P, R]:
        """Decorate a function or a coroutine function."""
        if inspect.iscoroutinefunction(fn):
            afn = cast(Callable[..., Awaitable[Any]], fn)

            @functools.wraps(fn)
            async def awrapper(*args: Any, **kwargs: Any) -> Any:
                return await self.acall(afn, *args, **kwargs)

            return cast(Callable[P, R], awrapper)

        @functools.wraps(fn)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            return self.call(fn, *args, **kwargs)

        return wrapper
