"""The steps of one action call that are the same for both drivers (pure, no I/O).

Order: find the action (``INVOCATION`` when unknown), the permission check (its
:class:`~surefoot.agent.SecurityError` or ``PermissionError`` passes through), argument
validation (``PARAMETER``, before anything runs), the approval gate
(:class:`~surefoot.ApprovalRequiredError`, unwrapped), an ``llm`` action's client (``VALIDATION``
without one), the pre-conditions (``VALIDATION``); then the driver calls the function, and the
post-conditions run on its result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from surefoot.agent._action import Action
from surefoot.agent._categorize import action_error
from surefoot.agent._contracts import Contract
from surefoot.errors import (
    ActionCategory,
    ActionExecutionError,
    ApprovalRequiredError,
    ContractViolationError,
    SecurityError,
    ValidationError,
)
from surefoot.llm._tools import ToolArgumentsError, validate_arguments

if TYPE_CHECKING:
    from surefoot.agent._agent import Agent

__all__ = [
    "approval_error",
    "check_contracts",
    "is_binding_error",
    "lookup",
    "permission_denied",
    "require_llm",
    "validate",
]


def lookup(agent: Agent, name: object) -> Action:
    act = agent._actions.get(name) if isinstance(name, str) else None
    if act is not None:
        return act
    known = ", ".join(sorted(agent._actions)) or "none"
    cause = LookupError(f"the agent has no action named {name!r}; its actions are: {known}")
    raise action_error(cause, str(name), "unknown", ActionCategory.INVOCATION, str(cause))


def permission_denied(act: Action, verdict: object) -> SecurityError | None:
    """The error for a permission check that returned ``False`` (``None``/``True`` allow)."""
    if verdict is False:
        return SecurityError(f"the permission check refused action {act.name!r}", action=act.name)
    return None


def validate(act: Action, args: object) -> dict[str, Any]:
    """The arguments checked and coerced by the action's schema, as keywords."""
    if args is None:
        args = {}
    try:
        if not isinstance(args, Mapping):
            raise ToolArgumentsError(
                act.name, [("", f"expected a mapping of arguments, got {type(args).__name__}")]
            )
        kwargs = validate_arguments(act.spec, args)
    except ToolArgumentsError as exc:
        raise action_error(exc, act.name, act.type, ActionCategory.PARAMETER, str(exc)) from exc
    try:
        act.signature.bind(**kwargs)
    except TypeError as exc:
        raise action_error(exc, act.name, act.type, ActionCategory.INVOCATION) from exc
    return kwargs


def approval_error(act: Action, approved: bool | None) -> ApprovalRequiredError | None:
    """The error when ``act`` needs an approval it does not have (``approved`` is the
    approver's verdict, ``None`` without an approver)."""
    if not act.requires_approval or approved:
        return None
    reason = act.approval_reason
    how = (
        "the approver refused it"
        if approved is False
        else "approve it with agent.approve(name) or an approver="
    )
    message = f"action {act.name!r} requires approval" + (f" ({reason})" if reason else "")
    return ApprovalRequiredError(f"{message}: {how}", action=act.name, reason=reason)


def require_llm(agent: Agent, act: Action) -> None:
    """An ``llm`` action on an agent without an LLM client fails with ``VALIDATION``."""
    if act.type == "llm" and agent.llm is None:
        cause = ValidationError(
            f"action {act.name!r} is an llm action but the agent has no LLM client; "
            "pass Agent(llm=AsyncLLMClient(...) or LLMClient(...))"
        )
        raise action_error(cause, act.name, act.type, ActionCategory.VALIDATION)


def check_contracts(act: Action, contracts: tuple[Contract, ...], env: dict[str, Any]) -> None:
    """Raise ``VALIDATION`` (cause: :class:`~surefoot.ContractViolationError`) for the first
    clause that is false or that raises (the evaluation error is the violation's cause)."""
    for c in contracts:
        try:
            ok = c.evaluate(env)
        except Exception as exc:
            cv = ContractViolationError(
                f"{c.kind}-condition {c.expression!r} could not be evaluated: "
                f"{type(exc).__name__}: {exc}",
                contract_kind=c.kind,
                violated_expression=c.expression,
                bindings=c.seen(env),
            )
            cv.__cause__ = exc
            raise _violation(act, cv) from cv
        if not ok:
            cv = ContractViolationError(
                contract_kind=c.kind, violated_expression=c.expression, bindings=c.seen(env)
            )
            raise _violation(act, cv)


def _violation(act: Action, cv: ContractViolationError) -> ActionExecutionError:
    return action_error(cv, act.name, act.type, ActionCategory.VALIDATION, cv.message)


def is_binding_error(exc: BaseException) -> bool:
    """A ``TypeError`` raised by the call itself (argument binding), not inside the function:
    its traceback stops at the caller's frame."""
    tb = exc.__traceback__
    return isinstance(exc, TypeError) and tb is not None and tb.tb_next is None
