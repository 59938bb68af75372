"""The OpenAI Responses API of the fault server, over real HTTP and through the OpenAI SDK."""

from __future__ import annotations

import http.client
import json
import warnings
from collections.abc import Iterator
from typing import Any

import openai
import pytest

from surefoot.testing.faults import (
    ContentFilter,
    FaultServer,
    Hang,
    MalformedChunk,
    Model,
    Reset,
    Status,
    StreamError,
    ToolCall,
    Truncate,
    Turn,
)

PATH = "/v1/responses"
TEXT = "one two three four"
TOOLS = [
    {
        "type": "function",
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    }
]
TEXT_EVENTS = [
    "response.created",
    "response.in_progress",
    "response.output_item.added",
    "response.content_part.added",
    *["response.output_text.delta"] * 4,
    "response.output_text.done",
    "response.content_part.done",
    "response.output_item.done",
    "response.completed",
]


def agent() -> Model:
    call = ToolCall("get_weather", {"city": "Paris"})
    return Model("agent", turns=[Turn(tool_calls=[call]), Turn("Sunny in Paris.")])


@pytest.fixture
def server() -> Iterator[FaultServer]:
    with FaultServer(models=[agent()]) as srv:
        yield srv


@pytest.fixture(autouse=True)
def no_warnings() -> Iterator[None]:
    """A field the SDK's models do not expect in a shape would warn: fail instead."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", ResourceWarning)  # a collected client's socket
        yield


def client(srv: FaultServer, timeout: float = 10.0) -> openai.OpenAI:
    return openai.OpenAI(base_url=srv.base_url + "/v1", api_key="x", max_retries=0, timeout=timeout)


def call(
    srv: FaultServer, method: str, target: str, body: Any = None, timeout: float = 5
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection(srv.host, srv.port, timeout=timeout)
    try:
        data = None if body is None else json.dumps(body).encode()
        conn.request(method, target, data, {"content-type": "application/json"})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def sse(payload: bytes) -> list[tuple[str, dict[str, Any]]]:
    """Each event's ``event:`` name and parsed data; fails on any other field (``id:``)."""
    out = []
    for block in payload.decode().split("\n\n"):
        if not block.strip():
            continue
        lines = block.split("\n")
        assert len(lines) == 2 and lines[0].startswith("event: ") and lines[1].startswith("data: ")
        out.append((lines[0][7:], json.loads(lines[1][6:])))
    return out


# -- plain -------------------------------------------------------------------------------------


def test_plain_response_object(server: FaultServer) -> None:
    body = {"model": "gpt-test", "input": TEXT, "instructions": "Be brief."}
    status, headers, data = call(server, "POST", PATH, body)
    assert status == 200 and headers["content-type"] == "application/json"
    doc = json.loads(data)
    assert doc["id"].startswith("resp_") and doc["object"] == "response"
    assert doc["status"] == "completed" and doc["model"] == "gpt-test"
    assert doc["instructions"] == "Be brief." and doc["error"] is None
    assert doc["output"] == [
        {
            "type": "message",
            "id": doc["output"][0]["id"],
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": TEXT, "annotations": []}],
        }
    ]
    assert doc["output"][0]["id"].startswith("msg_")
    usage = doc["usage"]
    assert (usage["input_tokens"], usage["output_tokens"], usage["total_tokens"]) == (6, 4, 10)
    assert server.requests[-1].method == "POST" and server.requests[-1].path == PATH


def test_sdk_create_text_and_items(server: FaultServer) -> None:
    response = client(server).responses.create(model="gpt-test", input=TEXT)
    assert response.output_text == TEXT and response.status == "completed"
    items: Any = [
        {"role": "user", "content": [{"type": "input_text", "text": "alpha beta"}]},
        {"role": "assistant", "content": [{"type": "output_text", "text": "ok"}]},
        {"role": "user", "content": "gamma delta"},
    ]
    response = client(server).responses.create(model="gpt-test", input=items)
    assert response.output_text == "gamma delta"


def test_function_calls(server: FaultServer) -> None:
    sdk = client(server)
    first = sdk.responses.create(model="agent", input="weather?", tools=TOOLS)  # type: ignore[arg-type]
    (item,) = first.output
    assert item.type == "function_call" and item.name == "get_weather"
    assert item.arguments == '{"city":"Paris"}' and item.call_id.startswith("call_")
    assert item.id is not None and item.id.startswith("fc_")
    follow: Any = [
        {"role": "user", "content": "weather?"},
        {"type": "function_call", "call_id": item.call_id, "name": item.name, "arguments": "{}"},
        {"type": "function_call_output", "call_id": item.call_id, "output": "sunny"},
    ]
    second = sdk.responses.create(model="agent", input=follow, tools=TOOLS)  # type: ignore[arg-type]
    assert second.output_text == "Sunny in Paris."


def test_max_output_tokens_is_incomplete(server: FaultServer) -> None:
    response = client(server).responses.create(model="m", input=TEXT, max_output_tokens=2)
    assert response.status == "incomplete"
    assert response.incomplete_details is not None
    assert response.incomplete_details.reason == "max_output_tokens"
    assert response.output_text == "one two" and response.usage is not None
    assert response.usage.output_tokens == 2


def test_content_filter_is_incomplete(server: FaultServer) -> None:
    server.enqueue(ContentFilter(text="one"))
    response = client(server).responses.create(model="m", input=TEXT)
    assert response.status == "incomplete" and response.output_text == "one"
    assert response.incomplete_details is not None
    assert response.incomplete_details.reason == "content_filter"
    server.enqueue(ContentFilter())
    events = sse(call(server, "POST", PATH, {"model": "m", "input": TEXT, "stream": True})[2])
    name, last = events[-1]
    assert name == "response.incomplete" and last["response"]["status"] == "incomplete"
    assert last["response"]["incomplete_details"] == {"reason": "content_filter"}


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_status_is_the_openai_error(server: FaultServer, stream: bool) -> None:
    server.enqueue(Status(429, retry_after=1))
    with pytest.raises(openai.RateLimitError) as ei:
        client(server).responses.create(model="m", input=TEXT, stream=stream)
    assert ei.value.code == "rate_limit_exceeded"
    assert ei.value.response.headers["retry-after"] == "1"


def test_unknown_response_and_bad_requests(server: FaultServer) -> None:
    with pytest.raises(openai.NotFoundError) as ei:
        client(server).responses.retrieve("resp_nope")
    assert ei.value.message.endswith("Response with id 'resp_nope' not found.")
    status, _, data = call(server, "POST", PATH, {"input": "x"})
    assert status == 400 and "model" in json.loads(data)["error"]["message"]
    rid = json.loads(call(server, "POST", PATH, {"model": "m", "input": "q"})[2])["id"]
    status, _, data = call(server, "GET", f"{PATH}/{rid}?stream=true")
    assert status == 400 and "background=true" in json.loads(data)["error"]["message"]


def test_store_false_is_not_kept(server: FaultServer) -> None:
    doc = json.loads(call(server, "POST", PATH, {"model": "m", "input": "z", "store": False})[2])
    assert call(server, "GET", f"{PATH}/{doc['id']}")[0] == 404


# -- streamed ---------------------------------------------------------------------------------


def test_stream_event_sequence(server: FaultServer) -> None:
    status, headers, data = call(
        server, "POST", PATH, {"model": "m", "input": TEXT, "stream": True}
    )
    assert status == 200 and headers["content-type"].startswith("text/event-stream")
    events = sse(data)
    assert [name for name, _ in events] == TEXT_EVENTS
    assert [doc["type"] for _, doc in events] == TEXT_EVENTS
    assert [doc["sequence_number"] for _, doc in events] == list(range(len(TEXT_EVENTS)))
    deltas = [doc for name, doc in events if name == "response.output_text.delta"]
    assert [d["delta"] for d in deltas] == ["one", " two", " three", " four"]
    item_id = events[2][1]["item"]["id"]
    assert all(
        (d["item_id"], d["output_index"], d["content_index"]) == (item_id, 0, 0) for d in deltas
    )
    assert events[0][1]["response"]["status"] == "in_progress"
    assert events[0][1]["response"]["output"] == []
    assert events[8][1]["text"] == TEXT
    final = events[-1][1]["response"]
    assert final["status"] == "completed" and final["output"][0]["content"][0]["text"] == TEXT
    assert final == json.loads(call(server, "GET", f"{PATH}/{final['id']}")[2])


def test_stream_function_call_events(server: FaultServer) -> None:
    body = {"model": "agent", "input": "weather?", "tools": TOOLS, "stream": True}
    events = sse(call(server, "POST", PATH, body)[2])
    names = [name for name, _ in events]
    assert names == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
    ]
    deltas = "".join(d["delta"] for n, d in events if n.endswith("arguments.delta"))
    assert deltas == events[5][1]["arguments"] == '{"city":"Paris"}'
    assert events[2][1]["item"]["arguments"] == "" and events[6][1]["item"]["status"] == "completed"


def test_sdk_stream_and_helper(server: FaultServer) -> None:
    sdk = client(server)
    events = list(sdk.responses.create(model="m", input=TEXT, stream=True))
    assert [e.type for e in events] == TEXT_EVENTS
    with sdk.responses.stream(model="m", input=TEXT) as stream:
        texts = [e.delta for e in stream if e.type == "response.output_text.delta"]
        final = stream.get_final_response()
    assert texts == ["one", " two", " three", " four"] and final.output_text == TEXT
    with sdk.responses.stream(model="agent", input="weather?", tools=TOOLS) as stream:  # type: ignore[arg-type]
        final = stream.get_final_response()
    assert final.output[0].type == "function_call"


def test_stream_error_event(server: FaultServer) -> None:
    server.enqueue(StreamError(after_deltas=1, error="rate_limit"))
    events = list(client(server).responses.create(model="m", input=TEXT, stream=True))
    assert [e.type for e in events] == [*TEXT_EVENTS[:5], "error"]
    error = events[-1]
    assert error.type == "error" and error.sequence_number == 5
    assert error.code == "rate_limit_exceeded" and error.param is None
    assert error.message.startswith("Rate limit reached for m")
    server.enqueue(StreamError(after_deltas=0))
    helper = client(server).responses.stream(model="m", input=TEXT)
    with pytest.raises(RuntimeError, match=r"response\.completed"), helper as stream:
        stream.get_final_response()  # the SDK's helper wants its final event


def test_stream_error_as_response_failed(server: FaultServer) -> None:
    server.enqueue(StreamError(after_deltas=2, responses_event="response.failed"))
    data = call(server, "POST", PATH, {"model": "m", "input": TEXT, "stream": True})[2]
    events = sse(data)
    assert [n for n, _ in events] == [*TEXT_EVENTS[:6], "response.failed"]
    _, failed = events[-1]
    assert failed["sequence_number"] == 6 and failed["response"]["status"] == "failed"
    assert failed["response"]["error"] == {
        "code": "server_error",
        "message": "That model is currently overloaded with other requests. You can retry your "
        "request, or contact us through our help center at help.openai.com if the error "
        "persists.",
    }


def test_stream_cut_faults(server: FaultServer) -> None:
    server.enqueue(Truncate())
    events = sse(call(server, "POST", PATH, {"model": "m", "input": TEXT, "stream": True})[2])
    assert [n for n, _ in events] == TEXT_EVENTS[:-1]
    server.enqueue(Reset(at="mid_body", after_events=3))
    with pytest.raises(openai.APIConnectionError):
        list(client(server).responses.create(model="m", input=TEXT, stream=True))
    server.enqueue(Hang(after_events=4))
    got: list[Any] = []
    with pytest.raises(openai.APITimeoutError):
        for event in client(server, timeout=0.5).responses.create(
            model="m", input=TEXT, stream=True
        ):
            got.append(event)
    assert [e.type for e in got] == TEXT_EVENTS[:4]
    server.enqueue(MalformedChunk(after_events=2))
    with pytest.raises(json.JSONDecodeError):
        list(client(server).responses.create(model="m", input=TEXT, stream=True))


# -- background and resume ------------------------------------------------------------------


def test_background_stream_resumes_without_repeats_or_losses(server: FaultServer) -> None:
    sdk = client(server)
    full = [
        e.model_dump()
        for e in sdk.responses.create(model="m", input=TEXT, stream=True, background=True)
    ]
    server.enqueue(Truncate(after_events=5))
    first = list(sdk.responses.create(model="m", input=TEXT, stream=True, background=True))
    assert [e.sequence_number for e in first] == [0, 1, 2, 3, 4]
    response_id = first[0].response.id  # type: ignore[union-attr]
    rest = list(sdk.responses.retrieve(response_id, stream=True, starting_after=4))
    assert [e.sequence_number for e in rest] == list(range(5, len(TEXT_EVENTS)))
    joined = [e.model_dump() for e in [*first, *rest]]
    assert joined == full and joined[-1]["response"]["output"][0]["content"][0]["text"] == TEXT
    requests = server.requests[-2:]
    assert [(r.method, r.path) for r in requests] == [
        ("POST", PATH),
        ("GET", f"{PATH}/{response_id}"),
    ]
    # from the start, and the plain retrieve
    again = list(sdk.responses.retrieve(response_id, stream=True))
    assert [e.model_dump() for e in again] == full
    assert sdk.responses.retrieve(response_id).status == "completed"


def test_background_plain_is_queued_then_completed(server: FaultServer) -> None:
    status, _, data = call(server, "POST", PATH, {"model": "m", "input": TEXT, "background": True})
    queued = json.loads(data)
    assert status == 200 and queued["status"] == "queued" and queued["output"] == []
    assert queued["background"] is True and queued["usage"] is None
    done = client(server).responses.retrieve(queued["id"])
    assert done.status == "completed" and done.output_text == TEXT


def test_resume_raw_bytes_and_faults_on_the_get(server: FaultServer) -> None:
    body = {"model": "m", "input": TEXT, "stream": True, "background": True}
    full = call(server, "POST", PATH, body)[2]
    rid = sse(full)[0][1]["response"]["id"]
    blocks = [b + "\n\n" for b in full.decode().split("\n\n") if b.strip()]
    status, headers, tail = call(server, "GET", f"{PATH}/{rid}?stream=true&starting_after=9")
    assert status == 200 and headers["content-type"].startswith("text/event-stream")
    assert tail.decode() == "".join(blocks[10:])
    server.enqueue(Status(503))
    assert call(server, "GET", f"{PATH}/{rid}?stream=true&starting_after=9")[0] == 503
    server.enqueue(StreamError(after_deltas=0))
    events = sse(call(server, "GET", f"{PATH}/{rid}?stream=true&starting_after=3")[2])
    assert [(n, d["sequence_number"]) for n, d in events] == [("error", 4)]
    assert call(server, "GET", f"{PATH}/{rid}?stream=true&starting_after=x")[0] == 400
