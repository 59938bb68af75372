"""What a demo run leaves behind: attempt rows, timeline events, checks, step and demo results.

Times are seconds since the demo started (``t_start``/``t_end``/``t``), read from one monotonic
clock. An :class:`AttemptRow` is one model call attempt as the client recorded it (its
``on_attempt`` hook), plus two rows the demo adds itself: an attempt the run deadline cut short
(outcome ``"deadline"``) and a call the breaker rejected before anything was sent (outcome
``"rejected"``; the client records those as a ``"fallback"`` with reason ``"circuit open"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "OUTCOMES",
    "AttemptRow",
    "Check",
    "DemoResult",
    "Mark",
    "StepResult",
    "Summary",
    "summarize",
]

#: Every attempt outcome, in legend order.
OUTCOMES = (
    "ok",
    "retry",
    "reconnect",
    "restart",
    "continue",
    "fallback",
    "rejected",
    "fail",
    "deadline",
)

StepStatus = Literal["passed", "failed", "skipped"]


@dataclass(frozen=True, slots=True)
class AttemptRow:
    """One model call attempt on the demo's timeline."""

    step: str
    t_start: float
    t_end: float
    model: str
    attempt: int
    status: int | None
    error_code: str | None
    code: str | None
    kind: str | None
    decision: str | None
    reason: str
    wait: float
    outcome: str
    turn: int = 0
    #: The decision's typed reason (``surefoot.policy.Why`` by name), for checks; ``reason``
    #: is its text, for people.
    why: str | None = None

    @property
    def retried(self) -> bool:
        return self.outcome in ("retry", "reconnect", "restart", "continue")

    def as_dict(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "t_start": round(self.t_start, 4),
            "t_end": round(self.t_end, 4),
            "model": self.model,
            "attempt": self.attempt,
            "turn": self.turn,
            "status": self.status,
            "error_code": self.error_code,
            "code": self.code,
            "kind": self.kind,
            "decision": self.decision,
            "reason": self.reason,
            "why": self.why,
            "wait": round(self.wait, 4),
            "outcome": self.outcome,
        }


@dataclass(frozen=True, slots=True)
class Mark:
    """Something else worth a mark on the timeline: a tool call, a breaker state change."""

    step: str
    t: float
    kind: Literal["tool", "breaker", "note"]
    text: str

    def as_dict(self) -> dict[str, Any]:
        return {"step": self.step, "t": round(self.t, 4), "kind": self.kind, "text": self.text}


@dataclass(frozen=True, slots=True)
class Check:
    """One expectation of a step and what was observed."""

    expect: str
    ok: bool
    observed: str

    def as_dict(self) -> dict[str, Any]:
        return {"expect": self.expect, "ok": self.ok, "observed": self.observed}


@dataclass(slots=True)
class StepResult:
    """One step of the scenario, once run (or skipped)."""

    key: str
    title: str
    story: str
    status: StepStatus = "passed"
    skip_reason: str = ""
    t_start: float = 0.0
    t_end: float = 0.0
    checks: list[Check] = field(default_factory=list)
    attempts: list[AttemptRow] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)
    calls: int = 0
    server_requests: int | None = None
    error: str | None = None

    @property
    def duration(self) -> float:
        return max(0.0, self.t_end - self.t_start)

    @property
    def retries(self) -> int:
        return sum(1 for a in self.attempts if a.retried)

    @property
    def waited(self) -> float:
        return sum(a.wait for a in self.attempts)

    @property
    def rejected(self) -> int:
        return sum(1 for a in self.attempts if a.outcome == "rejected")

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "title": self.title,
            "story": self.story,
            "status": self.status,
            "passed": self.status != "failed",
            "skip_reason": self.skip_reason or None,
            "t_start": round(self.t_start, 4),
            "t_end": round(self.t_end, 4),
            "duration": round(self.duration, 4),
            "calls": self.calls,
            "retries": self.retries,
            "waited": round(self.waited, 4),
            "rejected_by_breaker": self.rejected,
            "server_requests": self.server_requests,
            "error": self.error,
            "checks": [c.as_dict() for c in self.checks],
            "attempts": [a.as_dict() for a in self.attempts],
            "marks": [m.as_dict() for m in self.marks],
        }


@dataclass(frozen=True, slots=True)
class Summary:
    """The totals over every step that ran."""

    calls: int
    attempts: int
    retries: int
    waited: float
    breaker_saved: int
    server_requests: int | None
    passed: int
    failed: int
    skipped: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "attempts": self.attempts,
            "retries": self.retries,
            "waited": round(self.waited, 4),
            "breaker_saved": self.breaker_saved,
            "server_requests": self.server_requests,
            "steps_passed": self.passed,
            "steps_failed": self.failed,
            "steps_skipped": self.skipped,
        }


def summarize(steps: Sequence[StepResult]) -> Summary:
    """The totals of ``steps``; ``server_requests`` is ``None`` without a fault server."""
    counted = [s.server_requests for s in steps if s.server_requests is not None]
    return Summary(
        calls=sum(s.calls for s in steps),
        attempts=sum(1 for s in steps for a in s.attempts if a.outcome != "rejected"),
        retries=sum(s.retries for s in steps),
        waited=sum(s.waited for s in steps),
        breaker_saved=sum(s.rejected for s in steps),
        server_requests=sum(counted) if counted else None,
        passed=sum(1 for s in steps if s.status == "passed"),
        failed=sum(1 for s in steps if s.status == "failed"),
        skipped=sum(1 for s in steps if s.status == "skipped"),
    )


@dataclass(slots=True)
class DemoResult:
    """The whole demo: where it ran, every step, the wall time and whether it passed.

    ``passed`` is true when no step failed and at least one step ran.
    """

    mode: Literal["fault-server", "endpoint", "events"]
    base_url: str
    style: str
    steps: list[StepResult]
    wall_time: float
    version: str = ""

    @property
    def summary(self) -> Summary:
        return summarize(self.steps)

    @property
    def passed(self) -> bool:
        ran = [s for s in self.steps if s.status != "skipped"]
        return bool(ran) and all(s.status == "passed" for s in ran)

    def as_dict(self) -> dict[str, Any]:
        return {
            "surefoot": self.version,
            "mode": self.mode,
            "base_url": self.base_url,
            "style": self.style,
            "passed": self.passed,
            "wall_time": round(self.wall_time, 3),
            "summary": self.summary.as_dict(),
            "steps": [s.as_dict() for s in self.steps],
        }
