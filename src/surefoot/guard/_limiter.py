"""A client-side rate limiter fed by the providers' rate-limit headers: :class:`SharedRateLimiter`.

Every response's headers go to :meth:`SharedRateLimiter.observe` (OpenAI ``x-ratelimit-*``,
Anthropic ``anthropic-ratelimit-*``, IETF ``RateLimit``, through
:func:`surefoot.parse_ratelimit_headers`); every request first asks
:meth:`~SharedRateLimiter.acquire` (or waits in :meth:`~SharedRateLimiter.throttle`). The limiter
keeps, per key, the remaining requests and tokens and when each refills (the rules:
:mod:`surefoot.policy._buckets`):

- a request is let through (and counted) while both buckets can pay for it;
- a bucket that cannot pay makes the caller wait until its reset time;
- below ``pace_below`` (10 %) of a known limit, requests are spread evenly over the time left
  until the reset, so a fleet slows down *before* it gets a 429 instead of after;
- once a reset time passes, the bucket is forgotten until the next response reports it.

With a :class:`surefoot.stores.RedisStore` the state is shared by every process (atomic scripts
on the server's clock; the async methods use its asyncio client); otherwise it is this
process's (:class:`surefoot.stores.MemoryRateStore`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from surefoot import _check
from surefoot._scope import time_left
from surefoot.clock import SYSTEM_CLOCK, Clock
from surefoot.errors import RateLimitError
from surefoot.guard import _io_sync
from surefoot.guard._lazy import AsyncFacade, AsyncMethod
from surefoot.stores._rates import MemoryRateStore

if TYPE_CHECKING:
    from surefoot._classify._ratelimit import RateLimitInfo

__all__ = ["SharedRateLimiter"]


def _resolve(store: object) -> Any:
    if store is None:
        return MemoryRateStore()
    if hasattr(store, "rl_acquire"):
        return store
    from surefoot.stores import MemoryStore

    if isinstance(store, MemoryStore):
        return MemoryRateStore()
    from surefoot.stores._resolve import resolve_store

    out = resolve_store(store)
    if not hasattr(out, "rl_acquire"):
        raise TypeError(
            "store must be a surefoot.stores.RedisStore, a Redis URL or a redis-py client, or "
            f"None, got {_check.shown(store)}"
        )
    return out


def _fields(info: RateLimitInfo) -> tuple[float | None, ...]:
    return (
        info.remaining_requests,
        info.reset_requests_s,
        info.limit_requests,
        info.remaining_tokens,
        info.reset_tokens_s,
        info.limit_tokens,
    )


class SharedRateLimiter:
    """Slow a fleet down before the provider's limits are hit; see the module docstring.

    ``store``: ``None`` (this process), a :class:`surefoot.stores.RedisStore`, a Redis URL or
    client (shared). ``key`` names the limit, e.g. ``"openai:gpt-4o"`` (one per provider key and
    model). ``pace_below`` (0.1) the share of a limit below which requests are spaced;
    ``default_reset`` (1 s) how long a remaining count without a reset time is trusted;
    ``max_wait`` (60 s) the longest :meth:`throttle` waits before raising
    :class:`surefoot.RateLimitError` (also raised when the wait would pass the deadline in force).
    """

    def __init__(
        self,
        store: object = None,
        key: str = "default",
        *,
        pace_below: float = 0.1,
        default_reset: float = 1.0,
        max_wait: float = 60.0,
        clock: Clock | None = None,
    ) -> None:
        self.key = _check.text("key", key)
        self.pace_below = _check.ratio("pace_below", pace_below, open_low=False)
        self.default_reset = _check.seconds("default_reset", default_reset)
        self.max_wait = _check.seconds("max_wait", max_wait)
        self.clock: Clock = _check.clock("clock", clock) or SYSTEM_CLOCK
        self.store: Any = _resolve(store)
        self._astore: Any = (
            self.store if hasattr(self.store, "arl_acquire") else AsyncFacade(self.store)
        )

    def __repr__(self) -> str:
        return f"SharedRateLimiter(key={self.key!r}, store={self.store!r})"

    @staticmethod
    def _fields(headers_or_info: object) -> tuple[float | None, ...] | None:
        """The observed fields of a response's headers (or a RateLimitInfo), ``None`` when it
        reports no limit."""
        from surefoot._classify._ratelimit import RateLimitInfo, parse_ratelimit_headers

        info = (
            headers_or_info
            if isinstance(headers_or_info, RateLimitInfo)
            else parse_ratelimit_headers(headers_or_info)
        )
        return None if info.empty else _fields(info)

    def _refuse(self, waited: float, wait: float) -> None:
        """Raise :class:`surefoot.RateLimitError` when a wait of ``wait`` seconds (after
        ``waited``) would pass ``max_wait`` or the deadline in force."""
        left = time_left()
        past_deadline = left is not None and wait > left
        if waited + wait > self.max_wait or past_deadline:
            raise RateLimitError(
                f"rate limit for {self.key!r}: the next slot is {wait:.3g}s away, more than "
                f"{'the deadline' if past_deadline else 'max_wait'} allows",
                retry_after=wait,
                service=self.key,
            )

    observe = _io_sync.observe
    acquire = _io_sync.acquire
    throttle = _io_sync.throttle
    aobserve = AsyncMethod("observe")
    aacquire = AsyncMethod("acquire")
    athrottle = AsyncMethod("throttle")
