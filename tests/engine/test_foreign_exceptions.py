"""Foreign exceptions at the engine's boundary: regression tests with the real clients.

The retry engine (``surefoot.Guard`` / ``@surefoot.resilient``) judges a failure by its
translation (``surefoot._translate``): what the official OpenAI and Anthropic SDKs, httpx,
httpx2, requests and urllib raise becomes the matching typed surefoot error, retried per its
retryability and server hints, raised with the original as ``__cause__`` when the run gives up,
and counted by a circuit breaker only when it is retryable. The caller's own exceptions pass
through untouched.

Every call here goes over real loopback HTTP (the fault server, or the stdlib stub of
``tests/_http_stub.py``); backoff waits run on a ``FakeClock``; the only real waits are the
short SDK read timeouts of the ``Hang`` cases.
"""

from __future__ import annotations

import contextlib
import json
import socket
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import anthropic
import httpx
import httpx2
import openai
import pytest
import requests
from anthropic.types import Message
from openai.types.chat import ChatCompletion

import surefoot
from _http_stub import Stub
from surefoot import BreakerState, CircuitBreaker, Guard
from surefoot.testing import FakeClock, Fault, FaultServer, Hang, Model, Status

#: The SDK read timeout of the ``Hang`` cases (real seconds: keep it short).
SDK_TIMEOUT = 0.3
MESSAGES = [{"role": "user", "content": "hi"}]
CHAT_BODY = json.dumps({"model": "m1", "messages": MESSAGES}).encode()
#: The kinds of a retryable 5xx answer (which one depends on the body's wording).
SERVER_KINDS = frozenset({"server_error", "model_overloaded"})


# -- fixtures and helpers ------------------------------------------------------------------------


@pytest.fixture
def server() -> Iterator[FaultServer]:
    with FaultServer(models=[Model("m1", reply="ok")]) as srv:
        yield srv


@pytest.fixture
def closing() -> Iterator[contextlib.ExitStack]:
    """Closes the sync SDK clients a test opened (``closing.enter_context(client)``)."""
    with contextlib.ExitStack() as stack:
        yield stack


@pytest.fixture(scope="module")
def shared_stub() -> Iterator[Stub]:
    stub = Stub(lambda: (200, "{}"))
    yield stub
    stub.close()  # half a second (serve_forever's poll interval): paid once per module


@pytest.fixture
def service(shared_stub: Stub) -> Callable[[int], Stub]:
    """A plain (non-LLM) JSON service on loopback answering every POST with ``status``."""

    def answer(status: int) -> Stub:
        body = json.dumps({"detail": f"answered {status}"})
        shared_stub.handler = lambda: (status, body)
        shared_stub.calls = 0
        return shared_stub

    return answer


@pytest.fixture
def closed_url() -> str:
    """``http://127.0.0.1:<port>`` where nothing listens: every connect is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def chat_url(srv: FaultServer) -> str:
    return srv.base_url + "/v1/chat/completions"


def openai_client(base_url: str) -> openai.OpenAI:
    return openai.OpenAI(
        base_url=base_url + "/v1", api_key="sk-test", max_retries=0, timeout=SDK_TIMEOUT
    )


def anthropic_client(base_url: str) -> anthropic.Anthropic:
    return anthropic.Anthropic(
        base_url=base_url, api_key="sk-ant-test", max_retries=0, timeout=SDK_TIMEOUT
    )


def openai_call(client: openai.OpenAI) -> Callable[[], ChatCompletion]:
    return lambda: client.chat.completions.create(model="m1", messages=MESSAGES)  # type: ignore[arg-type]


def anthropic_call(client: anthropic.Anthropic) -> Callable[[], Message]:
    return lambda: client.messages.create(model="m1", max_tokens=16, messages=MESSAGES)  # type: ignore[arg-type]


class Counted:
    """``fn`` under ``@resilient(retries=2, clock=clock)``; ``calls`` counts the attempts."""

    def __init__(self, fn: Callable[[], Any], clock: FakeClock) -> None:
        self.calls = 0

        @surefoot.resilient(retries=2, clock=clock)
        def run() -> Any:
            self.calls += 1
            return fn()

        self.run = run


class ACounted:
    """The async twin of :class:`Counted`, around a coroutine function."""

    def __init__(self, fn: Callable[[], Awaitable[Any]], clock: FakeClock) -> None:
        self.calls = 0

        @surefoot.resilient(retries=2, clock=clock)
        async def run() -> Any:
            self.calls += 1
            return await fn()

        self.run = run


def assert_gave_up(
    err: surefoot.SurefootError,
    *,
    cause: type[BaseException],
    kind: str,
    status: int | None,
    clock: FakeClock,
) -> None:
    """Three attempts, two (virtual) backoff waits, a retryable typed error caused by the
    client's own exception."""
    assert isinstance(err.__cause__, cause), repr(err.__cause__)
    assert err.retryable
    assert err.kind == kind
    assert err.context.http_status == status
    assert [a.attempt for a in err.attempts] == [0, 1, 2]
    assert [a.kind for a in err.attempts] == [kind] * 3
    assert len(clock.sleeps) == 2
    assert [a.wait for a in err.attempts[:2]] == clock.sleeps


# (fault, the typed error raised, its kind, its HTTP status, the SDK's exception class)
OPENAI_FAULTS = [
    pytest.param(
        Status(429), surefoot.RateLimitError, "rate_limit", 429, openai.RateLimitError, id="429"
    ),
    pytest.param(
        Status(503),
        surefoot.LLMError,
        "model_overloaded",  # OpenAI's 503 says "The server is overloaded or not ready yet."
        503,
        openai.InternalServerError,
        id="503",
    ),
    pytest.param(
        Hang(), surefoot.TimeoutError, "timeout", None, openai.APITimeoutError, id="read-timeout"
    ),
]
ANTHROPIC_FAULTS = [
    pytest.param(
        Status(429), surefoot.RateLimitError, "rate_limit", 429, anthropic.RateLimitError, id="429"
    ),
    pytest.param(
        Status(503),
        surefoot.LLMError,
        "server_error",
        503,
        anthropic.ServiceUnavailableError,
        id="503",
    ),
    pytest.param(
        Status(529),
        surefoot.LLMError,
        "model_overloaded",
        529,
        anthropic.OverloadedError,
        id="529-overloaded",
    ),
    pytest.param(
        Hang(),
        surefoot.TimeoutError,
        "timeout",
        None,
        anthropic.APITimeoutError,
        id="read-timeout",
    ),
]


def check_fault_run(
    srv: FaultServer,
    err: surefoot.SurefootError,
    expected: type[surefoot.SurefootError],
    kind: str,
    status: int | None,
    cause: type[BaseException],
    clock: FakeClock,
) -> None:
    assert type(err) is expected  # exactly: a RunTimeoutError would be the engine's deadline
    assert len(srv.requests) == 3
    assert_gave_up(err, cause=cause, kind=kind, status=status, clock=clock)


# -- 1. the official SDKs, sync ------------------------------------------------------------------


@pytest.mark.parametrize(("fault", "expected", "kind", "status", "cause"), OPENAI_FAULTS)
def test_openai_sdk_failure_retried_then_raised_typed(
    closing: contextlib.ExitStack,
    server: FaultServer,
    fault: Fault,
    expected: type[surefoot.SurefootError],
    kind: str,
    status: int | None,
    cause: type[BaseException],
) -> None:
    server.enqueue(fault, times=3)
    clock = FakeClock()
    call = Counted(openai_call(closing.enter_context(openai_client(server.base_url))), clock)
    with pytest.raises(expected) as info:
        call.run()
    assert call.calls == 3
    check_fault_run(server, info.value, expected, kind, status, cause, clock)


@pytest.mark.parametrize(("fault", "expected", "kind", "status", "cause"), ANTHROPIC_FAULTS)
def test_anthropic_sdk_failure_retried_then_raised_typed(
    closing: contextlib.ExitStack,
    server: FaultServer,
    fault: Fault,
    expected: type[surefoot.SurefootError],
    kind: str,
    status: int | None,
    cause: type[BaseException],
) -> None:
    server.enqueue(fault, times=3)
    clock = FakeClock()
    call = Counted(anthropic_call(closing.enter_context(anthropic_client(server.base_url))), clock)
    with pytest.raises(expected) as info:
        call.run()
    assert call.calls == 3
    check_fault_run(server, info.value, expected, kind, status, cause, clock)


@pytest.mark.parametrize(
    ("make", "call", "cause"),
    [
        pytest.param(openai_client, openai_call, openai.APIConnectionError, id="openai"),
        pytest.param(
            anthropic_client, anthropic_call, anthropic.APIConnectionError, id="anthropic"
        ),
    ],
)
def test_sdk_connect_error_retried_then_raised_as_network_error(
    closing: contextlib.ExitStack,
    closed_url: str,
    make: Callable[[str], Any],
    call: Callable[[Any], Any],
    cause: type,
) -> None:
    clock = FakeClock()
    run = Counted(call(closing.enter_context(make(closed_url))), clock)
    with pytest.raises(surefoot.NetworkError) as info:
        run.run()
    assert run.calls == 3
    assert type(info.value.__cause__) is cause  # not the APITimeoutError subclass
    assert_gave_up(info.value, cause=cause, kind="network", status=None, clock=clock)


@pytest.mark.parametrize(
    "fault", [p.values[0] for p in OPENAI_FAULTS], ids=[p.id for p in OPENAI_FAULTS]
)
def test_openai_sdk_recovers_on_third_attempt(
    closing: contextlib.ExitStack, server: FaultServer, fault: Fault
) -> None:
    server.enqueue(fault, times=2)
    clock = FakeClock()
    call = Counted(openai_call(closing.enter_context(openai_client(server.base_url))), clock)
    out = call.run()
    assert isinstance(out, ChatCompletion)
    assert out.choices[0].message.content == "ok"
    assert call.calls == 3 and len(server.requests) == 3
    assert len(clock.sleeps) == 2


@pytest.mark.parametrize(
    "fault", [p.values[0] for p in ANTHROPIC_FAULTS], ids=[p.id for p in ANTHROPIC_FAULTS]
)
def test_anthropic_sdk_recovers_on_third_attempt(
    closing: contextlib.ExitStack, server: FaultServer, fault: Fault
) -> None:
    server.enqueue(fault, times=2)
    clock = FakeClock()
    call = Counted(anthropic_call(closing.enter_context(anthropic_client(server.base_url))), clock)
    out = call.run()
    assert isinstance(out, Message)
    assert out.content[0].type == "text" and out.content[0].text == "ok"
    assert call.calls == 3 and len(server.requests) == 3
    assert len(clock.sleeps) == 2


@pytest.mark.parametrize(
    ("make", "call"),
    [
        pytest.param(openai_client, openai_call, id="openai"),
        pytest.param(anthropic_client, anthropic_call, id="anthropic"),
    ],
)
def test_sdk_429_retry_after_honoured_exactly(
    closing: contextlib.ExitStack,
    server: FaultServer,
    make: Callable[[str], Any],
    call: Callable[[Any], Any],
) -> None:
    server.enqueue(Status(429, retry_after=7), times=3)
    clock = FakeClock()
    run = Counted(call(closing.enter_context(make(server.base_url))), clock)
    with pytest.raises(surefoot.RateLimitError) as info:
        run.run()
    assert clock.sleeps == [7.0, 7.0]
    assert [a.wait for a in info.value.attempts] == [7.0, 7.0, 0]
    assert info.value.retry_after == 7.0
    assert len(server.requests) == 3

    server.reset()
    server.enqueue(Status(429, retry_after=3), times=2)
    clock = FakeClock()
    run = Counted(call(closing.enter_context(make(server.base_url))), clock)
    run.run()
    assert clock.sleeps == [3.0, 3.0]
    assert run.calls == 3


def test_sdk_429_hint_over_max_hint_fails_at_once(
    closing: contextlib.ExitStack, server: FaultServer
) -> None:
    """A Retry-After beyond ``max_hint`` is not waited for: one attempt, no sleep."""
    server.enqueue(Status(429, retry_after=600), times=3)
    clock = FakeClock()
    run = Counted(openai_call(closing.enter_context(openai_client(server.base_url))), clock)
    with pytest.raises(surefoot.RateLimitError) as info:
        run.run()
    assert run.calls == 1 and len(server.requests) == 1
    assert clock.sleeps == []
    assert isinstance(info.value.__cause__, openai.RateLimitError)


# -- 1. the official SDKs, async -----------------------------------------------------------------


def async_openai(base_url: str) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        base_url=base_url + "/v1", api_key="sk-test", max_retries=0, timeout=SDK_TIMEOUT
    )


def async_anthropic(base_url: str) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(
        base_url=base_url, api_key="sk-ant-test", max_retries=0, timeout=SDK_TIMEOUT
    )


def async_openai_call(client: openai.AsyncOpenAI) -> Callable[[], Awaitable[ChatCompletion]]:
    return lambda: client.chat.completions.create(model="m1", messages=MESSAGES)  # type: ignore[arg-type]


def async_anthropic_call(client: anthropic.AsyncAnthropic) -> Callable[[], Awaitable[Message]]:
    return lambda: client.messages.create(model="m1", max_tokens=16, messages=MESSAGES)  # type: ignore[arg-type]


@pytest.mark.parametrize(("fault", "expected", "kind", "status", "cause"), OPENAI_FAULTS)
async def test_async_openai_sdk_failure_retried_then_raised_typed(
    server: FaultServer,
    fault: Fault,
    expected: type[surefoot.SurefootError],
    kind: str,
    status: int | None,
    cause: type[BaseException],
) -> None:
    server.enqueue(fault, times=3)
    clock = FakeClock()
    async with async_openai(server.base_url) as client:
        call = ACounted(async_openai_call(client), clock)
        with pytest.raises(expected) as info:
            await call.run()
    assert call.calls == 3
    check_fault_run(server, info.value, expected, kind, status, cause, clock)


@pytest.mark.parametrize(("fault", "expected", "kind", "status", "cause"), ANTHROPIC_FAULTS)
async def test_async_anthropic_sdk_failure_retried_then_raised_typed(
    server: FaultServer,
    fault: Fault,
    expected: type[surefoot.SurefootError],
    kind: str,
    status: int | None,
    cause: type[BaseException],
) -> None:
    server.enqueue(fault, times=3)
    clock = FakeClock()
    async with async_anthropic(server.base_url) as client:
        call = ACounted(async_anthropic_call(client), clock)
        with pytest.raises(expected) as info:
            await call.run()
    assert call.calls == 3
    check_fault_run(server, info.value, expected, kind, status, cause, clock)


@pytest.mark.parametrize(
    ("make", "call", "cause"),
    [
        pytest.param(async_openai, async_openai_call, openai.APIConnectionError, id="openai"),
        pytest.param(
            async_anthropic, async_anthropic_call, anthropic.APIConnectionError, id="anthropic"
        ),
    ],
)
async def test_async_sdk_connect_error_retried_then_raised_as_network_error(
    closed_url: str, make: Callable[[str], Any], call: Callable[[Any], Any], cause: type
) -> None:
    clock = FakeClock()
    async with make(closed_url) as client:
        run = ACounted(call(client), clock)
        with pytest.raises(surefoot.NetworkError) as info:
            await run.run()
    assert run.calls == 3
    assert type(info.value.__cause__) is cause
    assert_gave_up(info.value, cause=cause, kind="network", status=None, clock=clock)


@pytest.mark.parametrize(
    ("make", "call", "fault", "returns"),
    [
        pytest.param(async_openai, async_openai_call, Status(429), ChatCompletion, id="openai-429"),
        pytest.param(async_openai, async_openai_call, Hang(), ChatCompletion, id="openai-timeout"),
        pytest.param(
            async_anthropic, async_anthropic_call, Status(529), Message, id="anthropic-529"
        ),
        pytest.param(
            async_anthropic, async_anthropic_call, Hang(), Message, id="anthropic-timeout"
        ),
    ],
)
async def test_async_sdk_recovers_on_third_attempt(
    server: FaultServer,
    make: Callable[[str], Any],
    call: Callable[[Any], Any],
    fault: Fault,
    returns: type,
) -> None:
    server.enqueue(fault, times=2)
    clock = FakeClock()
    async with make(server.base_url) as client:
        run = ACounted(call(client), clock)
        out = await run.run()
    assert isinstance(out, returns)
    assert run.calls == 3 and len(server.requests) == 3
    assert len(clock.sleeps) == 2


@pytest.mark.parametrize(
    ("make", "call"),
    [
        pytest.param(async_openai, async_openai_call, id="openai"),
        pytest.param(async_anthropic, async_anthropic_call, id="anthropic"),
    ],
)
async def test_async_sdk_429_retry_after_honoured_exactly(
    server: FaultServer, make: Callable[[str], Any], call: Callable[[Any], Any]
) -> None:
    server.enqueue(Status(429, retry_after=5), times=3)
    clock = FakeClock()
    async with make(server.base_url) as client:
        run = ACounted(call(client), clock)
        with pytest.raises(surefoot.RateLimitError) as info:
            await run.run()
    assert clock.sleeps == [5.0, 5.0]
    assert [a.wait for a in info.value.attempts] == [5.0, 5.0, 0]
    assert run.calls == 3 and len(server.requests) == 3


# -- 2. plain httpx and httpx2 -------------------------------------------------------------------

HTTPX_MODULES = [pytest.param(httpx, id="httpx"), pytest.param(httpx2, id="httpx2")]


def http_post(mod: Any, url: str) -> Callable[[], Any]:
    def post() -> Any:
        resp = mod.post(url, content=CHAT_BODY, timeout=5)
        resp.raise_for_status()
        return resp

    return post


@pytest.mark.parametrize("mod", HTTPX_MODULES)
def test_httpx_raise_for_status_503_retried(server: FaultServer, mod: Any) -> None:
    server.enqueue(Status(503), times=3)
    clock = FakeClock()
    run = Counted(http_post(mod, chat_url(server)), clock)
    with pytest.raises(surefoot.SurefootError) as info:
        run.run()
    assert run.calls == 3 and len(server.requests) == 3
    assert info.value.kind in SERVER_KINDS
    assert_gave_up(
        info.value, cause=mod.HTTPStatusError, kind=info.value.kind, status=503, clock=clock
    )


@pytest.mark.parametrize("mod", HTTPX_MODULES)
def test_httpx_raise_for_status_503_recovers(server: FaultServer, mod: Any) -> None:
    server.enqueue(Status(503), times=2)
    clock = FakeClock()
    run = Counted(http_post(mod, chat_url(server)), clock)
    resp = run.run()
    assert isinstance(resp, mod.Response) and resp.status_code == 200
    assert run.calls == 3 and len(server.requests) == 3


@pytest.mark.parametrize("mod", HTTPX_MODULES)
def test_httpx_connect_error_retried(closed_url: str, mod: Any) -> None:
    clock = FakeClock()
    run = Counted(http_post(mod, closed_url + "/v1/chat/completions"), clock)
    with pytest.raises(surefoot.NetworkError) as info:
        run.run()
    assert run.calls == 3
    assert type(info.value.__cause__) is mod.ConnectError
    assert_gave_up(info.value, cause=mod.ConnectError, kind="network", status=None, clock=clock)


@pytest.mark.parametrize("mod", HTTPX_MODULES)
async def test_async_httpx_503_retried(server: FaultServer, mod: Any) -> None:
    server.enqueue(Status(503), times=3)
    clock = FakeClock()
    async with mod.AsyncClient(timeout=5) as client:

        async def post() -> Any:
            resp = await client.post(chat_url(server), content=CHAT_BODY)
            resp.raise_for_status()
            return resp

        run = ACounted(post, clock)
        with pytest.raises(surefoot.SurefootError) as info:
            await run.run()
    assert run.calls == 3 and len(server.requests) == 3
    assert isinstance(info.value.__cause__, mod.HTTPStatusError)
    assert info.value.retryable and info.value.context.http_status == 503
    assert info.value.kind in SERVER_KINDS and len(info.value.attempts) == 3


# -- 3. urllib and requests: a 4xx is an answer, not a network failure --------------------------


def urllib_post(url: str) -> Callable[[], Any]:
    def post() -> Any:
        req = urllib.request.Request(
            url, data=CHAT_BODY, headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(req, timeout=5) as resp:
                return resp.read()
        except urllib.error.HTTPError as err:
            err.close()  # frees the socket (keep-alive); the status and headers stay on it
            raise

    return post


def requests_post(url: str) -> Callable[[], Any]:
    def post() -> Any:
        with requests.Session() as session:
            resp = session.post(url, data=CHAT_BODY, timeout=5)
            with contextlib.closing(resp):
                resp.raise_for_status()
                return resp

    return post


STDLIB_CLIENTS = [
    pytest.param(urllib_post, urllib.error.HTTPError, id="urllib"),
    pytest.param(requests_post, requests.HTTPError, id="requests"),
]
CLIENT_4XX = [
    pytest.param(400, id="400"),
    pytest.param(401, id="401"),
    pytest.param(404, id="404"),
    pytest.param(422, id="422"),
]


@pytest.mark.parametrize("status", CLIENT_4XX)
@pytest.mark.parametrize(("post", "cause"), STDLIB_CLIENTS)
def test_urllib_requests_4xx_not_retried(
    service: Callable[[int], Stub],
    post: Callable[[str], Callable[[], Any]],
    cause: type[BaseException],
    status: int,
) -> None:
    """``urllib.error.HTTPError`` is an ``OSError`` (and ``requests.HTTPError`` an ``IOError``):
    the response it carries decides, not its base class."""
    stub = service(status)
    clock = FakeClock()
    run = Counted(post(stub.base_url + "/orders"), clock)
    with pytest.raises(surefoot.SurefootError) as info:
        run.run()
    err = info.value
    assert run.calls == 1 and stub.calls == 1
    assert clock.sleeps == []
    assert isinstance(err.__cause__, cause)
    assert not err.retryable
    assert not isinstance(err, (surefoot.MessagingError, surefoot.TimeoutError))
    assert err.kind != "network"
    assert err.context.http_status == status
    assert len(err.attempts) == 1 and err.attempts[0].status == status


@pytest.mark.parametrize(("post", "cause"), STDLIB_CLIENTS)
def test_urllib_requests_404_from_fault_server_not_retried(
    server: FaultServer, post: Callable[[str], Callable[[], Any]], cause: type[BaseException]
) -> None:
    server.enqueue(Status(404), times=3)
    clock = FakeClock()
    run = Counted(post(chat_url(server)), clock)
    with pytest.raises(surefoot.SurefootError) as info:
        run.run()
    assert run.calls == 1 and len(server.requests) == 1
    assert isinstance(info.value.__cause__, cause)
    assert not info.value.retryable and info.value.context.http_status == 404


@pytest.mark.parametrize(("post", "cause"), STDLIB_CLIENTS)
def test_urllib_requests_503_still_retried(
    service: Callable[[int], Stub],
    post: Callable[[str], Callable[[], Any]],
    cause: type[BaseException],
) -> None:
    """The other side of the 4xx rule: the same clients' 5xx are retried."""
    stub = service(503)
    clock = FakeClock()
    run = Counted(post(stub.base_url + "/orders"), clock)
    with pytest.raises(surefoot.SurefootError) as info:
        run.run()
    assert run.calls == 3 and stub.calls == 3
    assert info.value.kind in SERVER_KINDS
    assert_gave_up(info.value, cause=cause, kind=info.value.kind, status=503, clock=clock)


@pytest.mark.parametrize(("post", "cause"), STDLIB_CLIENTS)
def test_breaker_ignores_urllib_requests_4xx(
    service: Callable[[int], Stub],
    post: Callable[[str], Callable[[], Any]],
    cause: type[BaseException],
) -> None:
    stub = service(404)
    clock = FakeClock()
    breaker = CircuitBreaker("orders-4xx", failure_threshold=2, clock=clock)
    guard = Guard(retries=2, breaker=breaker, clock=clock)
    for _ in range(5):
        with pytest.raises(surefoot.SurefootError) as info:
            guard.call(post(stub.base_url + "/orders"))
        assert isinstance(info.value.__cause__, cause)
        assert not isinstance(info.value, surefoot.CircuitOpenError)
    assert breaker.state is BreakerState.CLOSED
    assert breaker.failure_count == 0
    assert stub.calls == 5


@pytest.mark.parametrize("mod", HTTPX_MODULES)
def test_breaker_counts_httpx_503(server: FaultServer, mod: Any) -> None:
    server.enqueue(Status(503), times=10)
    clock = FakeClock()
    breaker = CircuitBreaker("llm-5xx", failure_threshold=2, clock=clock)
    guard = Guard(retries=0, breaker=breaker, clock=clock)
    for _ in range(2):
        with pytest.raises(surefoot.SurefootError) as info:
            guard.call(http_post(mod, chat_url(server)))
        assert isinstance(info.value.__cause__, mod.HTTPStatusError)
    assert breaker.state is BreakerState.OPEN
    with pytest.raises(surefoot.CircuitOpenError):
        guard.call(http_post(mod, chat_url(server)))
    assert len(server.requests) == 2  # the open circuit let no request through


# -- 4. the caller's own exceptions ---------------------------------------------------------------


def test_caller_value_error_not_translated() -> None:
    clock = FakeClock()
    boom = ValueError("bad input")

    def fail() -> None:
        raise boom

    run = Counted(fail, clock)
    with pytest.raises(ValueError) as info:
        run.run()
    assert info.value is boom
    assert not isinstance(info.value, surefoot.SurefootError)
    assert run.calls == 1 and clock.sleeps == []


def test_caller_value_error_wrapping_a_client_error_not_translated(closed_url: str) -> None:
    """The caller's exception wins even when its cause is a recognised (retryable) failure."""
    clock = FakeClock()

    def fail() -> None:
        try:
            httpx.post(closed_url, timeout=5)
        except httpx.ConnectError as exc:
            raise ValueError("could not load the config") from exc

    run = Counted(fail, clock)
    with pytest.raises(ValueError) as info:
        run.run()
    assert isinstance(info.value.__cause__, httpx.ConnectError)
    assert run.calls == 1 and clock.sleeps == []


async def test_async_caller_value_error_not_translated() -> None:
    clock = FakeClock()
    boom = ValueError("bad input")

    async def fail() -> None:
        raise boom

    run = ACounted(fail, clock)
    with pytest.raises(ValueError) as info:
        await run.run()
    assert info.value is boom
    assert run.calls == 1 and clock.sleeps == []
