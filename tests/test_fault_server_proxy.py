"""The chaos proxy in front of a second local fault server standing in for a provider."""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from surefoot.testing.faults import (
    ChaosProxy,
    ContentFilter,
    FaultServer,
    Hang,
    MalformedChunk,
    MalformedToolCall,
    Match,
    NoDone,
    PrefillRejected,
    Reset,
    Rule,
    SlowFirstToken,
    Status,
    StreamError,
    Truncate,
)

OPENAI = "/v1/chat/completions"
ANTHROPIC = "/v1/messages"


def body_for(path: str, stream: bool = False, text: str = "red green blue") -> dict[str, Any]:
    model = "gpt-test" if path == OPENAI else "claude-test"
    return {
        "model": model,
        "max_tokens": 20,
        "stream": stream,
        "messages": [{"role": "user", "content": text}],
    }


def request(
    srv: Any, path: str, body: Any, headers: dict[str, str] | None = None, method: str = "POST"
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection(srv.host, srv.port, timeout=5)
    try:
        data = None if body is None else json.dumps(body).encode()
        conn.request(method, path, data, {"content-type": "application/json", **(headers or {})})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


@pytest.fixture
def upstream() -> Iterator[FaultServer]:
    with FaultServer() as srv:
        yield srv


@pytest.fixture
def proxy(upstream: FaultServer) -> Iterator[ChaosProxy]:
    with ChaosProxy(upstream.base_url) as prx:
        yield prx


both = pytest.mark.parametrize("path", [OPENAI, ANTHROPIC], ids=["openai", "anthropic"])


@both
@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_passes_through_untouched(
    upstream: FaultServer, proxy: ChaosProxy, path: str, stream: bool
) -> None:
    direct = request(upstream, path, body_for(path, stream))
    via = request(proxy, path, body_for(path, stream), {"Authorization": "Bearer sk-abcdefgh1234"})
    assert via[0] == direct[0] == 200
    assert via[2] == direct[2]
    assert via[1]["content-type"] == direct[1]["content-type"]
    if stream:
        assert via[1]["transfer-encoding"] == "chunked"
    # the upstream saw the client's request (auth forwarded, then redacted in its records)
    seen = upstream.requests[-1]
    assert seen.headers["authorization"] == "[REDACTED]"
    assert seen.json == body_for(path, stream)
    assert proxy.requests[-1].fault is None and proxy.requests[-1].status == 200


def test_passes_errors_headers_and_queries_through(
    upstream: FaultServer, proxy: ChaosProxy
) -> None:
    upstream.enqueue(Status(429, retry_after=3))
    status, headers, body = request(proxy, OPENAI + "?x=1", body_for(OPENAI))
    assert status == 429 and headers["retry-after"] == "3"
    assert json.loads(body)["error"]["code"] == "rate_limit_exceeded"
    hop = {"X-Custom": "1", "Proxy-Authorization": "Basic abc", "Keep-Alive": "timeout=5"}
    assert request(proxy, OPENAI, body_for(OPENAI), hop)[0] == 200
    seen = upstream.requests[-1].headers
    assert seen["x-custom"] == "1"
    assert "proxy-authorization" not in seen and "keep-alive" not in seen
    status, _, _ = request(proxy, "/v1/other", body_for(OPENAI))
    assert status == 404  # the upstream's answer
    assert upstream.requests[-1].path == "/v1/other"


def test_injects_status_without_calling_upstream(upstream: FaultServer) -> None:
    rule = Rule(Status(529), Match(path=ANTHROPIC))
    with ChaosProxy(upstream.base_url, rules=[rule]) as prx:
        status, _, body = request(prx, ANTHROPIC, body_for(ANTHROPIC))
        assert status == 529 and json.loads(body)["error"]["type"] == "overloaded_error"
        assert request(prx, OPENAI, body_for(OPENAI))[0] == 200
    assert [r.path for r in upstream.requests] == [OPENAI]


def test_every_nth_rule(upstream: FaultServer) -> None:
    with ChaosProxy(upstream.base_url, rules=[Rule(Status(503), Match(every=2))]) as prx:
        assert [request(prx, OPENAI, body_for(OPENAI))[0] for _ in range(4)] == [200, 503, 200, 503]
    assert len(upstream.requests) == 2


def _events(payload: bytes) -> list[str]:
    return [block for block in payload.decode().split("\n\n") if block.strip()]


@both
def test_truncates_a_real_stream(upstream: FaultServer, proxy: ChaosProxy, path: str) -> None:
    full = _events(request(upstream, path, body_for(path, True))[2])
    proxy.enqueue(Truncate())
    cut = _events(request(proxy, path, body_for(path, True))[2])
    assert cut == full[:-1]


@both
def test_injects_mid_stream_error(upstream: FaultServer, proxy: ChaosProxy, path: str) -> None:
    proxy.enqueue(StreamError(after_deltas=1))
    evs = _events(request(proxy, path, body_for(path, True))[2])
    if path == OPENAI:
        assert '"error"' in evs[-1] and "[DONE]" not in "".join(evs)
    else:
        assert evs[-1].startswith("event: error") and "overloaded_error" in evs[-1]
    assert sum("content_block_delta" in e or '"content":"' in e for e in evs[:-1]) <= 2


def test_resets_mid_stream(upstream: FaultServer, proxy: ChaosProxy) -> None:
    proxy.enqueue(Reset(at="mid_body", after_events=2))
    data = json.dumps(body_for(OPENAI, True)).encode()
    received = b""
    with socket.create_connection((proxy.host, proxy.port), timeout=5) as sock:
        sock.sendall(
            b"POST %b HTTP/1.1\r\nContent-Length: %d\r\n\r\n%b" % (OPENAI.encode(), len(data), data)
        )
        with pytest.raises(ConnectionResetError):
            while chunk := sock.recv(65536):
                received += chunk
    assert received.startswith(b"HTTP/1.1 200") and received.count(b"data: ") == 2


def test_hang_and_content_faults(upstream: FaultServer, proxy: ChaosProxy) -> None:
    proxy.enqueue(Hang())
    conn = http.client.HTTPConnection(proxy.host, proxy.port, timeout=0.3)
    with pytest.raises(TimeoutError):
        conn.request("POST", OPENAI, json.dumps(body_for(OPENAI)).encode())
        conn.getresponse()
    conn.close()
    proxy.enqueue(MalformedToolCall())
    doc = json.loads(request(proxy, OPENAI, body_for(OPENAI))[2])
    arguments = doc["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
    with pytest.raises(json.JSONDecodeError):
        json.loads(arguments)
    proxy.enqueue(ContentFilter())
    doc = json.loads(request(proxy, OPENAI, body_for(OPENAI))[2])
    assert doc["choices"][0]["finish_reason"] == "content_filter"
    proxy.enqueue(ContentFilter(mode="error"))
    status, _, body = request(proxy, OPENAI, body_for(OPENAI))
    assert status == 400 and json.loads(body)["error"]["code"] == "content_filter"
    assert upstream.requests == []


def test_upstream_down_is_502() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with ChaosProxy(f"http://127.0.0.1:{port}") as prx:
        status, _, body = request(prx, OPENAI, body_for(OPENAI))
    assert status == 502 and "upstream" in json.loads(body)["error"]["message"]


def test_upstream_url_is_checked() -> None:
    with pytest.raises(ValueError, match="http:// or https://"):
        ChaosProxy("localhost:8080")


def test_streams_through_chunk_by_chunk(upstream: FaultServer, proxy: ChaosProxy) -> None:
    # the upstream sends two events and stalls: they must reach the client before it ends
    upstream.enqueue(Hang(after_events=2))
    conn = http.client.HTTPConnection(proxy.host, proxy.port, timeout=5)
    conn.request("POST", OPENAI, json.dumps(body_for(OPENAI, True)).encode())
    resp = conn.getresponse()
    assert resp.status == 200
    first = resp.read1(65536)
    while first.count(b"data: ") < 2:
        first += resp.read1(65536)
    assert first.count(b"data: ") == 2 and b"[DONE]" not in first
    conn.close()


# -- slow first token, malformed chunks, no terminator, prefill ------------------------------


@both
def test_slow_first_token_on_a_real_stream(
    upstream: FaultServer, proxy: ChaosProxy, path: str
) -> None:
    import time

    full = _events(request(upstream, path, body_for(path, True))[2])
    proxy.enqueue(SlowFirstToken(seconds=0.3, ping_every=0.2))
    start = time.monotonic()
    got = _events(request(proxy, path, body_for(path, True))[2])
    assert time.monotonic() - start >= 0.3
    ping = ": ping" if path == OPENAI else 'event: ping\ndata: {"type": "ping"}'
    first_delta = 1 if path == OPENAI else 3
    assert got == [*full[:first_delta], ping, *full[first_delta:]]
    proxy.enqueue(SlowFirstToken(seconds=0.3))
    start = time.monotonic()
    status, _, body = request(proxy, path, body_for(path))
    assert status == 200 and time.monotonic() - start >= 0.3 and json.loads(body)


@both
def test_malformed_chunk_in_a_real_stream(
    upstream: FaultServer, proxy: ChaosProxy, path: str
) -> None:
    full = _events(request(upstream, path, body_for(path, True))[2])
    proxy.enqueue(MalformedChunk(after_events=2, text="garbage"))
    got = _events(request(proxy, path, body_for(path, True))[2])
    name = "event: content_block_delta\n" if path == ANTHROPIC else ""
    assert got == [*full[:2], f"{name}data: garbage", *full[2:]]
    whole = request(upstream, path, body_for(path))[2]
    proxy.enqueue(MalformedChunk())
    status, headers, body = request(proxy, path, body_for(path))
    assert status == 200 and body == whole[: len(whole) // 2]
    assert headers["content-length"] == str(len(body))


@both
def test_no_done_on_a_real_stream(upstream: FaultServer, proxy: ChaosProxy, path: str) -> None:
    full = _events(request(upstream, path, body_for(path, True))[2])
    proxy.enqueue(NoDone())
    assert _events(request(proxy, path, body_for(path, True))[2]) == full[:-1]
    whole = request(upstream, path, body_for(path))[2]
    proxy.enqueue(NoDone())
    status, headers, body = request(proxy, path, body_for(path))
    assert status == 200 and body == whole and "content-length" not in headers


@both
def test_prefill_rejected_without_calling_upstream(upstream: FaultServer, path: str) -> None:
    with ChaosProxy(upstream.base_url, rules=[Rule(PrefillRejected())]) as prx:
        body = body_for(path)
        body["messages"].append({"role": "assistant", "content": "red"})
        status, _, answer = request(prx, path, body)
        assert status == 400
        doc = json.loads(answer)
        message = doc["error"]["message"]
        assert message.startswith("This model does not support assistant message prefill.")
        assert request(prx, path, body_for(path))[0] == 200  # not prefilled: forwarded
    assert len(upstream.requests) == 1


def test_responses_stream_faults_through_the_proxy(
    upstream: FaultServer, proxy: ChaosProxy
) -> None:
    body = {"model": "gpt-test", "input": "red green blue", "stream": True}
    full = _events(request(upstream, "/v1/responses", body)[2])
    assert full[-1].startswith("event: response.completed")
    proxy.enqueue(Truncate())
    assert _events(request(proxy, "/v1/responses", body)[2]) == full[:-1]
    proxy.enqueue(StreamError(after_deltas=1))
    cut = _events(request(proxy, "/v1/responses", body)[2])
    assert cut[:-1] == full[:5] and '"error"' in cut[-1]
    proxy.enqueue(ContentFilter(text="red"))
    status, _, answer = request(proxy, "/v1/responses", {**body, "stream": False})
    doc = json.loads(answer)
    assert status == 200 and doc["status"] == "incomplete"
    assert doc["incomplete_details"] == {"reason": "content_filter"}
