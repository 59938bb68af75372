"""The failures real providers have: streams without ids, a slow first token, malformed
chunks, a stream without its terminator, silence and stalls, flapping on a schedule.

Every test talks real HTTP to the loopback server, in both dialects, streamed and not, and
checks exact bytes, events and counts.
"""

from __future__ import annotations

import http.client
import json
import socket
import time
from typing import Any

import pytest

from surefoot.testing.faults import (
    FAULT_TYPES,
    FaultServer,
    Hang,
    MalformedChunk,
    Match,
    Model,
    NoDone,
    Reset,
    Rule,
    SlowFirstToken,
    Status,
    StreamError,
    Truncate,
    parse_scenario,
)

OPENAI = "/v1/chat/completions"
ANTHROPIC = "/v1/messages"
TEXT = "one two three four"

both = pytest.mark.parametrize("path", [OPENAI, ANTHROPIC], ids=["openai", "anthropic"])
streams = pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])


def body_for(path: str, stream: bool = False, text: str = TEXT, **extra: Any) -> dict[str, Any]:
    model = "gpt-test" if path == OPENAI else "claude-test"
    return {
        "model": model,
        "max_tokens": 50,
        "stream": stream,
        "messages": [{"role": "user", "content": text}],
        **extra,
    }


def post(
    srv: FaultServer,
    path: str,
    body: Any,
    headers: dict[str, str] | None = None,
    timeout: float = 5,
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection(srv.host, srv.port, timeout=timeout)
    try:
        data = json.dumps(body).encode()
        conn.request("POST", path, data, {"content-type": "application/json", **(headers or {})})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def raw(
    srv: FaultServer, path: str, body: Any, timeout: float = 5
) -> tuple[bytes, Exception | None]:
    """One request on a raw socket: every byte received, and how the reading ended."""
    data = json.dumps(body).encode()
    head = (
        f"POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        f"Content-Length: {len(data)}\r\n\r\n"
    ).encode()
    received = b""
    with socket.create_connection((srv.host, srv.port), timeout=timeout) as sock:
        sock.sendall(head + data)
        try:
            while chunk := sock.recv(65536):
                received += chunk
        except OSError as exc:
            return received, exc
    return received, None


def dechunk(body: bytes) -> tuple[bytes, bool]:
    """The payload of a chunked body, and whether the terminating chunk arrived."""
    out = b""
    while body:
        size_line, sep, rest = body.partition(b"\r\n")
        if not sep:
            break
        size = int(size_line, 16)
        if size == 0:
            return out, True
        out += rest[:size]
        body = rest[size + 2 :]
    return out, False


def blocks(payload: bytes) -> list[str]:
    return [block for block in payload.decode().split("\n\n") if block.strip()]


def fields(block: str) -> dict[str, str]:
    return dict(line.partition(": ")[::2] for line in block.split("\n"))


def timed_stream(
    srv: FaultServer, path: str, body: Any, timeout: float = 5
) -> list[tuple[float, bytes]]:
    """The chunks of a streamed answer with their arrival times (after the headers)."""
    conn = http.client.HTTPConnection(srv.host, srv.port, timeout=timeout)
    try:
        conn.request("POST", path, json.dumps(body).encode())
        resp = conn.getresponse()
        start = time.monotonic()
        assert resp.status == 200
        assert resp.getheader("content-type", "").startswith("text/event-stream")
        out = []
        while chunk := resp.read1(65536):
            out.append((time.monotonic() - start, chunk))
        return out
    finally:
        conn.close()


def is_delta(block: str) -> bool:
    if "content_block_delta" in block:
        return True
    f = fields(block)
    if "event" in f or f.get("data", "[DONE]") == "[DONE]":
        return False
    choices = json.loads(f["data"]).get("choices") or [{}]
    return bool(choices[0].get("delta", {}).get("content"))


# -- event ids --------------------------------------------------------------------------------


@both
def test_default_streams_keep_their_ids(path: str) -> None:
    with FaultServer() as srv:
        evs = blocks(post(srv, path, body_for(path, True))[2])
    assert [fields(b)["id"] for b in evs] == [str(i) for i in range(1, len(evs) + 1)]


@both
@pytest.mark.parametrize("where", ["server", "model"])
def test_streams_without_ids_ignore_last_event_id(path: str, where: str) -> None:
    kwargs: dict[str, Any] = (
        {"event_ids": False} if where == "server" else {"models": [Model(event_ids=False)]}
    )
    with FaultServer(**kwargs) as srv:
        full = post(srv, path, body_for(path, True))[2]
        again = post(srv, path, body_for(path, True), {"Last-Event-ID": "3"})[2]
        assert srv.requests[-1].last_event_id == "3"
    assert b"\nid: " not in full and not full.startswith(b"id: ")
    assert again == full  # the stream starts over, as a real provider's
    if path == OPENAI:
        assert blocks(full)[-1] == "data: [DONE]"
    else:
        assert blocks(full)[-1] == 'event: message_stop\ndata: {"type":"message_stop"}'


def test_model_ids_override_the_server() -> None:
    models = [Model("with-ids", event_ids=True), Model("*")]
    with FaultServer(models=models, event_ids=False) as srv:
        plain = post(srv, OPENAI, {**body_for(OPENAI, True), "model": "other"})[2]
        numbered = post(srv, OPENAI, {**body_for(OPENAI, True), "model": "with-ids"})[2]
    assert b"id: " not in plain
    assert fields(blocks(numbered)[0])["id"] == "1"


def test_event_ids_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match="event_ids must be True or False"):
        FaultServer(event_ids=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"Model\.event_ids"):
        Model(event_ids="no")  # type: ignore[arg-type]


@both
def test_stream_error_without_ids_has_no_id(path: str) -> None:
    with FaultServer(event_ids=False) as srv:
        srv.enqueue(StreamError(after_deltas=1))
        evs = blocks(post(srv, path, body_for(path, True))[2])
    assert "id" not in fields(evs[-1]) and "error" in evs[-1]


@both
def test_cut_without_ids(path: str) -> None:
    """A stream cut short (truncated, or reset mid-body) without ids: nothing to resume by."""
    with FaultServer(event_ids=False) as srv:
        srv.enqueue(Truncate(after_events=2))
        data, _ = raw(srv, path, body_for(path, True))
        payload, complete = dechunk(data.partition(b"\r\n\r\n")[2])
        assert complete and len(blocks(payload)) == 2 and b"id: " not in payload
        srv.enqueue(Reset(at="mid_body", after_events=2))
        data, error = raw(srv, path, body_for(path, True))
        payload, complete = dechunk(data.partition(b"\r\n\r\n")[2])
        assert not complete and len(blocks(payload)) == 2 and b"id: " not in payload
        assert error is None or isinstance(error, ConnectionResetError)
        # the retry (with the header a client would send) gets the whole stream again
        status, _, again = post(srv, path, body_for(path, True), {"Last-Event-ID": "2"})
        assert status == 200 and blocks(again)[:2] == blocks(payload)


# -- slow first token -------------------------------------------------------------------------


@both
def test_slow_first_token_stream_is_silent_then_whole(path: str) -> None:
    with FaultServer() as srv:
        expected = blocks(post(srv, path, body_for(path, True))[2])
        srv.enqueue(SlowFirstToken(seconds=0.4))
        chunks = timed_stream(srv, path, body_for(path, True))
    payload = b"".join(c for _, c in chunks)
    assert blocks(payload) == expected
    first_delta = next(i for i, b in enumerate(expected) if is_delta(b))
    seen = b""
    waited = None
    for at, chunk in chunks:
        before = len(blocks(seen))
        seen += chunk
        if before < first_delta:  # the preamble arrives at once, alone
            assert at < 0.3 and len(blocks(seen)) <= first_delta
        elif before == first_delta:  # the first delta after the silence
            waited = at
            break
    assert waited is not None and waited >= 0.38
    assert first_delta == (1 if path == OPENAI else 3)


@both
def test_slow_first_token_with_pings(path: str) -> None:
    with FaultServer(event_ids=False) as srv:
        expected = blocks(post(srv, path, body_for(path, True))[2])
        srv.enqueue(SlowFirstToken(seconds=0.5, ping_every=0.15))
        chunks = timed_stream(srv, path, body_for(path, True))
    got = blocks(b"".join(c for _, c in chunks))
    ping = ": ping" if path == OPENAI else 'event: ping\ndata: {"type": "ping"}'
    pings = [i for i, b in enumerate(got) if b == ping]
    first_delta = next(i for i, b in enumerate(expected) if is_delta(b))
    assert pings == list(range(first_delta, first_delta + 3))  # at 0.15, 0.30, 0.45 s
    assert [b for b in got if b != ping] == expected


@both
def test_slow_first_token_plain_waits_before_the_headers(path: str) -> None:
    with FaultServer() as srv:
        srv.enqueue(SlowFirstToken(seconds=0.3))
        start = time.monotonic()
        status, headers, body = post(srv, path, body_for(path))
        took = time.monotonic() - start
    assert status == 200 and took >= 0.3
    assert headers["content-type"] == "application/json" and TEXT in body.decode()


def test_slow_first_token_beyond_the_read_timeout_times_out() -> None:
    with FaultServer() as srv:
        srv.enqueue(SlowFirstToken(seconds=2))
        conn = http.client.HTTPConnection(srv.host, srv.port, timeout=0.3)
        conn.request("POST", OPENAI, json.dumps(body_for(OPENAI, True)).encode())
        resp = conn.getresponse()  # the headers come at once
        assert resp.status == 200
        resp.read1(65536)  # the role chunk
        with pytest.raises(TimeoutError):
            resp.read1(65536)
        conn.close()


def test_slow_first_token_checks() -> None:
    with pytest.raises(ValueError, match="`seconds` must be non-negative"):
        SlowFirstToken(seconds=-1)
    with pytest.raises(ValueError, match="`ping_every` must be positive"):
        SlowFirstToken(ping_every=0)
    with pytest.raises(TypeError, match=r"SlowFirstToken\.seconds must be a number"):
        SlowFirstToken(seconds="1")  # type: ignore[arg-type]


# -- malformed chunk --------------------------------------------------------------------------

BROKEN = {
    OPENAI: 'data: {"choices":[{"index":0,"delta":{"content":"x"',
    ANTHROPIC: 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
    '"delta":{"type":"text_delta","text":"x"',
}


@both
@pytest.mark.parametrize("ids", [True, False], ids=["ids", "no-ids"])
def test_malformed_chunk_mid_stream_then_the_rest(path: str, ids: bool) -> None:
    with FaultServer(event_ids=ids) as srv:
        expected = blocks(post(srv, path, body_for(path, True))[2])
        srv.enqueue(MalformedChunk(after_events=3, count=2))
        got = blocks(post(srv, path, body_for(path, True))[2])
    assert got == [*expected[:3], BROKEN[path], BROKEN[path], *expected[3:]]


@both
def test_malformed_chunk_custom_text_and_position(path: str) -> None:
    with FaultServer(event_ids=False) as srv:
        expected = blocks(post(srv, path, body_for(path, True))[2])
        srv.enqueue(MalformedChunk(after_events=0, text="garbage"))
        got = blocks(post(srv, path, body_for(path, True))[2])
        srv.enqueue(MalformedChunk(after_events=99))
        late = blocks(post(srv, path, body_for(path, True))[2])
    name = "event: content_block_delta\n" if path == ANTHROPIC else ""
    assert got == [f"{name}data: garbage", *expected]
    assert late == [*expected, BROKEN[path]]  # a shorter stream: at its end


@both
def test_malformed_chunk_plain_is_half_a_json_body(path: str) -> None:
    with FaultServer() as srv:
        full = post(srv, path, body_for(path))[2]
        srv.enqueue(MalformedChunk())
        status, headers, body = post(srv, path, body_for(path))
    assert status == 200 and headers["content-length"] == str(len(body))
    assert body == full[: len(full) // 2]
    with pytest.raises(ValueError):
        json.loads(body)


def test_malformed_chunk_checks() -> None:
    with pytest.raises(ValueError, match="`count` must be at least 1"):
        MalformedChunk(count=0)
    with pytest.raises(ValueError, match="`after_events` must be non-negative"):
        MalformedChunk(after_events=-1)
    with pytest.raises(ValueError, match="one line"):
        MalformedChunk(text="a\nb")


# -- no terminator ----------------------------------------------------------------------------


@both
@pytest.mark.parametrize("usage", [False, True], ids=["no-usage", "usage"])
def test_no_done_stream_is_complete_but_unterminated(path: str, usage: bool) -> None:
    extra = {"stream_options": {"include_usage": True}} if usage else {}
    with FaultServer(event_ids=False) as srv:
        expected = blocks(post(srv, path, body_for(path, True, **extra))[2])
        srv.enqueue(NoDone())
        data, error = raw(srv, path, body_for(path, True, **extra))
    assert error is None
    payload, complete = dechunk(data.partition(b"\r\n\r\n")[2])
    assert complete  # cleanly closed at the HTTP level
    got = blocks(payload)
    assert got == expected[:-1]
    last = json.loads(fields(got[-1])["data"])
    if path == OPENAI:
        assert expected[-1] == "data: [DONE]"
        if usage:
            assert last["choices"] == [] and last["usage"]["completion_tokens"] == 4
            assert json.loads(fields(got[-2])["data"])["choices"][0]["finish_reason"] == "stop"
        else:
            assert last["choices"][0]["finish_reason"] == "stop"
    else:
        assert last["type"] == "message_delta" and last["delta"]["stop_reason"] == "end_turn"
        assert last["usage"] == {"output_tokens": 4}


@both
def test_no_done_plain_is_close_delimited(path: str) -> None:
    with FaultServer() as srv:
        full = post(srv, path, body_for(path))[2]
        srv.enqueue(NoDone())
        data, error = raw(srv, path, body_for(path))
    assert error is None
    head, _, body = data.partition(b"\r\n\r\n")
    assert b"content-length" not in head.lower() and b"transfer-encoding" not in head.lower()
    assert b"connection: close" in head.lower()
    assert body == full


# -- silence, stalls --------------------------------------------------------------------------


@both
@streams
@pytest.mark.parametrize("ids", [True, False], ids=["ids", "no-ids"])
def test_silent_after_accept(path: str, stream: bool, ids: bool) -> None:
    with FaultServer(event_ids=ids) as srv:
        srv.enqueue(Hang())
        data, error = raw(srv, path, body_for(path, stream), timeout=0.3)
        assert data == b"" and isinstance(error, TimeoutError)
        assert srv.requests[-1].status is None


@both
@pytest.mark.parametrize("ids", [True, False], ids=["ids", "no-ids"])
def test_stall_mid_stream(path: str, ids: bool) -> None:
    with FaultServer(event_ids=ids) as srv:
        expected = blocks(post(srv, path, body_for(path, True))[2])
        srv.enqueue(Hang(after_events=2))
        data, error = raw(srv, path, body_for(path, True), timeout=0.4)
    assert isinstance(error, TimeoutError)
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200")
    payload, complete = dechunk(body)
    assert not complete and blocks(payload) == expected[:2]


# -- flapping on a schedule --------------------------------------------------------------------


@both
@streams
def test_down_for_the_first_second_then_healthy(path: str, stream: bool) -> None:
    with FaultServer(rules=[Rule(Status(503), Match(end=1.0))]) as srv:
        srv.reset()  # the window's clock starts now
        first = post(srv, path, body_for(path, stream))
        assert first[0] == 503
        time.sleep(max(0.0, 1.05 - srv.uptime))
        later = post(srv, path, body_for(path, stream))
    assert later[0] == 200 and TEXT.split()[-1] in later[2].decode()
    if stream:
        assert later[1]["content-type"].startswith("text/event-stream")


@both
def test_flapping_windows(path: str) -> None:
    rules = [Rule(Status(529), Match(start=0.3, end=0.6)), Rule(Status(429), Match(start=0.9))]
    with FaultServer(rules=rules) as srv:
        srv.reset()
        statuses = []
        for at in (0.0, 0.4, 0.7, 1.0):
            time.sleep(max(0.0, at - srv.uptime))
            statuses.append(post(srv, path, body_for(path, True))[0])
    assert statuses == [200, 529, 200, 429]


# -- YAML -------------------------------------------------------------------------------------


def test_yaml_names() -> None:
    assert FAULT_TYPES["slow_first_token"] is SlowFirstToken
    assert FAULT_TYPES["malformed_chunk"] is MalformedChunk
    assert FAULT_TYPES["no_done"] is NoDone
    scenario = parse_scenario(
        """
        models:
          - name: gpt-*
            event_ids: false
        queue:
          - fault: {type: slow_first_token, seconds: 0.2, ping_every: 0.1}
          - fault: {type: malformed_chunk, after_events: 1, count: 2, text: garbage}
          - fault: no_done
          - fault: {type: stream_error, responses_event: response.failed}
        """
    )
    assert scenario.models[0].event_ids is False
    assert list(scenario.queue) == [
        SlowFirstToken(seconds=0.2, ping_every=0.1),
        MalformedChunk(after_events=1, count=2, text="garbage"),
        NoDone(),
        StreamError(responses_event="response.failed"),
    ]


def test_yaml_errors_name_the_line() -> None:
    from surefoot.testing.faults import ScenarioError

    with pytest.raises(ScenarioError, match=r"line 2.*`count` must be at least 1"):
        parse_scenario("queue:\n  - fault: {type: malformed_chunk, count: 0}\n")
    with pytest.raises(ScenarioError, match=r"line 2.*`event_ids` must be true or false"):
        parse_scenario("models:\n  - {name: x, event_ids: maybe}\n")
    with pytest.raises(ScenarioError, match=r"line 2.*must be one of error, response\.failed"):
        parse_scenario("queue:\n  - fault: {type: stream_error, responses_event: failed}\n")


@both
@streams
def test_yaml_scenario_through_the_server(path: str, stream: bool, tmp_path: Any) -> None:
    scenario = tmp_path / "s.yaml"
    scenario.write_text(
        "models:\n  - {name: '*', event_ids: false}\n"
        "queue:\n  - fault: {type: malformed_chunk, after_events: 1}\n  - fault: no_done\n"
    )
    with FaultServer(scenario) as srv:
        status, headers, body = post(srv, path, body_for(path, stream))
        assert status == 200
        if stream:
            assert blocks(body)[1] == BROKEN[path] and b"id: " not in body
        else:
            assert headers["content-length"] == str(len(body))
            with pytest.raises(ValueError):
                json.loads(body)
        status, headers, body = post(srv, path, body_for(path, stream))
        assert status == 200
        if stream:
            assert b"[DONE]" not in body and b"message_stop" not in body
        else:
            assert "content-length" not in headers and json.loads(body)
