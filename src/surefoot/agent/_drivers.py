"""The two drivers of an action call, sync and async, over the steps of
:mod:`surefoot.agent._steps`.

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

import asyncio
import inspect
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

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
    ValidationError,
)
from surefoot.llm._tools import ToolArgumentsError, validate_arguments

if TYPE_CHECKING:
    from surefoot.agent._agent import Agent

__all__ = ["ainvoke", "invoke"]


def _wrap(exc: BaseException, act: Action) -> ActionExecutionError:
    category = ActionCategory.INVOCATION if is_binding_error(exc) else None
    return action_error(exc, act.name, act.type, category)


def _sync_value(value: Any, what: str) -> Any:
    if inspect.isawaitable(value):
        if inspect.iscoroutine(value):
            value.close()
        raise TypeError(f"{what} returned an awaitable; use the agent's async methods")
    return value


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _fallback_args(act: Action, args: Any) -> dict[str, Any]:
    try:
        return validate_arguments(act.spec, args if args is not None else {})
    except ToolArgumentsError:
        return dict(args) if isinstance(args, dict) else {}


# -- sync ---------------------------------------------------------------------------------------


def _gate(agent: Agent, act: Action, args: Any) -> dict[str, Any]:
    check = agent.permission_check
    if check is not None:
        denied = permission_denied(act, _sync_value(check(act.name, args), "permission_check"))
        if denied is not None:
            raise denied
    kwargs = validate(act, args)
    if act.requires_approval and not agent.is_approved(act.name):
        verdict = None
        if agent.approver is not None:
            verdict = bool(_sync_value(agent.approver(act.name, kwargs), "approver"))
        denial = approval_error(act, verdict)
        if denial is not None:
            raise denial
    require_llm(agent, act)
    check_contracts(act, act.pre, kwargs)
    return kwargs


def _attempt(agent: Agent, act: Action, kwargs: dict[str, Any]) -> Any:
    if act.is_async and _loop_running():
        cause = RuntimeError(
            f"action {act.name!r} needs an event loop and one is running in this thread; "
            "use await agent.aexecute_action(...)"
        )
        raise action_error(cause, act.name, act.type, ActionCategory.INVOCATION)
    try:
        if act.type == "llm":
            prompt = act.fn(**kwargs)
            from surefoot.llm import LLMClient

            client = agent.llm
            if not isinstance(client, LLMClient):
                raise ValidationError(
                    f"llm action {act.name!r} called synchronously, but the agent's LLM client "
                    "is async; use await agent.aexecute_action(...)"
                )
            return client.run(prompt).text
        if act.is_async:
            return asyncio.run(act.fn(**kwargs))
        out = act.fn(**kwargs)
        if inspect.isawaitable(out):
            out = asyncio.run(_awaited(out))
        return out
    except PASS_THROUGH:
        raise
    except Exception as exc:
        raise _wrap(exc, act) from exc


async def _awaited(value: Awaitable[Any]) -> Any:
    return await value


def _run(agent: Agent, act: Action, args: Any) -> Any:
    kwargs = _gate(agent, act, args)
    guard = agent._guard(act)
    try:
        if guard is None:
            result = _attempt(agent, act, kwargs)
        else:
            result = guard.call(_attempt, agent, act, kwargs)
    except RunTimeoutError as exc:  # the action's own deadline: a timeout, whatever its type
        raise action_error(exc, act.name, act.type, ActionCategory.NETWORK) from exc
    if act.post:
        check_contracts(act, act.post, {**kwargs, "result": result})
    return result


def invoke(agent: Agent, name: object, args: Any, chain: tuple[str, ...] = ()) -> Any:
    """Run action ``name``; raises :class:`~surefoot.TaskCompleteError` for the caller."""
    act = lookup(agent, name)
    try:
        return _run(agent, act, args)
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
                return invoke(agent, fb.target, args, chain)
            except ActionExecutionError as e2:
                failure = e2
    else:
        kw = _fallback_args(act, args)
        if fb.wants_error:
            kw["error"] = err
        try:
            out = fb.target(**kw)
            if inspect.isawaitable(out):
                out = asyncio.run(_awaited(out))
            return out
        except PASS_THROUGH:
            raise
        except Exception as exc:
            failure = action_error(exc, fb.name, "local")
    raise FallbackFailedError(original=err, fallback_error=failure, fallback_name=fb.name)


def _cycle(target: str, chain: tuple[str, ...]) -> ActionExecutionError:
    path = " -> ".join((*chain, target))
    cause = RecursionError(f"fallback cycle: {path}")
    return action_error(cause, target, "unknown", ActionCategory.INVOCATION, str(cause))


# -- async --------------------------------------------------------------------------------------


class _BindError(Exception):
    """Internal: the call in the worker thread could not bind its arguments."""

    def __init__(self, original: TypeError) -> None:
        super().__init__(str(original))
        self.original = original


def _call_in_thread(fn: Any, kwargs: dict[str, Any]) -> Any:
    try:
        return fn(**kwargs)
    except TypeError as exc:
        if is_binding_error(exc):
            raise _BindError(exc) from exc
        raise


async def _maybe_await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


async def _agate(agent: Agent, act: Action, args: Any) -> dict[str, Any]:
    check = agent.permission_check
    if check is not None:
        denied = permission_denied(act, await _maybe_await(check(act.name, args)))
        if denied is not None:
            raise denied
    kwargs = validate(act, args)
    if act.requires_approval and not agent.is_approved(act.name):
        verdict = None
        if agent.approver is not None:
            verdict = bool(await _maybe_await(agent.approver(act.name, kwargs)))
        denial = approval_error(act, verdict)
        if denial is not None:
            raise denial
    require_llm(agent, act)
    check_contracts(act, act.pre, kwargs)
    return kwargs


async def _aattempt(agent: Agent, act: Action, kwargs: dict[str, Any]) -> Any:
    try:
        if act.type == "llm":
            prompt = await _maybe_await(act.fn(**kwargs))
            from surefoot.llm import AsyncLLMClient

            client = agent.llm
            if isinstance(client, AsyncLLMClient):
                return (await client.run(prompt)).text
            assert client is not None
            return (await asyncio.to_thread(client.run, prompt)).text
        if act.is_async:
            return await act.fn(**kwargs)
        return await _maybe_await(await asyncio.to_thread(_call_in_thread, act.fn, kwargs))
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
            result = await _aattempt(agent, act, kwargs)
        else:
            result = await guard.acall(_aattempt, agent, act, kwargs)
    except RunTimeoutError as exc:  # the action's own deadline: a timeout, whatever its type
        raise action_error(exc, act.name, act.type, ActionCategory.NETWORK) from exc
    if act.post:
        check_contracts(act, act.post, {**kwargs, "result": result})
    return result


async def ainvoke(agent: Agent, name: object, args: Any, chain: tuple[str, ...] = ()) -> Any:
    """The async :func:`invoke`."""
    act = lookup(agent, name)
    try:
        return await _arun(agent, act, args)
    except ActionExecutionError as e:
        err = e
        if act.fallback is None or not act.fallback.handles(err):
            raise
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
            return await _maybe_await(fb.target(**kw))
        except PASS_THROUGH:
            raise
        except Exception as exc:
            failure = action_error(exc, fb.name, "local")
    raise FallbackFailedError(original=err, fallback_error=failure, fallback_name=fb.name)
