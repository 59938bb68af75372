"""``classify_exception(exc)``: foreign exceptions translated at the boundary.

No client library is imported: exceptions are recognised by their class names along the MRO
(``httpx.ReadTimeout``, ``aiohttp.ClientConnectorError``, ``requests.ConnectionError``,
``urllib3.exceptions.NewConnectionError``, ``openai.RateLimitError``,
``anthropic.APIStatusError``...) and by duck-typed attributes: an exception that carries an HTTP
response (``.status_code`` / ``.status`` / ``.response`` with ``.headers`` and ``.body`` /
``.text`` / ``.content``) is classified as that response with :func:`classify`.

The chain (``__cause__``, ``__context__``, ``.original_exception``) is walked, bounded and
cycle-safe, and the most specific known exception wins, wherever it is in the chain (an SDK's
``APIConnectionError`` says only that sending failed; its cause says why):

1. an HTTP failure status: :func:`classify` of the response (``x-should-retry`` obeyed);
2. a 2xx an SDK raised anyway (anthropic's ``APIStatusError`` for a mid-stream
   ``event: error`` carries the stream's 200): its body is the event's data, classified as
   :func:`classify_event` would; a 200 is never a success;
3. a status-less error object (openai's ``APIError`` for a mid-stream ``{"error": ...}``
   chunk, ``.body`` its ``error`` member): classified as that chunk;
4. credentials that could not be loaded (``auth_failed``); a local fault of the request or
   of the client's use (``invalid_request``, never retryable: a bad URL or scheme, a header
   HTTP forbids, a stream read twice, a redirect loop); a timeout; a response that cannot be
   decoded (``server_error``); a connection failure;
5. the text of the whole chain.

An exception that asks for a retry (anthropic's ``RetryableError``) is retryable whatever it
wraps. A :class:`~surefoot.SurefootError` is returned unchanged; any other result has
``__cause__`` set to ``exc`` (as ``raise ... from exc`` would).
"""

from __future__ import annotations

import asyncio
import builtins
import re
import socket
import ssl
from typing import Any

from surefoot._classify._build import request_id_of
from surefoot._classify._http import classify, fallback_error, guessed
from surefoot._classify._input import norm_headers, text_of
from surefoot._classify._stream import classify_event
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
        # httpx's bare ProtocolError: the server's malformed answer (a Digest challenge)
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


#: Faults of the request itself or of the client's use, found before anything reached a
#: server or after its answer was misused: a retry sends the same bad request again, so none
#: is retryable. Their kind is ``invalid_request``, the kind of a request that cannot succeed
#: as it is (a :class:`~surefoot.ConfigurationError`'s too).
_LOCAL_NAMES = frozenset(
    {
        # httpx / httpx2 stream misuse: a body read twice, after close, or before read().
        # (StreamConsumed's message mentions "an authentication flow": read as text, it was
        # taken for an auth failure.)
        "streamerror",
        "streamconsumed",
        "streamclosed",
        "responsenotread",
        "requestnotread",
        # a URL or scheme the client cannot send to (a bad base_url), a request HTTP forbids
        # (a header value with a line break: an API key pasted with its newline), an
        # ambiguous cookie lookup
        "invalidurl",
        "unsupportedprotocol",
        "localprotocolerror",
        "cookieconflict",
        # the same request follows the same redirect loop again (or max_redirects is too low)
        "toomanyredirects",
    }
)
#: A response arrived that cannot be read as what it claims to be: httpx's DecodingError (a
#: body its own Content-Encoding cannot decode: corrupt gzip/brotli/zstd, too many encodings)
#: and requests' ContentDecodingError alike; the SSEError of httpx2 and httpx-sse (no event
#: stream, or an event over the size limit). The request was fine, so the fault is the
#: server's or a proxy's on the path, most often a transfer damaged on the way:
#: ``server_error``, retryable (a fault that persists is bounded by the retry budget). Not
#: ``network``: the server was reached and answered.
_UNREADABLE_NAMES = frozenset({"decodingerror", "contentdecodingerror", "sseerror"})
#: Credentials that could not be loaded (anthropic's CredentialsError, IdentityTokenFileError):
#: ``auth_failed``, as a rejected one is; no retry finds a missing credential.
_CREDENTIALS_NAMES = frozenset({"credentialserror"})
#: Exceptions whose raiser asks for a retry (anthropic's RetryableError, raised by middleware;
#: the SDK retries it whatever it wraps).
_RETRY_NAMES = frozenset({"retryableerror"})

_CATEGORIES: dict[str, str] = {
    **dict.fromkeys(_NETWORK_NAMES, "network"),
    **dict.fromkeys(_TIMEOUT_NAMES, "timeout"),
    **dict.fromkeys(_UNREADABLE_NAMES, "unreadable"),
    **dict.fromkeys(_LOCAL_NAMES, "local"),
    **dict.fromkeys(_CREDENTIALS_NAMES, "credentials"),
}
#: When a chain holds several categories the first of these wins, wherever it is: a
#: credentials or local fault is a fact about the request that no retry changes, while a
#: wrapper (the SDKs' APIConnectionError, "network") says only that sending failed; a timeout
#: beats a connection failure, since "Read timed out" often comes wrapped in a pool's error.
_PRECEDENCE = ("credentials", "local", "timeout", "unreadable", "network")
#: The categories that become an LLMError: its type, and whether a retry can help.
_LLM_CATEGORIES: dict[str, tuple[LLMErrorType, bool]] = {
    "credentials": (LLMErrorType.AUTHENTICATION_FAILED, False),
    "local": (LLMErrorType.INVALID_REQUEST, False),
    "unreadable": (LLMErrorType.SERVER_ERROR, True),
}

#: A bytes literal in a message: h11 and httpcore quote the header value they refuse
#: ("Illegal header value b'Bearer ...\\n'"), often the API key itself, in a shape the
#: redaction of credentials need not recognise.
_BYTES_LITERAL = re.compile(r"(?<!\w)b'(?:[^'\\]|\\.)*'" "|" r'(?<!\w)b"(?:[^"\\]|\\.)*"')
_MASKED_BYTES = "b'[REDACTED]'"


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


def _category(e: BaseException) -> str | None:
    """One of :data:`_PRECEDENCE`, or ``None``; the most derived class that is known decides
    (urllib3's ``NewConnectionError`` is also a ``ConnectTimeoutError``, but a refusal;
    httpx's ``LocalProtocolError`` is a ``TransportError``, but the request's own fault)."""
    for name in _names(e):
        category = _CATEGORIES.get(name)
        if category is not None:
            return category
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
        if any(_http_parts(e) is not None or _category(e) is not None for e in _chain(exc)):
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
    err = _decide(chain, provider, model)
    if any(_RETRY_NAMES.intersection(_names(e)) for e in chain):
        err.retryable = True  # the raiser's explicit request, as the SDK honours it
    return err


def _decide(chain: list[BaseException], provider: str | None, model: str | None) -> SurefootError:
    """The steps of the module docstring, in order; always a new error."""
    responses = [(e, _http_parts(e)) for e in chain]
    for _, parts in responses:
        if parts is None:
            continue
        status, headers, body = parts
        if status >= 400:
            return classify(status, _headers(headers), body, provider=provider, model=model)
        found = _error_in_2xx(status, headers, body, provider, model)
        if found is not None:
            return found
    for e, parts in responses:
        data = _error_object(e) if parts is None else None
        if data is not None:
            found = classify_event("error", data, provider=provider, model=model)
            if found is not None and found.kind != "unknown":
                return found
    categories = [(e, _category(e)) for e in chain]
    for wanted in _PRECEDENCE:
        for e, category in categories:
            if category == wanted:
                return _transport_error(category, e, provider, model)
    text = " ".join(f"{type(e).__name__}: {_safe_str(e)}" for e in chain)
    err = classify(None, None, text, provider=provider, model=model)
    # an exception no class or word names is not known to be a transport failure (a bug in
    # the caller's code raises too): unknown, not a guess (a lost connection to retry, or the
    # word model's kind)
    if err.kind == "unknown" or guessed(err):
        return LLMError(
            text_of(text, 2000),
            error_type=LLMErrorType.UNKNOWN,
            retryable=False,
            provider=provider,
            model=model,
        )
    return err


def _error_in_2xx(
    status: int, headers: object, body: object, provider: str | None, model: str | None
) -> SurefootError | None:
    """The error an exception carrying a 2xx (any status below 400) reports, ``None`` if its
    body names none.

    Such an exception failed after the status line: the SDK found an error inside the
    stream (anthropic raises ``APIStatusError`` with the stream's 200 for an ``event:
    error``), and its ``body`` is that event's data, not the response's, so it is read as
    the event (retryable when the server failed mid-stream). The response's headers only
    add the request id.
    """
    found = classify_event("error", body, provider=provider, model=model)
    if found is None or found.kind == "unknown":
        return None
    found.context.http_status = status
    if found.context.request_id is None:
        found.context.request_id = request_id_of(norm_headers(_headers(headers)))
    return found


def _error_object(e: BaseException) -> object | None:
    """The error a status-less exception carries in ``.body``, as the event data it came in.

    openai raises ``APIError`` (no status, no response) for a mid-stream chunk
    ``{"error": {...}}`` with ``body`` the ``error`` member: it is put back in its envelope,
    so that it reads exactly as that chunk does (its ``type`` and ``code`` included).
    """
    try:
        body = getattr(e, "body", None)
    except Exception:  # a hostile property must not hide the rest of the chain
        return None
    if isinstance(body, str):
        return body or None
    if not isinstance(body, dict) or not body:
        return None
    if "error" in body or body.get("type") == "error" or body.get("object") == "error":
        return body
    return {"error": body}


def _transport_error(
    category: str, e: BaseException, provider: str | None, model: str | None
) -> SurefootError:
    name = type(e).__name__
    err: SurefootError
    if category == "timeout":
        msg = f"{name}: {_safe_str(e) or 'the operation timed out'}"
        err = TimeoutError(msg, kind="timeout", retryable=True)
    elif category == "network":
        host, port = _host_port(e)
        msg = f"{name}: {_safe_str(e)}"
        err = NetworkError(msg, host=host, port=port, kind="network", retryable=True)
    else:
        error_type, retryable = _LLM_CATEGORIES[category]
        msg = f"{name}: {_BYTES_LITERAL.sub(_MASKED_BYTES, _safe_str(e))}"
        err = LLMError(
            msg, error_type=error_type, retryable=retryable, provider=provider, model=model
        )
    err.context.metadata["classified_by"] = f"exception class {name} ({category})"
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
