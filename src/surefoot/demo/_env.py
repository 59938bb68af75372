"""What a step runs with: :class:`Target` (where the client points), :class:`StepEnv` (clients
wired to the timeline, the tools, the server's records) and the :class:`Sink` that shows it.

The attempts come from the client's own ``on_attempt`` hook, the breaker's state changes from
its ``on_breaker_state_change`` hook: the demo never guesses what the client did. An attempt's
start is the client's ``started`` reading when it has one, otherwise the end of the previous
attempt plus its wait (or the start of the call).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from surefoot.clock import SYSTEM_CLOCK
from surefoot.demo._records import AttemptRow, DemoResult, Mark, StepResult
from surefoot.demo._scenario import make_tools
from surefoot.errors import SurefootError
from surefoot.llm import AsyncLLMClient, ModelAttempt, ModelSpec
from surefoot.policy import BreakerState, Why
from surefoot.testing.faults import FaultServer, RecordedRequest

__all__ = ["Sink", "StepEnv", "Target"]


class Sink(Protocol):
    """Receives the demo as it happens (the terminal timeline implements it)."""

    def begin(self, mode: str, where: str, steps: int) -> None: ...

    def step_started(self, index: int, step: StepResult) -> None: ...

    def attempt(self, row: AttemptRow) -> None: ...

    def mark(self, mark: Mark) -> None: ...

    def step_finished(self, index: int, step: StepResult) -> None: ...

    def finished(self, result: DemoResult) -> None: ...


@dataclass(frozen=True, slots=True)
class Target:
    """Where the steps' clients point. ``model`` is ``None`` on the fault server, whose scripted
    models each step names itself; against a real endpoint every call uses ``model``."""

    base_url: str
    style: str = "openai"
    api_key: str | None = None
    model: str | None = None


class _Hooks:
    """The client hooks: every attempt lands on the step's timeline. ``last`` is the last model
    of the client's chain: a "fallback" from it is the call failing, and shown as ``"fail"``."""

    def __init__(self, env: StepEnv, last: str) -> None:
        self._env = env
        self._last = last

    def on_attempt(self, item: ModelAttempt) -> None:
        self._env.add_attempt(item, last=item.model == self._last)

    def on_breaker_state_change(self, name: str, old: BreakerState, new: BreakerState) -> None:
        self._env.breaker_changes.append((old, new))
        self._env.mark("breaker", f"breaker {old.value} → {new.value}")


class StepEnv:
    """Everything one step needs; see the module docstring."""

    def __init__(
        self,
        *,
        target: Target,
        server: FaultServer | None,
        t0: float,
        result: StepResult,
        sink: Sink,
    ) -> None:
        self.target = target
        self.server = server
        self.result = result
        self.tool_calls: list[str] = []
        #: The breaker state changes the client reported (``on_breaker_state_change``).
        self.breaker_changes: list[tuple[BreakerState, BreakerState]] = []
        self._t0 = t0
        self._sink = sink
        self._cursor = self.now()
        self._first_request = len(server.requests) if server is not None else 0

    # -- time and marks ----------------------------------------------------------------------

    def now(self) -> float:
        """Seconds since the demo started."""
        return SYSTEM_CLOCK.now() - self._t0

    @property
    def scripted(self) -> bool:
        """True on the fault server (the answers are known in advance)."""
        return self.server is not None

    def mark(self, kind: Literal["tool", "breaker", "note"], text: str) -> None:
        m = Mark(self.result.key, self.now(), kind, text)
        self.result.marks.append(m)
        self._sink.mark(m)

    def _on_tool(self, text: str) -> None:
        self.tool_calls.append(text.split("(", 1)[0])
        self.mark("tool", text)

    def tools(self) -> list[Callable[..., Awaitable[Any]]]:
        return make_tools(self._on_tool)

    # -- clients and calls -------------------------------------------------------------------

    def model(self, scripted_name: str) -> str:
        """The model a call uses: the scripted one, or ``--model`` against an endpoint."""
        return self.target.model or scripted_name

    def client(self, model: str | Sequence[str | ModelSpec], **options: Any) -> AsyncLLMClient:
        """A client on the target whose attempts land on this step's timeline."""
        options.setdefault("retry_base", 0.2)
        # Short waits for a demo: an error's own suggested delay (an overload's 5 s) is capped
        # by max_delay like the backoff; a server's Retry-After is still honoured exactly.
        options.setdefault("max_delay", 0.5)
        chain = [model] if isinstance(model, str) else list(model)
        last = chain[-1]
        return AsyncLLMClient(
            base_url=self.target.base_url,
            api_key=self.target.api_key,
            style=self.target.style,
            model=chain,
            hooks=_Hooks(self, last if isinstance(last, str) else last.name),
            **options,
        )

    def call(self) -> float:
        """Count one logical call starting now; returns its start time."""
        self.result.calls += 1
        self._cursor = self.now()
        return self._cursor

    def add_attempt(self, item: ModelAttempt, *, last: bool = False) -> None:
        end = item.ended - self._t0
        start = item.started - self._t0 if item.started is not None else self._cursor
        decision = item.decision
        outcome = item.outcome
        why = decision.why if decision is not None else None
        if why is Why.CIRCUIT_OPEN:
            outcome = "rejected"
        elif outcome == "fallback" and last:
            outcome = "fail"
        row = AttemptRow(
            step=self.result.key,
            t_start=min(start, end),
            t_end=end,
            model=item.model,
            attempt=item.attempt,
            status=item.status,
            error_code=item.error_code,
            code=item.code,
            kind=item.kind,
            decision=decision.action if decision is not None else None,
            reason=decision.reason if decision is not None and not item.reason else item.reason,
            wait=item.wait,
            outcome=outcome,
            turn=item.turn,
            why=why.name if why is not None else None,
        )
        self._cursor = end + item.wait
        self.add_row(row)

    def add_row(self, row: AttemptRow) -> None:
        self.result.attempts.append(row)
        self._sink.attempt(row)

    def deadline_row(self, error: SurefootError, model: str, started: float) -> None:
        """The attempt a run deadline cut short (the client records no attempt for it)."""
        if any(a.error_code == error.error_code for a in self.result.attempts):
            return
        attempt = sum(1 for a in self.result.attempts if a.t_start >= started)
        timeout = getattr(error, "timeout", None)
        self.add_row(
            AttemptRow(
                step=self.result.key,
                t_start=max(started, self._cursor),
                t_end=self.now(),
                model=model,
                attempt=attempt,
                status=None,
                error_code=error.error_code,
                code=error.code,
                kind=error.kind,
                decision="stop",
                reason=f"run timeout {timeout:g}s" if timeout is not None else "run timeout",
                wait=0.0,
                outcome="deadline",
            )
        )

    # -- the server's view -------------------------------------------------------------------

    def requests(self) -> list[RecordedRequest]:
        """The requests the fault server received during this step."""
        if self.server is None:
            return []
        return self.server.requests[self._first_request :]

    def rows(self, *outcomes: str) -> list[AttemptRow]:
        """This step's attempt rows, optionally only those with one of ``outcomes``."""
        rows = self.result.attempts
        return [a for a in rows if a.outcome in outcomes] if outcomes else list(rows)
