"""Complexity bounds: the classifier's work grows (at most) linearly with its input.

Each case times a parser on an adversarial input of ``n`` and of ``8 n`` bytes (``n`` = 64 KiB:
unclosed tags, deep nesting, long runs of spaces, many ``data:`` lines...) and asserts the ratio
is at most 20: linear work gives about 8 (less once the fixed input caps apply), quadratic work
64. Every time is the least of a few repeats (noise only ever adds time); each repeat makes
enough calls to take a few milliseconds, and the garbage collector is off while timing. No
absolute wall-clock threshold is used: a 2 MiB body is bounded relative to the same shape at
``n``.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

import pytest

import surefoot

N = 64 * 1024
RATIO = 20.0
HTML = {"content-type": "text/html"}
JSON = {"content-type": "application/json"}
SSE = {"content-type": "text/event-stream"}


def _fit(unit: str, size: int) -> str:
    return unit * max(1, size // len(unit))


def _repeats_for(fn: Callable[[], object]) -> int:
    """How many calls of ``fn`` take at least ~5 ms (at most 200)."""
    start = time.perf_counter()
    fn()
    once = max(time.perf_counter() - start, 1e-7)
    return max(1, min(200, int(0.005 / once) + 1))


def _best(fn: Callable[[], object], calls: int, repeats: int = 5) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, time.perf_counter() - start)
    return best


def _ratio(call: Callable[[object], object], small: object, large: object) -> float:
    call(small)  # warm up: rule tables compile on first use
    gc.collect()
    # Collections triggered by the objects a large input allocates cost in proportion to the
    # whole test process's heap: noise, not the parser's work.
    gc.disable()
    try:
        calls = _repeats_for(lambda: call(small))
        t_small = _best(lambda: call(small), calls)
        t_large = _best(lambda: call(large), calls)
    finally:
        gc.enable()
    return t_large / max(t_small, 1e-9)


def _classify(status: int, headers: dict[str, str]) -> Callable[[object], object]:
    return lambda body: surefoot.classify(status, headers, body)


# (name, call, shape: size -> input)
_CASES: list[tuple[str, Callable[[object], object], Callable[[int], object]]] = [
    # HTML error pages
    ("html-unclosed-title", _classify(502, HTML), lambda n: _fit("<title>", n)),
    ("html-unclosed-title-attr", _classify(502, HTML), lambda n: _fit("<title ", n)),
    ("html-unclosed-h1", _classify(502, HTML), lambda n: _fit("<h1>", n)),
    ("html-open-brackets", _classify(502, HTML), lambda n: "<title>" + _fit("<", n)),
    ("html-nested-tags", _classify(502, HTML), lambda n: _fit("<b><i>", n)),
    ("html-spaces-in-title", _classify(502, HTML), lambda n: "<title>" + " " * n + "</title>"),
    ("html-sniffed-unclosed", _classify(500, {}), lambda n: "<!doctype html>" + _fit("<h1", n)),
    # JSON bodies
    ("json-deep-lists", _classify(500, JSON), lambda n: "[" * n),
    ("json-deep-objects", _classify(500, JSON), lambda n: _fit('{"error":', n)),
    ("json-spaces", _classify(500, JSON), lambda n: "{" + " " * n + "}"),
    (
        "json-message-spaces",
        _classify(429, JSON),
        lambda n: '{"error": {"message": "rate' + " " * n + 'limit"}}',
    ),
    ("json-many-keys", _classify(400, JSON), lambda n: "{" + _fit('"a":1,', n) + '"b":2}'),
    ("json-in-json", _classify(500, JSON), lambda n: '"' + _fit('\\"', n) + '"'),
    ("text-spaces", _classify(500, {}), lambda n: "too" + " " * n + "many requests"),
    ("text-words", _classify(None, {}), lambda n: _fit("model rate timed ", n)),  # type: ignore[arg-type]
    # 200 bodies: SSE and JSON
    ("sse-empty-events", _classify(200, SSE), lambda n: _fit("data: {}\n\n", n)),
    ("sse-data-lines", _classify(200, SSE), lambda n: _fit("data:\n", n)),
    ("sse-error-ish-events", _classify(200, SSE), lambda n: _fit('data: {"error":0}\n\n', n)),
    ("sse-escaped-events", _classify(200, SSE), lambda n: _fit('data: "\\\\"\n\n', n)),
    ("sse-long-line", _classify(200, SSE), lambda n: "data: " + "x" * n),
    ("sse-blank-lines", _classify(200, SSE), lambda n: "\n" * n),
    ("sse-cr-lines", _classify(200, SSE), lambda n: _fit("data: x\r", n)),
    ("sse-sniffed", _classify(200, {}), lambda n: _fit("data: [1]\n\n", n)),
    ("inspect-sse-text", surefoot.inspect_response, lambda n: _fit("data: {}\n\n", n)),
    ("inspect-deep-json", surefoot.inspect_response, lambda n: "[" * n + "]" * n),
    (
        "inspect-choices",
        surefoot.inspect_response,
        lambda n: '{"choices": [' + _fit('{"finish_reason": null},', n) + "{}]}",
    ),
    # headers
    (
        "ratelimit-spaces",
        surefoot.parse_ratelimit_headers,
        lambda n: {"ratelimit": " " * n, "ratelimit-policy": " " * n + "1;w=1"},
    ),
    (
        "ratelimit-kv-letters",
        surefoot.parse_ratelimit_headers,
        lambda n: {"ratelimit": "a" * n, "x-ratelimit-reset-requests": "1" * n},
    ),
    (
        "ratelimit-many-params",
        surefoot.parse_ratelimit_headers,
        lambda n: {"ratelimit": _fit(";r=1", n), "ratelimit-policy": _fit(';q=1;w="x"', n)},
    ),
    (
        "ratelimit-many-headers",
        surefoot.parse_ratelimit_headers,
        lambda n: [(f"x-ratelimit-h{i}", "1") for i in range(n // 32)],
    ),
    (
        "classify-header-spaces",
        lambda h: surefoot.classify(429, h, b""),
        lambda n: {"retry-after": " " * n + "1", "x-ratelimit-reset-tokens": _fit("1m", n)},
    ),
]


@pytest.mark.parametrize(("name", "call", "shape"), _CASES, ids=[c[0] for c in _CASES])
def test_work_grows_linearly(
    name: str, call: Callable[[object], object], shape: Callable[[int], object]
) -> None:
    ratio = _ratio(call, shape(N), shape(8 * N))
    assert ratio <= RATIO, f"{name}: 8x the input took {ratio:.1f}x the time"


_BIG = 2 * 1024 * 1024


@pytest.mark.parametrize(
    ("name", "call", "shape"),
    [c for c in _CASES if not c[0].startswith(("ratelimit", "classify-header"))],
    ids=[c[0] for c in _CASES if not c[0].startswith(("ratelimit", "classify-header"))],
)
def test_a_2mb_adversarial_body_is_bounded(
    name: str, call: Callable[[object], object], shape: Callable[[int], object]
) -> None:
    # 32x the input: linear work is at most ~32x (less, as only the first MiB is read);
    # quadratic work would be ~1000x.
    ratio = _ratio(call, shape(N), shape(_BIG))
    assert ratio <= 80, f"{name}: a 2 MiB body took {ratio:.1f}x the time of 64 KiB"
