"""Transports: how the LLM client puts bytes on the wire (aiohttp async, urllib3 sync)."""

from surefoot.http._aiohttp import AiohttpTransport
from surefoot.http._types import (
    DEFAULT_MAX_BODY,
    AsyncStream,
    AsyncTransport,
    BodyTooLargeError,
    Response,
    SyncStream,
    SyncTransport,
)
from surefoot.http._urllib3 import Urllib3Transport

__all__ = [
    "DEFAULT_MAX_BODY",
    "AiohttpTransport",
    "AsyncStream",
    "AsyncTransport",
    "BodyTooLargeError",
    "Response",
    "SyncStream",
    "SyncTransport",
    "Urllib3Transport",
]
