"""The root of the error tree: :class:`SurefootError` and its :class:`ErrorContext`."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, ClassVar

from surefoot._redact import redact

if TYPE_CHECKING:
    from surefoot.problem import ProblemDetails

__all__ = ["ErrorContext", "SurefootError"]


@dataclass(slots=True)
class ErrorContext:
    """Where and when a failure was observed; every field is optional.

    ``attempt`` is zero-based: 0 is the first try. ``metadata`` holds anything else worth
    reporting (strings and numbers only, never a secret).
    """

    operation: str | None = None
    attempt: int | None = None
    http_status: int | None = None
    method: str | None = None
    url: str | None = None
    request_id: str | None = None
    trace_id: str | None = None
    span_id: str | None = None
    last_event_id: str | None = None
    task_id: str | None = None
    run_id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def merged(self, other: ErrorContext | None) -> ErrorContext:
        """A copy where the known fields of ``other`` fill in or override this one's."""
        if other is None:
            return replace(self, metadata=dict(self.metadata))
        updates: dict[str, Any] = {}
        for f in fields(ErrorContext):
            if f.name == "metadata":
                continue
            value = getattr(other, f.name)
            if value is not None:
                updates[f.name] = value
        return replace(self, metadata={**self.metadata, **other.metadata}, **updates)

    def as_dict(self) -> dict[str, Any]:
        """The known fields only, for logs and JSON."""
        out: dict[str, Any] = {}
        for f in fields(ErrorContext):
            value = getattr(self, f.name)
            if value is not None and value != {}:
                out[f.name] = dict(value) if f.name == "metadata" else value
        return out


def _rebuild(cls: type[SurefootError], args: tuple[Any, ...], state: dict[str, Any]) -> Any:
    err = cls.__new__(cls)
    err.args = args
    err.__dict__.update(state)
    return err


class SurefootError(Exception):
    """Root of every error surefoot raises; see :mod:`surefoot.errors` for the tree.

    Attributes a handler can rely on, never by parsing the message:

    - ``retryable``: whether repeating the same call can succeed.
    - ``error_code``: ``SUREFOOT-`` plus the class name without ``Error``, upper-cased; stable.
    - ``code``: the catalog code (``RATE_LIMIT_EXCEEDED``, ``TASK_DEADLINE_EXCEEDED``, ...).
    - ``kind``: the classifier's stable kind (``rate_limit``, ``network``, ...).
    - ``suggested_retry_delay``: seconds to wait before a retry (0 when not retryable).
    - ``max_retry_attempts``: how many retries this failure deserves at most.
    - ``problem_details``: RFC 9457 details, the server's or synthesized from the catalog.
    - ``context``: an :class:`ErrorContext`.
    """

    #: Defaults a subclass may override.
    default_retryable: ClassVar[bool] = False
    default_code: ClassVar[str] = "INTERNAL_ERROR"
    default_kind: ClassVar[str] = "unknown"
    default_retry_delay: ClassVar[float | None] = None
    default_max_attempts: ClassVar[int | None] = None

    retryable: bool
    retry_after: float | None
    code: str
    kind: str
    context: ErrorContext
    message: str

    def __init__(
        self,
        message: str = "",
        *,
        retryable: bool | None = None,
        code: str | None = None,
        kind: str | None = None,
        suggested_retry_delay: float | None = None,
        max_retry_attempts: int | None = None,
        problem_details: ProblemDetails | None = None,
        context: ErrorContext | None = None,
        retry_after: float | None = None,
    ) -> None:
        message = redact(message)
        super().__init__(message)
        self.message = message
        if retryable is None and problem_details is not None:
            retryable = problem_details.retryable
        self.retryable = self._default_retryable() if retryable is None else bool(retryable)
        if code is None and problem_details is not None:
            code = problem_details.error_code
        self.code = code or self.default_code
        self.kind = kind or self.default_kind
        #: The server's own wait hint in seconds (Retry-After and kin), ``None`` when it gave none.
        self.retry_after = _check_delay(retry_after, "retry_after")
        if retry_after is None and problem_details is not None:
            self.retry_after = problem_details.retry_after_seconds
        if suggested_retry_delay is None:
            suggested_retry_delay = self.retry_after
        self._retry_delay = _check_delay(suggested_retry_delay)
        self._max_attempts = _check_attempts(max_retry_attempts)
        self._problem = problem_details
        self.context = context if context is not None else ErrorContext()

    # -- derived attributes -------------------------------------------------------------------

    def _default_retryable(self) -> bool:
        return self.default_retryable

    def _default_retry_delay(self) -> float | None:
        return self.default_retry_delay

    @property
    def error_code(self) -> str:
        """``SUREFOOT-`` plus the class name without ``Error``, upper-cased."""
        return error_code_for(type(self))

    @property
    def suggested_retry_delay(self) -> float:
        """Seconds to wait before retrying: 1.0 when retryable, 0 otherwise, unless set."""
        if not self.retryable:
            return 0.0
        if self._retry_delay is not None:
            return self._retry_delay
        default = self._default_retry_delay()
        return 1.0 if default is None else default

    @property
    def has_explicit_retry_delay(self) -> bool:
        """True when the delay comes from the server, the instance or the class's own rule
        (a rate limit's 60 s, an overload's 5 s), not from the generic 1 s default."""
        return self._retry_delay is not None or self._default_retry_delay() is not None

    @property
    def max_retry_attempts(self) -> int:
        """Retries this failure deserves at most: 3 when retryable, 0 otherwise, unless set."""
        if not self.retryable:
            return 0
        if self._max_attempts is not None:
            return self._max_attempts
        if self.default_max_attempts is not None:
            return self.default_max_attempts
        return 3

    @property
    def status(self) -> int | None:
        """The HTTP status observed, else the one the problem details or the catalog give."""
        if self.context.http_status is not None:
            return self.context.http_status
        if self._problem is not None and self._problem.status is not None:
            return self._problem.status
        from surefoot._codes import default_status

        return default_status(self.code)

    @property
    def problem_details(self) -> ProblemDetails:
        """The server's problem details when it sent some, otherwise synthesized."""
        if self._problem is None:
            from surefoot.problem import ProblemDetails

            self._problem = ProblemDetails.from_error(self)
        return self._problem

    @property
    def has_server_problem(self) -> bool:
        """True when ``problem_details`` came from the server rather than the catalog."""
        return self._problem is not None and self._problem.source == "server"

    # -- presentation ------------------------------------------------------------------------

    def _detail_fields(self) -> list[tuple[str, object]]:
        """Extra ``name=value`` pairs for ``str()``; subclasses add theirs."""
        return []

    def __str__(self) -> str:
        parts: list[str] = [f"{self.error_code} {self.code}"]
        head = self.message or self.default_message()
        fields_: list[tuple[str, object]] = []
        ctx = self.context
        if ctx.http_status is not None:
            fields_.append(("status", ctx.http_status))
        fields_.extend(self._detail_fields())
        fields_.append(("retryable", str(self.retryable).lower()))
        if self.retryable:
            fields_.append(("retry_in", f"{self.suggested_retry_delay:g}s"))
        for name in ("operation", "attempt", "task_id", "request_id", "last_event_id"):
            value = getattr(ctx, name)
            if value is not None:
                fields_.append((name, value))
        text = " ".join(f"{k}={v}" for k, v in fields_ if v is not None)
        line = f"{parts[0]}: {head} ({text})"
        return " ".join(line.split())  # exactly one line, whatever the server sent

    def default_message(self) -> str:
        from surefoot._codes import default_title

        return default_title(self.code) or type(self).__name__

    def __repr__(self) -> str:
        name = type(self).__name__
        return f"{name}({self.message!r}, code={self.code!r}, retryable={self.retryable!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.args, dict(self.__dict__)))


def error_code_for(cls: type[BaseException]) -> str:
    """The stable ``SUREFOOT-*`` code of an error class."""
    name = cls.__name__
    if name.endswith("Error"):
        name = name[: -len("Error")]
    return "SUREFOOT-" + name.upper()


def _check_delay(value: float | None, name: str = "suggested_retry_delay") -> float | None:
    if value is None:
        return None
    value = float(value)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number of seconds >= 0, got {value!r}")
    return value


def _check_attempts(value: int | None) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"max_retry_attempts must be an int >= 0, got {value!r}")
    return value
