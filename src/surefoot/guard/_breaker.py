"""The circuit breaker: stop calling a service that keeps failing, and probe it for recovery.

Default behaviour (the consecutive mode): every *counted* failure adds one, a success resets the
count; ``failure_threshold`` (10) consecutive counted failures open the circuit. While open,
calls are rejected at once with :class:`surefoot.CircuitOpenError` (a ``RuntimeError``) carrying
``retry_after``, the seconds until a probe can be admitted. After ``recovery_timeout`` (30 s)
exactly one probe call is admitted while concurrent callers are rejected; its success closes the
circuit, its counted failure re-opens it for another ``recovery_timeout``, and any other outcome
(a cancellation, a non-counted error) releases the reservation for the next caller. The state
machine is :mod:`surefoot.policy._fsm`.

Counted: connection errors and retryable failures unless the server's problem details say
``retryable: false`` (:func:`surefoot.policy.breaker_counts`, after a foreign exception is
translated: an ``httpx`` 503 counts, a ``urllib`` 404 does not). Not counted: cancellations,
local errors, non-retryable failures.

Ratio mode (``mode="ratio"``): the circuit opens when, over the last ``window`` seconds, at least
``minimum_throughput`` calls completed and the share of counted failures reached
``failure_ratio`` (Polly's and resilience4j's sliding time window).

State lives in a :class:`~surefoot.stores.BreakerStore` (in memory by default); no lock is held
while the guarded call runs, and every transition is one atomic store operation. Pass
``store="redis://host:6379/0"``, a redis-py client or a :class:`surefoot.stores.RedisStore` to
share the breaker with every process using the same Redis, namespace and ``name``. The async
paths use the store's asyncio client (never a blocking round trip on the event loop).
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, ParamSpec, TypeVar, cast

from surefoot import _check
from surefoot._translate import subject
from surefoot.clock import SYSTEM_CLOCK, Clock
from surefoot.guard import _io_sync
from surefoot.guard._lazy import AsyncFacade, AsyncMethod
from surefoot.policy._classifier import breaker_counts, is_cancellation
from surefoot.policy._types import (
    FAILURE,
    NEUTRAL,
    SUCCESS,
    BreakerConfig,
    BreakerSnapshot,
    BreakerState,
    Transition,
)
from surefoot.stores._base import BreakerStore
from surefoot.stores._memory import MemoryStore
from surefoot.stores._resolve import resolve_store

__all__ = ["BreakerListener", "CircuitBreaker", "Permit"]

_log = logging.getLogger("surefoot.breaker")
P = ParamSpec("P")
R = TypeVar("R")

#: Called as ``listener(name, old_state, new_state)`` after a transition, outside any lock.
BreakerListener = Callable[[str, BreakerState, BreakerState], None]


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
            self._breaker._release(self.ticket)

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
    :meth:`call` / :meth:`acall`, or by hand: ``with breaker.acquire(): ...``. ``counts``
    overrides which exceptions count as failures (it sees the translated error);
    ``probe_timeout`` (default ``recovery_timeout``) is how long a probe reservation lasts if
    its holder never reports.
    """

    def __init__(
        self,
        name: str = "default",
        failure_threshold: int = 10,
        recovery_timeout: float = 30.0,
        *,
        store: BreakerStore | str | None = None,
        clock: Clock | None = None,
        mode: Literal["consecutive", "ratio"] = "consecutive",
        failure_ratio: float = 0.5,
        window: float = 60.0,
        minimum_throughput: int = 10,
        probe_timeout: float | None = None,
        counts: Callable[[BaseException], bool] | None = None,
        on_state_change: BreakerListener | None = None,
    ) -> None:
        _check.text("name", name, fix="breakers sharing a store need distinct names")
        _check.choice("mode", mode, ("consecutive", "ratio"))
        _check.function("on_state_change", on_state_change, "taking (name, old, new)")
        ratio = _check.ratio("failure_ratio", failure_ratio)
        recovery = _check.seconds("recovery_timeout", recovery_timeout)
        win = _check.seconds("window", window, positive=mode == "ratio")
        self.name = name
        self.config = BreakerConfig(
            failure_threshold=_check.count("failure_threshold", failure_threshold, low=1),
            recovery_timeout=recovery,
            probe_timeout=recovery
            if probe_timeout is None
            else _check.seconds("probe_timeout", probe_timeout),
            mode=mode,
            failure_ratio=ratio,
            window=win,
            minimum_throughput=_check.count("minimum_throughput", minimum_throughput, low=1),
        )
        if store is not None and not isinstance(store, MemoryStore):
            store = cast(BreakerStore, resolve_store(store))  # a Redis URL or client -> RedisStore
            if not callable(getattr(store, "admit", None)):
                raise TypeError(
                    "store must be a surefoot.stores.BreakerStore, a Redis URL or a redis-py "
                    f"client, or None, got {_check.shown(store)}"
                )
        self.store: BreakerStore = store if store is not None else MemoryStore()
        #: What the async paths await: the store's own coroutine methods (Redis), or a
        #: coroutine face over its sync methods (memory).
        self._astore: Any = self.store if hasattr(self.store, "aadmit") else AsyncFacade(self.store)
        #: True when the store's async methods do real I/O (an asyncio Redis client).
        self.async_io = hasattr(self.store, "aadmit")
        self.clock: Clock = _check.clock("clock", clock) or SYSTEM_CLOCK
        self._counts = (
            _check.function("counts", counts, "taking an exception and returning a bool")
            or breaker_counts
        )
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

    def for_key(self, key: str) -> CircuitBreaker:
        """A breaker of the same configuration, store, clock and listeners for ``key`` (named
        ``"{name}:{key}"``), with its own state: one per model or route of a fallback chain.
        The same key gives the same breaker."""
        _check.text("key", key, fix="a model name or a route, like 'api.openai.com/gpt-4o'")
        derived = self.__dict__.setdefault("_derived", {})
        found: CircuitBreaker | None = derived.get(key)
        if found is None:
            cfg = self.config
            found = CircuitBreaker(
                f"{self.name}:{key}",
                cfg.failure_threshold,
                cfg.recovery_timeout,
                store=self.store,
                clock=self.clock,
                mode=cfg.mode,
                failure_ratio=cfg.failure_ratio,
                window=cfg.window,
                minimum_throughput=cfg.minimum_throughput,
                probe_timeout=cfg.probe_timeout,
                counts=self._counts,
            )
            found._listeners = self._listeners  # the same list: a listener added later hears both
            derived[key] = found
        return found

    # -- the engine's side (the drivers of surefoot.guard._io_*) --------------------------------

    _admit = _io_sync.admit
    _record = _io_sync.report
    _release = _io_sync.release
    _aadmit = AsyncMethod("admit")
    _arecord = AsyncMethod("report")
    _arelease = AsyncMethod("release")

    def _outcome(self, error: BaseException | None) -> int:
        """The store outcome of a call that ended with ``error`` (``None``: a success)."""
        if error is None:
            return SUCCESS
        if is_cancellation(error):
            return NEUTRAL
        try:
            return FAILURE if self._counts(subject(error)) else NEUTRAL
        except Exception:
            _log.exception("breaker %r: the counts= predicate raised", self.name)
            return NEUTRAL

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

    call = _io_sync.breaker_call
    if TYPE_CHECKING:

        async def acall(
            self, fn: Callable[P, Awaitable[R]], /, *args: P.args, **kwargs: P.kwargs
        ) -> R:
            """``await fn(*args, **kwargs)`` through the breaker."""
            ...

    else:
        acall = AsyncMethod("breaker_call")

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
