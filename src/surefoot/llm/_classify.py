"""The client's one door to :mod:`surefoot._classify`: every failure becomes a typed error here.

Also the client's own outcomes: responses that are not JSON (or of the wrong content type,
like a proxy's HTML page), bodies over ``max_body``, streams that end without their final
event, answers the model withheld (OpenAI's ``refusal`` field). Nothing raw leaves this module.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from surefoot._classify import classify, classify_event, classify_exception, inspect_response
from surefoot.errors import (
    ConnectionFailedError,
    ErrorContext,
    LLMError,
    LLMErrorType,
    SurefootError,
)
from surefoot.http import BodyTooLargeError
from surefoot.llm._messages import Completion

__all__ = [
    "WITHHELD",
    "body_error",
    "event_error",
    "exception_error",
    "http_error",
    "not_a_stream",
    "response_error",
    "truncated_stream",
    "withheld_error",
]

#: Normalized finish reasons of an answer the model withheld: never an acceptable answer.
WITHHELD = frozenset(("content_filter", "refusal"))


def http_error(
    status: int,
    headers: Mapping[str, str],
    body: bytes,
    *,
    provider: str,
    model: str,
    in_stream: bool = False,
) -> SurefootError:
    """The typed error of a non-2xx response."""
    err = classify(status, headers, body, provider=provider, model=model, in_stream=in_stream)
    if err.context.http_status is None:
        err.context.http_status = status
    if in_stream:
        err.context.metadata["in_stream"] = True
    return err


def exception_error(exc: BaseException, *, provider: str, model: str) -> SurefootError:
    """The typed error of a transport exception (``exc`` kept as ``__cause__``)."""
    if isinstance(exc, SurefootError):
        return exc
    if isinstance(exc, BodyTooLargeError):
        err: SurefootError = LLMError(
            f"the response body exceeds max_body ({exc.limit} bytes); nothing past the limit "
            "was read. Raise max_body= if such answers are legitimate",
            error_type=LLMErrorType.INVALID_REQUEST,
            model=model,
            provider=provider,
            retryable=False,
            code="REQUEST_BODY_TOO_LARGE",
        )
    else:
        err = classify_exception(exc, provider=provider, model=model)
    if err.__cause__ is None:
        err.__cause__ = exc
    return err


def body_error(
    status: int,
    body: bytes,
    *,
    provider: str,
    model: str,
    why: str,
    content_type: str | None = None,
) -> SurefootError:
    """A 2xx whose body is not a completion: truncated, not JSON, or of the wrong content type
    such as a proxy's HTML page (retryable: a proxy or a load balancer in the way, bounded by
    the retries)."""
    snippet = body[:120].decode("utf-8", "replace")
    ctype = f", content-type {content_type!r}" if content_type else ""
    err = ConnectionFailedError(
        f"the {status} response from {provider} model {model!r} is not a completion "
        f"({why}{ctype}): {snippet!r}",
        context=ErrorContext(http_status=status),
        code="SERVICE_UNAVAILABLE",
    )
    if content_type:
        err.context.metadata["content_type"] = content_type[:100]
    return err


def not_a_stream(
    status: int, content_type: str, body: bytes, *, provider: str, model: str
) -> SurefootError:
    """A 2xx answer to a streamed request that is no event stream: the error a JSON body
    carries, else a retryable :func:`body_error` naming the content type."""
    try:
        obj = json.loads(body)
    except ValueError:
        obj = None
    if obj is not None:
        err = response_error(obj, provider=provider, model=model)
        if err is not None and err.kind != "malformed_tool_call":
            if err.context.http_status is None:
                err.context.http_status = status
            err.context.metadata["in_stream"] = True
            return err
    err = body_error(
        status,
        body,
        provider=provider,
        model=model,
        why="expected text/event-stream",
        content_type=content_type,
    )
    err.context.metadata["in_stream"] = True
    return err


def withheld_error(completion: Completion, *, provider: str, model: str) -> SurefootError | None:
    """The content-filtered error of an answer the model withheld (finish reason
    ``content_filter`` or ``refusal``, including OpenAI's ``refusal`` field with a ``stop``
    finish reason, which :func:`surefoot._classify.inspect_response` does not read), or ``None``.
    """
    reason = completion.finish_reason
    if reason not in WITHHELD:
        return None
    raw = completion.raw_finish_reason or reason
    why = "refused to answer" if reason == "refusal" else "had its answer filtered"
    err = LLMError(
        f"{provider} model {model!r} {why} (finish reason {raw!r})",
        error_type=LLMErrorType.CONTENT_FILTERED,
        model=model,
        provider=provider,
        retryable=False,
    )
    meta = err.context.metadata
    meta["provider"] = provider
    meta["provider_code"] = "refusal" if completion.refusal else raw
    return err


def response_error(obj: Any, *, provider: str, model: str) -> SurefootError | None:
    """An error carried inside a 200 body (or a bad finish reason), or ``None``."""
    return inspect_response(obj, provider=provider, model=model)


def event_error(event: str, data: str, *, provider: str, model: str) -> SurefootError | None:
    """The typed error of an SSE error event, or ``None`` for an ordinary event."""
    err = classify_event(event, data, provider=provider, model=model)
    if err is not None:
        err.context.metadata["in_stream"] = True
    return err


def truncated_stream(provider: str, model: str) -> SurefootError:
    """A stream that closed before its final event (no ``[DONE]`` / ``message_stop``)."""
    err = ConnectionFailedError(
        f"the {provider} stream of model {model!r} closed before its final event",
    )
    err.context.metadata["in_stream"] = True
    return err


def loads(body: bytes) -> Any:
    """JSON of a response body; ``ValueError`` when it is not JSON."""
    return json.loads(body)
