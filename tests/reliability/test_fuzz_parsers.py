"""Property tests: every parser that reads what a server sends is total.

Each one is fed arbitrary input of the shapes it accepts (and some it does not) and must
return its documented type without raising. Examples per run (``max_examples``):

=========================================================== ========
parser                                                      examples
=========================================================== ========
``surefoot.classify(status, headers, body)``: bytes body     400
``surefoot.classify``: text, HTML and SSE-shaped bodies      400
``surefoot.classify``: JSON-shaped (parsed) bodies           300
``surefoot.inspect_response(body)``                          300
``surefoot.classify_event(event, data)``                     400
SSE event pre-filter agrees with ``classify_event``          400
``surefoot.classify_exception`` on exception chains          300
``surefoot.parse_ratelimit_headers``                         400
``surefoot.policy`` hints: ``parse_retry_after``,            400
``parse_retry_after_ms``, ``parse_duration``,
``hint_from_text``, ``parse_google_retry_info``,
``server_hint``
``ProblemDetails.try_parse`` (never raises)                  300
``ProblemDetails.parse`` (only ``ProblemDetailsError``)      300
=========================================================== ========

``deadline=None`` throughout: the first call compiles the rule tables.
"""

from __future__ import annotations

import json
import math
from typing import Any

from _budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import surefoot
from surefoot import ProblemDetails, ProblemDetailsError, RateLimitInfo, SurefootError
from surefoot._classify._stream import _may_fail
from surefoot.policy import (
    hint_from_text,
    parse_duration,
    parse_google_retry_info,
    parse_retry_after,
    parse_retry_after_ms,
    server_hint,
)

_SETTINGS: dict[str, Any] = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}

# -- strategies -------------------------------------------------------------------------------

_WORDS = st.sampled_from(
    [
        "error", "message", "type", "code", "status", "detail", "title", "choices", "delta",
        "finish_reason", "stop_reason", "candidates", "finishReason", "promptFeedback",
        "blockReason", "refusal", "response", "output", "content", "incomplete_details",
        "object", "retry_after_seconds", "details", "@type", "retryDelay", "error_code",
        "retryable", "rate_limit_exceeded", "overloaded_error", "SAFETY", "content_filter",
        "Rate limit reached. Please try again in 1.5s", "context_length_exceeded",
        "type.googleapis.com/google.rpc.RetryInfo", "2.5s", "about:blank", "//[x",
        "insufficient_quota", "429", "<title>", "</title>", "<h1>", "cloudflare", "data: ",
        "event: error", "\n", "\r\n", "\\u0065", "\u00b2", "\u212a", "\u0130", "\ufeff", "",
    ]
)  # fmt: skip
_TEXT = st.one_of(st.text(max_size=60), _WORDS, st.lists(_WORDS, max_size=12).map(" ".join))
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    _TEXT,
)
_KEYS = st.one_of(_WORDS, st.text(max_size=12))
_JSON: st.SearchStrategy[object] = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(_KEYS, inner, max_size=6)),
    max_leaves=30,
)


def _dumps(obj: object) -> str:
    return json.dumps(obj, allow_nan=True)


_JSON_TEXT = _JSON.map(_dumps)
_HEADER_NAMES = st.one_of(
    st.sampled_from(
        [
            "content-type", "retry-after", "retry-after-ms", "x-should-retry", "x-request-id",
            "x-ratelimit-remaining-requests", "x-ratelimit-reset-requests",
            "x-ratelimit-limit-tokens", "x-ratelimit-reset-tokens", "x-ratelimit-limit",
            "anthropic-ratelimit-requests-remaining", "anthropic-ratelimit-tokens-reset",
            "anthropic-ratelimit-input-tokens-remaining", "ratelimit", "ratelimit-policy",
            "ratelimit-remaining", "ratelimit-reset", "ratelimit-limit", "x-amzn-errortype",
            ":exception-type", ":message-type", "cf-ray", "Content-Type",
        ]
    ),
    st.text(max_size=20),
)  # fmt: skip
_HEADER_VALUES = st.one_of(
    st.sampled_from(
        [
            "application/json", "text/html", "text/event-stream", "application/problem+json",
            "0", "1", "60", "1.5", "-1", "nan", "inf", "1e400", "6m0s", "12ms", "1h2m3.5s",
            "\u00b2", "\u00b3", "\u00b9", "\u0663", "Wed, 21 Oct 2015 07:28:00 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
            "2024-01-01T00:00:00Z", "9999-12-31T23:59:59+00:00", '"default";r=0;t=30',
            '"default";q=100;w=60', "limit=100, remaining=0, reset=30", "100;w=60", "true",
            "false", "throttlingException", "exception", "1" * 30, "9" * 5000,
        ]
    ),
    st.text(max_size=40),
    st.binary(max_size=40),
)  # fmt: skip
_HEADERS = st.one_of(
    st.none(),
    st.dictionaries(_HEADER_NAMES, _HEADER_VALUES, max_size=8),
    st.lists(st.tuples(st.one_of(_HEADER_NAMES, st.binary(max_size=10)), _HEADER_VALUES)),
    st.lists(st.one_of(st.tuples(_HEADER_NAMES), st.integers(), st.text(max_size=5))),
    st.text(max_size=10),
    st.integers(),
)
_STATUS = st.one_of(
    st.none(),
    st.integers(min_value=100, max_value=599),
    st.integers(),
    st.sampled_from(["429", "5xx", " 503 ", "", True]),
)


def _sse(events: list[tuple[str | None, str]]) -> str:
    out = []
    for name, data in events:
        if name is not None:
            out.append(f"event: {name}\n")
        out.extend(f"data: {line}\n" for line in data.split("\n"))
        out.append("\n")
    return "".join(out)


_EVENT_NAMES = st.one_of(
    st.none(),
    st.sampled_from(
        [
            "message", "error", "throttlingException", "modelStreamErrorException",
            "response.failed", "response.incomplete", "response.refusal.delta",
            "response.refusal.done", "message_delta", "content_block_delta", "ERROR",
        ]
    ),
    st.text(max_size=12),
)  # fmt: skip
_EVENT_DATA = st.one_of(_JSON_TEXT, _TEXT, st.binary(max_size=40))
_SSE_BODY = st.lists(st.tuples(_EVENT_NAMES, st.one_of(_JSON_TEXT, _TEXT)), max_size=6).map(_sse)
_HTML_BODY = st.lists(
    st.one_of(_WORDS, st.sampled_from(["<html>", "<title x>", "</h1>", "<", ">", "<b>"])),
    max_size=20,
).map("".join)


def _check_error(err: object) -> None:
    assert isinstance(err, SurefootError), type(err)
    assert isinstance(err.kind, str) and err.kind in surefoot.KINDS, err.kind
    assert isinstance(err.retryable, bool)


# -- classify ---------------------------------------------------------------------------------


@settings(max_examples=examples(400), **_SETTINGS)
@given(_STATUS, _HEADERS, st.one_of(st.binary(max_size=200), st.none()), st.booleans())
def test_classify_bytes_never_raises(
    status: Any, headers: Any, body: bytes | None, in_stream: bool
) -> None:
    _check_error(surefoot.classify(status, headers, body, in_stream=in_stream))


@settings(max_examples=examples(400), **_SETTINGS)
@given(
    _STATUS,
    _HEADERS,
    st.one_of(_TEXT, _JSON_TEXT, _SSE_BODY, _HTML_BODY, _JSON_TEXT.map(lambda s: s.encode())),
    st.one_of(st.none(), st.sampled_from(["openai", "anthropic", "gemini", "bedrock", "x"])),
)
def test_classify_text_never_raises(status: Any, headers: Any, body: Any, provider: Any) -> None:
    _check_error(surefoot.classify(status, headers, body, provider=provider, model="m"))


@settings(max_examples=examples(300), **_SETTINGS)
@given(_STATUS, _HEADERS, _JSON)
def test_classify_parsed_json_never_raises(status: Any, headers: Any, body: object) -> None:
    _check_error(surefoot.classify(status, headers, body))


@settings(max_examples=examples(300), **_SETTINGS)
@given(st.one_of(_JSON, _JSON_TEXT, _SSE_BODY, st.binary(max_size=100)))
def test_inspect_response_never_raises(body: object) -> None:
    err = surefoot.inspect_response(body, provider="openai")
    if err is not None:
        _check_error(err)


@settings(max_examples=examples(400), **_SETTINGS)
@given(st.one_of(_EVENT_NAMES, st.integers()), st.one_of(_EVENT_DATA, _JSON))
def test_classify_event_never_raises(event: Any, data: Any) -> None:
    err = surefoot.classify_event(event, data)
    if err is not None:
        _check_error(err)


@settings(max_examples=examples(400), **_SETTINGS)
@given(st.one_of(_EVENT_NAMES.map(lambda n: n or "message")), st.one_of(_JSON_TEXT, _TEXT))
def test_the_sse_pre_filter_never_hides_a_failure(name: str, data: str) -> None:
    if not _may_fail(name, data):
        assert surefoot.classify_event(name, data) is None


# -- classify_exception -----------------------------------------------------------------------


class _Response:
    def __init__(self, status: object, headers: object, body: object) -> None:
        self.status_code = status
        self.headers = headers
        self.text = body
        self.content = body


class _Boom(Exception):
    """An exception whose ``str`` fails, as some SDK errors' do."""

    def __str__(self) -> str:
        raise RuntimeError("no str")


_EXC_TYPES = st.sampled_from(
    [
        Exception, ValueError, OSError, ConnectionError, ConnectionRefusedError,
        ConnectionResetError, TimeoutError, RuntimeError, KeyError, _Boom,
    ]
)  # fmt: skip


@st.composite
def _exception(draw: st.DrawFn) -> BaseException:
    exc = draw(_EXC_TYPES)(draw(_TEXT))
    for attr in draw(
        st.lists(
            st.sampled_from(["status_code", "status", "response", "body", "headers", "code"]),
            max_size=3,
            unique=True,
        )
    ):
        if attr == "response":
            value: object = _Response(
                draw(st.one_of(st.integers(), st.none(), _TEXT)),
                draw(_HEADERS),
                draw(st.one_of(_JSON_TEXT, _JSON, st.binary(max_size=30))),
            )
        elif attr in ("status_code", "status"):
            value = draw(st.one_of(st.integers(min_value=100, max_value=599), _SCALARS))
        elif attr == "headers":
            value = draw(_HEADERS)
        else:
            value = draw(st.one_of(_JSON, _JSON_TEXT))
        try:
            setattr(exc, attr, value)
        except (AttributeError, TypeError):
            pass
    return exc


@st.composite
def _chain(draw: st.DrawFn) -> BaseException:
    excs = draw(st.lists(_exception(), min_size=1, max_size=5))
    for i, exc in enumerate(excs):
        if i + 1 < len(excs):
            if draw(st.booleans()):
                exc.__cause__ = excs[i + 1]
            else:
                exc.__context__ = excs[i + 1]
    if len(excs) > 1 and draw(st.booleans()):
        excs[-1].__context__ = excs[0]  # a cycle
    return excs[0]


@settings(max_examples=examples(300), **_SETTINGS)
@given(_chain(), st.one_of(st.none(), st.sampled_from(["openai", "anthropic", "bedrock"])))
def test_classify_exception_never_raises(exc: BaseException, provider: Any) -> None:
    _check_error(surefoot.classify_exception(exc, provider=provider))


# -- headers and hints ------------------------------------------------------------------------


@settings(max_examples=examples(400), **_SETTINGS)
@given(_HEADERS, st.one_of(st.none(), st.floats(min_value=0, max_value=4e9)))
def test_parse_ratelimit_headers_never_raises(headers: Any, now: float | None) -> None:
    info = surefoot.parse_ratelimit_headers(headers, now=now)
    assert isinstance(info, RateLimitInfo)
    for name in ("limit_requests", "remaining_requests", "limit_tokens", "remaining_tokens"):
        value = getattr(info, name)
        assert value is None or (isinstance(value, int) and value >= 0)
    for name in ("reset_requests_s", "reset_tokens_s", "window_s"):
        value = getattr(info, name)
        assert value is None or (math.isfinite(value) and value >= 0)
    assert info.remaining is None or isinstance(info.remaining, int)
    assert info.reset_s is None or isinstance(info.reset_s, float | int)
    assert isinstance(info.as_dict(), dict)


def _hint(value: float | None) -> None:
    assert value is None or (isinstance(value, float | int) and value >= 0), value


@settings(max_examples=examples(400), **_SETTINGS)
@given(
    st.one_of(_HEADER_VALUES, _SCALARS, _JSON),
    st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True)),
    _HEADERS,
    _JSON,
)
def test_policy_hint_parsers_never_raise(
    value: Any, now: float | None, headers: Any, details: Any
) -> None:
    _hint(parse_retry_after(value, now))
    _hint(parse_retry_after_ms(value))
    _hint(parse_duration(value))
    _hint(hint_from_text(value))
    _hint(parse_google_retry_info(details))
    _hint(parse_google_retry_info([{"@type": "google.rpc.RetryInfo", "retryDelay": value}]))
    if headers is None or isinstance(headers, dict | list):
        pairs = headers if not isinstance(headers, list) else [
            p for p in headers if isinstance(p, tuple) and len(p) == 2
        ]  # fmt: skip
        _hint(server_hint(pairs, details if isinstance(details, dict) else None, details))


# -- problem details --------------------------------------------------------------------------

_BASES = st.one_of(
    st.none(),
    st.sampled_from(["https://api.example.com/errors/", "http://[::1/", "//[x", "", "a:b"]),
    st.text(max_size=20),
)
_PROBLEM = st.one_of(
    _JSON_TEXT,
    _JSON_TEXT.map(lambda s: s.encode()),
    st.dictionaries(
        st.sampled_from(["type", "title", "status", "detail", "instance", "errors", "x"]),
        st.one_of(_SCALARS, st.sampled_from(["//[x", "http://[::1", "/a", "../b"])),
    ).map(_dumps),
    st.binary(max_size=60),
    _TEXT,
)


@settings(max_examples=examples(300), **_SETTINGS)
@given(st.one_of(_PROBLEM, st.dictionaries(_KEYS, _JSON)), _BASES)
def test_problem_try_parse_never_raises(data: Any, base: str | None) -> None:
    pd = ProblemDetails.try_parse(data, base_uri=base)
    assert pd is None or isinstance(pd, ProblemDetails)
    if pd is not None:
        assert isinstance(pd.type, str)
        assert pd.status is None or 100 <= pd.status <= 599
        json.dumps(pd.to_dict(), default=str)


@settings(max_examples=examples(300), **_SETTINGS)
@given(st.one_of(_PROBLEM, st.dictionaries(_KEYS, _JSON)), _BASES)
def test_problem_parse_raises_only_problem_details_error(data: Any, base: str | None) -> None:
    try:
        pd = ProblemDetails.parse(data, base_uri=base)
    except ProblemDetailsError:
        return
    assert isinstance(pd, ProblemDetails)
