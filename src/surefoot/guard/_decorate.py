"""``@surefoot.resilient(...)``: a :class:`Guard` as a decorator for functions and coroutines."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, overload

from surefoot.guard._guard import Guard
from surefoot.guard._wrap import wrap

if TYPE_CHECKING:
    from surefoot.clock import Clock
    from surefoot.guard._breaker import CircuitBreaker
    from surefoot.guard._budget import BoundBudget, RetryBudget
    from surefoot.guard._hooks import GuardHooks
    from surefoot.policy._types import OnError

__all__ = ["resilient"]

P = ParamSpec("P")
R = TypeVar("R")


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
    on_error: OnError | None = None,
    timeout: float | None = None,
    breaker: CircuitBreaker | None = None,
    budget: RetryBudget | BoundBudget | None = None,
    budget_key: str | None = None,
    clock: Clock | None = None,
    random: Callable[[], float] | None = None,
    hooks: GuardHooks | object | None = None,
    operation: str | None = None,
) -> Callable[[Callable[P, R]], Callable[P, R]]: ...


def resilient(fn: Callable[P, R] | None = None, /, **options: Any) -> Any:
    """Retry, deadline, breaker and budget for a function or a coroutine function.

    ``@resilient`` or ``@resilient(retries=3, timeout=30, breaker=b)``: takes the options of
    :class:`surefoot.Guard`, validated at decoration time. The guard is ``wrapper.guard``.
    """
    guard = Guard(**options)
    if fn is None:
        return functools.partial(wrap, guard)
    return wrap(guard, fn)
