"""Model-call failures: :class:`LLMError` with its :class:`LLMErrorType`, and rate limits."""

from __future__ import annotations

import enum
from typing import Any

from surefoot.errors._base import SurefootError

__all__ = [
    "LLMCapabilityError",
    "LLMError",
    "LLMErrorType",
    "RateLimitError",
    "ToolCallNotSupportedError",
]


class LLMErrorType(enum.Enum):
    """Why a model call failed. Each type fixes retryability and the suggested delay."""

    MODEL_NOT_FOUND = "MODEL_NOT_FOUND"
    AUTHENTICATION_FAILED = "AUTHENTICATION_FAILED"
    CONTENT_FILTERED = "CONTENT_FILTERED"
    INVALID_REQUEST = "INVALID_REQUEST"
    MODEL_OVERLOADED = "MODEL_OVERLOADED"
    CONTEXT_TOO_LONG = "CONTEXT_TOO_LONG"
    SERVER_ERROR = "SERVER_ERROR"
    MALFORMED_TOOL_CALL = "MALFORMED_TOOL_CALL"
    CAPABILITY_MISMATCH = "CAPABILITY_MISMATCH"
    QUOTA_EXHAUSTED = "QUOTA_EXHAUSTED"
    UNKNOWN = "UNKNOWN"

    @property
    def retryable(self) -> bool:
        return self in _RETRYABLE

    @property
    def retry_delay(self) -> float | None:
        """The suggested delay in seconds, when the type has its own."""
        return _DELAYS.get(self)

    @property
    def kind(self) -> str:
        """The classifier's kind for this type."""
        return _KINDS[self]


_RETRYABLE = frozenset(
    {LLMErrorType.MODEL_OVERLOADED, LLMErrorType.SERVER_ERROR, LLMErrorType.UNKNOWN}
)
_DELAYS = {LLMErrorType.MODEL_OVERLOADED: 5.0, LLMErrorType.SERVER_ERROR: 2.0}
_KINDS = {
    LLMErrorType.MODEL_NOT_FOUND: "model_not_found",
    LLMErrorType.AUTHENTICATION_FAILED: "auth_failed",
    LLMErrorType.CONTENT_FILTERED: "content_filtered",
    LLMErrorType.INVALID_REQUEST: "invalid_request",
    LLMErrorType.MODEL_OVERLOADED: "model_overloaded",
    LLMErrorType.CONTEXT_TOO_LONG: "context_too_long",
    LLMErrorType.SERVER_ERROR: "server_error",
    LLMErrorType.MALFORMED_TOOL_CALL: "malformed_tool_call",
    LLMErrorType.CAPABILITY_MISMATCH: "capability_mismatch",
    LLMErrorType.QUOTA_EXHAUSTED: "quota_exhausted",
    LLMErrorType.UNKNOWN: "unknown",
}

# Catalog codes: the LLM family of the catalog uses the type's name as its code.


class LLMError(SurefootError):
    """A model call failed; ``error_type`` names the cause and ``model`` the model."""

    default_code = "UNKNOWN"

    def __init__(
        self,
        message: str = "",
        *,
        error_type: LLMErrorType = LLMErrorType.UNKNOWN,
        model: str | None = None,
        provider: str | None = None,
        **kwargs: Any,
    ) -> None:
        self.error_type = LLMErrorType(error_type)
        self.model = model
        self.provider = provider
        kwargs.setdefault("code", self.error_type.value)
        kwargs.setdefault("kind", self.error_type.kind)
        super().__init__(message, **kwargs)

    def _default_retryable(self) -> bool:
        return self.error_type.retryable

    def _default_retry_delay(self) -> float | None:
        return self.error_type.retry_delay

    def _detail_fields(self) -> list[tuple[str, object]]:
        return [("type", self.error_type.value), ("model", self.model), ("provider", self.provider)]


class LLMCapabilityError(LLMError):
    """The model or provider lacks a feature the call needs: streaming, vision, tools, ..."""

    def __init__(self, message: str = "", *, capability: str | None = None, **kwargs: Any) -> None:
        self.capability = capability
        kwargs.setdefault("error_type", LLMErrorType.CAPABILITY_MISMATCH)
        super().__init__(message, **kwargs)

    def _detail_fields(self) -> list[tuple[str, object]]:
        return [*super()._detail_fields(), ("capability", self.capability)]


class ToolCallNotSupportedError(LLMCapabilityError):
    """The model or provider cannot make tool calls."""

    def __init__(self, message: str = "", **kwargs: Any) -> None:
        kwargs.setdefault("capability", "tools")
        super().__init__(message, **kwargs)


class RateLimitError(SurefootError):
    """Too many requests: retryable up to 5 times, after ``retry_after`` or 60 s.

    ``retry_after`` is the server's hint in seconds (``None`` when it gave none), ``service``
    who limited the call, ``remaining_quota`` what the server said is left.
    """

    default_retryable = True
    default_code = "RATE_LIMIT_EXCEEDED"
    default_kind = "rate_limit"
    default_retry_delay = 60.0
    default_max_attempts = 5

    def __init__(
        self,
        message: str = "",
        *,
        retry_after: float | None = None,
        service: str | None = None,
        remaining_quota: int | None = None,
        model: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(message, retry_after=retry_after, **kwargs)
        self.service = service
        self.remaining_quota = remaining_quota
        self.model = model

    def _detail_fields(self) -> list[tuple[str, object]]:
        ra = None if self.retry_after is None else f"{self.retry_after:g}s"
        return [("retry_after", ra), ("service", self.service), ("model", self.model)]
