"""Breaker, budget and rate-limit state shared by a fleet through Redis: :class:`RedisStore`.

``CircuitBreaker(name, store=RedisStore.from_url("redis://127.0.0.1:6379/0", namespace="myapp"))``
(or ``store="redis://..."``) shares the breaker ``name`` with every process that uses the same
Redis and namespace; ``RetryBudget(store=...)`` and :class:`surefoot.SharedRateLimiter`
likewise. Keys: ``surefoot:<namespace>:br:{<name>}`` (+ ``:win`` in ratio mode),
``surefoot:<namespace>:bu:<key>``, ``surefoot:<namespace>:rl:<key>``; name breakers and budget
keys per provider and model (``"openai:gpt-4o"``) to keep them apart.

Guarantees (see :mod:`surefoot.stores._redis_lua`): every transition is one Lua script, so it is
atomic fleet-wide; only the Redis server's clock is read, so clock skew between hosts changes
nothing; epochs keep an outcome from an earlier circuit epoch from moving a newer one; exactly one
half-open probe is admitted fleet-wide, reserved for ``probe_timeout`` seconds, after which the
next caller probes; every key has a TTL (``key_ttl``, refreshed on writes). Redis restarted and
its state lost: the breaker starts closed in a new, higher epoch; scripts are reloaded on NOSCRIPT.

The success path costs one round trip (the admission script); a success is written only when there
may be failures to clear (consecutive mode: its admission saw some, or this process has recorded
one since), and always in ratio mode. Across a fleet, a success therefore clears the failures
recorded before its admission and those this process recorded since; a failure another process
records while the call is in flight is cleared by the next success admitted after it.

When Redis is down, see :mod:`surefoot.stores._redis_link`: ``when_down="local"`` (default) keeps
each process protected by a local :class:`MemoryStore` until Redis answers again.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from typing import Any

from surefoot import _check
from surefoot.stores._base import (
    NEUTRAL,
    REJECTED,
    SUCCESS,
    BreakerConfig,
    BreakerSnapshot,
    BreakerState,
    Transition,
)
from surefoot.stores._memory import MemoryStore
from surefoot.stores._redis_buckets import _DOWN, BucketOps, _ttl
from surefoot.stores._redis_link import Down, Link, StoreEvent, WhenDown, check_url, redact_url
from surefoot.stores._redis_lua import SCRIPTS, Script

__all__ = ["RedisStore"]

_CLOSED, _OPEN, _HALF = BreakerState.CLOSED, BreakerState.OPEN, BreakerState.HALF_OPEN
_STATES = (_CLOSED, _OPEN, _HALF)
_CODES: dict[int, Transition] = {1: (_CLOSED, _OPEN), 2: (_HALF, _CLOSED), 3: (_HALF, _OPEN)}
#: Tickets of the local fallback store are offset by LOCAL; ALLOW is the ticket of a call let
#: through by ``when_down="allow"``. Redis tickets stay below 2**53.
LOCAL = 1 << 60
ALLOW = 1 << 61
_S = SCRIPTS


class RedisStore(BucketOps):
    """A :class:`~surefoot.stores.BreakerStore` and :class:`~surefoot.stores.BudgetStore` in
    Redis (redis-py ``redis.Redis``, and ``redis.asyncio.Redis`` for the async paths).

    ``client``: a ``redis.Redis`` or ``redis.asyncio.Redis`` (give it ``socket_timeout`` and
    ``socket_connect_timeout``); prefer :meth:`from_url`, which sets bounded timeouts and builds
    both. ``namespace`` (``"default"``) separates applications sharing one Redis;
    ``when_down`` (``"local"``) what to do while Redis is unreachable, tried again at most every
    ``retry_interval`` (5 s); ``key_ttl`` (1 h) how long an idle key lives; ``on_event`` is
    called with a :class:`StoreEvent` on every switch to and from the fallback (more listeners:
    :meth:`add_event_listener`; a :class:`surefoot.Guard` subscribes its hooks' ``on_store_event``).
    """

    def __init__(
        self,
        client: Any = None,
        *,
        namespace: str = "default",
        when_down: WhenDown = "local",
        retry_interval: float = 5.0,
        key_ttl: float = 3600.0,
        on_event: Callable[[StoreEvent], object] | None = None,
        async_client: Any = None,
        _url: str | None = None,
        _client_kwargs: dict[str, Any] | None = None,
    ) -> None:
        import redis
        import redis.asyncio

        if isinstance(client, redis.asyncio.Redis):
            client, async_client = None, client
        if client is None and async_client is None:
            raise ValueError("RedisStore needs a redis client; or use RedisStore.from_url(url)")
        if client is not None and not isinstance(client, redis.Redis):
            raise ValueError(f"client must be a redis.Redis, got {type(client).__name__}")
        _check.text("namespace", namespace, fix="like namespace='myapp'")
        if not namespace or any(c in namespace for c in "{} "):
            raise ValueError(f"namespace must be a non-empty str without braces, got {namespace!r}")
        _check.function("on_event", on_event, "taking a surefoot.stores.StoreEvent")
        if when_down not in ("local", "allow", "deny"):
            raise ValueError(f"when_down must be 'local', 'allow' or 'deny', got {when_down!r}")
        for label, v in (("retry_interval", retry_interval), ("key_ttl", key_ttl)):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise TypeError(f"{label} must be a finite number of seconds > 0, got {v!r}")
            if not 0 < v < math.inf:
                raise ValueError(f"{label} must be a finite number of seconds > 0, got {v!r}")
        self.namespace = namespace
        self.prefix = f"surefoot:{namespace}:"
        self.key_ttl = float(key_ttl)
        self.local = MemoryStore()
        where = (
            redact_url(_url) if _url else _describe(client if client is not None else async_client)
        )
        self._link = Link(
            client,
            async_client,
            url=_url,
            where=where,
            when_down=when_down,
            retry_interval=float(retry_interval),
            on_event=on_event,
            client_kwargs=_client_kwargs or {},
        )
        self._clean: dict[str, int] = {}  # name -> an admitted ticket that saw 0 failures
        self._rates: Any = None
        self._deposit_lock = threading.Lock()
        self._deposits: dict[str, float] = {}
        self._deposited: dict[str, float] = {}
        self._capacities: dict[str, float] = {}
        if _url is None and client is not None:
            kw = client.connection_pool.connection_kwargs
            if kw.get("socket_timeout") is None or kw.get("socket_connect_timeout") is None:
                import logging

                logging.getLogger("surefoot.stores").warning(
                    "surefoot: the Redis client for %s has no socket_timeout/"
                    "socket_connect_timeout: a slow Redis will stall guarded calls",
                    where,
                )

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        namespace: str = "default",
        timeout: float = 0.25,
        when_down: WhenDown = "local",
        retry_interval: float = 5.0,
        key_ttl: float = 3600.0,
        on_event: Callable[[StoreEvent], object] | None = None,
        **client_kwargs: Any,
    ) -> RedisStore:
        """A store on the Redis at ``url`` (``redis://[[user]:password@]host:port/db``,
        ``rediss://`` or ``unix://``), with socket timeouts of ``timeout`` seconds (0.25) and one
        reconnect on a dropped connection. Extra keyword arguments go to redis-py."""
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        check_url(url)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
            raise ValueError(f"timeout must be a number of seconds > 0, got {timeout!r}")
        kwargs: dict[str, Any] = {
            "socket_timeout": timeout,
            "socket_connect_timeout": timeout,
            "retry_on_timeout": False,
            **client_kwargs,
        }
        sync_kwargs = {"retry": Retry(NoBackoff(), 1, (redis.ConnectionError,)), **kwargs}
        client = redis.Redis.from_url(url, **sync_kwargs)
        return cls(
            client,
            namespace=namespace,
            when_down=when_down,
            retry_interval=retry_interval,
            key_ttl=key_ttl,
            on_event=on_event,
            _url=url,
            _client_kwargs=kwargs,
        )

    def __repr__(self) -> str:
        state = "down" if self._link.degraded else "up"
        return f"RedisStore({self._link.where!r}, namespace={self.namespace!r}, {state})"

    @property
    def available(self) -> bool:
        """False from a failed Redis call until one succeeds again."""
        return not self._link.degraded

    @property
    def when_down(self) -> WhenDown:
        return self._link.when_down

    def add_event_listener(self, fn: Callable[[StoreEvent], object], *, weak: bool = False) -> None:
        """Also call ``fn(event)`` with every :class:`StoreEvent` (after ``on_event``): any
        number of listeners, so every guard or breaker sharing this store can hear the switches.
        Adding the same callable twice has no effect. ``weak=True`` (for a bound method) keeps
        no reference to its object: the listener goes away with it."""
        self._link.add_listener(fn, weak=weak)

    def remove_event_listener(self, fn: Callable[[StoreEvent], object]) -> None:
        """Stop calling ``fn``; unknown listeners are ignored."""
        self._link.remove_listener(fn)

    def ping(self) -> None:
        """Check the connection now: raises :class:`surefoot.ConfigurationError` on a wrong
        password, ``redis.ConnectionError`` when unreachable. Call it at startup."""
        from surefoot.errors import ConfigurationError

        link = self._link
        if link.client is None:
            raise ConfigurationError("ping() needs a sync client; use RedisStore.from_url(...)")
        try:
            link.client.ping()
        except Exception as exc:
            if isinstance(exc, link.auth_errors) or str(exc).startswith(("NOAUTH", "WRONGPASS")):
                link.translate(exc, [])
            raise

    # -- the round trip, with the fallback ------------------------------------------------------

    def _run(self, script: Script, keys: Sequence[str], args: Sequence[object]) -> Any:
        if self._link.down:
            return _DOWN
        try:
            return self._link.call(script, keys, args)
        except Down:
            return _DOWN

    async def _arun(self, script: Script, keys: Sequence[str], args: Sequence[object]) -> Any:
        if self._link.down:
            return _DOWN
        try:
            return await self._link.acall(script, keys, args)
        except Down:
            return _DOWN

    def _bkeys(self, name: str) -> list[str]:
        k = f"{self.prefix}br:{{{name}}}"
        return [k, k + ":win"]

    def _bttl(self, config: BreakerConfig) -> int:
        return _ttl(
            max(self.key_ttl, config.recovery_timeout + config.probe_timeout + config.window)
        )

    # -- breaker --------------------------------------------------------------------------------

    def closed_ticket(self, name: str) -> int:
        if not self._link.down:
            return REJECTED  # the admission script is the only fleet-wide truth
        mode = self._link.when_down
        if mode == "local":
            t = self.local.closed_ticket(name)
            return t + LOCAL if t >= 0 else REJECTED
        return ALLOW if mode == "allow" else REJECTED

    def _admit_args(
        self, name: str, config: BreakerConfig
    ) -> tuple[Script, list[str], list[object]]:
        return _S["admit"], self._bkeys(name)[:1], [config.probe_timeout, self._bttl(config)]

    def _admitted(self, name: str, now: float, config: BreakerConfig, raw: Any) -> int:
        if raw is _DOWN:
            mode = self._link.when_down
            if mode == "local":
                t = self.local.admit(name, now, config)
                return t + LOCAL if t >= 0 else REJECTED
            return ALLOW if mode == "allow" else REJECTED
        ticket = int(raw[0])
        if ticket < 0:
            return REJECTED
        if not ticket & 1 and int(raw[1]) == 0:
            self._clean[name] = ticket
        else:
            self._clean.pop(name, None)
        return ticket

    def admit(self, name: str, now: float, config: BreakerConfig) -> int:
        return self._admitted(name, now, config, self._run(*self._admit_args(name, config)))

    async def aadmit(self, name: str, now: float, config: BreakerConfig) -> int:
        return self._admitted(name, now, config, await self._arun(*self._admit_args(name, config)))

    def _record_args(
        self, name: str, ticket: int, outcome: int, config: BreakerConfig
    ) -> tuple[Script, list[str], list[object]] | None:
        """The script call, or None when nothing needs writing."""
        if ticket < 0 or ticket >= LOCAL:
            return None
        ratio = config.mode == "ratio"
        if outcome == SUCCESS and not ratio and self._clean.get(name) == ticket:
            return None  # admitted with no failures to clear: the success path writes nothing
        if outcome != SUCCESS:
            # A failure recorded from here: a later success of a call admitted before it has
            # a count to clear (the policy's rule: a success resets the consecutive count).
            self._clean.pop(name, None)
        args: list[object] = [
            ticket,
            outcome,
            config.failure_threshold,
            config.recovery_timeout,
            1 if ratio else 0,
            config.failure_ratio,
            config.window,
            config.minimum_throughput,
            self._bttl(config),
        ]
        return _S["record"], self._bkeys(name), args

    def _recorded(
        self, name: str, ticket: int, outcome: int, now: float, config: BreakerConfig, raw: Any
    ) -> Transition | None:
        if raw is _DOWN:
            if self._link.when_down != "local" or outcome == NEUTRAL:
                return None
            t = self.local.closed_ticket(name)  # a shared call failed while Redis was down:
            return self.local.record(name, t, outcome, now, config) if t >= 0 else None
        return _CODES.get(int(raw))

    def _record_local(
        self, name: str, ticket: int, outcome: int, now: float, config: BreakerConfig
    ) -> Transition | None:
        """The outcome of a call admitted while Redis was down (locally, or let through)."""
        if ticket >= ALLOW:
            return None
        return self.local.record(name, ticket - LOCAL, outcome, now, config)

    def record(
        self, name: str, ticket: int, outcome: int, now: float, config: BreakerConfig
    ) -> Transition | None:
        if ticket >= LOCAL:
            return self._record_local(name, ticket, outcome, now, config)
        call = self._record_args(name, ticket, outcome, config)
        raw = None if call is None else self._run(*call)
        return None if call is None else self._recorded(name, ticket, outcome, now, config, raw)

    async def arecord(
        self, name: str, ticket: int, outcome: int, now: float, config: BreakerConfig
    ) -> Transition | None:
        if ticket >= LOCAL:
            return self._record_local(name, ticket, outcome, now, config)
        call = self._record_args(name, ticket, outcome, config)
        raw = None if call is None else await self._arun(*call)
        return None if call is None else self._recorded(name, ticket, outcome, now, config, raw)

    def _snapped(self, name: str, now: float, config: BreakerConfig, raw: Any) -> BreakerSnapshot:
        if raw is _DOWN:
            mode = self._link.when_down
            if mode == "local":
                return self.local.snapshot(name, now, config)
            if mode == "allow":
                return BreakerSnapshot(_CLOSED, 0, 0, 0, 0.0)
            return BreakerSnapshot(_OPEN, 0, 0, 0, self._link.down_for())
        st, ep, f, c, wait = raw
        return BreakerSnapshot(_STATES[int(st)], int(ep), int(f), int(c), float(wait))

    def _snapshot_args(
        self, name: str, config: BreakerConfig
    ) -> tuple[Script, list[str], list[object]]:
        return (
            _S["snapshot"],
            self._bkeys(name),
            [1 if config.mode == "ratio" else 0, config.window],
        )

    def snapshot(self, name: str, now: float, config: BreakerConfig) -> BreakerSnapshot:
        return self._snapped(name, now, config, self._run(*self._snapshot_args(name, config)))

    async def asnapshot(self, name: str, now: float, config: BreakerConfig) -> BreakerSnapshot:
        return self._snapped(
            name, now, config, await self._arun(*self._snapshot_args(name, config))
        )

    def reset(self, name: str) -> Transition | None:
        local = self.local.reset(name)
        self._clean.pop(name, None)
        raw = self._run(_S["reset"], self._bkeys(name), [_ttl(self.key_ttl)])
        if raw is _DOWN:
            return local if self._link.when_down == "local" else None
        old = _STATES[int(raw)]
        return None if old is _CLOSED else (old, _CLOSED)


def _describe(client: Any) -> str:
    try:
        kw = client.connection_pool.connection_kwargs
        if "path" in kw:
            return f"unix://{kw['path']}"
        return f"redis://{kw.get('host', '?')}:{kw.get('port', '?')}/{kw.get('db', 0)}"
    except Exception:
        return repr(client)
