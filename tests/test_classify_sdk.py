"""classify_exception against the real official SDKs and their HTTP clients.

openai 3.x and anthropic 2.x exceptions are built the way each SDK builds them (its own
``_make_status_error``, ``APIError(..., body=...)``, ``raise APIConnectionError(...) from err``)
and, for the mid-stream errors, raised for real: the sync and async clients read a loopback
server's event stream that carries an error event. httpx and httpx2 exceptions are raised by
the clients themselves wherever a loopback server can provoke them.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import ModuleType
from typing import Any

import httpx
import httpx2
import pytest

import surefoot
from surefoot import classify_exception
from surefoot._classify import classify, classify_event
from surefoot._classify._exceptions import recognise

anthropic = pytest.importorskip("anthropic")
openai = pytest.importorskip("openai")

ANTHROPIC_URL = "https://api.anthropic.com/v1/messages"
OPENAI_URL = "https://api.openai.com/v1/chat/completions"

# -- a loopback server ---------------------------------------------------------------------

#: status, headers, body, and seconds to wait before answering.
Reply = tuple[int, dict[str, str], bytes, float]


class Loopback:
    """A threading HTTP server on 127.0.0.1 (port 0): every request gets ``reply(path)``.

    HTTP/1.0 with no Content-Length, so a streamed body ends when the connection closes.
    """

    def __init__(self, reply: Callable[[str], Reply]) -> None:
        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status, headers, body, delay = reply(self.path)
                time.sleep(delay)
                try:
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass

            do_GET = do_POST = _answer

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def serve() -> Iterator[Callable[[Callable[[str], Reply]], Loopback]]:
    servers: list[Loopback] = []

    def start(reply: Callable[[str], Reply]) -> Loopback:
        servers.append(Loopback(reply))
        return servers[-1]

    yield start
    for s in servers:
        s.close()


def _sse(*events: tuple[str | None, object]) -> bytes:
    out = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        out.append(f"{head}data: {json.dumps(data)}\n\n")
    return "".join(out).encode()


def _stream_reply(body: bytes) -> Callable[[str], Reply]:
    return lambda _path: (200, {"Content-Type": "text/event-stream"}, body, 0.0)


def _same_as(err: surefoot.SurefootError, expected: surefoot.SurefootError | None) -> None:
    assert expected is not None
    assert (err.kind, err.retryable, err.code) == (expected.kind, expected.retryable, expected.code)


# -- 1. anthropic: a mid-stream `event: error` is an APIStatusError with status 200 ---------

_ANTHROPIC_EVENTS = [
    ("overloaded_error", "Overloaded", "model_overloaded"),
    (
        "rate_limit_error",
        "Number of concurrent connections has exceeded your rate limit",
        "rate_limit",
    ),
    ("api_error", "Internal server error", "server_error"),
]


def _anthropic_error(error_type: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": error_type, "message": message}}


@pytest.mark.parametrize(("error_type", "message", "kind"), _ANTHROPIC_EVENTS)
def test_anthropic_status_200_error_is_its_event(error_type: str, message: str, kind: str) -> None:
    data = _anthropic_error(error_type, message)
    client = anthropic.Anthropic(api_key="sk-ant-test")
    response = httpx2.Response(
        200,
        headers={"content-type": "text/event-stream", "request-id": "req_011"},
        request=httpx2.Request("POST", ANTHROPIC_URL),
    )
    exc = client._make_status_error(f"{data}", body=data, response=response)
    assert type(exc) is anthropic.APIStatusError and exc.status_code == 200

    err = classify_exception(exc)
    _same_as(err, classify_event("error", json.dumps(data), provider="anthropic"))
    # every one of these is worth retrying: a stream that failed on the server's side
    assert err.kind == kind and err.retryable
    assert err.context.http_status == 200 and err.context.request_id == "req_011"
    via_engine = recognise(exc)
    assert via_engine is not None and via_engine.kind == kind


def _anthropic_stream(error_type: str, message: str) -> bytes:
    start = {
        "type": "message_start",
        "message": {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "content": [],
            "model": "claude-sonnet-4-5",
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 1},
        },
    }
    return _sse(
        ("message_start", start),
        ("ping", {"type": "ping"}),
        ("error", _anthropic_error(error_type, message)),
    )


_ANTHROPIC_ARGS: dict[str, Any] = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 16,
    "messages": [{"role": "user", "content": "hi"}],
    "stream": True,
}


@pytest.mark.parametrize(("error_type", "message", "kind"), _ANTHROPIC_EVENTS)
def test_anthropic_mid_stream_error_sync(
    serve: Callable[..., Loopback], error_type: str, message: str, kind: str
) -> None:
    server = serve(_stream_reply(_anthropic_stream(error_type, message)))
    client = anthropic.Anthropic(api_key="sk-ant-test", base_url=server.url, max_retries=0)
    with pytest.raises(anthropic.APIStatusError) as info:
        for _ in client.messages.create(**_ANTHROPIC_ARGS):
            pass
    assert info.value.status_code == 200
    err = classify_exception(info.value)
    _same_as(
        err, classify_event("error", _anthropic_error(error_type, message), provider="anthropic")
    )
    assert err.kind == kind and err.retryable


@pytest.mark.parametrize(("error_type", "message", "kind"), _ANTHROPIC_EVENTS)
async def test_anthropic_mid_stream_error_async(
    serve: Callable[..., Loopback], error_type: str, message: str, kind: str
) -> None:
    server = serve(_stream_reply(_anthropic_stream(error_type, message)))
    client = anthropic.AsyncAnthropic(api_key="sk-ant-test", base_url=server.url, max_retries=0)
    with pytest.raises(anthropic.APIStatusError) as info:
        async for _ in await client.messages.create(**_ANTHROPIC_ARGS):
            pass
    await client.close()
    assert info.value.status_code == 200
    err = classify_exception(info.value)
    _same_as(
        err, classify_event("error", _anthropic_error(error_type, message), provider="anthropic")
    )
    assert err.kind == kind and err.retryable


# -- 2. openai: a mid-stream `data: {"error": ...}` is a status-less APIError ---------------

_OPENAI_ERRORS = [
    (
        {
            "message": "The server had an error while processing your request. Sorry about that!",
            "type": "server_error",
            "param": None,
            "code": None,
        },
        "server_error",
        True,
    ),
    (
        {
            "message": "This model's maximum context length is 8192 tokens.",
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        },
        "context_too_long",
        False,
    ),
    (
        # "quota" alone reads as a rate limit; the body's code says it is spent
        {
            "message": "You exceeded your current quota, please check your plan.",
            "type": "insufficient_quota",
            "param": None,
            "code": "insufficient_quota",
        },
        "quota_exhausted",
        False,
    ),
]


@pytest.mark.parametrize(("body", "kind", "retryable"), _OPENAI_ERRORS)
def test_openai_status_less_api_error_is_read_from_its_body(
    body: dict[str, Any], kind: str, retryable: bool
) -> None:
    # what openai._streaming raises for a chunk {"error": body}
    exc = openai.APIError(body["message"], request=httpx2.Request("POST", OPENAI_URL), body=body)
    assert not isinstance(exc, openai.APIStatusError) and exc.code == body["code"]
    err = classify_exception(exc)
    _same_as(err, classify_event(None, json.dumps({"error": body}), provider="openai"))
    assert err.kind == kind and err.retryable is retryable


def _openai_stream(error: dict[str, Any]) -> bytes:
    chunk = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-4o",
        "choices": [
            {"index": 0, "delta": {"role": "assistant", "content": "Hel"}, "finish_reason": None}
        ],
    }
    return _sse((None, chunk), (None, {"error": error}))


_OPENAI_ARGS: dict[str, Any] = {
    "model": "gpt-4o",
    "messages": [{"role": "user", "content": "hi"}],
    "stream": True,
}


@pytest.mark.parametrize(("body", "kind", "retryable"), _OPENAI_ERRORS)
def test_openai_mid_stream_error_sync(
    serve: Callable[..., Loopback], body: dict[str, Any], kind: str, retryable: bool
) -> None:
    server = serve(_stream_reply(_openai_stream(body)))
    client = openai.OpenAI(api_key="sk-test", base_url=f"{server.url}/v1", max_retries=0)
    with pytest.raises(openai.APIError) as info:
        for _ in client.chat.completions.create(**_OPENAI_ARGS):
            pass
    assert type(info.value) is openai.APIError
    err = classify_exception(info.value)
    _same_as(err, classify_event(None, json.dumps({"error": body}), provider="openai"))
    assert err.kind == kind and err.retryable is retryable


@pytest.mark.parametrize(("body", "kind", "retryable"), _OPENAI_ERRORS)
async def test_openai_mid_stream_error_async(
    serve: Callable[..., Loopback], body: dict[str, Any], kind: str, retryable: bool
) -> None:
    server = serve(_stream_reply(_openai_stream(body)))
    client = openai.AsyncOpenAI(api_key="sk-test", base_url=f"{server.url}/v1", max_retries=0)
    with pytest.raises(openai.APIError) as info:
        async for _ in await client.chat.completions.create(**_OPENAI_ARGS):
            pass
    await client.close()
    assert type(info.value) is openai.APIError
    err = classify_exception(info.value)
    _same_as(err, classify_event(None, json.dumps({"error": body}), provider="openai"))
    assert err.kind == kind and err.retryable is retryable


# -- 3. httpx and httpx2: every exception class ---------------------------------------------

LOCAL = ("invalid_request", False)
NETWORK = ("network", True)
TIMEOUT = ("timeout", True)
#: None: an abstract base, decided by its cause or its response (tested below).
EXPECTED: dict[str, tuple[str, bool] | None] = {
    "HTTPError": None,
    "RequestError": None,
    "HTTPStatusError": None,
    "TransportError": NETWORK,
    "TimeoutException": TIMEOUT,
    "ConnectTimeout": TIMEOUT,
    "ReadTimeout": TIMEOUT,
    "WriteTimeout": TIMEOUT,
    "PoolTimeout": TIMEOUT,
    "NetworkError": NETWORK,
    "ConnectError": NETWORK,
    "ReadError": NETWORK,
    "WriteError": NETWORK,
    "CloseError": NETWORK,
    "ProxyError": NETWORK,
    "ProtocolError": NETWORK,
    "RemoteProtocolError": NETWORK,
    "UnsupportedProtocol": LOCAL,
    "LocalProtocolError": LOCAL,
    "DecodingError": ("server_error", True),
    "TooManyRedirects": LOCAL,
    "InvalidURL": LOCAL,
    "CookieConflict": LOCAL,
    "StreamError": LOCAL,
    "StreamConsumed": LOCAL,
    "StreamClosed": LOCAL,
    "ResponseNotRead": LOCAL,
    "RequestNotRead": LOCAL,
    "SSEError": ("server_error", True),  # httpx2 only
}
MODULES = [httpx, httpx2]


def _exception_classes(mod: ModuleType) -> list[str]:
    return sorted(
        n
        for n in mod.__all__
        if isinstance(c := getattr(mod, n), type) and issubclass(c, Exception)
    )


def _instance(mod: ModuleType, name: str) -> Exception:
    cls = getattr(mod, name)
    if issubclass(cls, mod.StreamError) and name != "StreamError":
        return cls()
    if issubclass(cls, mod.RequestError):
        return cls("boom", request=mod.Request("POST", OPENAI_URL))
    return cls("boom")


@pytest.mark.parametrize("mod", MODULES, ids=lambda m: m.__name__)
def test_every_httpx_exception_class_is_expected(mod: ModuleType) -> None:
    # a class a new release adds fails here until it gets a deliberate classification
    assert set(_exception_classes(mod)) <= set(EXPECTED)


@pytest.mark.parametrize(
    ("mod", "name"),
    [
        (m, n)
        for m in MODULES
        for n in _exception_classes(m)
        if n in EXPECTED and EXPECTED[n] is not None
    ],
    ids=lambda v: v.__name__ if isinstance(v, ModuleType) else v,
)
def test_httpx_exception_class(mod: ModuleType, name: str) -> None:
    exc = _instance(mod, name)
    err = classify_exception(exc)
    assert (err.kind, err.retryable) == EXPECTED[name]
    assert err.kind != "auth_failed"
    via_engine = recognise(exc)
    assert via_engine is not None and via_engine.kind == err.kind


@pytest.mark.parametrize("mod", MODULES, ids=lambda m: m.__name__)
def test_abstract_httpx_bases_follow_their_cause(mod: ModuleType) -> None:
    req = mod.Request("POST", OPENAI_URL)
    for base in (mod.HTTPError("wrapped"), mod.RequestError("wrapped", request=req)):
        base.__cause__ = mod.UnsupportedProtocol("Request URL has an unsupported protocol")
        assert (classify_exception(base).kind, classify_exception(base).retryable) == LOCAL
        base.__cause__ = mod.ConnectError("[Errno 111] Connection refused")
        assert (classify_exception(base).kind, classify_exception(base).retryable) == NETWORK


def _real_local_errors(mod: Any, url: str) -> dict[str, Exception]:
    """Each local error as the client raises it, against a live server at ``url``."""
    out: dict[str, Exception] = {}

    def catch(name: str, fn: Callable[[], object]) -> None:
        try:
            fn()
        except Exception as exc:
            out[name] = exc

    with mod.Client() as client:
        with client.stream("GET", url) as r:
            r.read()
            catch("StreamConsumed", lambda: next(iter(r.iter_raw())))
        with client.stream("GET", url) as r:
            catch("ResponseNotRead", lambda: r.content)
        catch("StreamClosed", r.read)
        catch("RequestNotRead", lambda: mod.Request("POST", url, content=iter([b"x"])).content)
        catch("InvalidURL", lambda: mod.URL("http://[::1"))
        catch("UnsupportedProtocol", lambda: client.get("ftp://127.0.0.1/x"))
        catch("LocalProtocolError", lambda: client.get(url, headers={"x-api-key": "zq$9!v\n"}))
        jar = mod.Cookies()
        jar.set("session", "1", domain="a.example")
        jar.set("session", "2", domain="b.example")
        catch("CookieConflict", lambda: jar.get("session"))
    return out


@pytest.mark.parametrize("mod", MODULES, ids=lambda m: m.__name__)
def test_httpx_local_errors_raised_for_real(serve: Callable[..., Loopback], mod: Any) -> None:
    server = serve(lambda _p: (200, {"Content-Type": "text/plain"}, b"hello", 0.0))
    errors = _real_local_errors(mod, server.url)
    assert sorted(errors) == [
        "CookieConflict",
        "InvalidURL",
        "LocalProtocolError",
        "RequestNotRead",
        "ResponseNotRead",
        "StreamClosed",
        "StreamConsumed",
        "UnsupportedProtocol",
    ]
    for name, exc in errors.items():
        assert type(exc).__name__ == name
        err = classify_exception(exc)
        # a retry resends the same bad request: never retryable, never a credential problem
        assert (err.kind, err.retryable) == LOCAL, name
    # the refused header value (an API key with a stray newline) is not repeated
    assert "zq$9" not in str(classify_exception(errors["LocalProtocolError"]))


@pytest.mark.parametrize("mod", MODULES, ids=lambda m: m.__name__)
def test_httpx_decoding_error_raised_for_real(serve: Callable[..., Loopback], mod: Any) -> None:
    server = serve(lambda _p: (200, {"Content-Encoding": "gzip"}, b"not gzip at all", 0.0))
    with pytest.raises(mod.DecodingError) as info:
        mod.get(server.url)
    err = classify_exception(info.value)
    assert isinstance(err, surefoot.LLMError) and err.kind == "server_error" and err.retryable


def test_requests_decoding_error_matches_httpx() -> None:
    requests = pytest.importorskip("requests")
    err = classify_exception(requests.exceptions.ContentDecodingError("Error -3 (gzip)"))
    assert (err.kind, err.retryable) == EXPECTED["DecodingError"]


@pytest.mark.parametrize("mod", MODULES, ids=lambda m: m.__name__)
def test_httpx_too_many_redirects_raised_for_real(serve: Callable[..., Loopback], mod: Any) -> None:
    server = serve(lambda p: (302, {"Location": p}, b"", 0.0))
    with pytest.raises(mod.TooManyRedirects) as info, mod.Client(max_redirects=2) as c:
        c.get(server.url + "/loop", follow_redirects=True)
    err = classify_exception(info.value)
    assert (err.kind, err.retryable) == LOCAL


@pytest.mark.parametrize("mod", MODULES, ids=lambda m: m.__name__)
def test_httpx_status_error_is_its_response(serve: Callable[..., Loopback], mod: Any) -> None:
    bodies = {
        "/401": (401, b'{"error":{"message":"Incorrect API key","code":"invalid_api_key"}}'),
        "/503": (503, b'{"error":{"message":"Service unavailable","type":"server_error"}}'),
    }
    server = serve(lambda p: (bodies[p][0], {"Content-Type": "application/json"}, bodies[p][1], 0))
    got = {}
    for path in bodies:
        with pytest.raises(mod.HTTPStatusError) as info:
            mod.post(server.url + path).raise_for_status()
        err = classify_exception(info.value)
        got[path] = (err.kind, err.retryable, err.context.http_status)
    assert got == {"/401": ("auth_failed", False, 401), "/503": ("server_error", True, 503)}


# -- 4. the SDKs' APIConnectionError / APITimeoutError: classified by what they wrap --------


_OPENAI_PLAIN = {**_OPENAI_ARGS, "stream": False}
_ANTHROPIC_PLAIN = {**_ANTHROPIC_ARGS, "stream": False}


def _wrapped(wrapper: Callable[[], Exception], cause: Exception) -> Exception:
    try:
        try:
            raise cause
        except Exception as err:
            raise wrapper() from err  # the SDKs' _send_request
    except Exception as exc:
        return exc
    raise AssertionError("unreachable")


@pytest.mark.parametrize("sdk", [openai, anthropic], ids=lambda m: m.__name__)
@pytest.mark.parametrize(
    ("cause", "expected"),
    [
        (httpx2.ConnectError("[Errno 111] Connection refused"), NETWORK),
        (httpx2.ReadError("peer closed connection"), NETWORK),
        (httpx2.UnsupportedProtocol("Request URL has an unsupported protocol 'ftp://'."), LOCAL),
        (httpx2.LocalProtocolError("Illegal header value b'Bearer x\\n'"), LOCAL),
        (httpx2.DecodingError("Error -3 while decompressing data"), ("server_error", True)),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, Exception) else None,
)
def test_sdk_connection_error_follows_its_cause(
    sdk: Any, cause: Exception, expected: tuple[str, bool]
) -> None:
    req = httpx2.Request("POST", OPENAI_URL)
    exc = _wrapped(lambda: sdk.APIConnectionError(request=req), cause)
    err = classify_exception(exc)
    assert (err.kind, err.retryable) == expected
    assert err.__cause__ is exc


@pytest.mark.parametrize("sdk", [openai, anthropic], ids=lambda m: m.__name__)
def test_sdk_timeout_error_is_a_timeout(sdk: Any) -> None:
    req = httpx2.Request("POST", OPENAI_URL)
    exc = _wrapped(lambda: sdk.APITimeoutError(request=req), httpx2.ReadTimeout("timed out"))
    err = classify_exception(exc)
    assert isinstance(err, surefoot.TimeoutError) and err.kind == "timeout" and err.retryable
    bare = classify_exception(sdk.APIConnectionError(request=req))  # no cause: a connection
    assert (bare.kind, bare.retryable) == NETWORK


def _call(sdk: Any, base_url: str, api_key: str = "sk-test", timeout: float = 5.0) -> Exception:
    options: dict[str, Any] = {"api_key": api_key, "base_url": base_url, "max_retries": 0}
    with pytest.raises(sdk.APIConnectionError) as info:
        if sdk is openai:
            openai.OpenAI(**options, timeout=timeout).chat.completions.create(**_OPENAI_PLAIN)
        else:
            anthropic.Anthropic(**options, timeout=timeout).messages.create(**_ANTHROPIC_PLAIN)
    return info.value


async def _acall(sdk: Any, base_url: str, api_key: str = "sk-test") -> Exception:
    client: Any
    if sdk is openai:
        client = openai.AsyncOpenAI(api_key=api_key, base_url=base_url, max_retries=0)
        coro = client.chat.completions.create(**_OPENAI_PLAIN)
    else:
        client = anthropic.AsyncAnthropic(api_key=api_key, base_url=base_url, max_retries=0)
        coro = client.messages.create(**_ANTHROPIC_PLAIN)
    with pytest.raises(sdk.APIConnectionError) as info:
        await coro
    await client.close()
    return info.value


def _closed_port() -> str:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


@pytest.mark.parametrize("sdk", [openai, anthropic], ids=lambda m: m.__name__)
def test_sdk_connection_errors_raised_for_real(serve: Callable[..., Loopback], sdk: Any) -> None:
    refused = _call(sdk, _closed_port())
    assert isinstance(refused.__cause__, httpx2.ConnectError)
    assert (classify_exception(refused).kind, classify_exception(refused).retryable) == NETWORK

    ftp = _call(sdk, "ftp://127.0.0.1:1/v1")
    assert isinstance(ftp.__cause__, httpx2.UnsupportedProtocol)
    assert (classify_exception(ftp).kind, classify_exception(ftp).retryable) == LOCAL

    server = serve(lambda _p: (200, {"Content-Type": "application/json"}, b"{}", 0.0))
    newline = _call(sdk, server.url, api_key="zq$9!vvv\n")
    assert isinstance(newline.__cause__, httpx2.LocalProtocolError)
    err = classify_exception(newline)
    assert (err.kind, err.retryable) == LOCAL and "zq$9" not in str(err)

    slow = serve(lambda _p: (200, {"Content-Type": "application/json"}, b"{}", 1.0))
    timeout = _call(sdk, slow.url, timeout=0.2)
    assert isinstance(timeout, sdk.APITimeoutError)
    assert (classify_exception(timeout).kind, classify_exception(timeout).retryable) == TIMEOUT


@pytest.mark.parametrize("sdk", [openai, anthropic], ids=lambda m: m.__name__)
async def test_sdk_connection_errors_raised_for_real_async(sdk: Any) -> None:
    refused = await _acall(sdk, _closed_port())
    assert (classify_exception(refused).kind, classify_exception(refused).retryable) == NETWORK
    ftp = await _acall(sdk, "ftp://127.0.0.1:1/v1")
    assert (classify_exception(ftp).kind, classify_exception(ftp).retryable) == LOCAL


# -- 5. anthropic's per-cause classes and error.details.error_code ---------------------------


def _anthropic_status(
    status: int,
    error_type: str,
    error_code: str | None = None,
    headers: dict[str, str] | None = None,
) -> Any:
    error: dict[str, Any] = {"type": error_type, "message": "The request failed."}
    if error_code:
        error["details"] = {"error_code": error_code}
    body = {"type": "error", "error": error, "request_id": "req_5"}
    response = httpx2.Response(
        status, json=body, headers=headers or {}, request=httpx2.Request("POST", ANTHROPIC_URL)
    )
    client = anthropic.Anthropic(api_key="sk-ant-test")
    return client._make_status_error(f"Error code: {status} - {body}", body=body, response=response)


@pytest.mark.parametrize(
    ("status", "error_type", "error_code", "cls", "kind", "retryable"),
    [
        (529, "overloaded_error", None, "OverloadedError", "model_overloaded", True),
        (503, "api_error", None, "ServiceUnavailableError", "server_error", True),
        (504, "timeout_error", None, "DeadlineExceededError", "timeout", True),
        (413, "request_too_large", None, "RequestTooLargeError", "context_too_long", False),
        (402, "billing_error", None, "PaymentRequiredError", "quota_exhausted", False),
        (
            429,
            "rate_limit_error",
            "ramp_limit_exceeded",
            "RampLimitExceededError",
            "rate_limit",
            True,
        ),
        # a spend limit is a 429 typed rate_limit_error: only the error_code says it is spent
        (
            429,
            "rate_limit_error",
            "enforced_spend_limit_reached",
            "EnforcedSpendLimitReachedError",
            "quota_exhausted",
            False,
        ),
        (
            429,
            "rate_limit_error",
            "contract_spend_limit_reached",
            "ContractSpendLimitReachedError",
            "quota_exhausted",
            False,
        ),
        (
            402,
            "billing_error",
            "linked_organization_billing_unavailable",
            "LinkedOrganizationBillingUnavailableError",
            "quota_exhausted",
            False,
        ),
        (
            400,
            "invalid_request_error",
            "organization_on_hold",
            "OrganizationOnHoldError",
            "permission_denied",
            False,
        ),
    ],
)
def test_anthropic_per_cause_classes(
    status: int,
    error_type: str,
    error_code: str | None,
    cls: str,
    kind: str,
    retryable: bool,
) -> None:
    exc = _anthropic_status(status, error_type, error_code)
    assert isinstance(exc, getattr(anthropic, cls, None) or _error_class(cls))
    assert exc.error_code == error_code
    err = classify_exception(exc)
    assert (err.kind, err.retryable) == (kind, retryable)
    assert err.context.http_status == status and err.context.request_id == "req_5"


def _error_class(name: str) -> type:
    from anthropic import _error_classes

    return next(c for c in _error_classes.ERROR_CLASSES.values() if c.__name__ == name)


def test_anthropic_retryable_error_opts_into_retries() -> None:
    # raised by middleware to have the attempt retried: the SDK retries it, so do we
    plain = classify_exception(anthropic.RetryableError("token refresh in progress"))
    assert plain.retryable
    wrapped = classify_exception(
        _wrapped(
            lambda: anthropic.RetryableError("upstream hiccup"), httpx2.ConnectError("refused")
        )
    )
    assert wrapped.kind == "network" and wrapped.retryable


@pytest.mark.parametrize(
    "exc",
    [
        anthropic.CredentialsError("Environment variable ANTHROPIC_AUTH_TOKEN is not set."),
        anthropic.IdentityTokenFileError("Identity token file not found at /var/run/token."),
    ],
    ids=lambda e: type(e).__name__,
)
def test_anthropic_credentials_errors_are_auth_failures(exc: Exception) -> None:
    err = classify_exception(exc)
    assert err.kind == "auth_failed" and not err.retryable


# -- 6. openai: the body and the headers decide when the message says little ----------------


def _openai_client(status: int, body: object, headers: dict[str, str] | None = None) -> Any:
    def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(status, json=body, headers=headers or {})

    http = httpx2.Client(transport=httpx2.MockTransport(answer))
    return openai.OpenAI(
        api_key="sk-test", base_url="https://api.openai.com/v1", max_retries=0, http_client=http
    )


def _openai_raise(status: int, body: object, headers: dict[str, str] | None = None) -> Any:
    client = _openai_client(status, body, headers)
    with pytest.raises(openai.APIStatusError) as info:
        client.chat.completions.create(**_OPENAI_PLAIN)
    return info.value


def test_openai_quota_from_body_and_wait_from_headers() -> None:
    # no message at all: the code alone says the quota is spent
    quota = {"error": {"message": "", "type": "insufficient_quota", "code": "insufficient_quota"}}
    exc = _openai_raise(429, quota, {"retry-after": "20", "x-request-id": "req_q"})
    assert isinstance(exc, openai.RateLimitError)
    err = classify_exception(exc)
    assert err.kind == "quota_exhausted" and not err.retryable
    assert err.context.request_id == "req_q"

    limit = {"error": {"message": "Rate limit reached", "code": "rate_limit_exceeded"}}
    err = classify_exception(_openai_raise(429, limit, {"retry-after-ms": "1500"}))
    assert isinstance(err, surefoot.RateLimitError) and err.retry_after == 1.5
    # the server says this 429 is not worth repeating (the SDK obeys it too)
    err = classify_exception(_openai_raise(429, limit, {"x-should-retry": "false"}))
    assert err.kind == "rate_limit" and not err.retryable


# -- 7. x-should-retry --------------------------------------------------------------------


@pytest.mark.parametrize("status", [400, 404, 408, 409, 429, 500, 503, 529])
@pytest.mark.parametrize("header", ["true", "false"])
def test_x_should_retry_is_obeyed_like_the_sdks(status: int, header: str) -> None:
    headers = {"x-should-retry": header}
    # a body that names no cause: without the header the status alone would decide
    err = classify(status, headers, "failed")
    assert err.retryable is (header == "true")
    # both SDKs decide the same way from the response
    response = httpx2.Response(status, text="failed", headers=headers)
    assert anthropic.Anthropic(api_key="k")._should_retry(response) is err.retryable
    assert openai.OpenAI(api_key="k")._should_retry(response) is err.retryable


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_x_should_retry_true_does_not_revive_a_spent_quota(provider: str) -> None:
    # Gateways send "true" on every 429 by status; a body naming a spent quota stays final
    # (the SDKs would retry it: this is the one place surefoot deliberately disagrees).
    if provider == "openai":
        body: dict[str, object] = {
            "error": {
                "message": "You exceeded your current quota",
                "type": "insufficient_quota",
                "code": "insufficient_quota",
            }
        }
    else:
        body = {
            "type": "error",
            "error": {
                "type": "rate_limit_error",
                "message": "spend limit reached",
                "details": {"error_code": "enforced_spend_limit_reached"},
            },
        }
    headers = {"x-should-retry": "true"}
    spent = classify(429, headers, json.dumps(body), provider=provider)
    assert spent.kind == "quota_exhausted"
    assert not spent.retryable
    limited = classify(429, headers, "Too many requests", provider=provider)
    assert limited.kind == "rate_limit" and limited.retryable
    # "false" still wins over a kind that is retryable by default
    assert not classify(429, {"x-should-retry": "false"}, "Too many requests").retryable


def test_x_should_retry_absent_or_odd_changes_nothing() -> None:
    for headers in ({}, {"x-should-retry": "maybe"}):
        assert classify(503, headers, "failed").retryable
        assert not classify(400, headers, "failed").retryable
    assert not classify(503, {"X-Should-Retry": " False "}, "failed").retryable


def test_x_should_retry_on_exceptions_carrying_a_response() -> None:
    # anthropic: a 400 the server marks retryable; openai: a 500 it marks final
    exc = _anthropic_status(400, "invalid_request_error", headers={"x-should-retry": "true"})
    assert classify_exception(exc).retryable
    body = {"error": {"message": "The server had an error", "type": "server_error"}}
    assert not classify_exception(_openai_raise(500, body, {"x-should-retry": "false"})).retryable
    req = httpx.Request("POST", OPENAI_URL)
    resp = httpx.Response(503, json=body, headers={"x-should-retry": "false"}, request=req)
    status_error = httpx.HTTPStatusError("503", request=req, response=resp)
    assert not classify_exception(status_error).retryable
