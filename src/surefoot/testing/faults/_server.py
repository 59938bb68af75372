"""The fault-injecting LLM server: OpenAI chat completions, Anthropic messages and the OpenAI
Responses API (``POST /v1/responses``, ``GET /v1/responses/{id}``, see
:mod:`~surefoot.testing.faults._responses`) on loopback.

::

    with FaultServer() as server:
        server.enqueue(Status(429, retry_after=1), times=2)
        client = OpenAI(base_url=server.base_url + "/v1", api_key="test")
        ...
        assert [r.attempt for r in server.requests] == [1, 2, 3]
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from surefoot.testing.faults._errors import Dialect, error_body
from surefoot.testing.faults._faults import Status
from surefoot.testing.faults._http import DEFAULT_MAX_BODY_BYTES, Request, Wire
from surefoot.testing.faults._injecting import ENDPOINTS, InjectingServer, dialect_for
from surefoot.testing.faults._model import Model
from surefoot.testing.faults._record import RecordedRequest
from surefoot.testing.faults._respond import apply_early, send_error
from surefoot.testing.faults._responses import RESPONSES_PATHS, ResponsesAPI
from surefoot.testing.faults._rules import Rule, Scenario
from surefoot.testing.faults._synth import Synthesizer

__all__ = ["FaultServer"]


class FaultServer(InjectingServer):
    """A real HTTP/1.1 LLM server on loopback that fails on purpose.

    ``scenario`` is a :class:`Scenario` or the path of a YAML scenario; ``models`` (tried
    first) and ``rules`` (tried last) are added to it. Without a matching model, a request is
    answered by echo. The port is free and random unless ``port`` is given.

    ``event_ids`` (default ``True``) numbers stream events with ``id:`` lines and honours
    ``Last-Event-ID``; ``event_ids=False`` streams as every real provider does, without ids,
    and a ``Last-Event-ID`` is ignored (the stream starts over). ``Model(event_ids=...)``
    overrides it per model.
    """

    def __init__(
        self,
        scenario: Scenario | str | Path | None = None,
        *,
        models: Sequence[Model] = (),
        rules: Sequence[Rule] = (),
        host: str = "127.0.0.1",
        port: int = 0,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        event_ids: bool = True,
    ) -> None:
        if not isinstance(event_ids, bool):
            raise TypeError(f"event_ids must be True or False, got {event_ids!r}")
        super().__init__(
            scenario,
            models=models,
            rules=rules,
            host=host,
            port=port,
            max_body_bytes=max_body_bytes,
        )
        self.event_ids = event_ids
        self._synth = Synthesizer(self.scenario.models, self.scenario.strict_models, event_ids)
        self._responses = ResponsesAPI(self._synth)

    async def handle(self, request: Request, reader: asyncio.StreamReader, wire: Wire) -> bool:
        record = self._recorder.record(request)
        request_id = self.request_id()
        dialect = dialect_for(request)
        retrieved = _retrieved_id(request.path)
        if retrieved is not None and request.method == "GET":
            record.stream = "stream=true" in request.target.lower()
            fault = self.choose(record)
            done = await apply_early(wire, reader, record, dialect, fault, request_id, None)
            if done is not None:
                return done
            return await self._responses.retrieve(
                wire, reader, request, record, retrieved, fault, request_id
            )
        if request.path not in ENDPOINTS:
            message = f"Invalid URL ({request.method} {request.path})"
            return await send_error(wire, record, dialect, Status(404, message=message), request_id)
        if request.method != "POST":
            message = f"Method {request.method} not allowed on {request.path}; use POST"
            return await _plain_error(wire, record, dialect, 405, message, request_id)
        doc = record.json
        if not isinstance(doc, dict):
            message = "We could not parse the JSON body of your request."
            return await send_error(wire, record, dialect, Status(400, message=message), request_id)
        if not isinstance(doc.get("model"), str):
            message = "you must provide a model parameter"
            return await send_error(wire, record, dialect, Status(400, message=message), request_id)
        fault = self.choose(record)
        done = await apply_early(wire, reader, record, dialect, fault, request_id, record.model)
        if done is not None:
            return done
        if request.path in RESPONSES_PATHS:
            return await self._responses.create(
                wire, reader, request, record, doc, fault, request_id
            )
        return await self._synth.respond(
            wire, reader, request, record, dialect, doc, fault, request_id
        )


def _retrieved_id(path: str) -> str | None:
    """The id in ``/v1/responses/{id}`` (or ``/responses/{id}``), else ``None``."""
    for prefix in RESPONSES_PATHS:
        head, sep, rest = path.partition(prefix + "/")
        if sep and not head and rest and "/" not in rest:
            return rest
    return None


async def _plain_error(
    wire: Wire, record: RecordedRequest, dialect: Dialect, status: int, message: str, rid: str
) -> bool:
    body = error_body(dialect, "bad_request", message, rid)
    record.status = status
    wire.head(status, [("content-type", "application/json"), ("content-length", str(len(body)))])
    wire.body(body)
    return True
