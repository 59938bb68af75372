"""Every fault of the fault server, over real sockets, in both wire formats."""

from __future__ import annotations

import http.client
import json
import socket
import time
from typing import Any

import pytest

from surefoot.testing.faults import (
    ContentFilter,
    Drip,
    ErrorIn200,
    FaultServer,
    Hang,
    HugeBody,
    Latency,
    MalformedToolCall,
    Ok,
    Reset,
    Status,
    StreamError,
    Truncate,
)

OPENAI = "/v1/chat/completions"
ANTHROPIC = "/v1/messages"
TEXT = "one two three four five six"


def body_for(path: str, stream: bool = False, text: str = TEXT) -> dict[str, Any]:
    if path == OPENAI:
        return {
            "model": "gpt-test",
            "stream": stream,
            "messages": [{"role": "user", "content": text}],
        }
    return {
        "model": "claude-test",
        "max_tokens": 50,
        "stream": stream,
        "messages": [{"role": "user", "content": text}],
    }


both = pytest.mark.parametrize("path", [OPENAI, ANTHROPIC], ids=["openai", "anthropic"])


@pytest.fixture
def server() -> Any:
    with FaultServer() as srv:
        yield srv


def post(
    srv: FaultServer, path: str, body: Any, timeout: float = 5
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection(srv.host, srv.port, timeout=timeout)
    try:
        conn.request("POST", path, json.dumps(body).encode(), {"content-type": "application/json"})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def raw(
    srv: FaultServer, path: str, body: Any, timeout: float = 5
) -> tuple[bytes, Exception | None]:
    """Send one request on a raw socket; everything received, and how the reading ended."""
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


def split_response(data: bytes) -> tuple[str, bytes]:
    head, _, body = data.partition(b"\r\n\r\n")
    return head.decode(), body


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


def sse(payload: bytes) -> list[dict[str, str]]:
    out = []
    for block in payload.decode().split("\n\n"):
        if block.strip():
            out.append(dict(line.partition(": ")[::2] for line in block.split("\n")))
    return out


def is_delta(event: dict[str, str]) -> bool:
    if event.get("event") == "content_block_delta":
        return True
    if event.get("event") or event["data"] == "[DONE]":
        return False
    doc = json.loads(event["data"])
    return bool(doc.get("choices") and doc["choices"][0]["delta"].get("content"))


# -- statuses -------------------------------------------------------------------------------

STATUS_CASES = [
    # status, kind, openai (type, code), anthropic type
    (429, None, ("requests", "rate_limit_exceeded"), "rate_limit_error"),
    (429, "insufficient_quota", ("insufficient_quota", "insufficient_quota"), "rate_limit_error"),
    (402, None, ("insufficient_quota", "insufficient_quota"), "billing_error"),
    (401, None, ("invalid_request_error", "invalid_api_key"), "authentication_error"),
    (404, None, ("invalid_request_error", "model_not_found"), "not_found_error"),
    (400, "context_length", ("invalid_request_error", "context_length_exceeded"),
     "invalid_request_error"),
    (500, None, ("server_error", None), "api_error"),
    (503, None, ("server_error", None), "api_error"),
    (529, None, ("server_error", None), "overloaded_error"),
]  # fmt: skip


@pytest.mark.parametrize("status,kind,oa,anth", STATUS_CASES)
def test_status_bodies(
    server: FaultServer, status: int, kind: str | None, oa: Any, anth: str
) -> None:
    server.enqueue(Status(status, error=kind), times=2)
    got, headers, body = post(server, OPENAI, body_for(OPENAI))
    assert got == status
    err = json.loads(body)["error"]
    assert set(err) == {"message", "type", "param", "code"}
    assert (err["type"], err["code"]) == oa
    assert headers["x-request-id"].startswith("req_")
    got, headers, body = post(server, ANTHROPIC, body_for(ANTHROPIC))
    doc = json.loads(body)
    assert got == status
    assert doc["type"] == "error" and doc["error"]["type"] == anth and doc["error"]["message"]
    assert "request-id" in headers
    assert [r.status for r in server.requests] == [status, status]
    assert server.requests[0].fault == Status(status, error=kind)


def test_status_headers(server: FaultServer) -> None:
    server.enqueue(Status(429, retry_after=7, retry_after_ms=6500, headers={"X-Extra": "1"}))
    _, headers, _ = post(server, OPENAI, body_for(OPENAI))
    assert headers["retry-after"] == "7" and headers["retry-after-ms"] == "6500"
    assert headers["x-extra"] == "1"
    assert headers["x-ratelimit-remaining-requests"] == "0"
    assert headers["x-ratelimit-reset-requests"] == "7s"
    server.enqueue(Status(429, retry_after="Wed, 21 Oct 2015 07:28:00 GMT"))
    _, headers, _ = post(server, ANTHROPIC, body_for(ANTHROPIC))
    assert headers["retry-after"] == "Wed, 21 Oct 2015 07:28:00 GMT"
    assert headers["anthropic-ratelimit-requests-remaining"] == "0"
    server.enqueue(Status(503, ratelimit_headers=False))
    _, headers, _ = post(server, OPENAI, body_for(OPENAI))
    assert "retry-after" not in headers and not any(h.startswith("x-ratelimit") for h in headers)


def test_queue_then_normal(server: FaultServer) -> None:
    server.enqueue(Status(503), times=2)
    server.enqueue(Ok())
    statuses = [post(server, OPENAI, body_for(OPENAI))[0] for _ in range(4)]
    assert statuses == [503, 503, 200, 200]
    assert [r.attempt for r in server.requests] == [1, 2, 3, 4]


# -- latency and hangs --------------------------------------------------------------------------


@both
def test_latency_before_headers(server: FaultServer, path: str) -> None:
    server.enqueue(Latency(0.3))
    server.enqueue(Status(500, delay=0.2))
    started = time.monotonic()
    assert post(server, path, body_for(path))[0] == 200
    assert time.monotonic() - started >= 0.3
    started = time.monotonic()
    assert post(server, path, body_for(path))[0] == 500
    assert time.monotonic() - started >= 0.2


@both
def test_hang_until_client_gives_up(server: FaultServer, path: str) -> None:
    server.enqueue(Hang())
    data, exc = raw(server, path, body_for(path), timeout=0.3)
    assert data == b"" and isinstance(exc, TimeoutError)
    assert post(server, path, body_for(path))[0] == 200  # the server still serves others


@both
def test_hang_mid_stream(server: FaultServer, path: str) -> None:
    server.enqueue(Hang(after_events=2))
    data, exc = raw(server, path, body_for(path, stream=True), timeout=0.3)
    assert isinstance(exc, TimeoutError)
    head, body = split_response(data)
    assert head.startswith("HTTP/1.1 200")
    payload, complete = dechunk(body)
    assert not complete and len(sse(payload)) == 2


def test_close_cancels_hung_handlers() -> None:
    srv = FaultServer().start()
    srv.enqueue(Hang())
    sock = socket.create_connection((srv.host, srv.port), timeout=5)
    data = json.dumps(body_for(OPENAI)).encode()
    sock.sendall(
        b"POST %b HTTP/1.1\r\nContent-Length: %d\r\n\r\n%b" % (OPENAI.encode(), len(data), data)
    )
    time.sleep(0.1)
    started = time.monotonic()
    srv.close()
    assert time.monotonic() - started < 5
    assert sock.recv(100) == b""  # the server closed it
    sock.close()


# -- resets ---------------------------------------------------------------------------------


@both
def test_reset_before_headers(server: FaultServer, path: str) -> None:
    server.enqueue(Reset())
    data, exc = raw(server, path, body_for(path))
    assert data == b"" and isinstance(exc, ConnectionResetError)
    server.enqueue(Reset())
    with pytest.raises((ConnectionResetError, http.client.RemoteDisconnected)):
        post(server, path, body_for(path))


@both
def test_reset_mid_stream(server: FaultServer, path: str) -> None:
    server.enqueue(Reset(at="mid_body", after_events=3))
    data, exc = raw(server, path, body_for(path, stream=True))
    assert isinstance(exc, ConnectionResetError)
    head, body = split_response(data)
    assert head.startswith("HTTP/1.1 200")
    payload, complete = dechunk(body)
    assert not complete and len(sse(payload)) == 3


@both
def test_reset_mid_json_body(server: FaultServer, path: str) -> None:
    server.enqueue(Reset(at="mid_body"))
    data, exc = raw(server, path, body_for(path))
    assert isinstance(exc, ConnectionResetError)
    head, body = split_response(data)
    length = int(head.lower().split("content-length: ")[1].split("\r\n")[0])
    assert 0 < len(body) < length


# -- truncation and mid-stream errors ---------------------------------------------------------


@both
def test_truncated_stream_lacks_final_event(server: FaultServer, path: str) -> None:
    server.enqueue(Truncate())
    data, exc = raw(server, path, body_for(path, stream=True))
    assert exc is None
    payload, complete = dechunk(split_response(data)[1])
    assert complete  # clean at the HTTP level...
    evs = sse(payload)
    assert evs and all(e["data"] != "[DONE]" and e.get("event") != "message_stop" for e in evs)
    assert sum(map(is_delta, evs)) == 6  # ...with every delta but not the end


@both
def test_truncated_stream_after_events(server: FaultServer, path: str) -> None:
    server.enqueue(Truncate(after_events=3))
    data, _ = raw(server, path, body_for(path, stream=True))
    payload, _ = dechunk(split_response(data)[1])
    assert [e["id"] for e in sse(payload)] == ["1", "2", "3"]


@both
def test_truncated_json_body(server: FaultServer, path: str) -> None:
    server.enqueue(Truncate())
    data, exc = raw(server, path, body_for(path))
    assert exc is None
    head, body = split_response(data)
    length = int(head.lower().split("content-length: ")[1].split("\r\n")[0])
    assert len(body) == length // 2
    server.enqueue(Truncate())
    with pytest.raises(http.client.IncompleteRead):
        post(server, path, body_for(path))


def test_stream_error_openai(server: FaultServer) -> None:
    server.enqueue(StreamError(after_deltas=2))
    evs = sse(post(server, OPENAI, body_for(OPENAI, stream=True))[2])
    assert sum(map(is_delta, evs[:-1])) == 2
    err = json.loads(evs[-1]["data"])["error"]
    assert set(err) == {"message", "type", "param", "code"}
    assert err["type"] == "server_error" and err["code"] is None
    assert "overloaded" in err["message"]
    assert evs[-1]["id"] == str(len(evs))
    assert all(e["data"] != "[DONE]" for e in evs)


def test_stream_error_anthropic(server: FaultServer) -> None:
    server.enqueue(StreamError(after_deltas=3))
    evs = sse(post(server, ANTHROPIC, body_for(ANTHROPIC, stream=True))[2])
    assert sum(map(is_delta, evs)) == 3
    assert evs[-1]["event"] == "error"
    assert json.loads(evs[-1]["data"]) == {
        "type": "error",
        "error": {"details": None, "type": "overloaded_error", "message": "Overloaded"},
        "request_id": "req_000001",
    }


@both
def test_stream_error_on_json_request_is_error_in_200(server: FaultServer, path: str) -> None:
    server.enqueue(StreamError())
    status, _, body = post(server, path, body_for(path))
    assert status == 200 and "error" in json.loads(body)


@both
def test_error_in_200(server: FaultServer, path: str) -> None:
    server.enqueue(ErrorIn200(error="server", message="boom"))
    status, headers, body = post(server, path, body_for(path))
    doc = json.loads(body)
    assert status == 200 and headers["content-type"] == "application/json"
    assert doc["error"]["message"] == "boom"
    if path == ANTHROPIC:
        assert doc["type"] == "error" and doc["error"]["type"] == "api_error"
    else:
        assert doc["error"]["type"] == "server_error"


# -- content faults ---------------------------------------------------------------------------


def test_malformed_tool_call_openai(server: FaultServer) -> None:
    server.enqueue(MalformedToolCall(name="lookup", arguments='{"q": "x'), times=2)
    doc = json.loads(post(server, OPENAI, body_for(OPENAI))[2])
    call = doc["choices"][0]["message"]["tool_calls"][0]["function"]
    assert call["name"] == "lookup"
    with pytest.raises(json.JSONDecodeError):
        json.loads(call["arguments"])
    evs = sse(post(server, OPENAI, body_for(OPENAI, stream=True))[2])
    args = "".join(
        tc["function"].get("arguments", "")
        for e in evs[:-1]
        for tc in json.loads(e["data"])["choices"][0]["delta"].get("tool_calls", [])
    )
    assert args == '{"q": "x'


def test_malformed_tool_call_anthropic(server: FaultServer) -> None:
    server.enqueue(MalformedToolCall(), times=2)
    doc = json.loads(post(server, ANTHROPIC, body_for(ANTHROPIC))[2])
    block = doc["content"][0]
    assert block["type"] == "tool_use" and block["input"] == {}  # input is always an object
    evs = sse(post(server, ANTHROPIC, body_for(ANTHROPIC, stream=True))[2])
    partial = "".join(
        json.loads(e["data"])["delta"]["partial_json"]
        for e in evs
        if e["event"] == "content_block_delta"
    )
    with pytest.raises(json.JSONDecodeError):
        json.loads(partial)


def test_content_filter_openai_finish_reason(server: FaultServer) -> None:
    server.enqueue(ContentFilter(), times=2)
    status, _, body = post(server, OPENAI, body_for(OPENAI))
    choice = json.loads(body)["choices"][0]
    assert status == 200 and choice["finish_reason"] == "content_filter"
    assert choice["message"]["content"] is None and "tool_calls" not in choice["message"]
    status, headers, body = post(server, OPENAI, body_for(OPENAI, stream=True))
    evs = sse(body)
    assert status == 200 and headers["content-type"].startswith("text/event-stream")
    assert evs[-1]["data"] == "[DONE]"
    finishes = [json.loads(e["data"])["choices"][0]["finish_reason"] for e in evs[:-1]]
    assert finishes[-1] == "content_filter" and set(finishes[:-1]) == {None}
    # partial content: what the model wrote before the filter stopped it
    server.enqueue(ContentFilter(text="Here is how"), times=2)
    choice = json.loads(post(server, OPENAI, body_for(OPENAI))[2])["choices"][0]
    assert choice["message"]["content"] == "Here is how"
    assert choice["finish_reason"] == "content_filter"
    evs = sse(post(server, OPENAI, body_for(OPENAI, stream=True))[2])
    chunks = [json.loads(e["data"])["choices"][0] for e in evs[:-1]]
    assert "".join(c["delta"].get("content") or "" for c in chunks) == "Here is how"
    assert chunks[-1]["finish_reason"] == "content_filter"


def test_content_filter_anthropic_refusal(server: FaultServer) -> None:
    server.enqueue(ContentFilter(), times=2)
    status, _, body = post(server, ANTHROPIC, body_for(ANTHROPIC))
    doc = json.loads(body)
    assert status == 200 and doc["stop_reason"] == "refusal" and doc["content"] == []
    evs = sse(post(server, ANTHROPIC, body_for(ANTHROPIC, stream=True))[2])
    assert [e["event"] for e in evs] == ["message_start", "message_delta", "message_stop"]
    assert json.loads(evs[1]["data"])["delta"]["stop_reason"] == "refusal"
    server.enqueue(ContentFilter(text="Sure, the"), times=2)
    doc = json.loads(post(server, ANTHROPIC, body_for(ANTHROPIC))[2])
    assert doc["content"] == [{"type": "text", "text": "Sure, the"}]
    assert doc["stop_reason"] == "refusal"
    evs = sse(post(server, ANTHROPIC, body_for(ANTHROPIC, stream=True))[2])
    text = "".join(
        json.loads(e["data"])["delta"]["text"] for e in evs if e["event"] == "content_block_delta"
    )
    assert text == "Sure, the"
    (delta,) = [json.loads(e["data"]) for e in evs if e["event"] == "message_delta"]
    assert delta["delta"]["stop_reason"] == "refusal"


@both
@pytest.mark.parametrize("stream", [False, True])
def test_content_filter_error_mode(server: FaultServer, path: str, stream: bool) -> None:
    server.enqueue(ContentFilter(mode="error"))
    status, headers, body = post(server, path, body_for(path, stream=stream))
    doc = json.loads(body)
    assert status == 400 and headers["content-type"] == "application/json"
    if path == OPENAI:  # Azure OpenAI's filtered-prompt error
        err = doc["error"]
        assert err["code"] == "content_filter" and err["param"] == "prompt"
        assert err["innererror"]["code"] == "ResponsibleAIPolicyViolation"
    else:
        assert doc["type"] == "error"
        assert doc["error"] == {
            "type": "invalid_request_error",
            "message": "Output blocked by content filtering policy",
        }
    server.enqueue(ContentFilter(mode="error", message="nope"))
    assert "nope" in post(server, path, body_for(path))[2].decode()
    assert server.requests[0].status == 400
    with pytest.raises(ValueError, match="`mode` must be one of finish_reason, error"):
        ContentFilter(mode="refusal")  # type: ignore[arg-type]


@both
def test_huge_body(server: FaultServer, path: str) -> None:
    server.enqueue(HugeBody(megabytes=2), times=2)
    _, _, body = post(server, path, body_for(path))
    assert len(body) > 2_000_000
    doc = json.loads(body)
    text = doc["choices"][0]["message"]["content"] if path == OPENAI else doc["content"][0]["text"]
    assert len(text) == 2_000_000
    evs = sse(post(server, path, body_for(path, stream=True))[2])
    if path == OPENAI:
        pieces = [json.loads(e["data"])["choices"] for e in evs[:-1]]
        streamed = "".join(c[0]["delta"].get("content", "") for c in pieces if c)
    else:
        streamed = "".join(
            json.loads(e["data"])["delta"]["text"]
            for e in evs
            if e["event"] == "content_block_delta"
        )
    assert len(streamed) == 2_000_000


@both
def test_drip_feed(server: FaultServer, path: str) -> None:
    normal = post(server, path, body_for(path, stream=True))[2]
    server.enqueue(Drip(chunk_bytes=64, interval=0.01))
    started = time.monotonic()
    dripped = post(server, path, body_for(path, stream=True))[2]
    elapsed = time.monotonic() - started
    assert dripped == normal
    assert elapsed >= (len(normal) // 64) * 0.01 * 0.8
    server.enqueue(Drip(chunk_bytes=50, interval=0.005))
    assert json.loads(post(server, path, body_for(path))[2])


@both
def test_connection_reusable_after_cut_streams(server: FaultServer, path: str) -> None:
    server.enqueue(Truncate())
    server.enqueue(StreamError(after_deltas=1))
    conn = http.client.HTTPConnection(server.host, server.port, timeout=5)
    for _ in range(3):
        conn.request("POST", path, json.dumps(body_for(path, stream=True)).encode())
        resp = conn.getresponse()
        assert resp.status == 200
        resp.read()
    conn.close()
    assert [r.fault for r in server.requests] == [Truncate(), StreamError(after_deltas=1), None]
