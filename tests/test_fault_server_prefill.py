"""Assistant prefill: the scripted model continues a partial answer, or refuses it."""

from __future__ import annotations

import http.client
import json
from typing import Any

import pytest

from surefoot.testing.faults import (
    FAULT_TYPES,
    FaultServer,
    Model,
    PrefillRejected,
    ToolCall,
    Turn,
    parse_scenario,
)

OPENAI = "/v1/chat/completions"
ANTHROPIC = "/v1/messages"
MESSAGE = (
    "This model does not support assistant message prefill. The conversation must end with a "
    "user message."
)

both = pytest.mark.parametrize("path", [OPENAI, ANTHROPIC], ids=["openai", "anthropic"])
streams = pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])


def body_for(path: str, messages: list[dict[str, Any]], stream: bool = False) -> dict[str, Any]:
    model = "gpt-test" if path == OPENAI else "claude-test"
    return {"model": model, "max_tokens": 50, "stream": stream, "messages": messages}


def prefilled(prefix: str, user: str = "alpha beta gamma") -> list[dict[str, Any]]:
    return [{"role": "user", "content": user}, {"role": "assistant", "content": prefix}]


def post(srv: FaultServer, path: str, body: Any) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection(srv.host, srv.port, timeout=5)
    try:
        conn.request("POST", path, json.dumps(body).encode(), {"content-type": "application/json"})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def text_of(path: str, stream: bool, body: bytes) -> str:
    if not stream:
        doc = json.loads(body)
        if path == OPENAI:
            return str(doc["choices"][0]["message"]["content"])
        return "".join(b["text"] for b in doc["content"] if b["type"] == "text")
    out = []
    for block in body.decode().split("\n\n"):
        data = next((ln[6:] for ln in block.split("\n") if ln.startswith("data: ")), None)
        if data is None or data == "[DONE]":
            continue
        doc = json.loads(data)
        if path == OPENAI:
            out.append((doc["choices"] or [{}])[0].get("delta", {}).get("content") or "")
        elif doc["type"] == "content_block_delta":
            out.append(doc["delta"]["text"])
    return "".join(out)


@both
@streams
def test_the_model_continues_the_prefill(path: str, stream: bool) -> None:
    with FaultServer() as srv:
        status, _, body = post(srv, path, body_for(path, prefilled("alpha be"), stream))
    assert status == 200
    assert text_of(path, stream, body) == "ta gamma"
    if not stream:
        doc = json.loads(body)
        usage = doc["usage"]
        assert (usage.get("completion_tokens") or usage.get("output_tokens")) == 2


@both
@streams
def test_a_prefill_the_reply_does_not_start_with_gets_the_whole_reply(
    path: str, stream: bool
) -> None:
    with FaultServer(models=[Model(reply="It is sunny.")]) as srv:
        _, _, body = post(srv, path, body_for(path, prefilled("Sorry,"), stream))
        _, _, cont = post(srv, path, body_for(path, prefilled("It is"), stream))
    assert text_of(path, stream, body) == "It is sunny."
    assert text_of(path, stream, cont) == " sunny."


@both
def test_a_prefill_does_not_count_as_a_played_turn(path: str) -> None:
    turns = [Turn(tool_calls=[ToolCall("get_weather", {"city": "Paris"})]), Turn("Sunny in Paris.")]
    with FaultServer(models=[Model(turns=turns)]) as srv:
        after_tool = [
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": "calling"},
            {"role": "user", "content": "result: sunny"},
            {"role": "assistant", "content": "Sunny"},
        ]
        _, _, body = post(srv, path, body_for(path, after_tool))
    assert text_of(path, False, body) == " in Paris."


@both
@streams
def test_a_model_without_prefill_answers_400(path: str, stream: bool) -> None:
    with FaultServer(models=[Model(prefill=False)]) as srv:
        status, headers, body = post(srv, path, body_for(path, prefilled("alpha"), stream))
        ok = post(srv, path, body_for(path, [{"role": "user", "content": "hi"}], stream))
    assert status == 400 and headers["content-type"] == "application/json"
    doc = json.loads(body)
    if path == OPENAI:
        assert doc == {
            "error": {
                "message": MESSAGE,
                "type": "invalid_request_error",
                "param": None,
                "code": None,
            }
        }
        assert "x-should-retry" not in headers
    else:
        assert doc["type"] == "error" and doc["request_id"] == headers["request-id"]
        assert doc["error"] == {"type": "invalid_request_error", "message": MESSAGE}
        assert headers["x-should-retry"] == "false"
    assert ok[0] == 200


@both
@streams
def test_prefill_rejected_fault(path: str, stream: bool) -> None:
    with FaultServer() as srv:
        srv.enqueue(PrefillRejected())
        status, _, body = post(srv, path, body_for(path, prefilled("alpha"), stream))
        assert status == 400 and MESSAGE in body.decode()
        assert srv.requests[-1].fault == PrefillRejected() and srv.requests[-1].status == 400
        # a request that is not prefilled is answered normally (and spends the fault)
        srv.enqueue(PrefillRejected())
        plain = post(srv, path, body_for(path, [{"role": "user", "content": "hi"}], stream))
        assert plain[0] == 200
        assert post(srv, path, body_for(path, prefilled("alpha"), stream))[0] == 200


def test_prefill_in_yaml() -> None:
    assert FAULT_TYPES["prefill_rejected"] is PrefillRejected
    scenario = parse_scenario(
        "models:\n  - {name: old-*, prefill: false}\nrules:\n"
        "  - match: {model: claude-*}\n    fault: prefill_rejected\n"
    )
    assert scenario.models[0] == Model("old-*", prefill=False)
    with FaultServer(scenario) as srv:
        old = {**body_for(OPENAI, prefilled("alpha")), "model": "old-1"}
        assert post(srv, OPENAI, old)[0] == 400
        assert post(srv, ANTHROPIC, body_for(ANTHROPIC, prefilled("alpha")))[0] == 400
        assert post(srv, OPENAI, body_for(OPENAI, prefilled("alpha")))[0] == 200


def test_prefill_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match=r"Model\.prefill must be True or False"):
        Model(prefill="no")  # type: ignore[arg-type]
