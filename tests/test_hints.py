import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from surefoot import ProblemDetails
from surefoot.policy import (
    hint_from_text,
    parse_duration,
    parse_google_retry_info,
    parse_retry_after,
    parse_retry_after_ms,
    server_hint,
)

NOW = 784111777.0  # Sun, 06 Nov 1994 08:49:37 GMT


@pytest.mark.parametrize(
    "value",
    ["Sun, 06 Nov 1994 08:49:42 GMT", "Sunday, 06-Nov-94 08:49:42 GMT", "Sun Nov  6 08:49:42 1994"],
)
def test_http_date_all_three_formats(value: str) -> None:
    assert parse_retry_after(value, NOW) == 5.0


def test_http_date_in_the_past_is_zero() -> None:
    assert parse_retry_after("Sun, 06 Nov 1994 08:00:00 GMT", NOW) == 0.0


def test_delta_seconds() -> None:
    assert parse_retry_after("120", NOW) == 120.0
    assert parse_retry_after(" 7 ", NOW) == 7.0
    assert parse_retry_after(b"3", NOW) == 3.0


@pytest.mark.parametrize(
    "bad",
    [
        "-1",
        "nan",
        "inf",
        "1e400",
        "9" * 5000,
        "soon",
        "",
        None,
        [],
        "Sun, 99 Nov 1994 08:49:42 GMT",
    ],
)
def test_garbage_is_ignored(bad: object) -> None:
    assert parse_retry_after(bad, NOW) is None
    assert parse_retry_after_ms(bad) is None


def test_retry_after_ms() -> None:
    assert parse_retry_after_ms("250") == 0.25
    assert parse_retry_after_ms(1500) == 1.5
    assert parse_retry_after_ms(float("nan")) is None
    assert parse_retry_after_ms(True) is None


@pytest.mark.parametrize(
    ("text", "secs"),
    [
        ("6m0s", 360.0),
        ("1.5s", 1.5),
        ("12ms", 0.012),
        ("1h2m3.5s", 3723.5),
        ("0", 0.0),
        ("250us", 0.00025),
    ],
)
def test_go_durations(text: str, secs: float) -> None:
    assert parse_duration(text) == pytest.approx(secs)


@pytest.mark.parametrize("bad", ["-1s", "5", "1x", "s", "", "1s garbage", None, "1e999h"])
def test_bad_durations(bad: object) -> None:
    assert parse_duration(bad) is None


def test_google_retry_info() -> None:
    details = [
        {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "x"},
        {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "2.5s"},
    ]
    assert parse_google_retry_info(details) == 2.5
    proto = [
        {
            "@type": "type.googleapis.com/google.rpc.RetryInfo",
            "retryDelay": {"seconds": 2, "nanos": 500000000},
        }
    ]
    assert parse_google_retry_info(proto) == 2.5
    assert parse_google_retry_info("nope") is None
    assert (
        parse_google_retry_info(
            [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "-1s"}]
        )
        is None
    )


@pytest.mark.parametrize(
    ("msg", "secs"),
    [
        ("Rate limit reached. Please try again in 11.122s.", 11.122),
        ("Please retry in 20ms", 0.02),
        ("retry after 3 seconds", 3.0),
        ("Try again in 1m30s", 90.0),
        ("no hint here", None),
    ],
)
def test_hint_from_text(msg: str, secs: float | None) -> None:
    assert hint_from_text(msg) == secs


def test_server_hint_precedence() -> None:
    problem = ProblemDetails.parse({"retry_after_seconds": 9})
    google = [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "4s"}]
    headers = [("Retry-After", "5"), ("retry-after-ms", "250")]
    assert server_hint(headers, problem, google, now_epoch=NOW) == 0.25
    assert server_hint({"RETRY-AFTER": "5"}, problem, google, now_epoch=NOW) == 5.0
    assert server_hint({"retry-after": "garbage"}, problem, google, now_epoch=NOW) == 9.0
    assert server_hint({}, {"retry_after_seconds": -1}, google, now_epoch=NOW) == 4.0
    assert server_hint(None, None, None) is None
    assert server_hint({"Retry-After": "Sun, 06 Nov 1994 08:49:47 GMT"}, now_epoch=NOW) == 10.0


@given(
    st.one_of(
        st.text(max_size=40), st.floats(allow_nan=True), st.integers(), st.binary(max_size=20)
    )
)
def test_parsers_are_total(value: object) -> None:
    for out in (
        parse_retry_after(value, NOW),
        parse_retry_after_ms(value),
        parse_duration(value),
        hint_from_text(value),
    ):
        assert out is None or (math.isfinite(out) and out >= 0)
