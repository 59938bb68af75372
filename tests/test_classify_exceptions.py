"""classify_exception: httpx, requests, aiohttp, urllib3, openai, anthropic, sockets, asyncio."""

from __future__ import annotations

import socket
import ssl

import httpx
import pytest

import surefoot
from surefoot import classify_exception


def _resp(status: int, body: str, headers: dict[str, str] | None = None) -> httpx.Response:
    req = httpx.Request("POST", "https://api.example.com/v1/chat/completions")
    return httpx.Response(status, text=body, headers=headers or {}, request=req)


def test_surefoot_error_passes_through() -> None:
    err = surefoot.RateLimitError("x")
    assert classify_exception(err) is err


@pytest.mark.parametrize(
    ("exc", "cls", "kind"),
    [
        (ConnectionRefusedError(111, "Connection refused"), surefoot.NetworkError, "network"),
        (ConnectionResetError(104, "reset"), surefoot.NetworkError, "network"),
        (socket.gaierror(-2, "Name or service not known"), surefoot.NetworkError, "network"),
        (
            ssl.SSLCertVerificationError("certificate verify failed"),
            surefoot.NetworkError,
            "network",
        ),
        (TimeoutError(), surefoot.TimeoutError, "timeout"),
        (TimeoutError("read"), surefoot.TimeoutError, "timeout"),
        (TimeoutError("timed out"), surefoot.TimeoutError, "timeout"),
    ],
)
def test_builtin_exceptions(exc: BaseException, cls: type, kind: str) -> None:
    err = classify_exception(exc)
    assert isinstance(err, cls) and err.kind == kind and err.retryable
    assert err.__cause__ is exc


def test_httpx_exceptions() -> None:
    req = httpx.Request("GET", "https://x")
    assert classify_exception(httpx.ReadTimeout("slow", request=req)).kind == "timeout"
    assert classify_exception(httpx.ConnectError("refused", request=req)).kind == "network"
    proto = httpx.RemoteProtocolError("peer closed connection", request=req)
    assert classify_exception(proto).kind == "network"
    resp = _resp(
        429,
        '{"error":{"message":"slow down","code":"rate_limit_exceeded"}}',
        {"retry-after": "4", "x-request-id": "req_9"},
    )
    status_err = httpx.HTTPStatusError("429", request=req, response=resp)
    err = classify_exception(status_err, provider="openai")
    assert isinstance(err, surefoot.RateLimitError) and err.retry_after == 4.0
    assert err.context.request_id == "req_9" and err.__cause__ is status_err


def test_requests_exceptions() -> None:
    requests = pytest.importorskip("requests")
    assert classify_exception(requests.exceptions.ReadTimeout("t")).kind == "timeout"
    assert classify_exception(requests.exceptions.ConnectTimeout("t")).kind == "timeout"
    assert classify_exception(requests.exceptions.ConnectionError("c")).kind == "network"
    r = requests.models.Response()
    r.status_code = 401
    r._content = b'{"error":{"message":"Incorrect API key","code":"invalid_api_key"}}'
    err = classify_exception(requests.exceptions.HTTPError("401", response=r))
    assert err.kind == "auth_failed" and not err.retryable


def test_urllib3_and_chain() -> None:
    urllib3 = pytest.importorskip("urllib3")
    inner = urllib3.exceptions.NewConnectionError(None, "Failed to establish a new connection")
    try:
        try:
            raise inner
        except Exception as e:
            raise RuntimeError("wrapper") from e
    except RuntimeError as outer:
        err = classify_exception(outer)
    assert err.kind == "network" and err.retryable


def test_aiohttp_exceptions() -> None:
    aiohttp = pytest.importorskip("aiohttp")
    assert classify_exception(aiohttp.ServerDisconnectedError()).kind == "network"
    assert classify_exception(aiohttp.ServerTimeoutError("t")).kind == "timeout"
    exc = aiohttp.ClientResponseError(None, (), status=503, message="Service Unavailable")  # type: ignore[arg-type]
    assert classify_exception(exc).kind == "server_error"


def test_openai_sdk_exceptions() -> None:
    openai = pytest.importorskip("openai")
    resp = _resp(
        429,
        '{"error":{"message":"You exceeded your current quota",'
        '"type":"insufficient_quota","code":"insufficient_quota"}}',
    )
    body = {
        "message": "You exceeded your current quota",
        "type": "insufficient_quota",
        "code": "insufficient_quota",
    }
    exc = openai.RateLimitError("quota", response=resp, body=body)
    err = classify_exception(exc, provider="openai")
    assert err.kind == "quota_exhausted" and not err.retryable
    req = httpx.Request("POST", "https://api.openai.com")
    assert classify_exception(openai.APITimeoutError(request=req)).kind == "timeout"
    assert classify_exception(openai.APIConnectionError(request=req)).kind == "network"


def test_anthropic_sdk_exceptions() -> None:
    anthropic = pytest.importorskip("anthropic")
    payload = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
    resp = _resp(529, payload)
    exc = anthropic.APIStatusError("overloaded", response=resp, body=None)
    err = classify_exception(exc, provider="anthropic")
    assert err.kind == "model_overloaded" and err.retryable


def test_cycles_and_unknowns_are_safe() -> None:
    a = ValueError("a")
    b = KeyError("b")
    a.__context__ = b
    b.__context__ = a
    err = classify_exception(a)
    assert err.kind == "unknown" and not err.retryable and err.__cause__ is a


def test_hostile_exception() -> None:
    class Evil(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no")

        @property
        def status_code(self) -> int:
            raise RuntimeError("no")

    err = classify_exception(Evil())
    assert isinstance(err, surefoot.SurefootError)
