"""RFC 9457 consumer rules, one by one, and the bad inputs of the foundation issue."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from surefoot import ProblemDetails, ProblemDetailsError, ProblemItem, RateLimitError


def test_every_member_is_optional() -> None:
    pd = ProblemDetails.parse(b"{}")
    assert (pd.type, pd.title, pd.status, pd.detail, pd.instance) == (
        "about:blank",
        None,
        None,
        None,
        None,
    )
    assert pd.extensions == {}
    assert pd.source == "server"


def test_type_defaults_to_about_blank() -> None:
    assert ProblemDetails.parse('{"title":"x"}').type == "about:blank"
    assert ProblemDetails.parse('{"type":""}').type == "about:blank"


@pytest.mark.parametrize(
    ("member", "bad"),
    [
        ("type", 7),
        ("title", ["a"]),
        ("status", "503"),
        ("status", 503.5),
        ("status", True),
        ("status", 99),
        ("detail", {"a": 1}),
        ("instance", False),
    ],
)
def test_a_member_of_the_wrong_type_is_ignored_as_if_absent(member: str, bad: object) -> None:
    pd = ProblemDetails.parse(
        json.dumps({member: bad, "title": "kept"} if member != "title" else {member: bad})
    )
    default = "about:blank" if member == "type" else None
    assert getattr(pd, member) == default
    assert member not in pd.extensions


def test_relative_type_and_instance_resolve_against_base_uri() -> None:
    pd = ProblemDetails.parse(
        '{"type":"/problems/quota","instance":"calls/42"}', base_uri="https://api.example.com/v1/"
    )
    assert pd.type == "https://api.example.com/problems/quota"
    assert pd.instance == "https://api.example.com/v1/calls/42"
    same = ProblemDetails.parse('{"type":"/problems/quota"}')
    assert same.type == "/problems/quota"  # no base: left as sent


def test_unknown_extensions_round_trip_unchanged() -> None:
    doc = {
        "type": "https://example.com/p/out-of-credit",
        "title": "You do not have enough credit.",
        "status": 403,
        "detail": "Your current balance is 30, but that costs 50.",
        "instance": "/account/12345/msgs/abc",
        "balance": 30,
        "accounts": ["/account/12345", "/account/67890"],
        "nested": {"a": [1, {"b": None}]},
    }
    pd = ProblemDetails.parse(json.dumps(doc))
    assert pd.extensions["balance"] == 30
    assert pd.to_dict() == doc
    assert json.loads(pd.to_json()) == doc


def test_typed_extensions() -> None:
    pd = ProblemDetails.parse(
        {
            "error_code": "VALIDATION_ERROR",
            "retryable": False,
            "error_category": "config",
            "owner_action_required": True,
            "trace_id": "t",
            "span_id": "s",
            "request_id": "r",
            "retry_after_seconds": 2.5,
            "errors": [
                {
                    "message": "must be positive",
                    "details": "got -1",
                    "field": "n",
                    "ai_hints": ["use 1"],
                },
                {"details": "no message: skipped"},
                "not an object",
            ],
        }
    )
    assert pd.error_code == "VALIDATION_ERROR"
    assert pd.retryable is False
    assert pd.error_category == "config"
    assert pd.owner_action_required is True
    assert (pd.trace_id, pd.span_id, pd.request_id) == ("t", "s", "r")
    assert pd.retry_after_seconds == 2.5
    assert pd.errors == (
        ProblemItem(message="must be positive", details="got -1", field="n", ai_hints=("use 1",)),
    )


@pytest.mark.parametrize(
    ("name", "bad"),
    [
        ("error_code", 5),
        ("retryable", "true"),
        ("retryable", 1),
        ("owner_action_required", "yes"),
        ("trace_id", 1),
        ("retry_after_seconds", -3),
        ("retry_after_seconds", "5"),
        ("retry_after_seconds", True),
        ("errors", "oops"),
    ],
)
def test_typed_extension_of_wrong_type_reads_as_absent_but_round_trips(
    name: str, bad: object
) -> None:
    pd = ProblemDetails.parse({name: bad})
    assert getattr(pd, name) in (None, ())
    assert pd.to_dict()[name] == bad


def test_non_finite_retry_after_reads_as_absent() -> None:
    pd = ProblemDetails.parse('{"retry_after_seconds": 1e999}')
    assert pd.retry_after_seconds is None


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"not json", "not valid JSON"),
        (b'{"type": ', "not valid JSON"),
        (b"[1,2]", "JSON object"),
        (b'"text"', "JSON object"),
        (b"\xff\xfe\x00garbage", "not valid JSON"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply|not valid JSON"),
    ],
)
def test_bad_documents_raise_a_value_error(data: bytes, match: str) -> None:
    with pytest.raises(ProblemDetailsError, match=match) as info:
        ProblemDetails.parse(data)
    assert isinstance(info.value, ValueError)
    assert ProblemDetails.try_parse(data) is None


def test_a_ten_megabyte_body_is_refused_clearly() -> None:
    body = b'{"detail":"' + b"x" * (10 * 1024 * 1024) + b'"}'
    with pytest.raises(ProblemDetailsError, match=r"over the .* limit"):
        ProblemDetails.parse(body)
    assert ProblemDetails.parse(body, max_bytes=len(body)).detail is not None


def test_non_utf8_bytes_inside_strings_are_replaced_not_fatal() -> None:
    pd = ProblemDetails.parse(b'{"title":"caf\xe9","status":400}')
    assert pd.status == 400
    assert pd.title is not None and pd.title.startswith("caf")


def test_a_bom_is_tolerated() -> None:
    assert ProblemDetails.parse('\ufeff{"status":404}'.encode()).status == 404


def test_any_error_renders_as_problem_details() -> None:
    doc = RateLimitError("slow", retry_after=1).problem_details.to_dict()
    assert doc["status"] == 429 and doc["error_code"] == "RATE_LIMIT_EXCEEDED"
    assert ProblemDetails.parse(json.dumps(doc)).to_dict() == doc


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(st.text(), json_values, max_size=8))
def test_any_json_object_parses_and_round_trips_its_extensions(obj: dict[str, object]) -> None:
    pd = ProblemDetails.parse(json.dumps(obj))
    out = pd.to_dict()
    for key, value in obj.items():
        if key not in ("type", "title", "status", "detail", "instance"):
            assert out[key] == value


@given(st.binary(max_size=200))
def test_arbitrary_bytes_never_crash(data: bytes) -> None:
    try:
        ProblemDetails.parse(data)
    except ProblemDetailsError:
        pass
