"""What a guarded run leaves behind: :class:`AttemptRecord`, :class:`RunRecord`, and the
telemetry :class:`GuardHooks`."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from surefoot.errors import SurefootError, error_code_for
from surefoot.policy._types import Decision
from surefoot.stores._base import BreakerState
from surefoot.stores._redis_link import StoreEvent

__all__ = [
    "AttemptRecord",
    "GuardHooks",
    "RunRecord",
    "attach_attempts",
    "describe",
    "failure_fields",
]

_log = logging.getLogger("surefoot.guard")


@dataclass(frozen=True, slots=True)
class AttemptRecord:
    """One attempt of a guarded run.

    - ``attempt``: zero-based number.
    - ``error_code`` / ``code`` / ``kind``: the failure's ``SUREFOOT-*`` code, catalog code and
      kind (a foreign exception that is no transport failure gives its class name as
      ``error_code`` and ``None`` for the others); all ``None`` for a success.
    - ``decision``: what the policy decided after the failure (``None`` for a success).
    - ``wait``: the seconds waited before the next attempt (0 when there is none).
    - ``status``: the HTTP status of a completed non-2xx response, when there was one.
    - ``started`` / ``ended``: clock readings; ``started`` is ``None`` for a first attempt that
      ran on the unrecorded fast path (:meth:`Guard.call` does not read the clock before it).
    - ``model``: the model the attempt called, when there is one (the LLM client fills it in;
      a plain guarded call leaves it ``None``).
    """

    attempt: int
    error_code: str | None
    code: str | None
    kind: str | None
    decision: Decision | None
    wait: float
    status: int | None
    started: float | None
    ended: float
    model: str | None = None

    @property
    def ok(self) -> bool:
        return self.error_code is None


@dataclass(frozen=True, slots=True)
class RunRecord:
    """Every attempt of one run, and how it ended (``"success"``, ``"failure"``,
    ``"timeout"`` or ``"rejected"`` by an open circuit)."""

    attempts: tuple[AttemptRecord, ...]
    outcome: Literal["success", "failure", "timeout", "rejected"]

    @property
    def retries(self) -> int:
        return max(0, len(self.attempts) - 1)

    @property
    def total_wait(self) -> float:
        return sum(a.wait for a in self.attempts)


def failure_fields(error: BaseException) -> tuple[str, str | None, str | None, int | None]:
    """``(error_code, code, kind, status)`` of a failed attempt's record."""
    if isinstance(error, SurefootError):
        return error_code_for(type(error)), error.code, error.kind, error.context.http_status
    return type(error).__qualname__, None, None, None


def describe(
    error: BaseException,
    attempt: int,
    decision: Decision | None,
    wait: float,
    started: float | None,
    ended: float,
    *,
    model: str | None = None,
) -> AttemptRecord:
    """The record of a failed attempt."""
    error_code, code, kind, status = failure_fields(error)
    return AttemptRecord(
        attempt, error_code, code, kind, decision, wait, status, started, ended, model
    )


def attach_attempts(
    error: BaseException, records: list[AttemptRecord], operation: str | None
) -> None:
    """Attach the run's records to the error the caller will see, as ``error.attempts``."""
    try:
        error.attempts = tuple(records)  # type: ignore[attr-defined]
    except (AttributeError, TypeError):  # a foreign exception with __slots__
        pass
    if isinstance(error, SurefootError) and records:
        ctx = error.context
        if ctx.attempt is None:
            ctx.attempt = records[-1].attempt
        if ctx.operation is None and operation is not None:
            ctx.operation = operation


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

    @classmethod
    def coerce(cls, hooks: object) -> GuardHooks | None:
        if hooks is None or isinstance(hooks, GuardHooks):
            return hooks
        found = {
            name: getattr(hooks, name) for name in _HOOKS if callable(getattr(hooks, name, None))
        }
        if not found:
            raise ValueError(
                "hooks must be a GuardHooks or an object with on_attempt, on_retry, on_give_up, "
                "on_breaker_state_change or on_store_event methods"
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
