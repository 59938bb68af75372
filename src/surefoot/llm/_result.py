"""What a run returns and what a stream yields: :class:`RunResult`, :class:`ModelAttempt`,
the stream events, and :class:`WaitFor`, the suspension a tool raises to wait for a person.

Stream events all have a ``type``: ``"text"`` (:class:`~surefoot.llm.TextDelta`, ``.text``),
``"tool_call"`` (:class:`~surefoot.llm.ToolCallDelta`), ``"restart"`` (:class:`RestartEvent`:
discard the text and tool calls of this answer received so far, the answer starts over),
``"tool_result"`` (:class:`ToolResultEvent`) and ``"result"`` (:class:`ResultEvent`,
``.result`` the :class:`RunResult`), always last.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from surefoot.llm._messages import Message, ToolCall, Usage
from surefoot.policy._records import AttemptRecord

__all__ = [
    "ModelAttempt",
    "Pending",
    "RestartEvent",
    "ResultEvent",
    "RunResult",
    "Suspend",
    "ToolResultEvent",
    "WaitFor",
]


class WaitFor(Exception):
    """Raised by a tool to suspend the run until a person answers.

    ``run`` then returns a :class:`RunResult` with ``status == "pending"`` and ``.pending``
    describing what it waits for; continue with ``client.resume(result, answer)``.
    ``kind`` is free text for your UI (``"approval"``, ``"input"``...), ``prompt`` the question.
    """

    def __init__(self, prompt: str = "", *, kind: str = "input", data: Any = None) -> None:
        super().__init__(prompt or kind)
        self.prompt = prompt
        self.kind = kind
        self.data = data


#: Another name for :class:`WaitFor`.
Suspend = WaitFor


@dataclass(frozen=True, slots=True)
class Pending:
    """What a suspended run waits for: the tool call that raised :class:`WaitFor`."""

    tool_call: ToolCall
    prompt: str
    kind: str
    data: Any = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelAttempt(AttemptRecord):
    """One model call attempt, as recorded in :attr:`RunResult.attempts`: an
    :class:`~surefoot.guard.AttemptRecord` (``attempt``, ``error_code``, ``code``, ``kind``,
    ``decision``, ``wait``, ``status``, ``started``, ``ended``, ``ok``) whose ``model`` is the
    model the attempt went to, plus what the client did next.

    ``outcome`` is ``"ok"``, ``"retry"``, ``"fail"``, ``"fallback"`` (moved on to the next
    model) or ``"reconnect"`` (resumed a stream with Last-Event-ID); ``reason`` says why in
    words; ``turn`` is the zero-based model turn of the run. Never holds a secret. Hooks typed
    for the guard's records (:class:`~surefoot.guard.GuardHooks`) accept it as is.
    """

    model: str
    outcome: str
    reason: str = ""
    turn: int = 0

    @property
    def record(self) -> AttemptRecord:
        """The attempt's :class:`~surefoot.guard.AttemptRecord`: this object itself (kept for
        code written when a ``ModelAttempt`` wrapped a record)."""
        return self


@dataclass(slots=True)
class RunResult:
    """The outcome of ``run``.

    ``text`` is the final assistant text; ``output`` the validated ``response_model`` instance
    (``None`` without one); ``messages`` the whole conversation (pass it back to continue);
    ``usage`` the summed tokens; ``status`` ``"completed"`` or ``"pending"`` (see ``pending``);
    ``attempts`` every model call attempt; ``model`` the model that gave the last answer.
    """

    text: str
    messages: list[Message]
    usage: Usage = field(default_factory=Usage)
    status: Literal["completed", "pending"] = "completed"
    output: Any = None
    attempts: list[ModelAttempt] = field(default_factory=list)
    model: str | None = None
    task_id: str | None = None
    pending: Pending | None = None
    turns: int = 0
    #: The tokens the provider reported for the attempts that did not give an answer (a
    #: stream cut and restarted, an error that carried usage): billed, but not in ``usage``.
    failed_usage: Usage = field(default_factory=Usage)

    def __repr__(self) -> str:
        return (
            f"RunResult(status={self.status!r}, text={self.text[:60]!r}, model={self.model!r}, "
            f"turns={self.turns}, attempts={len(self.attempts)})"
        )


@dataclass(frozen=True, slots=True)
class ToolResultEvent:
    """A tool finished: its call, the text sent back to the model, and whether it failed."""

    call: ToolCall
    content: str
    is_error: bool = False
    type: str = "tool_result"


@dataclass(frozen=True, slots=True)
class RestartEvent:
    """The answer being streamed failed after its first delta and starts over (on ``model``,
    the same or the next model of the chain): discard the text and tool-call pieces of this
    answer received so far (``discarded`` is that text) and show what follows instead.
    ``reason`` says why in words."""

    model: str
    reason: str
    discarded: str = ""
    type: str = "restart"


@dataclass(frozen=True, slots=True)
class ResultEvent:
    """The last event of a stream: the :class:`RunResult`."""

    result: RunResult
    type: str = "result"
