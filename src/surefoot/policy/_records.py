"""What a guarded run leaves behind: :class:`AttemptRecord` and :class:`RunRecord` (plain data)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from surefoot.errors import SurefootError, error_code_for
from surefoot.policy._types import Decision

__all__ = ["AttemptRecord", "RunRecord", "attach_attempts", "describe", "failure_fields"]


@dataclass(frozen=True, slots=True)
class AttemptRecord:
    """One attempt of a guarded run.

    - ``attempt``: zero-based number.
    - ``error_code`` / ``code`` / ``kind``: the failure's ``SUREFOOT-*`` code, catalog code and
      kind (a foreign exception that is no recognised failure gives its class name as
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
