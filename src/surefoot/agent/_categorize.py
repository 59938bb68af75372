"""Why an action call failed: an exception to an :class:`~surefoot.ActionCategory` (pure).

Decided in this order, walking the exception and its ``__cause__``/``__context__`` chain:

1. an :class:`~surefoot.ActionExecutionError` (a nested action call): its category;
2. a :class:`~surefoot.llm._tools.ToolArgumentsError`: ``PARAMETER``;
3. a :class:`~surefoot.ValidationError` (contracts, knowledge, response models) or a pydantic
   ``ValidationError``: ``VALIDATION``;
4. a :class:`~surefoot.LLMError` or :class:`~surefoot.RateLimitError`: ``LLM``;
5. the action's type: any other failure of an ``llm`` action is ``LLM``, of an ``mcp`` action
   ``MCP``;
6. :func:`surefoot.classify_exception`: an HTTP status 4xx is ``CLIENT_ERROR`` and 5xx
   ``SERVER_ERROR`` (httpx, aiohttp, requests, urllib and anything carrying a ``status``), the
   kinds ``network`` and ``timeout`` are ``NETWORK`` (refused, reset, DNS, TLS, timeouts, the
   run deadline) unless an HTTP response was received: a 408, 499, 504, 522 or 524 response
   is classified as a timeout but is still ``CLIENT_ERROR`` (408, 499: not retryable) or
   ``SERVER_ERROR`` (504, 522, 524), as its status says;
7. ``UNKNOWN``.

``INVOCATION`` is decided by the driver, which knows when the call itself could not be made
(an unknown action, a ``TypeError`` raised by the call's argument binding).

A 429 is ``CLIENT_ERROR`` and so not retryable, as in the reference table: a rate-limited HTTP
API is retried only through ``on_error``/``retries`` of your own HTTP client.
"""

from __future__ import annotations

from typing import Final

import pydantic

from surefoot._classify import classify_exception
from surefoot.errors import (
    ActionCategory,
    ActionExecutionError,
    ApprovalRequiredError,
    ErrorContext,
    LLMError,
    RateLimitError,
    SecurityError,
    SurefootError,
    TaskCompleteError,
    ValidationError,
)
from surefoot.llm._result import WaitFor
from surefoot.llm._tools import ToolArgumentsError

__all__ = ["PASS_THROUGH", "action_error", "categorize"]

#: Never wrapped: they reach the caller (or the run loop) as they are.
PASS_THROUGH: Final = (ApprovalRequiredError, SecurityError, TaskCompleteError, WaitFor)
_MAX_CHAIN: Final = 16
_MAX_TEXT: Final = 1000


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    seen: set[int] = set()
    todo: list[BaseException] = [exc]
    while todo and len(out) < _MAX_CHAIN:
        e = todo.pop(0)
        if id(e) in seen:
            continue
        seen.add(id(e))
        out.append(e)
        for nxt in (e.__cause__, e.__context__):
            if nxt is not None:
                todo.append(nxt)
    return out


def categorize(exc: BaseException, action_type: str) -> tuple[ActionCategory, int | None]:
    """The category of ``exc`` raised by an action of ``action_type``, and the HTTP status
    seen (``None`` when there was none)."""
    chain = _chain(exc)
    for e in chain:
        if isinstance(e, ActionExecutionError):
            return e.category, e.context.http_status
        if isinstance(e, ToolArgumentsError):
            return ActionCategory.PARAMETER, None
        if isinstance(e, (ValidationError, pydantic.ValidationError)):
            return ActionCategory.VALIDATION, None
        if isinstance(e, (LLMError, RateLimitError)):
            return ActionCategory.LLM, e.context.http_status
    if action_type == "llm":
        return ActionCategory.LLM, None
    if action_type == "mcp":
        return ActionCategory.MCP, None
    typed = next((e for e in chain if isinstance(e, SurefootError)), None)
    fresh = typed is None
    if typed is None:
        typed = classify_exception(exc)
    status = typed.context.http_status
    # A real HTTP failure response (its status in the error's context) is CLIENT_ERROR or
    # SERVER_ERROR even when its kind is timeout: 408, 499, 504, 522, 524 came over HTTP.
    responded = status is not None and 400 <= status <= 599
    if status is None and not fresh:
        status = typed.status  # a surefoot error raised by the action: its catalog status
    if typed.kind in ("network", "timeout") and not responded:
        return ActionCategory.NETWORK, None
    if status is not None and 400 <= status <= 499:
        return ActionCategory.CLIENT_ERROR, status
    if status is not None and 500 <= status <= 599:
        return ActionCategory.SERVER_ERROR, status
    return ActionCategory.UNKNOWN, None


def _text(exc: BaseException) -> str:
    try:
        text = f"{type(exc).__name__}: {exc}"
    except Exception:
        text = type(exc).__name__
    text = " ".join(text.split())
    return text if len(text) <= _MAX_TEXT else text[: _MAX_TEXT - 3] + "..."


def action_error(
    exc: BaseException,
    name: str,
    action_type: str,
    category: ActionCategory | None = None,
    message: str | None = None,
) -> ActionExecutionError:
    """The :class:`~surefoot.ActionExecutionError` for ``exc`` (set as its ``__cause__``)."""
    status: int | None = None
    if category is None:
        category, status = categorize(exc, action_type)
    err = ActionExecutionError(
        message or _text(exc),
        action_name=name,
        action_type=action_type,
        category=category,
        context=ErrorContext(operation=f"action {name}", http_status=status),
    )
    err.__cause__ = exc
    err.__suppress_context__ = True
    return err
