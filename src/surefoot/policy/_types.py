"""The vocabulary of the retry policy: :class:`Tier`, :class:`ErrorInfo`, :class:`Decision`."""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeAlias

__all__ = ["Decision", "ErrorInfo", "OnError", "Tier"]


class Tier(enum.Enum):
    """What an ``on_error`` hook decides for one failed attempt."""

    RETRY = "retry"
    FAIL = "fail"


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    """One failed attempt, as an ``on_error`` hook sees it.

    - ``error``: the exception the attempt raised (a foreign transport exception already
      translated to a :class:`surefoot.SurefootError`; otherwise the exception as raised).
    - ``status``: the HTTP status when the call completed with a non-2xx response, else ``None``.
    - ``attempt``: zero-based number of the attempt that failed.
    - ``retryable``: what the default classifier would decide.
    """

    error: BaseException | None
    status: int | None
    attempt: int
    retryable: bool


#: The ``on_error`` hook: classify one failed attempt. ``None`` means the default classifier.
OnError: TypeAlias = Callable[[ErrorInfo], Tier]

Action: TypeAlias = Literal["retry", "fail"]


@dataclass(frozen=True, slots=True)
class Decision:
    """The policy's answer for one failed attempt.

    ``delay`` is the wait in seconds before the next attempt (0 when failing); ``reason`` says
    why in words fit for a log line; ``hook_error`` is the exception an ``on_error`` hook raised,
    when it raised one (the decision is then ``"fail"``).
    """

    action: Action
    delay: float
    reason: str
    hook_error: BaseException | None = None

    @property
    def retry(self) -> bool:
        return self.action == "retry"
