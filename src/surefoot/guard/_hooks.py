"""Telemetry callbacks: :class:`GuardHooks`, and :func:`safe_call`, which runs one."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from surefoot import _check
from surefoot.policy._records import AttemptRecord
from surefoot.policy._types import BreakerState

if TYPE_CHECKING:
    from surefoot.stores._events import StoreEvent

__all__ = ["GuardHooks", "safe_call"]

_log = logging.getLogger("surefoot.guard")


@dataclass(frozen=True, slots=True)
class GuardHooks:
    """Telemetry callbacks; each is optional. A hook that raises is logged and ignored.

    - ``on_attempt(record)``: after every attempt, successful or not.
    - ``on_retry(record)``: before the wait that precedes a retry.
    - ``on_give_up(record, error)``: when the run fails with ``error``.
    - ``on_breaker_state_change(name, old, new)``: every change of the breaker's state that
      this guard's calls cause, including ``open -> half_open`` when one of them is admitted as
      the probe (the breaker's own listeners hear changes from every caller).
    - ``on_store_event(event)``: a :class:`surefoot.stores.StoreEvent` when the breaker's or the
      budget's shared store (Redis) becomes unavailable or is restored; the guard subscribes at
      construction, as every other guard sharing the store may, and each store is heard once.

    Any object with some of these methods works too (duck-typed).
    """

    on_attempt: Callable[[AttemptRecord], object] | None = None
    on_retry: Callable[[AttemptRecord], object] | None = None
    on_give_up: Callable[[AttemptRecord, BaseException], object] | None = None
    on_breaker_state_change: Callable[[str, BreakerState, BreakerState], object] | None = None
    on_store_event: Callable[[StoreEvent], object] | None = None

    def __post_init__(self) -> None:
        for name in _HOOKS:  # a hook that is not callable would fail at its first call
            _check.function(name, getattr(self, name), "a function, or None")

    @classmethod
    def coerce(cls, hooks: object) -> GuardHooks | None:
        """``hooks`` as a :class:`GuardHooks` (``None`` stays ``None``); ``TypeError`` for an
        object with none of the hook methods."""
        if hooks is None or isinstance(hooks, GuardHooks):
            return hooks
        found = {
            name: getattr(hooks, name) for name in _HOOKS if callable(getattr(hooks, name, None))
        }
        if not found:
            raise TypeError(
                "hooks must be a surefoot.GuardHooks or an object with on_attempt, on_retry, "
                "on_give_up, on_breaker_state_change or on_store_event methods, or None, got "
                f"{_check.shown(hooks)}"
            )
        return cls(**found)


_HOOKS = ("on_attempt", "on_retry", "on_give_up", "on_breaker_state_change", "on_store_event")


def safe_call(fn: Callable[..., object] | None, *args: object) -> None:
    """Run a telemetry hook; its exceptions are logged, never raised."""
    if fn is None:
        return
    try:
        fn(*args)
    except Exception:
        _log.exception("surefoot: telemetry hook %r raised; ignored", fn)
