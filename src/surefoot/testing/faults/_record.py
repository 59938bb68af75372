"""Every request a server saw, recorded for assertions, with secrets redacted."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from surefoot._redact import SECRET_HEADERS
from surefoot.testing.faults._faults import Fault
from surefoot.testing.faults._http import Request

__all__ = ["RecordedRequest", "Recorder"]

_MASK = "[REDACTED]"


@dataclass
class RecordedRequest:
    """One request as the server saw it.

    ``headers`` has lower-case names, with ``authorization``, ``x-api-key`` and other secret
    headers replaced by ``[REDACTED]``. ``json`` is the parsed body (``None`` if it was not
    JSON). ``attempt`` counts requests with the same ``Idempotency-Key`` (or, without one, the
    same method, path and body), starting at 1. ``fault`` is what was injected (``None``:
    answered normally); ``status`` is the status sent (``None``: no status line was sent).
    ``timestamp`` is seconds since the server started.
    """

    method: str
    path: str
    headers: Mapping[str, str]
    body: bytes
    json: Any
    attempt: int
    idempotency_key: str | None
    timestamp: float
    fault: Fault | None = None
    status: int | None = None
    model: str | None = None
    stream: bool = False
    last_event_id: str | None = field(default=None)


def _safe_headers(request: Request) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in request.headers:
        out[name] = _MASK if name in SECRET_HEADERS else value
    return out


class Recorder:
    """A thread-safe list of :class:`RecordedRequest` and the attempt counters."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: list[RecordedRequest] = []
        self._attempts: dict[str, int] = {}
        self.count = 0
        self.started = time.monotonic()

    def record(self, request: Request) -> RecordedRequest:
        key = request.header("idempotency-key")
        counter_key = key if key is not None else _body_key(request)
        try:
            doc: Any = json.loads(request.body) if request.body else None
        except ValueError:
            doc = None
        model = doc.get("model") if isinstance(doc, dict) else None
        stream = bool(doc.get("stream")) if isinstance(doc, dict) else False
        with self._lock:
            attempt = self._attempts.get(counter_key, 0) + 1
            self._attempts[counter_key] = attempt
            item = RecordedRequest(
                method=request.method,
                path=request.path,
                headers=_safe_headers(request),
                body=request.body,
                json=doc,
                attempt=attempt,
                idempotency_key=key,
                timestamp=time.monotonic() - self.started,
                model=model if isinstance(model, str) else None,
                stream=stream,
                last_event_id=request.header("last-event-id"),
            )
            self._items.append(item)
            self.count += 1
        return item

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def items(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._items)

    def reset(self) -> None:
        with self._lock:
            self._items.clear()
            self._attempts.clear()
            self.count = 0
            self.started = time.monotonic()


def _body_key(request: Request) -> str:
    digest = hashlib.sha256(request.body).hexdigest()
    return f"{request.method} {request.path} {digest}"
