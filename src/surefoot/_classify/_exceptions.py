"""``classify_exception(exc)``: foreign exceptions translated at the boundary.

No client library is imported: exceptions are recognised by their class names along the MRO
(``httpx.ReadTimeout``, ``aiohttp.ClientConnectorError``, ``requests.ConnectionError``,
``urllib3.exceptions.NewConnectionError``, ``openai.RateLimitError``,
``anthropic.APIStatusError``...) and by duck-typed attributes: an exception that carries an HTTP
response (``.status_code`` / ``.status`` / ``.response`` with ``.headers`` and ``.body`` /
``.text`` / ``.content``) is classified as that response with :func:`classify`.

The chain (``__cause__``, ``__context__``, ``.original_exception``) is walked, bounded and
cycle-safe, and the most specific known exception wins: an HTTP response first, then a
timeout, then a connection failure. A :class:`~surefoot.SurefootError` is returned unchanged;
any other result has ``__cause__`` set to ``exc`` (as ``raise ... from exc`` would).
"""

from __future__ import annotations

import asyncio
import builtins
import socket
import ssl
from typing import Any

from surefoot._classify._http import classify, fallback_error
from surefoot._classify._input import text_of
from surefoot.errors import (
    LLMError,
    LLMErrorType,
    NetworkError,
    SurefootError,
    TimeoutError,  # noqa: A004
)

__all__ = ["classify_exception", "recognise"]

_MAX_CHAIN = 16

_TIMEOUT_NAMES = frozenset(
    {
        "timeout",
        "timeouterror",
        "timeoutexception",
        "readtimeout",
        "writetimeout",
        "connecttimeout",
        "pooltimeout",
        "readtimeouterror",
        "connecttimeouterror",
        "servertimeouterror",
        "apitimeouterror",
        "connectiontimeout",
        "sockettimeout",
        "servertimeout",
        "cancelledtimeout",
    }
)
_NETWORK_NAMES = frozenset(
    {
        "connecterror",
        "connectionerror",
        "networkerror",
        "remoteprotocolerror",
        "localprotocolerror",
        "protocolerror",
        "readerror",
        "writeerror",
        "closeerror",
        "transporterror",
        "clientconnectorerror",
        "clientconnectionerror",
        "clientoserror",
        "serverdisconnectederror",
        "clientpayloaderror",
        "serverconnectionerror",
        "clientconnectorsslerror",
        "clientconnectorcertificateerror",
        "clientsslerror",
        "newconnectionerror",
        "nameresolutionerror",
        "maxretryerror",
        "sslerror",
        "proxyerror",
        "chunkedencodingerror",
        "incompleteread",
        "apiconnectionerror",
        "connectionreseterror",
        "connectionrefusederror",
        "connectionabortederror",
        "brokenpipeerror",
        "gaierror",
        "herror",
        "sslcertverificationerror",
        "sslzeroreturnerror",
        "sslsyscallerror",
        "ssleoferror",
        "remotedisconnected",
        "endpointconnectionerror",
    }
)


def _names(exc: BaseException) -> list[str]:
    try:
        return [c.__name__.lower() for c in type(exc).__mro__]
    except Exception:
        return []


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    seen: set[int] = set()
    todo: list[BaseException] = [exc]
    while todo and len(out) < _MAX_CHAIN:
        e = todo.pop(0)
        if id(e) in seen:
            continue
        seen.add(id(e))
        out.append(e)
        for nxt in (
            e.__cause__,
            e.__context__,
            getattr(e, "original_exception", None),
            getattr(e, "reason", None),
        ):
            if isinstance(nxt, BaseException) and id(nxt) not in seen:
                todo.append(nxt)
    return out


def _http_parts(exc: BaseException) -> tuple[int, object, object] | None:
    """(status, headers, body) of an exception that carries an HTTP response, else None."""
    response = getattr(exc, "response", None)
    status = getattr(exc, "status_code", None)
    if not isinstance(status, int) or isinstance(status, bool):
        status = getattr(response, "status_code", None)
    if not isinstance(status, int) or isinstance(status, bool):
        status = getattr(exc, "status", None)  # aiohttp.ClientResponseError
    if not isinstance(status, int) or isinstance(status, bool) or not 100 <= status <= 599:
        return None
    headers = getattr(exc, "headers", None)
    if headers is None and response is not None:
        headers = getattr(response, "headers", None)
    body: object = getattr(exc, "body", None)
    if body is None and response is not None:
        body = _response_body(response)
    if body is None:
        body = getattr(exc, "message", None) or _safe_str(exc)
    return status, headers, body


def _response_body(response: object) -> object:
    for attr in ("text", "content"):
        try:
            value = getattr(response, attr, None)
        except Exception:  # httpx raises ResponseNotRead for an unread stream
            continue
        if isinstance(value, (str, bytes)) and value:
            return value
    return None


def _safe_str(exc: BaseException) -> str:
    try:
        return str(exc)[:4096]
    except Exception:
        return type(exc).__name__


def _host_port(exc: BaseException) -> tuple[str | None, int | None]:
    host = getattr(exc, "host", None)
    port = getattr(exc, "port", None)
    key = getattr(exc, "conn_key", None)  # aiohttp
    if host is None and key is not None:
        host, port = getattr(key, "host", None), getattr(key, "port", None)
    conn = getattr(exc, "conn", None)  # urllib3
    if host is None and conn is not None:
        host, port = getattr(conn, "host", None), getattr(conn, "port", None)
    return (
        host if isinstance(host, str) else None,
        port if isinstance(port, int) and not isinstance(port, bool) else None,
    )


def _transport_kind(e: BaseException) -> str | None:
    """``"timeout"``, ``"network"`` or ``None``; the most derived class that is known decides
    (urllib3's ``NewConnectionError`` is also a ``ConnectTimeoutError``, but a refusal)."""
    for name in _names(e):
        if name in _NETWORK_NAMES:
            return "network"
        if name in _TIMEOUT_NAMES:
            return "timeout"
    if isinstance(e, (builtins.TimeoutError, asyncio.TimeoutError, socket.timeout)):
        return "timeout"
    if isinstance(e, (ConnectionError, socket.gaierror, socket.herror, ssl.SSLError)):
        return "network"
    return None


def classify_exception(
    exc: BaseException, *, provider: str | None = None, model: str | None = None
) -> SurefootError:
    """The typed error for a raised exception; see the module docstring. Never raises."""
    if isinstance(exc, SurefootError):
        return exc
    try:
        err = _classify(exc, provider, model)
    except Exception as inner:
        err = fallback_error(f"unclassifiable exception ({type(inner).__name__})", provider, model)
    try:
        err.__cause__ = exc
    except Exception:
        pass
    return err


#: Packages whose exceptions are failures of a call to a service: anything they raise is
#: classified, by its text when nothing more specific is known.
_CLIENT_PACKAGES = frozenset(
    {
        "aiohttp",
        "anthropic",
        "botocore",
        "cohere",
        "google",
        "groq",
        "httpcore",
        "httpcore2",
        "httpx",
        "httpx2",
        "mistralai",
        "openai",
        "requests",
        "urllib3",
    }
)


def _package(exc: BaseException) -> str:
    module = type(exc).__module__
    return module.split(".", 1)[0] if isinstance(module, str) else ""


def recognise(exc: BaseException) -> SurefootError | None:
    """``exc`` as a typed error when it is a recognised failure of a call, else ``None``.

    The engine's boundary (:mod:`surefoot._translate`). Recognised: anything an HTTP client or
    a provider SDK raises (``httpx``, ``httpx2``, ``aiohttp``, ``requests``, ``urllib3``,
    ``openai``, ``anthropic``...; their chains are walked); any ``OSError``, which includes
    ``urllib``'s ``HTTPError`` (classified as the HTTP response it carries), socket errors,
    ``ConnectionError`` and ``TimeoutError`` (``asyncio``'s too); and any exception that itself
    carries an HTTP response. Anything else (a ``ValueError`` of the caller's own code, or the
    caller's exception wrapping another) is ``None``: it passes through the engine unchanged.
    Never raises.
    """
    if isinstance(exc, SurefootError):
        return exc
    if not isinstance(exc, Exception):
        return None
    try:
        if _package(exc) in _CLIENT_PACKAGES:
            return classify_exception(exc)
        if _http_parts(exc) is not None:
            return classify_exception(exc)
        if not isinstance(exc, OSError):
            return None
        if any(_http_parts(e) is not None or _transport_kind(e) is not None for e in _chain(exc)):
            return classify_exception(exc)
        err: SurefootError = NetworkError(
            f"{type(exc).__name__}: {_safe_str(exc)}", kind="network", retryable=True
        )
        err.__cause__ = exc
        return err
    except Exception:
        return None


def _classify(exc: BaseException, provider: str | None, model: str | None) -> SurefootError:
    chain = _chain(exc)
    for e in chain:
        if isinstance(e, SurefootError) and e is not exc:
            return e
    for e in chain:
        parts = _http_parts(e)
        if parts is not None:
            status, headers, body = parts
            return classify(status, _headers(headers), body, provider=provider, model=model)
    kinds = [(e, _transport_kind(e)) for e in chain]
    for e, kind in kinds:
        if kind == "timeout":
            msg = f"{type(e).__name__}: {_safe_str(e) or 'the operation timed out'}"
            return TimeoutError(msg, kind="timeout", retryable=True)
    for e, kind in kinds:
        if kind == "network":
            host, port = _host_port(e)
            msg = f"{type(e).__name__}: {_safe_str(e)}"
            return NetworkError(msg, host=host, port=port, kind="network", retryable=True)
    text = " ".join(f"{type(e).__name__}: {_safe_str(e)}" for e in chain)
    err = classify(None, None, text, provider=provider, model=model)
    if err.kind == "unknown":
        return LLMError(
            text_of(text, 2000),
            error_type=LLMErrorType.UNKNOWN,
            retryable=False,
            provider=provider,
            model=model,
        )
    return err


def _headers(headers: object) -> Any:
    if headers is None:
        return None
    if hasattr(headers, "items"):
        try:
            return list(headers.items())
        except Exception:
            return None
    return headers
