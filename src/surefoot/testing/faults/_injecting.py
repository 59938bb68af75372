"""What the fault server and the chaos proxy share: a scenario, its rule engine and the
request recorder, with the test-facing methods (``requests``, ``enqueue``, ``reset``...)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

from surefoot import _check
from surefoot.testing.faults._base import ThreadedServer
from surefoot.testing.faults._errors import Dialect
from surefoot.testing.faults._faults import Fault
from surefoot.testing.faults._http import DEFAULT_MAX_BODY_BYTES, Request
from surefoot.testing.faults._model import Model
from surefoot.testing.faults._record import RecordedRequest, Recorder
from surefoot.testing.faults._rules import Rule, RuleEngine, Scenario
from surefoot.testing.faults._scenario import load_scenario

__all__ = ["ENDPOINTS", "InjectingServer", "dialect_for", "resolve_scenario"]

T = TypeVar("T")

#: Paths the fault server answers, and their dialect.
ENDPOINTS: dict[str, Dialect] = {
    "/v1/chat/completions": "openai",
    "/chat/completions": "openai",
    "/openai/v1/chat/completions": "openai",  # Groq's OpenAI-compatible path
    "/v1/messages": "anthropic",
    "/messages": "anthropic",
    "/v1/responses": "openai",  # the Responses API (and GET /v1/responses/{id})
    "/responses": "openai",
}


def dialect_for(request: Request) -> Dialect:
    """Anthropic for ``.../messages`` or an ``anthropic-version`` header, else OpenAI."""
    known = ENDPOINTS.get(request.path)
    if known is not None:
        return known
    if request.path.endswith("/messages") or request.header("anthropic-version"):
        return "anthropic"
    return "openai"


def resolve_scenario(scenario: Scenario | str | Path | None) -> Scenario:
    """A :class:`Scenario` from itself, a YAML file path, or nothing."""
    if scenario is None:
        return Scenario()
    if isinstance(scenario, Scenario):
        return scenario
    if not isinstance(scenario, (str, Path)):
        raise TypeError(
            "scenario must be a Scenario, the path of a YAML scenario (str or Path), or None, "
            f"got {_check.shown(scenario)}"
        )
    return load_scenario(scenario)


def _items(name: str, value: object, cls: type[T]) -> tuple[T, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"{name} must be a list of {cls.__name__}, got {_check.shown(value)}")
    for i, item in enumerate(value):
        if not isinstance(item, cls):
            raise TypeError(f"{name}[{i}] must be a {cls.__name__}, got {_check.shown(item)}")
    return tuple(value)


class InjectingServer(ThreadedServer):
    """A threaded server with a scenario, a rule engine and a request recorder."""

    def __init__(
        self,
        scenario: Scenario | str | Path | None = None,
        *,
        models: Sequence[Model] = (),
        rules: Sequence[Rule] = (),
        host: str = "127.0.0.1",
        port: int = 0,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    ) -> None:
        super().__init__(host=host, port=port, max_body_bytes=max_body_bytes)
        base = resolve_scenario(scenario)
        models, rules = _items("models", models, Model), _items("rules", rules, Rule)
        self.scenario = Scenario(
            rules=(*base.rules, *rules),
            models=(*models, *base.models),
            queue=base.queue,
            seed=base.seed,
            strict_models=base.strict_models,
        )
        self._engine = RuleEngine(self.scenario)
        self._recorder = Recorder()

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every request so far, oldest first."""
        return self._recorder.items()

    def enqueue(self, fault: Fault, times: int = 1) -> None:
        """The next ``times`` requests get ``fault`` (before any rule)."""
        self._engine.enqueue(fault, times)

    def add_rule(self, rule: Rule) -> None:
        """Add a rule after the scenario's rules (until :meth:`reset`)."""
        self._engine.add_rule(rule)

    def reset(self) -> None:
        """Forget the requests, restart the clock of the time windows, restore the scenario's
        queue and rule counters (rules added with :meth:`add_rule` are dropped)."""
        self._recorder.reset()
        self._engine.reset()

    @property
    def uptime(self) -> float:
        """Seconds since the server started or was reset (the clock of rule windows)."""
        return self._recorder.elapsed()

    def choose(self, record: RecordedRequest) -> Fault | None:
        """The fault for a recorded request (recorded on it too)."""
        fault = self._engine.choose(record.path, record.model, record.stream, self.uptime)
        record.fault = fault
        return fault

    def request_id(self) -> str:
        return f"req_{self._recorder.count:06d}"

    async def on_start(self) -> None:
        self._recorder.reset()
