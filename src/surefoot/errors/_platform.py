"""Rejections by a service and run outcomes: auth, business rules, uploads, configuration,
stops and open circuits."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

from surefoot.errors._base import SurefootError

__all__ = [
    "AuthError",
    "BusinessError",
    "CircuitOpenError",
    "ConfigurationError",
    "PermissionDeniedError",
    "TaskStoppedError",
    "UploadError",
]


class AuthError(SurefootError):
    """The server rejected the credential (401) or the caller lacks permission (403)."""

    default_code = "AUTHENTICATION_FAILED"
    default_kind = "auth_failed"


class PermissionDeniedError(AuthError):
    """The credential is valid but lacks the permission the call needs (403)."""

    default_code = "AUTHORIZATION_FAILED"
    default_kind = "permission_denied"


class BusinessError(SurefootError):
    """A valid request failed a business rule (a 4xx other than 401 and 403)."""

    default_code = "BAD_REQUEST"
    default_kind = "invalid_request"


class UploadError(SurefootError):
    """Reading a local file or uploading one of its parts failed.

    ``attachment_key`` names the input, ``part_number`` the failed part (when known) and
    ``completed_receipts`` the receipts that finished earlier in the same batch, so nothing is lost.
    """

    default_code = "DOCUMENT_PROCESSING_FAILED"
    default_kind = "unknown"

    def __init__(
        self,
        message: str = "",
        *,
        attachment_key: str | None = None,
        part_number: int | None = None,
        completed_receipts: Sequence[Any] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(message, **kwargs)
        self.attachment_key = attachment_key
        self.part_number = part_number
        self.completed_receipts: list[Any] = list(completed_receipts)

    def _detail_fields(self) -> list[tuple[str, object]]:
        return [("attachment_key", self.attachment_key), ("part", self.part_number)]


class ConfigurationError(SurefootError):
    """Something the operation needs is not configured (an environment variable, a model)."""

    default_code = "LLM_CONFIG_UNAVAILABLE"
    default_kind = "invalid_request"


class TaskStoppedError(SurefootError):
    """A stop took effect before the task produced a result. ``reason`` is the caller's."""

    default_code = "TASK_STOPPED"
    default_kind = "unknown"

    def __init__(
        self,
        message: str = "",
        *,
        reason: str | None = None,
        task_id: str | None = None,
        **kwargs: Any,
    ) -> None:
        if not message:
            message = "task stopped" + (f": {reason}" if reason else "")
        super().__init__(message, **kwargs)
        self.reason = reason
        self.task_id = task_id if task_id is not None else self.context.task_id
        if self.context.task_id is None:
            self.context.task_id = task_id

    def _detail_fields(self) -> list[tuple[str, object]]:
        return [("reason", self.reason)]


class CircuitOpenError(SurefootError, builtins.RuntimeError):
    """The circuit breaker is open and rejected the call without running it.

    ``retry_after`` is how many seconds remain until the breaker admits a probe; ``name`` the
    breaker's name.
    """

    default_code = "CIRCUIT_OPEN"
    default_kind = "server_error"

    def __init__(
        self,
        message: str = "",
        *,
        name: str | None = None,
        retry_after: float | None = None,
        **kwargs: Any,
    ) -> None:
        if not message:
            message = f"circuit {name or ''} is open".replace("  ", " ")
        super().__init__(message, **kwargs)
        self.name = name
        self.retry_after = retry_after

    def _detail_fields(self) -> list[tuple[str, object]]:
        ra = None if self.retry_after is None else f"{self.retry_after:.3g}s"
        return [("breaker", self.name), ("opens_in", ra)]
