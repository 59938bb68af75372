"""The fault server without faults: wire formats, scripted model, resume, recording, lifecycle."""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import time
from typing import Any

import aiohttp
import pytest

from surefoot.testing.faults import (
    FaultServer,
    Model,
    PortInUseError,
    ToolCall,
    Turn,
)

OPENAI = "/v1/chat/completions"
ANTHROPIC = "/v1/messages"


def post(
    server: FaultServer, path: str, body: Any, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=5)
    try:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        conn.request("POST", path, data, {"content-type": "application/json", **(headers or {})})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def events(data: bytes) -> list[dict[str, str]]:
    """A minimal SSE parse: each event's fields (event, id, data)."""
    out = []
    for block in data.decode().split("\n\n"):
        if not block.strip():
            continue
        fields: dict[str, str] = {}
        for line in block.split("\n"):
            name, _, value = line.partition(": ")
            fields[name] = value
        out.append(fields)
    return out


def chat(text: str = "hello brave new world", **extra: Any) -> dict[str, Any]:
    return {"model": "gpt-test", "messages": [{"role": "user", "content": text}], **extra}


def claude(text: str = "hello brave new world", **extra: Any) -> dict[str, Any]:
    return {
        "model": "claude-test",
        "max_tokens": 100,
        "messages": [{"role": "user", "content": [{"type": "text", "text": text}]}],
        **extra,
    }


@pytest.fixture
def server() -> Any:
    with FaultServer() as srv:
        yield srv


def test_openai_json_echo(server: FaultServer) -> None:
    status, headers, body = post(server, OPENAI, chat())
    doc = json.loads(body)
    assert status == 200
    assert headers["content-type"] == "application/json"
    assert doc["object"] == "chat.completion"
    assert doc["choices"][0]["message"] == {
        "role": "assistant",
        "content": "hello brave new world",
        "refusal": None,
    }
    assert doc["choices"][0]["finish_reason"] == "stop"
    assert doc["usage"] == {"prompt_tokens": 4, "completion_tokens": 4, "total_tokens": 8}
    # the short path works too
    assert post(server, "/chat/completions", chat())[0] == 200


def test_anthropic_json_echo(server: FaultServer) -> None:
    status, _, body = post(server, ANTHROPIC, claude("hi there"))
    doc = json.loads(body)
    assert status == 200
    assert doc["type"] == "message" and doc["role"] == "assistant"
    assert doc["content"] == [{"type": "text", "text": "hi there"}]
    assert doc["stop_reason"] == "end_turn"
    assert doc["usage"] == {"input_tokens": 2, "output_tokens": 2}


def test_openai_stream_format(server: FaultServer) -> None:
    body = chat("one two three", stream=True, stream_options={"include_usage": True})
    status, headers, data = post(server, OPENAI, body)
    assert status == 200
    assert headers["content-type"].startswith("text/event-stream")
    evs = events(data)
    assert [e["id"] for e in evs] == [str(i) for i in range(1, len(evs) + 1)]
    assert evs[-1]["data"] == "[DONE]"
    chunks = [json.loads(e["data"]) for e in evs[:-1]]
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"])
    assert text == "one two three"
    assert chunks[-2]["choices"][0]["finish_reason"] == "stop"
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] == 6


def test_anthropic_stream_format(server: FaultServer) -> None:
    status, _, data = post(server, ANTHROPIC, claude("one two", stream=True))
    assert status == 200
    evs = events(data)
    names = [e["event"] for e in evs]
    assert names == [
        "message_start",
        "content_block_start",
        "ping",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    docs = [json.loads(e["data"]) for e in evs]
    assert all(d["type"] == n for d, n in zip(docs, names, strict=True))
    assert "".join(d["delta"]["text"] for d in docs if d["type"] == "content_block_delta") == (
        "one two"
    )
    assert docs[-2]["delta"]["stop_reason"] == "end_turn"


def _agent() -> Model:
    return Model(
        name="agent-*",
        turns=(
            Turn(tool_calls=(ToolCall("get_weather", {"city": "Paris"}),)),
            Turn(text="It is sunny in Paris."),
        ),
    )


def test_scripted_tool_calls_openai() -> None:
    with FaultServer(models=[_agent()]) as srv:
        first = {"model": "agent-1", "messages": [{"role": "user", "content": "weather?"}]}
        doc = json.loads(post(srv, OPENAI, first)[2])
        message = doc["choices"][0]["message"]
        assert doc["choices"][0]["finish_reason"] == "tool_calls"
        call = message["tool_calls"][0]
        assert call["function"]["name"] == "get_weather"
        assert json.loads(call["function"]["arguments"]) == {"city": "Paris"}
        # streamed: the arguments arrive in pieces and reassemble
        data = post(srv, OPENAI, {**first, "stream": True})[2]
        chunks = [json.loads(e["data"]) for e in events(data)[:-1]]
        parts = [
            tc["function"].get("arguments", "")
            for c in chunks
            for tc in c["choices"][0]["delta"].get("tool_calls", [])
        ]
        assert len(parts) > 2 and json.loads("".join(parts)) == {"city": "Paris"}
        # second turn: the conversation holds one assistant message
        second = {
            "model": "agent-1",
            "messages": [
                *first["messages"],
                {"role": "assistant", "tool_calls": [call], "content": None},
                {"role": "tool", "tool_call_id": call["id"], "content": "sunny"},
            ],
        }
        doc = json.loads(post(srv, OPENAI, second)[2])
        assert doc["choices"][0]["message"]["content"] == "It is sunny in Paris."


def test_scripted_tool_calls_anthropic() -> None:
    with FaultServer(models=[_agent()]) as srv:
        body = claude("weather?", model="agent-x")
        doc = json.loads(post(srv, ANTHROPIC, body)[2])
        assert doc["stop_reason"] == "tool_use"
        assert doc["content"][0]["type"] == "tool_use"
        assert doc["content"][0]["input"] == {"city": "Paris"}
        docs = [
            json.loads(e["data"]) for e in events(post(srv, ANTHROPIC, {**body, "stream": True})[2])
        ]
        start = next(d for d in docs if d["type"] == "content_block_start")
        assert start["content_block"]["type"] == "tool_use"
        partial = "".join(
            d["delta"]["partial_json"] for d in docs if d["type"] == "content_block_delta"
        )
        assert json.loads(partial) == {"city": "Paris"}


def test_fixed_reply_and_context_window() -> None:
    models = [Model(name="small", reply="fixed answer", context_window=5)]
    with FaultServer(models=models) as srv:
        ok = json.loads(post(srv, OPENAI, {**chat("a b c"), "model": "small"})[2])
        assert ok["choices"][0]["message"]["content"] == "fixed answer"
        status, _, body = post(srv, OPENAI, {**chat("a b c d e f"), "model": "small"})
        assert status == 400
        err = json.loads(body)["error"]
        assert err["code"] == "context_length_exceeded"
        assert err["type"] == "invalid_request_error"
        assert "maximum context length is 5 tokens" in err["message"]
        status, _, body = post(srv, ANTHROPIC, {**claude("a b c d e f"), "model": "small"})
        assert status == 400
        doc = json.loads(body)
        assert doc["type"] == "error"
        assert doc["error"]["type"] == "invalid_request_error"
        assert doc["error"]["message"].startswith("prompt is too long")


@pytest.mark.parametrize("path,make", [(OPENAI, chat), (ANTHROPIC, claude)])
def test_last_event_id_replays_only_later_events(server: FaultServer, path: str, make: Any) -> None:
    body = make("alpha beta gamma delta", stream=True)
    full = events(post(server, path, body)[2])
    resumed = events(post(server, path, body, {"Last-Event-ID": "3"})[2])
    assert resumed == full[3:]
    assert resumed[0]["id"] == "4"
    assert server.requests[-1].last_event_id == "3"
    assert server.requests[-1].attempt == 2  # same body: the same logical request


def test_requests_recorded_with_secrets_redacted(server: FaultServer) -> None:
    headers = {"Authorization": "Bearer sk-abcdef1234567890", "x-api-key": "sk-ant-secret12345"}
    post(server, OPENAI, chat(), {**headers, "Idempotency-Key": "k1"})
    post(server, OPENAI, chat(), {**headers, "Idempotency-Key": "k1"})
    post(server, ANTHROPIC, claude(), {"Idempotency-Key": "k2"})
    reqs = server.requests
    assert [r.attempt for r in reqs] == [1, 2, 1]
    assert [r.idempotency_key for r in reqs] == ["k1", "k1", "k2"]
    assert reqs[0].headers["authorization"] == "[REDACTED]"
    assert reqs[0].headers["x-api-key"] == "[REDACTED]"
    assert "sk-" not in repr(reqs)
    assert reqs[0].method == "POST" and reqs[0].path == OPENAI
    assert reqs[0].json["model"] == "gpt-test" and reqs[0].model == "gpt-test"
    assert reqs[0].fault is None and reqs[0].status == 200
    assert reqs[0].timestamp <= reqs[2].timestamp
    server.reset()
    assert server.requests == []
    post(server, OPENAI, chat(), {"Idempotency-Key": "k1"})
    assert server.requests[0].attempt == 1


def test_keep_alive_and_chunked_request_body(server: FaultServer) -> None:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=5)
    for i in range(3):
        conn.request("POST", OPENAI, json.dumps(chat(f"n{i}")).encode())
        assert json.loads(conn.getresponse().read())["choices"][0]["message"]["content"] == f"n{i}"
    body = json.dumps(chat("chunked body")).encode()
    conn.request("POST", OPENAI, iter([body[:10], body[10:]]), encode_chunked=True)
    resp = conn.getresponse()
    assert json.loads(resp.read())["choices"][0]["message"]["content"] == "chunked body"
    conn.close()
    assert len(server.requests) == 4


def test_bad_requests(server: FaultServer) -> None:
    status, _, body = post(server, "/v1/nowhere", chat())
    assert status == 404 and "Invalid URL" in json.loads(body)["error"]["message"]
    status, _, body = post(server, OPENAI, b"{not json")
    assert status == 400 and json.loads(body)["error"]["type"] == "invalid_request_error"
    conn = http.client.HTTPConnection(server.host, server.port, timeout=5)
    conn.request("GET", OPENAI)
    assert conn.getresponse().status == 405
    conn.close()


def test_request_size_is_bounded() -> None:
    with FaultServer(max_body_bytes=1000) as srv:
        status, _, _ = post(srv, OPENAI, chat("x" * 5000))
        assert status == 413
        assert post(srv, OPENAI, chat("small"))[0] == 200


def test_port_in_use_names_the_port() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(PortInUseError, match=f"port {port} .*already in use"):
            FaultServer(port=port).start()


def test_given_port_and_base_url() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with FaultServer(port=port) as srv:
        assert srv.base_url == f"http://127.0.0.1:{port}"
    with pytest.raises(RuntimeError, match="not started"):
        _ = FaultServer().base_url


def test_close_does_not_hang_with_a_client_mid_request() -> None:
    srv = FaultServer().start()
    sock = socket.create_connection((srv.host, srv.port))
    sock.sendall(b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
    time.sleep(0.05)
    started = time.monotonic()
    srv.close()
    assert time.monotonic() - started < 5
    srv.close()  # twice is fine
    sock.close()


async def test_async_context_manager_with_aiohttp() -> None:
    async with FaultServer() as srv, aiohttp.ClientSession() as session:
        async with session.post(srv.base_url + OPENAI, json=chat("async hi")) as resp:
            doc = await resp.json()
        assert doc["choices"][0]["message"]["content"] == "async hi"
        async with session.post(srv.base_url + ANTHROPIC, json=claude("x y", stream=True)) as r:
            raw = await r.read()
        assert b"event: message_stop" in raw
    await asyncio.sleep(0)
    assert not srv.running


def test_pytest_plugin_fixture(fault_server: FaultServer) -> None:
    assert fault_server.running
    assert post(fault_server, OPENAI, chat("from fixture"))[0] == 200
    assert fault_server.requests[0].json["messages"][0]["content"] == "from fixture"


def test_pytest_plugin_fake_clock(fake_clock: Any) -> None:
    before = fake_clock.now()
    fake_clock.advance(5)
    assert fake_clock.now() - before == pytest.approx(5)
