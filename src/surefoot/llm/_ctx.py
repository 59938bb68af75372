"""One run's state (:class:`RunCtx`) and the run outcomes as typed errors.

Outcome codes (the task-outcome table of the catalog):

- ``TASK_DEADLINE_EXCEEDED``: :class:`surefoot.RunTimeoutError`, the whole-run ``timeout``.
- ``TASK_STOPPED``: :class:`surefoot.TaskStoppedError`, ``client.stop(task_id, reason)``.
- ``LLM_NO_PROGRESS``: :class:`surefoot.LLMError`, the turn limit or a repeated tool call.
- ``LLM_CONFIG_CONTEXT_TOO_SMALL``: :class:`surefoot.LLMError` of type ``CONTEXT_TOO_LONG``
  (like the provider's own context-too-long answer, so one ``except LLMError`` and an
  ``error_type`` test catch both): the request fits no configured model's context window.
- ``LLM_PROVIDERS_UNAVAILABLE``: :class:`surefoot.LLMError` (retryable), every model of a chain
  of several stayed unavailable through the retries; ``__cause__`` is the last failure and
  ``context.metadata["causes"]`` summarizes each model's final error. A chain of one model
  raises that model's own final error instead (a :class:`surefoot.RateLimitError` after the
  retries, a :class:`surefoot.CircuitOpenError` when its breaker is open...).
- ``CONTENT_FILTERED``: :class:`surefoot.LLMError`, no model produced an acceptable answer.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any

from surefoot._scope import current_deadline, effective
from surefoot.errors import (
    ErrorContext,
    LLMError,
    LLMErrorType,
    RunTimeoutError,
    SurefootError,
    TaskStoppedError,
)
from surefoot.llm._messages import Usage
from surefoot.llm._options import Options
from surefoot.llm._result import ModelAttempt
from surefoot.policy._records import failure_fields
from surefoot.policy._types import Decision

__all__ = [
    "RunCtx",
    "cause_summary",
    "content_filtered",
    "context_too_small",
    "no_progress",
    "providers_unavailable",
]

_log = logging.getLogger("surefoot.llm")


class RunCtx:
    """What the flow of one run needs besides the messages: options, deadline, records."""

    __slots__ = (
        "ambient",
        "attempts",
        "deadline",
        "failed_usage",
        "now",
        "operation",
        "opts",
        "stop_reason",
        "task_id",
        "timeout",
        "turn",
    )

    def __init__(
        self,
        opts: Options,
        *,
        task_id: str | None,
        timeout: float | None,
        operation: str,
        stop_reason: Callable[[], str | None],
    ) -> None:
        self.opts = opts
        self.task_id = task_id
        self.operation = operation
        self.timeout = timeout
        self.now = opts.clock.now
        #: The run's absolute deadline: its own timeout within any deadline already in force
        #: (``surefoot.deadline()``, an enclosing guard or agent action).
        self.deadline = effective(timeout, opts.clock)
        #: True when that deadline is the one already in force, not this run's own timeout.
        self.ambient = self.deadline is not None and self.deadline == current_deadline()
        self.attempts: list[ModelAttempt] = []
        #: The tokens the provider reported for attempts that did not give the answer (a cut
        #: or restarted stream, an error body that carried usage).
        self.failed_usage = Usage()
        self.stop_reason = stop_reason
        self.turn = 0

    def left(self) -> float | None:
        """Seconds before the deadline (``None`` without one); raises once it has passed."""
        if self.deadline is None:
            return None
        left = self.deadline - self.now()
        if left <= 0:
            raise self.timed_out(None)
        return left

    def check(self) -> float | None:
        """Between two steps: raise if stopped or past the deadline; else the time left."""
        reason = self.stop_reason()
        if reason is not None:
            raise TaskStoppedError(
                reason=reason,
                task_id=self.task_id,
                context=ErrorContext(operation=self.operation, task_id=self.task_id),
            )
        return self.left()

    def timed_out(self, cause: BaseException | None, attempt: int | None = None) -> RunTimeoutError:
        """The run's deadline error (``attempt`` is accepted for the engine's loop)."""
        what = (
            f"within its timeout of {self.timeout:g}s"
            if self.timeout is not None and not self.ambient
            else "before the deadline in force"
        )
        err = RunTimeoutError(
            f"the run did not finish {what}",
            timeout=self.timeout,
            context=ErrorContext(operation=self.operation, task_id=self.task_id),
        )
        err.__cause__ = cause
        return err

    def record(
        self,
        model: str,
        attempt: int,
        error: BaseException | None,
        decision: Decision | None,
        outcome: str,
        *,
        wait: float = 0.0,
        reason: str = "",
        started: float | None = None,
    ) -> ModelAttempt:
        """Record one attempt outside the engine's loop and tell the hooks (``on_attempt``)."""
        item = self.make_record(
            model,
            attempt,
            error,
            decision,
            outcome,
            wait=wait,
            reason=reason,
            started=started,
            ended=self.now(),
        )
        self.attempts.append(item)
        hooks = self.opts.hooks
        if hooks is not None:
            _call_hook(hooks, "on_attempt", item)
        return item

    def make_record(
        self,
        model: str,
        attempt: int,
        error: BaseException | None,
        decision: Decision | None,
        outcome: str,
        *,
        wait: float = 0.0,
        reason: str = "",
        started: float | None = None,
        ended: float,
    ) -> ModelAttempt:
        """The record of one attempt of this run (the engine's loop keeps it and tells the
        hooks)."""
        if error is None:
            error_code = code = kind = None
            status = None
        else:
            error_code, code, kind, status = failure_fields(error)
        return ModelAttempt(
            attempt,
            error_code,
            code,
            kind,
            decision,
            wait,
            status,
            started,
            ended,
            model=model,
            outcome=outcome,
            reason=reason,
            turn=self.turn,
        )

    def give_up(self, error: BaseException) -> None:
        """Tell the hooks the run fails with ``error``; attach the attempts to it."""
        if self.attempts:
            with contextlib.suppress(AttributeError, TypeError):
                error.attempts = tuple(self.attempts)  # type: ignore[attr-defined]
            hooks = self.opts.hooks
            if hooks is not None:
                _call_hook(hooks, "on_give_up", self.attempts[-1], error)

    def error_context(self, err: SurefootError, **extra: Any) -> SurefootError:
        """``err`` with the run's operation and task id (and ``extra`` fields) in its context."""
        ctx = err.context
        if ctx.operation is None:
            ctx.operation = self.operation
        if ctx.task_id is None:
            ctx.task_id = self.task_id
        for k, v in extra.items():
            if v is not None and getattr(ctx, k, None) is None:
                setattr(ctx, k, v)
        return err


def _call_hook(hooks: object, name: str, *args: object) -> None:
    fn = getattr(hooks, name, None)
    if fn is None:
        return
    try:
        fn(*args)
    except Exception:
        _log.exception("surefoot: the %s hook raised; ignored", name)


def no_progress(message: str, ctx: RunCtx) -> LLMError:
    return LLMError(
        message,
        code="LLM_NO_PROGRESS",
        retryable=False,
        context=ErrorContext(operation=ctx.operation, task_id=ctx.task_id),
    )


def context_too_small(estimate: int, ctx: RunCtx) -> LLMError:
    windows = ", ".join(f"{m.name}={m.context_window}" for m in ctx.opts.models)
    return LLMError(
        f"the request needs about {estimate} tokens, more than every configured model's "
        f"context window ({windows}); configure a larger model or send a smaller request",
        error_type=LLMErrorType.CONTEXT_TOO_LONG,
        code="LLM_CONFIG_CONTEXT_TOO_SMALL",
        retryable=False,
        provider=ctx.opts.style,
        context=ErrorContext(operation=ctx.operation, task_id=ctx.task_id),
    )


def cause_summary(model: str, error: BaseException) -> dict[str, str | None]:
    """One model's final error for ``LLM_PROVIDERS_UNAVAILABLE``'s ``metadata["causes"]``."""
    error_code, code, kind, _status = failure_fields(error)
    return {"model": model, "error_code": error_code, "code": code, "kind": kind}


def providers_unavailable(
    cause: BaseException | None, ctx: RunCtx, causes: list[dict[str, str | None]] | None = None
) -> LLMError:
    names = ", ".join(m.name for m in ctx.opts.models)
    err = LLMError(
        f"every model ({names}) stayed unavailable through the retries; submit again later",
        error_type=LLMErrorType.SERVER_ERROR,
        code="LLM_PROVIDERS_UNAVAILABLE",
        retryable=True,
        provider=ctx.opts.style,
        context=ErrorContext(operation=ctx.operation, task_id=ctx.task_id),
    )
    err.context.metadata["causes"] = list(causes or ())
    err.__cause__ = cause
    return err


def content_filtered(cause: BaseException | None, ctx: RunCtx) -> LLMError:
    err = LLMError(
        "no configured model produced an acceptable answer (content filtered); change the request",
        error_type=LLMErrorType.CONTENT_FILTERED,
        code="CONTENT_FILTERED",
        retryable=False,
        provider=ctx.opts.style,
        context=ErrorContext(operation=ctx.operation, task_id=ctx.task_id),
    )
    err.__cause__ = cause
    return err
