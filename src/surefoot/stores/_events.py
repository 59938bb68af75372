"""What a shared store reports when it switches to and from its fallback: :class:`StoreEvent`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["StoreEvent", "WhenDown"]

#: What a store does while Redis is unreachable: ``"local"`` keeps the state in this process
#: (fail-open to local state: each process's breaker still protects it), ``"allow"`` admits
#: every call and pays every retry (fail-open), ``"deny"`` rejects every call and retry
#: (fail-closed).
WhenDown = Literal["local", "allow", "deny"]


@dataclass(frozen=True, slots=True)
class StoreEvent:
    """A switch of a Redis store: ``kind`` is ``"unavailable"`` (now running on ``when_down``)
    or ``"restored"`` (the shared state is used again); ``error`` describes the cause."""

    kind: Literal["unavailable", "restored"]
    store: str
    when_down: WhenDown
    error: str | None = None
