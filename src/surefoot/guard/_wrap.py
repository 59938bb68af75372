"""A function run through a :class:`Guard`: the sync or the async driver's wrapper."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, cast

from surefoot.guard import _driver_sync

if TYPE_CHECKING:
    from surefoot.guard._guard import Guard

__all__ = ["wrap"]

P = ParamSpec("P")
R = TypeVar("R")


def wrap(guard: Guard, fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` run through ``guard``; the wrapper exposes the guard as ``.guard``."""
    if inspect.iscoroutinefunction(fn):
        from surefoot.guard._driver_async import awrap

        return cast(Callable[P, R], awrap(guard, cast(Callable[..., Awaitable[Any]], fn)))
    return _driver_sync.wrap(guard, fn)
