"""RFC 9457 problem details (``application/problem+json``) and the platform's catalog codes.

``error_code`` decides the kind and the class, from the table below; without one, the
problem's ``type``, ``title`` and ``detail`` go through the message rules and the status
decides. The server's ``retryable`` wins over every default (except that a 5xx during a stream
is always retryable, see :mod:`surefoot._classify._build`), and the parsed
:class:`~surefoot.ProblemDetails` is attached as the error's ``problem_details``.
"""

from __future__ import annotations

from surefoot._classify._kinds import Kind
from surefoot._classify._rules import Finding, phrase_kind
from surefoot._classify._util import as_dict
from surefoot.problem import ProblemDetails

__all__ = ["CODES", "extract", "is_problem"]

K = Kind

#: Catalog code -> kind. Codes not listed fall back to the message rules and the status.
CODES: dict[str, Kind] = {
    "AUTHENTICATION_FAILED": K.AUTH_FAILED,
    "AUTHORIZATION_FAILED": K.PERMISSION_DENIED,
    "ACR_STEPUP_REQUIRED": K.PERMISSION_DENIED,
    "NOT_FOUND": K.INVALID_REQUEST,
    "CONFLICT": K.INVALID_REQUEST,
    "BAD_REQUEST": K.INVALID_REQUEST,
    "VALIDATION_ERROR": K.INVALID_REQUEST,
    "METHOD_NOT_ALLOWED": K.INVALID_REQUEST,
    "NOT_ACCEPTABLE": K.INVALID_REQUEST,
    "GONE": K.INVALID_REQUEST,
    "REQUEST_BODY_TOO_LARGE": K.INVALID_REQUEST,
    "UNSUPPORTED_MEDIA_TYPE": K.INVALID_REQUEST,
    "TOO_MANY_TOOLS": K.INVALID_REQUEST,
    "TOOL_SCHEMA_TOO_LARGE": K.INVALID_REQUEST,
    "RESERVED_TOOL_NAME": K.INVALID_REQUEST,
    "RATE_LIMIT_EXCEEDED": K.RATE_LIMIT,
    "SERVICE_UNAVAILABLE": K.SERVER_ERROR,
    "INTERNAL_ERROR": K.SERVER_ERROR,
    "TASK_DEADLINE_EXCEEDED": K.TIMEOUT,
    "TASK_EXPIRED": K.INVALID_REQUEST,
    "TASK_STOPPED": K.UNKNOWN,
    "BILLING_LIMIT_EXCEEDED": K.QUOTA_EXHAUSTED,
    "CONTENT_FILTERED": K.CONTENT_FILTERED,
    "LLM_CONFIG_UNAVAILABLE": K.CAPABILITY_MISMATCH,
    "LLM_CONFIG_CONTEXT_TOO_SMALL": K.CONTEXT_TOO_LONG,
    "LLM_PROVIDERS_UNAVAILABLE": K.SERVER_ERROR,
    "LLM_NO_PROGRESS": K.UNKNOWN,
    "CONTINUATION_UNAVAILABLE": K.INVALID_REQUEST,
    "RESULT_UNAVAILABLE": K.SERVER_ERROR,
    "PARENT_TASK_NOT_FOUND": K.INVALID_REQUEST,
    "PARENT_TASK_UNAVAILABLE": K.SERVER_ERROR,
    "DOCUMENT_UPLOAD_TOO_LARGE": K.INVALID_REQUEST,
    "DOCUMENT_TAGS_TOO_LARGE": K.INVALID_REQUEST,
    "TAGS_TOO_LARGE": K.INVALID_REQUEST,
    "UPLOAD_SESSION_EXPIRED": K.INVALID_REQUEST,
    "DOCUMENT_PURGED": K.INVALID_REQUEST,
}


def is_problem(obj: object, headers: dict[str, str]) -> bool:
    d = as_dict(obj)
    if d is None:
        return False
    if "problem+json" in headers.get("content-type", "").lower():
        return True
    return isinstance(d.get("error_code"), str) and (
        isinstance(d.get("title"), str) or isinstance(d.get("type"), str)
    )


def extract(obj: object) -> Finding | None:
    """A :class:`Finding` carrying the parsed :class:`ProblemDetails`."""
    d = as_dict(obj)
    if d is None:
        return None
    pd = ProblemDetails.from_mapping(d)
    code = pd.error_code
    text = " ".join(s for s in (pd.title, pd.detail) if s)
    if pd.type != "about:blank":
        text = f"{text} ({pd.type})" if text else pd.type
    f = Finding("problem", message=text[:4096], status=pd.status, problem=pd)
    f.retryable = pd.retryable
    if code:
        f.catalog_code = code[:128]
        f.kind = CODES.get(code.upper())
        f.reason = "problem error_code"
    if f.kind is None and pd.title:
        # the title names the problem; the detail often speculates about causes
        f.kind = title_kind(pd.title)
        f.reason = "problem title"
    f.request_id = pd.request_id
    return f


def title_kind(title: str) -> Kind | None:
    return phrase_kind(title)
