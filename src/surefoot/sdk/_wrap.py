"""``surefoot.wrap(sdk_client, **options)`` and the transports for any httpx/httpx2-based SDK.

:func:`wrap` takes an official SDK client — ``openai.OpenAI``/``AsyncOpenAI``,
``anthropic.Anthropic``/``AsyncAnthropic``, or another client generated the same way (``groq``)
— and returns a copy of it (``client.with_options``: the same class, API and return types) whose
own retries are off (``max_retries=0``) and whose HTTP client sends through surefoot's transport,
around the SDK transport the client already had (its pool, proxies and TLS settings). The
original client is left as it was; both share that SDK transport, so close the one you keep.

:func:`transport` and :func:`async_transport` build the same transport for any SDK that accepts
an ``http_client=`` of ``httpx`` or ``httpx2``; without knowing that SDK's exceptions, an error
response is handed back to it (it raises its own error, so turn its own retries off) and any
other failure raises surefoot's typed error.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, TypeVar

from surefoot._redact import register_secret
from surefoot.errors import SurefootError
from surefoot.sdk._config import SdkConfig
from surefoot.sdk._families import NO_FAMILY, Family

__all__ = ["async_transport", "transport", "wrap"]

C = TypeVar("C")

_HTTP_PACKAGES = ("httpx2", "httpx")
_CLASSES: dict[tuple[str, bool], tuple[type[Any], type[Any]]] = {}
_CLIENTS: dict[type[Any], type[Any]] = {}


def _classes(http: Any, is_async: bool) -> tuple[type[Any], type[Any]]:
    """The transport and stream classes for the HTTP package ``http`` (made once)."""
    key = (http.__name__, is_async)
    found = _CLASSES.get(key)
    if found is None:
        if is_async:
            from surefoot.sdk._transport_async import AsyncDriver as driver
            from surefoot.sdk._transport_async import AsyncWatchedStream as stream

            bases = (http.AsyncBaseTransport, http.AsyncByteStream)
            names = ("AsyncSurefootTransport", "AsyncSurefootStream")
        else:
            from surefoot.sdk._transport_sync import SyncDriver as driver  # type: ignore[assignment]
            from surefoot.sdk._transport_sync import SyncWatchedStream as stream  # type: ignore[assignment]

            bases = (http.BaseTransport, http.SyncByteStream)
            names = ("SurefootTransport", "SurefootStream")
        stream_cls = type(names[1], (stream, bases[1]), {"__module__": "surefoot.sdk"})
        transport_cls = type(
            names[0],
            (driver, bases[0]),
            {"__module__": "surefoot.sdk", "_http": http, "_stream_type": stream_cls},
        )
        found = _CLASSES[key] = (transport_cls, stream_cls)
    return found


def _http_package(name: str) -> Any:
    if name not in _HTTP_PACKAGES:
        raise ValueError(f"http must be 'httpx2' or 'httpx' (the SDK's HTTP package), got {name!r}")
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise ImportError(f"{name} is not installed; pip install {name}") from exc


def _build(
    http: Any, is_async: bool, inner: Any, family: Family, provider: str, options: dict[str, Any]
) -> Any:
    cfg = SdkConfig(provider=provider, **options)
    transport_cls, _ = _classes(http, is_async)
    if inner is None:
        inner = http.AsyncHTTPTransport() if is_async else http.HTTPTransport()
    return transport_cls(inner, cfg, family)


def transport(
    http: str = "httpx2", *, inner: Any = None, provider: str = "openai", **options: Any
) -> Any:
    """A sync transport for ``http``'s ``Client(transport=...)``, around ``inner`` (the
    package's default ``HTTPTransport`` when ``None``), with ``LLMClient``'s options."""
    return _build(_http_package(http), False, inner, NO_FAMILY, provider, options)


def async_transport(
    http: str = "httpx2", *, inner: Any = None, provider: str = "openai", **options: Any
) -> Any:
    """The async twin of :func:`transport`, for ``AsyncClient(transport=...)``."""
    return _build(_http_package(http), True, inner, NO_FAMILY, provider, options)


def _carried(exc: BaseException) -> BaseException | None:
    """The surefoot error an SDK wrapped in its own exception (an SDK whose request loop turns
    any exception of its transport into its ``APIConnectionError``), or ``None``."""
    seen = 0
    cause = exc.__cause__
    while cause is not None and seen < 8:
        if isinstance(cause, SurefootError):
            return cause
        cause = cause.__cause__
        seen += 1
    return None


def _client_class(cls: type[Any], is_async: bool) -> type[Any]:
    """``cls`` with a ``request`` that raises the failure surefoot's transport raised even
    when the SDK wrapped it (made once per SDK class; ``copy``/``with_options`` keep it)."""
    found = _CLIENTS.get(cls)
    if found is not None:
        return found
    if is_async:

        async def arequest(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return await cls.request(self, *args, **kwargs)
            except Exception as exc:
                carried = None if isinstance(exc, SurefootError) else _carried(exc)
                if carried is None:
                    raise
                raise carried from None

        method: Any = arequest
    else:

        def request(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return cls.request(self, *args, **kwargs)
            except Exception as exc:
                carried = None if isinstance(exc, SurefootError) else _carried(exc)
                if carried is None:
                    raise
                raise carried from None

        method = request
    method.__name__ = "request"
    method.__doc__ = cls.request.__doc__
    ns = {
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
        "__doc__": cls.__doc__,
        "request": method,
        "_surefoot_wrapped": True,
    }
    found = _CLIENTS[cls] = type(cls.__name__, (cls,), ns)
    return found


def _http_of(http_client: object) -> tuple[Any, bool]:
    """``(the HTTP package of http_client, whether it is async)``; ``(None, False)`` when it
    is neither an ``httpx`` nor an ``httpx2`` client (an SDK only imports the one it uses)."""
    for name in _HTTP_PACKAGES:
        http = sys.modules.get(name)
        if http is None:
            continue
        if isinstance(http_client, http.AsyncClient):
            return http, True
        if isinstance(http_client, http.Client):
            return http, False
    return None, False


def _provider(package: str, client: Any) -> str:
    if package == "anthropic":
        return "anthropic"
    if package == "groq":
        return "groq"
    base = str(getattr(client, "base_url", ""))
    if "azure" in base:
        return "azure"
    return "openai"


def wrap(sdk_client: C, **options: Any) -> C:
    """``sdk_client`` with surefoot's engine under it (see the module docstring).

    ``options`` are ``LLMClient``'s: ``retries`` (2), ``retry_base`` (0.5 s), ``max_delay``
    (8 s), ``max_hint`` (120 s: a longer server hint fails at once), ``on_error``, ``timeout``
    (one deadline over the whole call, waits and the whole stream included), ``breaker`` (one,
    or a mapping of model name to breaker), ``budget``, ``rate_limiter``, ``hooks``,
    ``read_timeout`` (600 s: the longest silence, also inside a stream), ``clock``; and
    ``first_token_timeout`` (``None``), the longest wait for the first part of a streamed
    answer, and ``provider``, the dialect its failures are classified in (inferred).
    """
    http_client = getattr(sdk_client, "_client", None)
    copy = getattr(sdk_client, "with_options", None)
    package = type(sdk_client).__module__.split(".", 1)[0]
    http, is_async = _http_of(http_client)
    if copy is None or http is None:
        raise TypeError(
            "surefoot.wrap() takes an official SDK client built on httpx or httpx2, such as "
            "openai.OpenAI(), anthropic.AsyncAnthropic() or groq.Groq(); got "
            f"{type(sdk_client).__module__}.{type(sdk_client).__qualname__}. For another "
            "client, use surefoot.sdk.transport()"
        )
    for attr in ("api_key", "auth_token"):  # masked in every surefoot error, log and record
        secret = getattr(sdk_client, attr, None)
        if isinstance(secret, str) and secret:
            register_secret(secret)
    provider = options.pop("provider", None) or _provider(package, sdk_client)
    family = Family(package)
    inner: Any = getattr(http_client, "_transport", None)
    if getattr(inner, "_surefoot_inner", None) is not None:
        inner = inner._surefoot_inner  # wrapped again: the new options replace the old
    ours = _build(http, is_async, inner, family, provider, options)
    client_cls = http.AsyncClient if is_async else http.Client
    new_http = client_cls(
        transport=ours,
        timeout=http_client.timeout,  # type: ignore[union-attr]
        follow_redirects=http_client.follow_redirects,  # type: ignore[union-attr]
    )
    wrapped = copy(max_retries=0, http_client=new_http)
    if not getattr(wrapped, "_surefoot_wrapped", False):
        wrapped.__class__ = _client_class(type(wrapped), is_async)
    family.bind(wrapped)
    return wrapped  # type: ignore[no-any-return]
