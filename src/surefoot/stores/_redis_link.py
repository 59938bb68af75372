"""The connection side of :class:`surefoot.stores.RedisStore`: clients, script calls, the switch
to local state when Redis is down, and the translation of Redis errors.

- **URLs** are checked before any I/O: only ``redis://``, ``rediss://`` and ``unix://``.
- **Timeouts.** Clients built from a URL get ``socket_timeout`` and ``socket_connect_timeout``
  (0.25 s each by default) and one immediate reconnect on a dropped connection (a Redis restart),
  never a retry of a timeout. A client you pass keeps its own settings: give it timeouts, or a
  slow Redis will stall your calls (a warning is logged when it has none).
- **Down.** A connection error or timeout switches the store to its ``when_down`` behaviour for
  ``retry_interval`` seconds; the next call after that tries Redis again. Each switch is logged
  once (``surefoot.stores``) and reported to ``on_event``.
- **Errors the user must fix** raise :class:`surefoot.ConfigurationError` and never fall back:
  a failed authentication or a missing permission, and a key of the wrong type.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

from surefoot.errors import ConfigurationError
from surefoot.stores._events import StoreEvent, WhenDown
from surefoot.stores._redis_lua import Script

__all__ = ["Link", "StoreEvent", "WhenDown", "check_url", "redact_url"]

_log = logging.getLogger("surefoot.stores")

_SCHEMES = ("redis", "rediss", "unix")


def check_url(url: object) -> str:
    """``url`` if it is a Redis URL, else a :class:`ValueError` naming the problem."""
    if not isinstance(url, str) or not url:
        raise ValueError(f"a Redis URL must be a non-empty str, got {type(url).__name__}")
    scheme = urlsplit(url).scheme
    if "://" not in url or scheme not in _SCHEMES:
        raise ValueError(
            f"unsupported Redis URL scheme {scheme!r} in {redact_url(url)!r}: use redis://host:port/db,"
            " rediss:// (TLS) or unix:///path/to/socket"
        )
    if scheme != "unix" and not urlsplit(url).hostname:
        raise ValueError(f"the Redis URL {redact_url(url)!r} names no host")
    return url


def redact_url(url: str) -> str:
    """The URL without its password."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()


def _auth_error(exc: BaseException, where: str) -> ConfigurationError:
    return ConfigurationError(
        f"Redis at {where} refused surefoot ({type(exc).__name__}: {exc}): authentication failed "
        "or the user lacks a permission. Fix the password (redis://:PASSWORD@host:port/0 or "
        "redis://USER:PASSWORD@...) or the ACL (surefoot needs EVALSHA, SCRIPT LOAD, GET, DEL, "
        "SCAN on its keys); surefoot does not fall back to local state for this."
    )


class Link:
    """One store's clients and its up/down state. Thread-safe; no lock is held during I/O."""

    def __init__(
        self,
        client: Any,
        aclient: Any,
        *,
        url: str | None,
        where: str,
        when_down: WhenDown,
        retry_interval: float,
        on_event: Callable[[StoreEvent], object] | None,
        client_kwargs: dict[str, Any],
    ) -> None:
        self.client = client
        self._aclient = aclient
        self._aloop: asyncio.AbstractEventLoop | None = None
        self.url = url
        self.where = where
        self.when_down = when_down
        self.retry_interval = retry_interval
        self.on_event = on_event
        #: More listeners (``RedisStore.add_event_listener``): several guards or breakers sharing
        #: one store each hear every event. An entry is a callable or a ``weakref.WeakMethod``.
        self.listeners: list[Any] = []
        self._client_kwargs = client_kwargs
        self._down_until = 0.0  # monotonic; 0 = up
        self._lock = threading.Lock()
        from redis import exceptions as rx

        self._rx = rx
        self._down_errors: tuple[type[BaseException], ...] = (
            rx.ConnectionError,
            rx.TimeoutError,
            OSError,
            asyncio.TimeoutError,
        )
        self.auth_errors: tuple[type[BaseException], ...] = (
            rx.AuthenticationError,
            rx.AuthorizationError,
            rx.NoPermissionError,
        )

    # -- up / down -----------------------------------------------------------------------------

    @property
    def down(self) -> bool:
        """True while the store runs on ``when_down`` and will not try Redis yet."""
        return self._down_until != 0.0 and time.monotonic() < self._down_until

    @property
    def degraded(self) -> bool:
        """True from a failure until Redis answers again."""
        return self._down_until != 0.0

    def down_for(self) -> float:
        return max(0.0, self._down_until - time.monotonic()) if self._down_until else 0.0

    def _went_down(self, exc: BaseException) -> None:
        with self._lock:
            first = self._down_until == 0.0
            self._down_until = time.monotonic() + self.retry_interval
        if first:
            _log.warning(
                "surefoot: Redis at %s is unreachable (%s: %s); using %s state until it answers "
                "again (retrying at most every %gs)",
                self.where,
                type(exc).__name__,
                exc,
                self.when_down,
                self.retry_interval,
            )
            self._emit(StoreEvent("unavailable", self.where, self.when_down, f"{exc!r}"))

    def _came_back(self) -> None:
        with self._lock:
            was = self._down_until != 0.0
            self._down_until = 0.0
        if was:
            _log.warning("surefoot: Redis at %s answers again; shared state resumed", self.where)
            self._emit(StoreEvent("restored", self.where, self.when_down))

    def _emit(self, event: StoreEvent) -> None:
        targets: list[Callable[[StoreEvent], object]] = []
        if self.on_event is not None:
            targets.append(self.on_event)
        dead = False
        for entry in self.listeners:
            if isinstance(entry, weakref.WeakMethod):
                fn = entry()
                if fn is None:
                    dead = True
                    continue
                targets.append(fn)
            else:
                targets.append(entry)
        if dead:
            self.listeners = [
                e
                for e in self.listeners
                if not isinstance(e, weakref.WeakMethod) or e() is not None
            ]
        for fn in targets:
            try:
                fn(event)
            except Exception:
                _log.exception("surefoot: a store on_event callback raised; ignored")

    def add_listener(self, fn: Callable[[StoreEvent], object], *, weak: bool = False) -> None:
        entry: Any = weakref.WeakMethod(fn) if weak else fn
        if any(_same(e, fn) for e in self.listeners):
            return
        self.listeners = [*self.listeners, entry]  # copy-on-write: _emit never sees a mutation

    def remove_listener(self, fn: Callable[[StoreEvent], object]) -> None:
        self.listeners = [e for e in self.listeners if not _same(e, fn)]

    # -- calls ---------------------------------------------------------------------------------

    def translate(self, exc: BaseException, keys: Sequence[str]) -> bool:
        """Translate ``exc``: raise a :class:`ConfigurationError`, or return True (Redis is
        down: use the fallback), or False (re-raise the original)."""
        if isinstance(exc, self.auth_errors):
            raise _auth_error(exc, self.where) from exc
        if isinstance(exc, self._down_errors):
            self._went_down(exc)
            return True
        msg = str(exc)
        if msg.startswith(("NOAUTH", "WRONGPASS", "NOPERM")):
            raise _auth_error(exc, self.where) from exc
        if "WRONGTYPE" in msg:
            raise ConfigurationError(
                f"a Redis key surefoot uses holds a value of another type: one of {list(keys)!r} "
                f"at {self.where}. Another program wrote it; surefoot never overwrites a key it "
                "cannot prove is its own. Delete the key, or choose another namespace= for the "
                "store."
            ) from exc
        if msg.startswith(("LOADING", "BUSY", "MASTERDOWN", "READONLY", "TRYAGAIN")):
            self._went_down(exc)  # a restarting or failing-over server: temporarily down
            return True
        return False

    def call(self, script: Script, keys: Sequence[str], args: Sequence[object]) -> Any:
        """EVALSHA ``script`` (loading it on NOSCRIPT); raises ``_Down`` when Redis is down."""
        client = self.client
        if client is None:
            raise ConfigurationError(
                "this RedisStore has only a redis.asyncio client, and a sync call needs a sync "
                "one: build it with RedisStore.from_url(...) or pass client=redis.Redis(...) too"
            )
        try:
            try:
                out = client.evalsha(script.sha, len(keys), *keys, *args)
            except self._rx.NoScriptError:
                client.script_load(script.source)
                out = client.evalsha(script.sha, len(keys), *keys, *args)
        except Exception as exc:
            if self.translate(exc, keys):
                raise Down() from exc
            raise
        if self._down_until:
            self._came_back()
        return out

    def command(self, keys: Sequence[str], fn: Callable[[Any], Any]) -> Any:
        """Run ``fn(client)`` with the same error handling as :meth:`call`."""
        try:
            out = fn(self.client)
        except Exception as exc:
            if self.translate(exc, keys):
                raise Down() from exc
            raise
        if self._down_until:
            self._came_back()
        return out

    def aclient(self) -> Any:
        """The asyncio client: the one given, else one built from the URL for the running loop
        (a redis.asyncio pool must not cross event loops); ``None`` when neither exists."""
        if self.url is None:
            return self._aclient
        loop = asyncio.get_running_loop()
        if self._aclient is None or self._aloop is not loop:
            import redis.asyncio

            self._aclient = redis.asyncio.Redis.from_url(self.url, **self._client_kwargs)
            self._aloop = loop
        return self._aclient

    async def acall(self, script: Script, keys: Sequence[str], args: Sequence[object]) -> Any:
        client = self.aclient()
        if client is None:
            return self.call(script, keys, args)
        try:
            try:
                out = await client.evalsha(script.sha, len(keys), *keys, *args)
            except self._rx.NoScriptError:
                await client.script_load(script.source)
                out = await client.evalsha(script.sha, len(keys), *keys, *args)
        except Exception as exc:
            if self.translate(exc, keys):
                raise Down() from exc
            raise
        if self._down_until:
            self._came_back()
        return out


def _same(entry: Any, fn: Callable[[StoreEvent], object]) -> bool:
    if isinstance(entry, weakref.WeakMethod):
        entry = entry()
    return entry is not None and bool(entry == fn)


class Down(Exception):
    """Internal: Redis is unreachable for this call; the store uses its ``when_down`` path."""
