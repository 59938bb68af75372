"""The chaos proxy: forwards real traffic to an upstream and injects faults by rule.

Requests no rule selects pass through untouched: method, path and query, headers (minus
hop-by-hop ones), body; the answer's status, headers (minus hop-by-hop) and body, streamed
chunk by chunk when the upstream streams. Faults that need no answer (a status, a hang, a
reset before the headers, latency) never reach the upstream; stream faults (truncation, a
mid-stream error, a reset or a stall after N events, drip-feed, a slow first token,
malformed chunks, a missing terminator) act on the upstream's real events; a prefill
rejection answers a prefilled request itself; content faults (a malformed tool call, a
content filter, a huge body) are answered by the scripted model locally (in the Responses
API's format on ``/v1/responses``; a mid-stream error there is the chat completions' one).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import aiohttp

from surefoot import _check
from surefoot.testing.faults._errors import Dialect
from surefoot.testing.faults._faults import (
    ContentFilter,
    Fault,
    Hang,
    HugeBody,
    MalformedChunk,
    MalformedToolCall,
    NoDone,
    Reset,
    SlowFirstToken,
    Status,
    StreamError,
    Truncate,
)
from surefoot.testing.faults._http import DEFAULT_MAX_BODY_BYTES, Request, Wire
from surefoot.testing.faults._injecting import InjectingServer, dialect_for
from surefoot.testing.faults._record import RecordedRequest
from surefoot.testing.faults._respond import Outgoing, Piece, apply_early, send, send_error
from surefoot.testing.faults._responses import RESPONSES_PATHS, ResponsesAPI
from surefoot.testing.faults._rules import Rule, Scenario
from surefoot.testing.faults._synth import Synthesizer
from surefoot.testing.faults._wire import EventRole

__all__ = ["HOP_BY_HOP", "ChaosProxy"]

#: Headers that describe one connection, never forwarded (RFC 9110 section 7.6.1).
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "trailers",
        "transfer-encoding",
        "upgrade",
    }
)
_NOT_FORWARDED = HOP_BY_HOP | {"host", "content-length"}
_SKIP_AUTO = ("User-Agent", "Accept", "Accept-Encoding", "Content-Type")
_EVENT_END = (b"\r\n\r\n", b"\n\n", b"\r\r")


def _event_role(raw: bytes) -> EventRole:
    """Whether an upstream SSE event is a content delta, the final event, or other."""
    name = ""
    data: list[str] = []
    for line in raw.decode("utf-8", "replace").splitlines():
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "event":
            name = value
        elif field == "data":
            data.append(value)
    text = "\n".join(data)
    if text == "[DONE]" or name in ("message_stop", "response.completed"):
        return "final"
    if name == "content_block_delta" or (name.startswith("response.") and name.endswith(".delta")):
        return "delta"
    try:
        doc = json.loads(text)
        delta = doc["choices"][0]["delta"]
    except (ValueError, KeyError, IndexError, TypeError):
        return "other"
    return (
        "delta"
        if isinstance(delta, dict) and (delta.get("content") or delta.get("tool_calls"))
        else "other"
    )


def _split_event(buffer: bytes) -> tuple[bytes, bytes] | None:
    ends = [(buffer.find(sep), sep) for sep in _EVENT_END]
    found = [(at, sep) for at, sep in ends if at >= 0]
    if not found:
        return None
    at, sep = min(found)
    return buffer[: at + len(sep)], buffer[at + len(sep) :]


async def _events(response: aiohttp.ClientResponse) -> AsyncIterator[Piece]:
    """The upstream body as SSE events, each with its role."""
    buffer = b""
    async for chunk in response.content.iter_any():
        buffer += chunk
        while (split := _split_event(buffer)) is not None:
            raw, buffer = split
            yield Piece(raw, _event_role(raw))
    if buffer:
        yield Piece(buffer)


async def _chunks(response: aiohttp.ClientResponse) -> AsyncIterator[Piece]:
    """The upstream body chunk by chunk, as it arrives."""
    async for chunk in response.content.iter_any():
        yield Piece(chunk)


def _needs_events(fault: Fault | None) -> bool:
    return isinstance(
        fault, Truncate | StreamError | Hang | Reset | SlowFirstToken | MalformedChunk | NoDone
    )


class ChaosProxy(InjectingServer):
    """An HTTP proxy in front of ``upstream`` (e.g. ``https://api.openai.com``) that injects
    the scenario's faults into real traffic. Clients use ``proxy.base_url`` in place of the
    upstream's base URL; paths and queries are appended to ``upstream`` as they are."""

    def __init__(
        self,
        upstream: str,
        scenario: Scenario | str | Path | None = None,
        *,
        rules: Sequence[Rule] = (),
        host: str = "127.0.0.1",
        port: int = 0,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        connect_timeout: float = 10.0,
    ) -> None:
        _check.url("upstream", upstream, fix="the provider's root, like 'https://api.openai.com'")
        if not upstream.startswith(("http://", "https://")):
            raise ValueError(f"`upstream` must be an http:// or https:// URL, not {upstream!r}")
        super().__init__(scenario, rules=rules, host=host, port=port, max_body_bytes=max_body_bytes)
        self.upstream = upstream.rstrip("/")
        self.connect_timeout = _check.seconds("connect_timeout", connect_timeout, positive=True)
        self._synth = Synthesizer(self.scenario.models, self.scenario.strict_models)
        self._responses = ResponsesAPI(self._synth)
        self._session: aiohttp.ClientSession | None = None

    async def on_start(self) -> None:
        await super().on_start()
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=self.connect_timeout)
        self._session = aiohttp.ClientSession(auto_decompress=False, timeout=timeout)

    async def on_close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def handle(self, request: Request, reader: asyncio.StreamReader, wire: Wire) -> bool:
        record = self._recorder.record(request)
        request_id = self.request_id()
        dialect = dialect_for(request)
        fault = self.choose(record)
        done = await apply_early(wire, reader, record, dialect, fault, request_id, record.model)
        if done is not None:
            return done
        doc = record.json
        if isinstance(fault, MalformedToolCall | HugeBody | ContentFilter) and isinstance(
            doc, dict
        ):
            if request.path in RESPONSES_PATHS:
                return await self._responses.create(
                    wire, reader, request, record, doc, fault, request_id
                )
            return await self._synth.respond(
                wire, reader, request, record, dialect, doc, fault, request_id
            )
        assert self._session is not None
        headers = [(k, v) for k, v in request.headers if k not in _NOT_FORWARDED]
        try:
            async with self._session.request(
                request.method,
                self.upstream + request.target,
                headers=headers,
                data=request.body or None,
                allow_redirects=False,
                skip_auto_headers=_SKIP_AUTO,
            ) as response:
                return await self._relay(wire, reader, record, response, fault, dialect, request_id)
        except (aiohttp.ClientError, OSError) as exc:
            if record.status is not None:  # the answer had started: mirror the failure
                await wire.reset()
                return False
            message = f"surefoot proxy: upstream {self.upstream} failed: {type(exc).__name__}"
            bad_gateway = Status(502, error="server", message=message)
            return await send_error(wire, record, dialect, bad_gateway, request_id)

    async def _relay(
        self,
        wire: Wire,
        reader: asyncio.StreamReader,
        record: RecordedRequest,
        response: aiohttp.ClientResponse,
        fault: Fault | None,
        dialect: Dialect,
        request_id: str,
    ) -> bool:
        headers = [
            (k.decode("latin-1"), v.decode("latin-1"))
            for k, v in response.raw_headers
            if k.decode("latin-1").lower() not in _NOT_FORWARDED
        ]
        content_type = response.headers.get("content-type", "")
        streaming = "text/event-stream" in content_type or response.content_length is None
        upstream_id = response.headers.get("request-id") or response.headers.get("x-request-id")
        out = Outgoing(
            response.status, headers, dialect=dialect, request_id=upstream_id or request_id
        )
        if streaming and response.status != 204 and record.method != "HEAD":
            sse = "text/event-stream" in content_type and _needs_events(fault)
            out.pieces = _events(response) if sse else _chunks(response)
        else:
            out.body = await response.read()
        return await send(wire, reader, record, out, fault)
