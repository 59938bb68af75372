"""Raw failures to typed errors: HTTP responses, exceptions, 200 bodies and stream events.

::

    classify(status, headers, body, *, provider=None, model=None, in_stream=False)
    classify_exception(exc, *, provider=None, model=None)
    inspect_response(body, *, provider=None, model=None)       -> error | None
    classify_event(event, data, *, provider=None, model=None)  -> error | None

All four are pure (they read the clock only to turn an HTTP-date or RFC 3339 reset into a
wait) and never raise: garbage gives a typed error of kind ``unknown`` or better, looking at
no more than the first MiB of a body.

How a kind is decided: the dialect of the body (one module each: OpenAI and compatibles,
Anthropic, Google, Bedrock, problem+json, generic JSON / HTML / text) extracts a message and
the provider's codes; then the tables of :mod:`surefoot._classify._rules` decide, in order,
by the dialect's own certainty, phrases that beat codes, exact codes, message phrases, generic
codes, and finally the HTTP status. A rate limit that cannot clear soon (a per-day bucket
without a near retry time, or a required wait of a day or more) is ``quota_exhausted``.

Kinds and the classes they map onto (``err.kind`` is always one of :class:`Kind`):

==================== ============================================== =========
kind                 class                                          retryable
==================== ============================================== =========
rate_limit           RateLimitError (service, remaining_quota)      yes
quota_exhausted      LLMError(QUOTA_EXHAUSTED)                      no
context_too_long     LLMError(CONTEXT_TOO_LONG)                     no
content_filtered     LLMError(CONTENT_FILTERED)                     no
model_overloaded     LLMError(MODEL_OVERLOADED)                     yes
model_not_found      LLMError(MODEL_NOT_FOUND)                      no
auth_failed          LLMError(AUTHENTICATION_FAILED); AuthError     no
                     for a problem+json body (a platform credential)
permission_denied    PermissionDeniedError                          no
invalid_request      LLMError(INVALID_REQUEST); for problem+json    no
                     ValidationError (VALIDATION_ERROR) or
                     BusinessError
server_error         LLMError(SERVER_ERROR); ConnectionFailedError  yes
                     for problem+json SERVICE_UNAVAILABLE /
                     INTERNAL_ERROR
malformed_tool_call  LLMError(MALFORMED_TOOL_CALL)                  no
capability_mismatch  LLMCapabilityError                             no
network              NetworkError                                   yes
timeout              TimeoutError; RunTimeoutError for              yes; no
                     TASK_DEADLINE_EXCEEDED
unknown              LLMError(UNKNOWN)                              no
==================== ============================================== =========

Retryability: a problem+json body's own ``retryable`` wins; a 5xx-class failure during a
stream (``in_stream``, and every :func:`classify_event`) is retryable; an explicit
``x-should-retry: true|false`` on a failed response wins over both, as the official SDKs obey
it. ``unknown`` is *not*
retried by default (the error tree's ``LLMErrorType.UNKNOWN`` says yes; the classifier passes
``retryable=False``): spending retries on a failure nobody recognised hides bugs.

Every error carries ``context.http_status``, ``context.request_id`` (``x-request-id``,
``request-id``, ``x-amzn-requestid``, ``apim-request-id``, ``cf-ray``... or the body's),
``context.metadata`` with ``provider``, ``dialect``, ``provider_code`` and, when the headers
had any, ``ratelimit`` (a :class:`RateLimitInfo` as a dict: read it back with
:func:`ratelimit_of`), and ``retry_after`` from the server's hints.

``context.metadata["classified_by"]`` says, as one short string, what decided the kind (for
debugging a verdict, and printed by ``surefoot classify --explain``): the code
(``code=unsupported_parameter``; an unlisted code read by its family says so:
``code=modelweeklyusagelimitreached (spend/usage limit family)``), the message rule
(``message matched 'does not support' -> capability_mismatch``: each rule's label names its
family of phrasings), a finish or stop reason (``finishReason=safety``, ``stopReason=...``),
the status (``status 429``), the dialect's own decision (``gemini dialect``), the exception
class (``exception class ReadTimeout (timeout)``), numbers in a limit message, or ``nothing
matched``. The labels are constants of the rule tables, so recording them costs nothing;
their wording may change between releases (match on the kind, not on this string).

A problem+json body's parsed :class:`~surefoot.ProblemDetails` is the error's
``problem_details``.
"""

from surefoot._classify._exceptions import classify_exception
from surefoot._classify._http import classify
from surefoot._classify._kind_of import kind_of
from surefoot._classify._kinds import KINDS, Kind
from surefoot._classify._ratelimit import RateLimitInfo, parse_ratelimit_headers, ratelimit_of
from surefoot._classify._stream import classify_event, inspect_response

__all__ = [
    "KINDS",
    "Kind",
    "RateLimitInfo",
    "classify",
    "classify_event",
    "classify_exception",
    "inspect_response",
    "kind_of",
    "parse_ratelimit_headers",
    "ratelimit_of",
]
