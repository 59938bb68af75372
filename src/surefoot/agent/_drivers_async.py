"""The driver of an action call, over the steps of :mod:`surefoot.agent._steps` (async).

Written once: the sync driver ``_drivers_sync.py`` (``execute_action``) is generated from this
file by ``scripts/unasync.py``. Callbacks may return awaitables everywhere, with one rule: the
async driver awaits them; the sync driver runs them to completion (``asyncio.run``) when no
event loop runs in its thread, and raises a ``TypeError`` naming the callback when one does.
That holds for the permission check, the approver, coroutine actions and fallbacks alike.

Retries and deadlines: an action with ``retries`` or ``timeout`` runs each attempt through a
:class:`surefoot.Guard` whose ``on_error`` retries exactly the retryable categories
(``NETWORK``, ``SERVER_ERROR``, ``LLM``, ``MCP``). Async: the deadline cancels the attempt (a
sync function runs in a worker thread, which is abandoned, not killed) and the call fails with
``NETWORK`` whose cause is :class:`surefoot.RunTimeoutError`. Sync: an attempt cannot be
preempted; the deadline is checked between attempts and bounds the waits, and the function
should bound its own I/O with :func:`surefoot.time_left`.

Fallbacks run after the guard gave up. A fallback that fails too raises
:class:`~surefoot.agent.FallbackFailedError`, reporting both failures.
"""

from __future__ import annotations

# unasync: async-only
import asyncio

# unasync: end
from typing import TYPE_CHECKING, Any

from surefoot._backends import _async as backend
from surefoot.agent._action import Action
from surefoot.agent._categorize import PASS_THROUGH, action_error
from surefoot.agent._steps import (
    approval_error,
    check_contracts,
    is_binding_error,
    lookup,
    permission_denied,
    require_llm,
    validate,
)
from surefoot.errors import (
    ActionCategory,
    ActionExecutionError,
    FallbackFailedError,
    RunTimeoutError,
)
from surefoot.llm._tools import ToolArgumentsError, validate_arguments
from surefoot.telemetry import _hub

if TYPE_CHECKING:
    from surefoot.agent._agent import Agent

__all__ = ["ainvoke"]


def _wrap(exc: BaseException, act: Action) -> ActionExecutionError:
    category = ActionCategory.INVOCATION if is_binding_error(exc) else None
    return action_error(exc, act.name, act.type, category)


def _fallback_args(act: Action, args: Any) -> dict[str, Any]:
    try:
        return validate_arguments(act.spec, args if args is not None else {})
    except ToolArgumentsError:
        return dict(args) if isinstance(args, dict) else {}


def _cycle(target: str, chain: tuple[str, ...]) -> ActionExecutionError:
    path = " -> ".join((*chain, target))
    cause = RecursionError(f"fallback cycle: {path}")
    return action_error(cause, target, "unknown", ActionCategory.INVOCATION, str(cause))


class _BindError(Exception):
    """Internal: the call could not bind its arguments (told apart even in a worker thread)."""

    def __init__(self, original: TypeError) -> None:
        super().__init__(str(original))
        self.original = original


def _bound_call(fn: Any, kwargs: dict[str, Any]) -> Any:
    try:
        return fn(**kwargs)
    except TypeError as exc:
        if is_binding_error(exc):
            raise _BindError(exc) from exc
        raise


async def _agate(agent: Agent, act: Action, args: Any) -> dict[str, Any]:
    check = agent.permission_check
    if check is not None:
        verdict = await backend.resolve(check(act.name, args), "permission_check")
        denied = permission_denied(act, verdict)
        if denied is not None:
            raise denied
    kwargs = validate(act, args)
    if act.requires_approval and not agent.is_approved(act.name):
        approved = None
        if agent.approver is not None:
            approved = bool(await backend.resolve(agent.approver(act.name, kwargs), "approver"))
        denial = approval_error(act, approved)
        if denial is not None:
            raise denial
    require_llm(agent, act)
    check_contracts(act, act.pre, kwargs)
    return kwargs


async def _allm(agent: Agent, act: Action, prompt: Any) -> Any:
    """The text of the agent's LLM client's answer to an ``llm`` action's prompt."""
    client = agent.llm
    # unasync: async-only
    from surefoot.llm import AsyncLLMClient

    if isinstance(client, AsyncLLMClient):
        return (await client.run(prompt)).text
    assert client is not None
    return (await asyncio.to_thread(client.run, prompt)).text
    # unasync: end
    # unasync: sync-only
    # from surefoot.errors import ValidationError
    # from surefoot.llm import LLMClient
    #
    # if not isinstance(client, LLMClient):
    #     raise ValidationError(
    #         f"llm action {act.name!r} called synchronously, but the agent's LLM client "
    #         "is async; use await agent.aexecute_action(...)"
    #     )
    # return client.run(prompt).text
    # unasync: end


async def _aattempt(agent: Agent, act: Action, kwargs: dict[str, Any]) -> Any:
    # unasync: sync-only
    # if act.is_async and backend.loop_running():
    #     running = RuntimeError(
    #         f"action {act.name!r} needs an event loop and one is running in this thread; "
    #         "use await agent.aexecute_action(...)"
    #     )
    #     raise action_error(running, act.name, act.type, ActionCategory.INVOCATION)
    # unasync: end
    try:
        if act.type == "llm":
            prompt = await backend.resolve(act.fn(**kwargs), f"llm action {act.name!r}")
            return await _allm(agent, act, prompt)
        if act.is_async:
            return await backend.resolve(act.fn(**kwargs), f"action {act.name!r}")
        return await backend.call_blocking(_bound_call, act.fn, kwargs)
    except PASS_THROUGH:
        raise
    except _BindError as bind:
        cause = bind.original
        raise action_error(cause, act.name, act.type, ActionCategory.INVOCATION) from cause
    except Exception as exc:
        raise _wrap(exc, act) from exc


async def _arun(agent: Agent, act: Action, args: Any) -> Any:
    kwargs = await _agate(agent, act, args)
    guard = agent._guard(act)
    try:
        if guard is None:
            trace = _hub.start("agent", "execute_tool", name=act.name) if _hub.SINKS else None
            if trace is None:
                result = await _aattempt(agent, act, kwargs)
            else:
                try:  # one attempt: the action's span is the call's
                    result = await _aattempt(agent, act, kwargs)
                except BaseException as exc:
                    trace.end(exc)
                    raise
                trace.end(None)
        else:
            result = await guard.acall(_aattempt, agent, act, kwargs)
    except RunTimeoutError as exc:  # the action's own deadline: a timeout, whatever its type
        raise action_error(exc, act.name, act.type, ActionCategory.NETWORK) from exc
    if act.post:
        check_contracts(act, act.post, {**kwargs, "result": result})
    return result


async def ainvoke(agent: Agent, name: object, args: Any, chain: tuple[str, ...] = ()) -> Any:
    """Run action ``name``; raises :class:`~surefoot.TaskCompleteError` for the caller."""
    act = lookup(agent, name)
    try:
        return await _arun(agent, act, args)
    except ActionExecutionError as e:
        err = e
        if act.fallback is None or not act.fallback.handles(err):
            raise
    # The fallback runs outside the except block: its own failure is not chained to ours.
    fb = act.fallback
    assert fb is not None
    chain = (*chain, act.name)
    failure: ActionExecutionError
    if isinstance(fb.target, str):
        if fb.target in chain:
            failure = _cycle(fb.target, chain)
        else:
            try:
                return await ainvoke(agent, fb.target, args, chain)
            except ActionExecutionError as e2:
                failure = e2
    else:
        kw = _fallback_args(act, args)
        if fb.wants_error:
            kw["error"] = err
        try:
            return await backend.resolve(fb.target(**kw), f"fallback {fb.name!r}")
        except PASS_THROUGH:
            raise
        except Exception as exc:
            failure = action_error(exc, fb.name, "local")
    raise FallbackFailedError(original=err, fallback_error=failure, fallback_name=fb.name)
