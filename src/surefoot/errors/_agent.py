"""Failures of an agent's own steps: validation, contracts, knowledge, approvals, actions."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

from surefoot.errors._base import SurefootError

__all__ = [
    "ActionCategory",
    "ActionExecutionError",
    "ApprovalRequiredError",
    "ContractViolationError",
    "FallbackFailedError",
    "KnowledgeNotReadyError",
    "KnowledgeProblem",
    "SecurityError",
    "TaskCompleteError",
    "ValidationError",
]


class ValidationError(SurefootError):
    """Input or output failed a check: a schema, a response model, a guardrail."""

    default_code = "VALIDATION_ERROR"
    default_kind = "invalid_request"

    def __init__(
        self, message: str = "", *, errors: list[Any] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(message, **kwargs)
        self.errors: list[Any] = list(errors or [])


class ContractViolationError(ValidationError):
    """A pre- or post-condition of an action did not hold.

    ``contract_kind`` is ``"pre"`` or ``"post"`` (or another kind the user declared),
    ``violated_expression`` the clause's text and ``bindings`` the values it saw.
    """

    def __init__(
        self,
        message: str = "",
        *,
        contract_kind: str,
        violated_expression: str,
        bindings: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        if not message:
            message = f"{contract_kind}-condition failed: {violated_expression}"
        super().__init__(message, **kwargs)
        self.contract_kind = contract_kind
        self.violated_expression = violated_expression
        self.bindings: dict[str, Any] = dict(bindings or {})

    def _detail_fields(self) -> list[tuple[str, object]]:
        return [("contract", self.contract_kind)]


class KnowledgeProblem(enum.Enum):
    """Why a knowledge source is not ready."""

    MISSING = "MISSING"
    EMPTY = "EMPTY"
    UNREADABLE = "UNREADABLE"


class KnowledgeNotReadyError(ValidationError):
    """A knowledge source an agent depends on is missing, empty or unreadable."""

    def __init__(
        self,
        message: str = "",
        *,
        host: str | None = None,
        source: str | None = None,
        problem: KnowledgeProblem = KnowledgeProblem.MISSING,
        **kwargs: Any,
    ) -> None:
        self.problem = KnowledgeProblem(problem)
        if not message:
            message = f"knowledge source {source!r} is {self.problem.value.lower()}"
        super().__init__(message, **kwargs)
        self.host = host
        self.source = source

    def _detail_fields(self) -> list[tuple[str, object]]:
        return [("problem", self.problem.value), ("source", self.source), ("host", self.host)]


class ApprovalRequiredError(SurefootError):
    """An action needs a person's approval before it runs. Never wrapped; reaches the caller."""

    default_code = "APPROVAL_REQUIRED"
    default_kind = "permission_denied"

    def __init__(
        self,
        message: str = "",
        *,
        action: str | None = None,
        reason: str | None = None,
        **kwargs: Any,
    ) -> None:
        if not message:
            message = f"action {action!r} requires approval" + (f": {reason}" if reason else "")
        super().__init__(message, **kwargs)
        self.action = action
        self.reason = reason

    def _detail_fields(self) -> list[tuple[str, object]]:
        return [("action", self.action)]


class TaskCompleteError(SurefootError):
    """Raised inside an action or tool to end the run loop now, with ``result``.

    Not a failure: the run loop catches it and completes the run with its result.
    """

    default_code = "TASK_COMPLETE"
    default_kind = "unknown"

    def __init__(self, result: Any = None, message: str = "", **kwargs: Any) -> None:
        super().__init__(message or "task complete", **kwargs)
        self.result = result


class ActionCategory(enum.Enum):
    """Why an action call failed; the category decides the recovery and retryability."""

    NETWORK = "NETWORK"
    PARAMETER = "PARAMETER"
    CLIENT_ERROR = "CLIENT_ERROR"
    SERVER_ERROR = "SERVER_ERROR"
    VALIDATION = "VALIDATION"
    LLM = "LLM"
    MCP = "MCP"
    INVOCATION = "INVOCATION"
    UNKNOWN = "UNKNOWN"

    @property
    def retryable(self) -> bool:
        return self in _RETRYABLE_CATEGORIES


_RETRYABLE_CATEGORIES = frozenset(
    {ActionCategory.NETWORK, ActionCategory.SERVER_ERROR, ActionCategory.LLM, ActionCategory.MCP}
)


class ActionExecutionError(SurefootError):
    """An action call failed. ``category`` names the cause; the original is ``__cause__``."""

    default_kind = "unknown"

    def __init__(
        self,
        message: str = "",
        *,
        action_name: str,
        action_type: str = "local",
        category: ActionCategory = ActionCategory.UNKNOWN,
        **kwargs: Any,
    ) -> None:
        self.category = ActionCategory(category)
        kwargs.setdefault("code", self.category.value)
        super().__init__(message, **kwargs)
        self.action_name = action_name
        self.action_type = action_type

    def _default_retryable(self) -> bool:
        return self.category.retryable

    @property
    def detailed_message(self) -> str:
        """One line for logs: action, type, category, retryability and the cause."""
        cause = self.__cause__
        cause_text = f"{type(cause).__name__}: {cause}" if cause is not None else self.message
        line = (
            f"action {self.action_name!r} ({self.action_type}) failed [{self.category.value}, "
            f"retryable={str(self.retryable).lower()}]: {cause_text}"
        )
        return " ".join(line.split())

    def _detail_fields(self) -> list[tuple[str, object]]:
        return [
            ("action", self.action_name),
            ("type", self.action_type),
            ("category", self.category.value),
        ]


class SecurityError(SurefootError):
    """A permission check refused an action. Never wrapped: it reaches the caller as it is.

    Raise it from ``agent.permission_check`` (a ``PermissionError`` raised there passes
    through unwrapped too) or from inside an action.
    """

    default_code = "AUTHORIZATION_FAILED"
    default_kind = "permission_denied"

    def __init__(self, message: str = "", *, action: str | None = None, **kwargs: Any) -> None:
        if not message:
            message = f"action {action!r} is not permitted"
        super().__init__(message, **kwargs)
        self.action = action

    def _detail_fields(self) -> list[tuple[str, object]]:
        return [("action", self.action)]


class FallbackFailedError(ActionExecutionError):
    """An action failed, then its fallback failed too: both failures are reported.

    ``action_name``/``action_type`` name the action that was called; ``category`` (and so
    ``retryable``) is the fallback's failure category, the last thing that went wrong.
    ``original`` is the action's own :class:`~surefoot.ActionExecutionError` (also this error's
    ``__context__``); ``fallback_error`` is the fallback's (also its ``__cause__``), and
    ``detailed_message`` mentions both.
    """

    def __init__(
        self,
        *,
        original: ActionExecutionError,
        fallback_error: ActionExecutionError,
        fallback_name: str,
    ) -> None:
        super().__init__(
            f"action {original.action_name!r} failed ({original.category.value}) and its "
            f"fallback {fallback_name!r} failed too ({fallback_error.category.value})",
            action_name=original.action_name,
            action_type=original.action_type,
            category=fallback_error.category,
        )
        self.original = original
        self.fallback_error = fallback_error
        self.fallback_name = fallback_name
        self.__cause__ = fallback_error
        self.__context__ = original

    @property
    def detailed_message(self) -> str:
        """Both failures on one line: the action's, then the fallback's."""
        return (
            f"{self.original.detailed_message}; then fallback {self.fallback_name!r} failed: "
            f"{self.fallback_error.detailed_message}"
        )

    def _detail_fields(self) -> list[tuple[str, object]]:
        return [*super()._detail_fields(), ("fallback", self.fallback_name)]
