"""Structured log records: one per attempt decision, on the ``surefoot`` logger hierarchy.

The engine's loop hands every failed attempt's record and error to :func:`decision_log`'s
function (``Plan.log``). It writes one record at ``INFO`` (``DEBUG`` for nothing: a success
makes no decision) on ``surefoot.guard``, ``surefoot.llm``, ``surefoot.sdk`` or
``surefoot.agent``, with these fields as attributes of the ``LogRecord`` (what JSON
formatters such as python-json-logger print):

``surefoot_event`` (``"attempt"``), ``error_code``, ``code``, ``kind``, ``status``,
``attempt`` (zero-based), ``decision`` (``"retry"``/``"fail"``), ``why``, ``reason``, ``wait``
(seconds), ``outcome`` (the LLM client's ``retry``/``fallback``/``reconnect``/``fail``),
``model`` and ``request_id``.

Quiet by default: the ``surefoot`` logger has a ``NullHandler`` (a library's convention), so
nothing is printed until the application configures logging; a disabled level costs one
``isEnabledFor`` test per failed attempt. Nothing secret reaches a record: the message is made
of codes and numbers, and the request id is the provider's.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

__all__ = ["decision_log", "fields", "outcome"]

logging.getLogger("surefoot").addHandler(logging.NullHandler())


def fields(record: Any, error: BaseException | None) -> dict[str, Any]:
    """The structured fields of one attempt's record (see the module docstring)."""
    decision = getattr(record, "decision", None)
    context = getattr(error, "context", None)
    return {
        "surefoot_event": "attempt",
        "error_code": record.error_code,
        "code": record.code,
        "kind": record.kind,
        "status": record.status,
        "attempt": record.attempt,
        "decision": decision.action if decision is not None else None,
        "why": decision.why.name if decision is not None else None,
        "reason": decision.reason if decision is not None else None,
        "wait": round(record.wait, 6),
        "outcome": getattr(record, "outcome", None),
        "model": record.model,
        "request_id": getattr(context, "request_id", None),
    }


def outcome(record: Any, error: BaseException | None) -> str:
    """The attempt's outcome: the LLM client's own (``retry``, ``fallback``, ``restart``...),
    else ``ok``, ``rejected`` (an open circuit), ``deadline``, ``retry`` or ``fail``."""
    own = getattr(record, "outcome", None)
    if own is not None:
        return str(own)
    if error is None:
        return "ok"
    decision = getattr(record, "decision", None)
    if decision is None:
        return "fail"
    why = decision.why.name
    if why == "CIRCUIT_OPEN":
        return "rejected"
    if why == "DEADLINE":
        return "deadline"
    return "retry" if decision.retry else "fail"


def _message(f: dict[str, Any]) -> str:
    where = f" of {f['model']}" if f["model"] else ""
    status = f"{f['status']} " if f["status"] is not None else ""
    what = f"{status}{f['kind'] or f['error_code']}"
    if f["decision"] == "retry":
        then = f"retry in {f['wait']:.3g} s ({f['reason']})"
    else:
        then = f"{f.get('outcome') or 'fail'} ({f['reason']})"
    return f"surefoot: attempt {f['attempt'] + 1}{where} failed: {what}; {then}"


def decision_log(name: str) -> Callable[[Any, BaseException], None]:
    """The ``Plan.log`` function writing on logger ``name``."""
    logger = logging.getLogger(name)

    def log(record: Any, error: BaseException) -> None:
        if logger.isEnabledFor(logging.INFO):
            f = fields(record, error)
            logger.info(_message(f), extra=f)

    return log


#: The loggers of each entry point, made once.
GUARD = decision_log("surefoot.guard")
LLM = decision_log("surefoot.llm")
SDK = decision_log("surefoot.sdk")
AGENT = decision_log("surefoot.agent")
