"""Bad input: always a typed error, never an exception, in bounded time and memory."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from surefoot import KINDS, classify, classify_event, inspect_response
from surefoot.errors import SurefootError

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=50),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=5)
    ),
    max_leaves=30,
)
headers = st.one_of(
    st.none(),
    st.dictionaries(st.text(max_size=30), st.text(max_size=60), max_size=8),
    st.lists(st.tuples(st.text(max_size=20), st.text(max_size=40)), max_size=8),
    st.dictionaries(
        st.sampled_from(
            [
                "retry-after",
                "retry-after-ms",
                "x-ratelimit-reset-tokens",
                "anthropic-ratelimit-requests-reset",
                "ratelimit",
                "ratelimit-policy",
                "x-ratelimit-remaining-requests",
                "content-type",
                "x-amzn-errortype",
            ]
        ),
        st.text(max_size=40) | st.sampled_from(["-1", "nan", "inf", "1e999", "9" * 400]),
    ),
)
statuses = st.none() | st.integers(min_value=-1000, max_value=1000)
bodies = st.one_of(
    st.none(),
    st.binary(max_size=300),
    st.text(max_size=300),
    json_values,
    json_values.map(json.dumps),
)


def _ok(err: object) -> None:
    assert isinstance(err, SurefootError)
    assert err.kind in KINDS


@settings(max_examples=300, deadline=None)
@given(statuses, headers, bodies, st.sampled_from([None, "openai", "gemini", "bedrock", "x"]))
def test_garbage_always_types(status: int | None, h: object, body: object, p: str | None) -> None:
    _ok(classify(status, h, body, provider=p))  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=30), bodies)
def test_garbage_events(event: str, data: object) -> None:
    err = classify_event(event, data)
    assert err is None or (isinstance(err, SurefootError) and err.kind in KINDS)
    res = inspect_response(data)
    assert res is None or isinstance(res, SurefootError)


@settings(max_examples=100, deadline=None)
@given(json_values)
def test_truncated_json(value: object) -> None:
    text = json.dumps({"error": {"message": "x", "detail": value}})
    for cut in (1, len(text) // 2, len(text) - 1):
        _ok(classify(500, {}, text[:cut]))


def test_empty_html_binary() -> None:
    for body in (b"", "", b"\x00\xff\xfe" * 1000, "<html><body>oops", "{", "[", '"', "null"):
        _ok(classify(502, {"content-type": "text/html"}, body))
        _ok(classify(None, None, body))


def test_fifty_megabytes() -> None:
    big = b'{"error": {"message": "' + b"a" * (50 * 1024 * 1024) + b'"}}'
    err = classify(500, {}, big)
    _ok(err)
    assert err.kind == "server_error"
    _ok(classify(200, {"content-type": "text/event-stream"}, b"data: " + b"x" * 5_000_000))


def test_nesting_ten_thousand_deep() -> None:
    deep = "[" * 10_000 + "]" * 10_000
    _ok(classify(400, {}, deep))
    _ok(classify(400, {}, '{"error":' * 10_000 + "1" + "}" * 10_000))
    nested: object = {}
    for _ in range(10_000):
        nested = {"error": nested}
    _ok(classify(400, {}, nested))
    assert inspect_response(nested) is None or True


def test_json_strings_inside_json_strings() -> None:
    body: object = {"error": {"message": "Rate limit exceeded", "code": "rate_limit_exceeded"}}
    for _ in range(12):  # each layer doubles the escaping: 12 layers is ~300 KB
        body = json.dumps(body)
    _ok(classify(429, {}, body))
    inner = json.dumps(
        json.dumps(json.dumps({"error": {"code": "insufficient_quota", "message": "quota"}}))
    )
    assert classify(429, {}, inner).kind == "quota_exhausted"


def test_garbage_header_values() -> None:
    h = {
        "retry-after": "Wed, 99 Foo 2024 99:99:99 GMT",
        "retry-after-ms": "-5",
        "x-ratelimit-reset-requests": "1h-3m",
        "anthropic-ratelimit-tokens-reset": "yesterday",
        "ratelimit": ";;;r=;t=abc",
        "x-ratelimit-remaining-requests": "1e400",
    }
    err = classify(429, h, "")
    _ok(err)
    assert err.kind == "rate_limit" and err.retry_after is None
    _ok(classify(429, [("retry-after", b"\xff\xfe")], ""))  # type: ignore[list-item]
    _ok(classify(429, "not headers", ""))  # type: ignore[arg-type]
    _ok(classify(429, 12345, ""))  # type: ignore[arg-type]
