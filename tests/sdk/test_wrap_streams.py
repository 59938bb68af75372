"""Streamed answers through the wrapped official SDKs against real loopback HTTP servers.

The server here is a few raw sockets on 127.0.0.1 (one thread per connection), not surefoot's
FaultServer: it sends what real providers send on the wire (no ``id:`` fields, chunked
transfer encoding, CRLF line ends when asked) and controls every TCP write, so a test can drip
a stream one byte per write, split an error event across two writes, put the events before an
error in the same write as the error, stall a stream without closing it, close it mid-JSON, or
send a hostile body. Every call runs under a bound of a few seconds (a daemon thread for the
sync clients, the runner's future for the async ones): a call that hangs fails its test.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import socket
import threading
import tracemalloc
from collections.abc import Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import openai
import pytest
from _sdks import SDKS, Runner, Sdk, _drive_sync, _iterate, _maybe

import surefoot

CALL_BOUND = 10.0  # seconds a call may take before its test fails as hung
TOKENS = ["Hel", "lo", " wor", "ld"]

# -- the loopback server -------------------------------------------------------------------------


class Hold:
    """A step: keep the connection open, silent, until the server stops."""


HOLD = Hold()
Step = bytes | float | Hold  # bytes: one TCP write; float: a pause (seconds)


@dataclass
class Reply:
    steps: Sequence[Step] = ()
    status: int = 200
    ctype: str = "text/event-stream"
    #: "chunked" (as the providers send streams), "close" (the body ends when the connection
    #: closes), "length" (a Content-Length: a plain JSON answer).
    framing: str = "chunked"
    #: Close without the terminal chunk (the connection breaks mid-body).
    abort: bool = False


@dataclass
class Seen:
    path: str
    body: dict[str, Any]


@dataclass
class LoopServer:
    """An HTTP/1.1 server on 127.0.0.1:0; request ``n`` gets ``replies[n]`` (the last one
    again once they run out); ``requests`` is what it received."""

    replies: Sequence[Reply]
    requests: list[Seen] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(1.0)  # a bound on the accept loop, if shutdown cannot wake it
        self._threads: list[threading.Thread] = []
        self._conns: list[socket.socket] = []
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}"

    def __enter__(self) -> LoopServer:
        self._spawn(self._accept)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        with self._lock:
            conns = [self._listener, *self._conns]
        for conn in conns:  # wakes the blocked accept and every connection's thread
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for t in list(self._threads):
            t.join(timeout=2)
        self._listener.close()

    def _spawn(self, target: Callable[..., None], *args: Any) -> None:
        t = threading.Thread(target=target, args=args, daemon=True)
        with self._lock:
            self._threads.append(t)
        t.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self._lock:
                self._conns.append(conn)
            self._spawn(self._serve, conn)

    def _serve(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(5)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            path, body = _read_request(conn)
            with self._lock:
                n = len(self.requests)
                self.requests.append(Seen(path, json.loads(body or b"{}")))
            reply = self.replies[min(n, len(self.replies) - 1)]
            self._reply(conn, reply)
        except OSError:
            pass  # the client went away: what the tests provoke
        finally:
            conn.close()

    def _reply(self, conn: socket.socket, reply: Reply) -> None:
        head = [f"HTTP/1.1 {reply.status} OK", f"content-type: {reply.ctype}"]
        if reply.framing == "chunked":
            head.append("transfer-encoding: chunked")
        elif reply.framing == "length":
            size = sum(len(s) for s in reply.steps if isinstance(s, bytes))
            head.append(f"content-length: {size}")
        head += ["x-request-id: req_loop", "connection: close", "", ""]
        conn.sendall("\r\n".join(head).encode())
        for step in reply.steps:
            if isinstance(step, Hold):
                self._stop.wait()
                return
            if isinstance(step, float):
                if self._stop.wait(step):
                    return
                continue
            if reply.framing == "chunked":
                conn.sendall(b"%x\r\n%s\r\n" % (len(step), step))
            else:
                conn.sendall(step)
        if reply.framing == "chunked" and not reply.abort:
            conn.sendall(b"0\r\n\r\n")


def _read_request(conn: socket.socket) -> tuple[str, bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        got = conn.recv(65536)
        if not got:
            raise ConnectionResetError("no request")
        data += got
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    while len(body) < length:
        got = conn.recv(65536)
        if not got:
            break
        body += got
    return lines[0].split(" ")[1], body


@pytest.fixture
def serve() -> Iterator[Callable[..., LoopServer]]:
    servers: list[LoopServer] = []

    def start(*replies: Reply) -> LoopServer:
        srv = LoopServer(replies).__enter__()
        servers.append(srv)
        return srv

    yield start
    for srv in servers:
        srv.__exit__()


# -- what the providers send --------------------------------------------------------------------


def sse(data: Any, event: str | None = None) -> bytes:
    """One event as the providers send it: no ``id:`` field."""
    text = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {text}\n\n".encode()


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-loop",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-test",
        "system_fingerprint": "fp_loop",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }


OPENAI_ERROR = {
    "error": {
        "message": "That model is currently overloaded with other requests.",
        "type": "server_error",
        "param": None,
        "code": None,
    }
}
ANTHROPIC_ERROR = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}


@dataclass(frozen=True)
class Wire:
    """One SDK's stream, event by event: ``preamble`` (nothing of the answer), one event per
    token, the ``tail`` that ends the answer (``finish`` then ``final``), its error event."""

    preamble: list[bytes]
    tokens: list[bytes]
    finish: list[bytes]
    final: list[bytes]
    error: bytes

    def whole(self) -> bytes:
        return b"".join(self.preamble + self.tokens + self.finish + self.final)


def wire(sdk: Sdk, tokens: Sequence[str] = TOKENS) -> Wire:
    if sdk.name == "anthropic":
        message = {
            "id": "msg_loop",
            "type": "message",
            "role": "assistant",
            "model": "claude-test",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 1},
        }
        block = {"type": "text", "text": ""}
        return Wire(
            preamble=[
                sse({"type": "message_start", "message": message}, "message_start"),
                sse(
                    {"type": "content_block_start", "index": 0, "content_block": block},
                    "content_block_start",
                ),
                sse({"type": "ping"}, "ping"),
            ],
            tokens=[
                sse(
                    {
                        "type": "content_block_delta",
                        "index": 0,
                        "delta": {"type": "text_delta", "text": t},
                    },
                    "content_block_delta",
                )
                for t in tokens
            ],
            finish=[
                sse({"type": "content_block_stop", "index": 0}, "content_block_stop"),
                sse(
                    {
                        "type": "message_delta",
                        "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                        "usage": {"output_tokens": len(tokens)},
                    },
                    "message_delta",
                ),
            ],
            final=[sse({"type": "message_stop"}, "message_stop")],
            error=sse(ANTHROPIC_ERROR, "error"),
        )
    return Wire(
        preamble=[sse(_chunk({"role": "assistant", "content": "", "refusal": None}))],
        tokens=[sse(_chunk({"content": t})) for t in tokens],
        finish=[sse(_chunk({}, "stop"))],
        final=[sse("[DONE]")],
        error=sse(OPENAI_ERROR),
    )


def crlf(data: bytes) -> bytes:
    return data.replace(b"\n", b"\r\n")


def drip(data: bytes) -> list[Step]:
    """One byte per TCP write."""
    return [data[i : i + 1] for i in range(len(data))]


# -- calling the SDKs under a bound -------------------------------------------------------------


def bounded(sdk: Sdk, runner: Runner, make: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
    """Run the SDK call ``make()``: its value or its exception; the test fails if it is still
    running after CALL_BOUND seconds."""
    if sdk.is_async:
        fut = asyncio.run_coroutine_threadsafe(make(), runner.loop)
        # Not fut.result(timeout=): surefoot's timeouts are builtins.TimeoutError too.
        done, _ = concurrent.futures.wait([fut], timeout=CALL_BOUND)
        if not done:
            fut.cancel()
            pytest.fail(f"the call did not return within {CALL_BOUND}s")
        return fut.result()
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = _drive_sync(make())
        except BaseException as e:
            box["error"] = e

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(CALL_BOUND)
    if t.is_alive():
        pytest.fail(f"the call did not return within {CALL_BOUND}s")
    if "error" in box:
        raise box["error"]
    return box["value"]


async def _chat_stream(sdk: Sdk, client: Any, out: list[str]) -> str:
    """Stream a chat answer, appending each token to ``out`` as the caller receives it."""
    msgs = [{"role": "user", "content": "hi"}]
    if sdk.name == "anthropic":
        stream = await _maybe(
            client.messages.create(model="claude-test", max_tokens=64, messages=msgs, stream=True)
        )
        async for event in _iterate(stream):
            if event.type == "content_block_delta":
                out.append(event.delta.text)
    else:
        stream = await _maybe(
            client.chat.completions.create(model="gpt-test", messages=msgs, stream=True)
        )
        async for chunk in _iterate(stream):
            if chunk.choices and chunk.choices[0].delta.content:
                out.append(chunk.choices[0].delta.content)
    return "".join(out)


def stream_chat(sdk: Sdk, runner: Runner, client: Any, out: list[str] | None = None) -> str:
    parts: list[str] = [] if out is None else out
    return str(bounded(sdk, runner, lambda: _chat_stream(sdk, client, parts)))


def failing_stream(sdk: Sdk, runner: Runner, client: Any) -> tuple[BaseException, list[str]]:
    """The exception a streamed call raised, and the tokens the caller got before it."""
    out: list[str] = []
    with pytest.raises(Exception) as info:
        stream_chat(sdk, runner, client, out)
    return info.value, out


def stream_error_type(sdk: Sdk) -> type[BaseException]:
    """What each SDK itself raises for an error event inside a 200 stream."""
    return sdk.package.APIStatusError if sdk.name == "anthropic" else sdk.package.APIError


CHAT_SDKS = [s for s in SDKS if s.name != "anthropic"]
SYNC_SDKS = [s for s in SDKS if not s.is_async]
OPENAI_SDKS = [s for s in SDKS if s.name == "openai"]


def _ids(sdks: list[Sdk]) -> list[str]:
    return [s.id for s in sdks]


# -- streams that arrive whole, however they are cut ----------------------------------------------


def test_stream_without_ids_in_one_write(sdk: Sdk, runner: Runner, serve: Any) -> None:
    w = wire(sdk)
    srv = serve(Reply([w.whole()]))
    client = sdk.wrapped(srv.base_url)
    out: list[str] = []
    assert stream_chat(sdk, runner, client, out) == "".join(TOKENS)
    assert out == TOKENS
    assert len(srv.requests) == 1
    assert srv.requests[0].body["stream"] is True


@pytest.mark.parametrize("framing", ["chunked", "close"])
def test_crlf_stream_one_byte_per_write(sdk: Sdk, runner: Runner, serve: Any, framing: str) -> None:
    w = wire(sdk)
    srv = serve(Reply(drip(crlf(w.whole())), framing=framing))
    client = sdk.wrapped(srv.base_url, read_timeout=5.0)
    out: list[str] = []
    assert stream_chat(sdk, runner, client, out) == "".join(TOKENS)
    assert out == TOKENS
    assert len(srv.requests) == 1


def test_crlf_error_event_dripped_after_the_start(sdk: Sdk, runner: Runner, serve: Any) -> None:
    w = wire(sdk)
    before = b"".join(w.preamble + w.tokens[:2])
    after = b"".join(w.tokens[2:] + w.finish + w.final)
    srv = serve(Reply(drip(crlf(before + w.error + after))))
    client = sdk.wrapped(srv.base_url, read_timeout=5.0)
    err, out = failing_stream(sdk, runner, client)
    assert out == TOKENS[:2]
    assert isinstance(err, stream_error_type(sdk)), type(err).__mro__
    assert isinstance(err, surefoot.LLMError)
    assert err.kind == "model_overloaded"
    assert len(srv.requests) == 1


# -- error events ------------------------------------------------------------------------------


@pytest.mark.parametrize("cut", [0.25, 0.5, 0.9])
def test_error_event_split_across_two_writes(
    sdk: Sdk, runner: Runner, serve: Any, cut: float
) -> None:
    w = wire(sdk)
    at = max(1, int(len(w.error) * cut))
    head = b"".join(w.preamble + w.tokens[:2])
    rest = b"".join(w.tokens[2:] + w.finish + w.final)
    srv = serve(Reply([head + w.error[:at], 0.02, w.error[at:] + rest]))
    client = sdk.wrapped(srv.base_url, read_timeout=5.0)
    err, out = failing_stream(sdk, runner, client)
    assert out == TOKENS[:2]  # every token before the error, none after
    assert isinstance(err, stream_error_type(sdk)), type(err).__mro__
    assert isinstance(err, surefoot.LLMError)
    assert err.kind == "model_overloaded"
    assert err.surefoot.context.metadata.get("in_stream") is True
    assert len(srv.requests) == 1  # after the start: raised, not retried


def test_events_before_the_error_in_the_same_write(sdk: Sdk, runner: Runner, serve: Any) -> None:
    # The answer has started (its first token handed on), then one write holds two more
    # tokens, the error event and what follows it: the tokens reach the caller, nothing after.
    w = wire(sdk)
    first = b"".join(w.preamble + w.tokens[:1])
    one_write = b"".join([*w.tokens[1:3], w.error, *w.tokens[3:], *w.finish, *w.final])
    srv = serve(Reply([first, 0.05, one_write]))
    client = sdk.wrapped(srv.base_url)
    err, out = failing_stream(sdk, runner, client)
    assert out == TOKENS[:3]
    assert isinstance(err, stream_error_type(sdk)), type(err).__mro__
    assert isinstance(err, surefoot.LLMError)
    if sdk.name == "anthropic":
        assert err.status_code == 200
        assert err.body == ANTHROPIC_ERROR
    else:
        assert err.body == OPENAI_ERROR["error"]
        assert err.message == OPENAI_ERROR["error"]["message"]
    assert len(srv.requests) == 1


def test_events_before_the_error_in_the_first_read(sdk: Sdk, runner: Runner, serve: Any) -> None:
    # The preamble, three tokens and the error all in the first read: nothing has reached the
    # caller yet, so the failure is retried unseen like any before the first hand-off (the
    # caller gets the whole answer once, rather than three tokens and an error).
    w = wire(sdk)
    one_write = b"".join([*w.preamble, *w.tokens[:3], w.error, *w.tokens[3:], *w.finish])
    srv = serve(Reply([one_write]), Reply([w.whole()]))
    client = sdk.wrapped(srv.base_url)
    out: list[str] = []
    assert stream_chat(sdk, runner, client, out) == "".join(TOKENS)
    assert out == TOKENS  # none of the first attempt's tokens, no token twice
    assert len(srv.requests) == 2


def test_error_event_before_the_first_token_is_retried_unseen(
    sdk: Sdk, runner: Runner, serve: Any
) -> None:
    w = wire(sdk)
    srv = serve(Reply([b"".join(w.preamble) + w.error]), Reply([w.whole()]))
    client = sdk.wrapped(srv.base_url)
    out: list[str] = []
    assert stream_chat(sdk, runner, client, out) == "".join(TOKENS)
    assert out == TOKENS  # nothing of the failed attempt reached the caller
    assert len(srv.requests) == 2


# -- streams that end badly --------------------------------------------------------------------


def test_stream_stalled_after_the_first_token(sdk: Sdk, runner: Runner, serve: Any) -> None:
    w = wire(sdk)
    srv = serve(Reply([b"".join(w.preamble + w.tokens[:1]), HOLD]))
    client = sdk.wrapped(srv.base_url, read_timeout=0.15)
    err, out = failing_stream(sdk, runner, client)
    assert out == TOKENS[:1]
    assert isinstance(err, sdk.package.APITimeoutError), type(err).__mro__
    assert isinstance(err, surefoot.TimeoutError)
    assert not isinstance(err, surefoot.RunTimeoutError)  # silence, not the call's deadline
    assert len(srv.requests) == 1


def test_finish_reason_without_done_is_accepted(sdk: Sdk, runner: Runner, serve: Any) -> None:
    # OpenAI's finish_reason chunk without data: [DONE]; Anthropic's message_delta with its
    # stop_reason without message_stop: the answer is whole, and both SDKs return it.
    w = wire(sdk)
    srv = serve(Reply([b"".join(w.preamble + w.tokens + w.finish)]))
    client = sdk.wrapped(srv.base_url)
    out: list[str] = []
    assert stream_chat(sdk, runner, client, out) == "".join(TOKENS)
    assert len(srv.requests) == 1


def test_without_its_final_event_a_stream_raises(sdk: Sdk, runner: Runner, serve: Any) -> None:
    # Without a finish_reason and [DONE]; Anthropic without message_delta and message_stop.
    w = wire(sdk)
    srv = serve(Reply([b"".join(w.preamble + w.tokens)]))
    client = sdk.wrapped(srv.base_url)
    err, out = failing_stream(sdk, runner, client)
    assert out == TOKENS
    assert isinstance(err, sdk.package.APIConnectionError), type(err).__mro__
    assert isinstance(err, surefoot.ConnectionFailedError)
    assert len(srv.requests) == 1


@pytest.mark.parametrize("abort", [False, True], ids=["clean-close", "broken"])
def test_stream_closed_mid_json(sdk: Sdk, runner: Runner, serve: Any, abort: bool) -> None:
    w = wire(sdk)
    torn = w.tokens[2][: len(w.tokens[2]) // 2]
    srv = serve(Reply([b"".join(w.preamble + w.tokens[:2]) + torn], abort=abort))
    client = sdk.wrapped(srv.base_url)
    err, out = failing_stream(sdk, runner, client)
    assert out == TOKENS[:2]
    assert isinstance(err, sdk.package.APIConnectionError), type(err).__mro__
    assert not isinstance(err, sdk.package.APITimeoutError)
    assert isinstance(err, surefoot.ConnectionFailedError)
    assert len(srv.requests) == 1


def test_stream_closed_before_the_first_token_is_retried(
    sdk: Sdk, runner: Runner, serve: Any
) -> None:
    w = wire(sdk)
    srv = serve(Reply([b"".join(w.preamble)]), Reply([w.whole()]))
    client = sdk.wrapped(srv.base_url)
    assert stream_chat(sdk, runner, client) == "".join(TOKENS)
    assert len(srv.requests) == 2


# -- first_token_timeout -------------------------------------------------------------------------


def test_first_token_timeout_retries_a_slow_start(sdk: Sdk, runner: Runner, serve: Any) -> None:
    w = wire(sdk)
    rest = b"".join(w.tokens + w.finish + w.final)
    slow = Reply([b"".join(w.preamble), 3.0, rest])  # headers and preamble, then silence
    srv = serve(slow, Reply([w.whole()]))
    retries: list[surefoot.AttemptRecord] = []
    client = sdk.wrapped(
        srv.base_url,
        first_token_timeout=0.15,
        read_timeout=5.0,
        hooks=surefoot.GuardHooks(on_retry=retries.append),
    )
    out: list[str] = []
    assert stream_chat(sdk, runner, client, out) == "".join(TOKENS)
    assert out == TOKENS  # the slow attempt's preamble never reached the caller twice
    assert len(srv.requests) == 2
    assert len(retries) == 1
    assert retries[0].kind == "timeout"


def test_keepalives_are_not_the_first_token(sdk: Sdk, runner: Runner, serve: Any) -> None:
    # A server that only pings (comments, keep-alives) past first_token_timeout is retried.
    w = wire(sdk)
    pings: list[Step] = [b"".join(w.preamble)]
    for _ in range(40):
        pings += [b": ping\n\n", 0.02]
    srv = serve(Reply(pings), Reply([w.whole()]))
    client = sdk.wrapped(srv.base_url, first_token_timeout=0.15, read_timeout=5.0)
    out: list[str] = []
    assert stream_chat(sdk, runner, client, out) == "".join(TOKENS)
    assert len(srv.requests) == 2


def test_first_token_timeout_gives_up_as_a_timeout(sdk: Sdk, runner: Runner, serve: Any) -> None:
    w = wire(sdk)
    srv = serve(Reply([b"".join(w.preamble), HOLD]))
    client = sdk.wrapped(srv.base_url, first_token_timeout=0.1, read_timeout=5.0, retries=1)
    err, out = failing_stream(sdk, runner, client)
    assert out == []
    assert isinstance(err, sdk.package.APITimeoutError), type(err).__mro__
    assert isinstance(err, surefoot.TimeoutError)
    assert len(srv.requests) == 2  # the first attempt and its one retry


def test_first_token_timeout_does_not_bound_gaps_after_the_start(
    sdk: Sdk, runner: Runner, serve: Any
) -> None:
    w = wire(sdk)
    first = b"".join(w.preamble + w.tokens[:1])
    rest = b"".join(w.tokens[1:] + w.finish + w.final)
    srv = serve(Reply([first, 0.4, rest]))  # a pause longer than first_token_timeout
    client = sdk.wrapped(srv.base_url, first_token_timeout=0.15, read_timeout=5.0)
    out: list[str] = []
    assert stream_chat(sdk, runner, client, out) == "".join(TOKENS)
    assert len(srv.requests) == 1


# -- the call's deadline over a slow body ------------------------------------------------------


def _completion_json(sdk: Sdk) -> bytes:
    if sdk.name == "anthropic":
        doc: dict[str, Any] = {
            "id": "msg_loop",
            "type": "message",
            "role": "assistant",
            "model": "claude-test",
            "content": [{"type": "text", "text": "hello there"}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 2},
        }
    else:
        doc = {
            "id": "chatcmpl-loop",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-test",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "hello there"},
                    "logprobs": None,
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
        }
    return json.dumps(doc).encode()


def _slow_drip(data: bytes, pause: float) -> list[Step]:
    steps: list[Step] = []
    for i in range(len(data)):
        steps += [data[i : i + 1], pause]
    return steps


@pytest.mark.parametrize("sdk", SDKS, ids=_ids(SDKS))
def test_deadline_ends_a_slow_plain_body(sdk: Sdk, runner: Runner, serve: Any) -> None:
    # Each read is quick, their sum is not: ~300 bytes at 30 ms each is ~9 s, the deadline
    # 0.25 s. The sync client needs the socket shut at the deadline (a blocking read cannot be
    # interrupted otherwise); the async one cancels its read.
    body = _completion_json(sdk)
    srv = serve(Reply(_slow_drip(body, 0.03), ctype="application/json", framing="length"))
    client = sdk.wrapped(srv.base_url, timeout=0.25, read_timeout=5.0)
    with pytest.raises(Exception) as info:
        bounded(sdk, runner, lambda: _plain(sdk, client))
    err = info.value
    assert isinstance(err, sdk.package.APITimeoutError), type(err).__mro__
    assert isinstance(err, surefoot.RunTimeoutError)
    assert len(srv.requests) == 1  # no retry past the deadline


def test_plain_body_dripped_within_the_deadline(runner: Runner, serve: Any) -> None:
    sdk = Sdk("openai", False)
    srv = serve(Reply(drip(_completion_json(sdk)), ctype="application/json", framing="length"))
    client = sdk.wrapped(srv.base_url, timeout=8.0)
    assert bounded(sdk, runner, lambda: _plain(sdk, client)) == "hello there"


async def _plain(sdk: Sdk, client: Any) -> str:
    msgs = [{"role": "user", "content": "hi"}]
    if sdk.name == "anthropic":
        msg = await _maybe(client.messages.create(model="claude-test", max_tokens=8, messages=msgs))
        return str(msg.content[0].text)
    out = await _maybe(client.chat.completions.create(model="gpt-test", messages=msgs))
    return str(out.choices[0].message.content)


@pytest.mark.parametrize("sdk", SDKS, ids=_ids(SDKS))
def test_deadline_ends_a_stream_dripping_forever(sdk: Sdk, runner: Runner, serve: Any) -> None:
    # Tokens keep coming, each well within read_timeout: only the call's deadline ends it.
    w = wire(sdk, tokens=["x"] * 400)
    steps: list[Step] = [b"".join(w.preamble)]
    for token in w.tokens:
        steps += [token, 0.02]
    srv = serve(Reply(steps))
    client = sdk.wrapped(srv.base_url, timeout=0.25, read_timeout=5.0)
    err, out = failing_stream(sdk, runner, client)
    assert 0 < len(out) < 400
    assert isinstance(err, sdk.package.APITimeoutError), type(err).__mro__
    assert isinstance(err, surefoot.RunTimeoutError)
    assert len(srv.requests) == 1


# After the first token for every SDK; before it (still inside the transport's read-ahead)
# for the sync ones, whose blocking read only the socket's shutdown ends.
SILENT = [(s, 1) for s in SDKS] + [(s, 0) for s in SYNC_SDKS]


@pytest.mark.parametrize(
    ("sdk", "tokens"), SILENT, ids=[f"{s.id}-{'after' if n else 'before'}" for s, n in SILENT]
)
def test_deadline_ends_a_silent_stream(sdk: Sdk, runner: Runner, serve: Any, tokens: int) -> None:
    # Silent, and read_timeout far away: the call's deadline ends the wait, with no retry.
    w = wire(sdk)
    srv = serve(Reply([b"".join(w.preamble + w.tokens[:tokens]), HOLD]))
    client = sdk.wrapped(srv.base_url, timeout=0.25, read_timeout=5.0)
    err, out = failing_stream(sdk, runner, client)
    assert out == TOKENS[:tokens]
    assert isinstance(err, sdk.package.APITimeoutError), type(err).__mro__
    assert isinstance(err, surefoot.RunTimeoutError)
    assert len(srv.requests) == 1


# -- a hostile body --------------------------------------------------------------------------------

HOSTILE_BYTES = 9 * 512 * 1024  # above the watch's 4 MiB max_event: a few MB in all


@pytest.mark.parametrize("sdk", SDKS, ids=_ids(SDKS))
def test_enormous_event_without_blank_lines(sdk: Sdk, runner: Runner, serve: Any) -> None:
    piece = b"x" * 65536
    steps: list[Step] = [b"".join(wire(sdk).preamble), b'data: {"a":"']
    steps += [piece] * (HOSTILE_BYTES // len(piece))
    srv = serve(Reply(steps))
    client = sdk.wrapped(srv.base_url)
    tracemalloc.start()
    try:
        err, out = failing_stream(sdk, runner, client)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert out == []
    # Past max_event the watch stops inspecting and hands the bytes on (not a preamble to
    # retry): the stream then ends without its final event.
    assert isinstance(err, sdk.package.APIConnectionError), type(err).__mro__
    assert isinstance(err, surefoot.ConnectionFailedError)
    assert len(srv.requests) == 1
    # The SDK's own SSE decoder holds the open event (4.5 MiB, twice while it grows); surefoot
    # adds at most its max_event of read-ahead and watch buffer.
    assert peak < 24 * 1024 * 1024, peak


# -- the OpenAI Responses API ---------------------------------------------------------------------


def _response(status: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": "resp_loop",
        "object": "response",
        "created_at": 1,
        "status": status,
        "model": "gpt-test",
        "output": [],
        "error": None,
        "incomplete_details": None,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        **extra,
    }


def responses_events(tokens: Sequence[str] = TOKENS) -> dict[str, list[tuple[str, Any]]]:
    """The Responses API stream in parts: preamble, deltas, tail, and its failures."""
    item = {"id": "msg_loop", "type": "message", "status": "in_progress", "role": "assistant"}
    part = {"type": "output_text", "text": "", "annotations": []}
    text = "".join(tokens)
    done_item = {**item, "status": "completed", "content": [{**part, "text": text}]}
    where = {"item_id": "msg_loop", "output_index": 0, "content_index": 0}
    return {
        "preamble": [
            ("response.created", {"response": _response("in_progress")}),
            ("response.in_progress", {"response": _response("in_progress")}),
            ("response.output_item.added", {"output_index": 0, "item": {**item, "content": []}}),
            ("response.content_part.added", {**where, "part": part}),
        ],
        "deltas": [
            ("response.output_text.delta", {**where, "delta": t, "logprobs": []}) for t in tokens
        ],
        "tail": [
            ("response.output_text.done", {**where, "text": text, "logprobs": []}),
            ("response.content_part.done", {**where, "part": {**part, "text": text}}),
            ("response.output_item.done", {"output_index": 0, "item": done_item}),
            ("response.completed", {"response": _response("completed", output=[done_item])}),
        ],
        "failed": [
            (
                "response.failed",
                {
                    "response": _response(
                        "failed",
                        error={"code": "server_error", "message": "The model failed."},
                    )
                },
            )
        ],
        "error": [("error", {"code": "server_error", "message": "boom", "param": None})],
    }


def responses_wire(events: list[tuple[str, Any]], *, named: bool = True) -> bytes:
    out = []
    for seq, (name, fields) in enumerate(events):
        out.append(sse({"type": name, "sequence_number": seq, **fields}, name if named else None))
    return b"".join(out)


async def _responses(client: Any, types: list[str], deltas: list[str]) -> str:
    stream = await _maybe(client.responses.create(model="gpt-test", input="hi", stream=True))
    async for event in _iterate(stream):
        types.append(event.type)
        if event.type == "response.output_text.delta":
            deltas.append(event.delta)
    return "".join(deltas)


@pytest.mark.parametrize("named", [True, False], ids=["named", "bare-data"])
@pytest.mark.parametrize("sdk", OPENAI_SDKS, ids=_ids(OPENAI_SDKS))
def test_responses_stream(sdk: Sdk, runner: Runner, serve: Any, named: bool) -> None:
    ev = responses_events()
    body = responses_wire(ev["preamble"] + ev["deltas"] + ev["tail"], named=named)
    srv = serve(Reply(drip(crlf(body)) if named else [body]))
    client = sdk.wrapped(srv.base_url, read_timeout=5.0)
    types: list[str] = []
    deltas: list[str] = []
    assert bounded(sdk, runner, lambda: _responses(client, types, deltas)) == "".join(TOKENS)
    assert deltas == TOKENS
    assert types[0] == "response.created" and types[-1] == "response.completed"
    assert srv.requests[0].path.endswith("/responses")
    assert len(srv.requests) == 1


@pytest.mark.parametrize("kind", ["failed", "error"])
@pytest.mark.parametrize("named", [True, False], ids=["named", "bare-data"])
@pytest.mark.parametrize("sdk", OPENAI_SDKS, ids=_ids(OPENAI_SDKS))
def test_responses_failure_after_a_delta(
    sdk: Sdk, runner: Runner, serve: Any, kind: str, named: bool
) -> None:
    ev = responses_events()
    events = ev["preamble"] + ev["deltas"][:2] + ev[kind] + ev["tail"]
    first = len(ev["preamble"]) + 1  # the preamble and the first delta: handed on
    body = responses_wire(events, named=named)
    cut = len(responses_wire(events[:first], named=named))
    srv = serve(Reply([body[:cut], 0.05, body[cut:]]))
    client = sdk.wrapped(srv.base_url)
    types: list[str] = []
    deltas: list[str] = []
    with pytest.raises(Exception) as info:
        bounded(sdk, runner, lambda: _responses(client, types, deltas))
    err = info.value
    assert deltas == TOKENS[:2]
    assert "response.completed" not in types
    assert isinstance(err, openai.APIError), type(err).__mro__
    assert isinstance(err, surefoot.LLMError)
    assert err.kind == "server_error"
    assert len(srv.requests) == 1


@pytest.mark.parametrize("named", [True, False], ids=["named", "bare-data"])
@pytest.mark.parametrize("sdk", OPENAI_SDKS, ids=_ids(OPENAI_SDKS))
def test_responses_failed_before_any_delta_is_retried(
    sdk: Sdk, runner: Runner, serve: Any, named: bool
) -> None:
    ev = responses_events()
    failing = responses_wire(ev["preamble"][:2] + ev["failed"], named=named)
    ok = responses_wire(ev["preamble"] + ev["deltas"] + ev["tail"], named=named)
    srv = serve(Reply([failing]), Reply([ok]))
    client = sdk.wrapped(srv.base_url)
    types: list[str] = []
    deltas: list[str] = []
    assert bounded(sdk, runner, lambda: _responses(client, types, deltas)) == "".join(TOKENS)
    assert "response.failed" not in types  # the failed attempt never reached the caller
    assert types.count("response.created") == 1
    assert len(srv.requests) == 2
