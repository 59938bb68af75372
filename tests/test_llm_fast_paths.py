"""The client's hot-path shortcuts give exactly what the general code gives: JSON in and out,
idempotency keys, lower-cased response headers, and message normalization."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import pytest
import urllib3
from multidict import CIMultiDict, CIMultiDictProxy

from surefoot.http._types import LowerHeaders
from surefoot.llm._call import _loads, idempotency_key
from surefoot.llm._messages import Message, normalize_messages
from surefoot.llm._wire import dumps

BODIES = [
    b'{"a":1}',
    b'{"a": [1, 2.5, null, true, "\\u00e9"]}\n',
    b'{"a":1}\r\n\t ',
    b'{"a":1} x',
    b'{"a":1}\x0b',
    b'{"a":NaN}',
    b"{",
    b'{"a":',
    b"{}",
    b"[1]",
    b' {"a":1}',
    b"",
    b"not json",
    '{"a":"é"}'.encode(),
    b'{"a":"\xff"}',
    '{"a":1}'.encode("utf-16-le"),
    '{"a":1}'.encode("utf-8-sig"),
]


def _outcome(fn: Any, arg: Any) -> tuple[str, Any]:
    try:
        return "ok", fn(arg)
    except Exception as exc:
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize("body", BODIES)
def test_loads_is_json_loads(body: bytes) -> None:
    got, want = _outcome(_loads, body), _outcome(json.loads, body)
    if want[0] == "ok" and want[1] != want[1]:  # NaN != NaN
        assert repr(got) == repr(want)
    else:
        assert got == want


def test_dumps_is_compact_json_dumps() -> None:
    for obj in [
        {"model": "m", "messages": [{"role": "user", "content": 'é \ud800 "q"'}]},
        [1, 2.5, float("inf"), None, True, {"k": []}],
        "text",
        3,
    ]:
        assert dumps(obj) == json.dumps(obj, separators=(",", ":")).encode()
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        dumps({"a": loop})
    with pytest.raises(TypeError, match="not JSON serializable"):
        dumps({"a": object()})


def test_idempotency_keys_are_unique_hex() -> None:
    keys = [idempotency_key() for _ in range(1000)]
    assert len(set(keys)) == len(keys)
    assert all(len(k) == 32 and int(k, 16) >= 0 for k in keys)


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "win32", reason="needs fork")
def test_a_forked_child_draws_its_own_key_prefix() -> None:
    parent = idempotency_key()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report one key and leave at once
        try:
            os.write(write, idempotency_key().encode())
        finally:
            os._exit(0)
    os.close(write)
    child = os.read(read, 64).decode()
    os.close(read)
    os.waitpid(pid, 0)
    after = idempotency_key()
    assert len(child) == 32
    assert child[:20] != parent[:20]  # another random prefix
    assert len({parent, child, after}) == 3


def test_lower_headers_are_the_lower_cased_dict() -> None:
    raw = CIMultiDict([("Content-Type", "a/b"), ("Retry-After", "1"), ("retry-after", "5")])
    want = {k.lower(): v for k, v in raw.items()}
    for source in (raw, CIMultiDictProxy(raw), urllib3.HTTPHeaderDict(raw)):
        h = LowerHeaders(source)
        assert h == {k.lower(): v for k, v in source.items()}
        assert dict(h) == want and h == LowerHeaders(source)
        assert h["content-type"] == "a/b" and h.get("retry-after") == "5"
        assert h.get("Content-Type") is None and "Content-Type" not in h
        assert "retry-after" in h and len(h) == 2 and list(h) == ["content-type", "retry-after"]
        assert repr(h) == repr(want)
        with pytest.raises(KeyError):
            h["missing"]


@pytest.mark.parametrize(
    "item",
    [
        {"role": "user", "content": "hi"},
        {"role": "system", "content": ""},
        {"role": "assistant", "content": "ok"},
        {"role": "developer", "content": "be terse"},
        {"role": "user", "content": [{"type": "text", "text": "a"}]},
        {"role": "user", "content": "hi", "name": "ann"},
    ],
)
def test_plain_message_dicts_normalize_as_before(item: dict[str, Any]) -> None:
    from surefoot.llm._messages import _from_dict

    assert normalize_messages([item]) == [_from_dict(item, 0)]


@pytest.mark.parametrize(
    ("item", "error"),
    [
        ({"role": "tool", "content": "x"}, ValueError),
        ({"role": "robot", "content": "x"}, ValueError),
        ({"role": "user", "content": 3}, TypeError),
        ({"role": "user", "content": None}, ValueError),
        ({"role": 1, "content": "x"}, ValueError),
    ],
)
def test_bad_message_dicts_still_raise(item: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error, match="message 0"):
        normalize_messages([item])


def test_normalized_plain_messages_are_full_messages() -> None:
    (m,) = normalize_messages([{"role": "user", "content": "hi"}])
    assert m == Message("user", "hi") and m.tool_calls == () and m.is_error is False
