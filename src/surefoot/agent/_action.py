"""Declaring actions: :func:`action`, :func:`fallback` and the :class:`Action` they build.

An action is a plain Python function with type hints. Its JSON schema comes from the signature
(:func:`surefoot.llm.tool_from_function`: an untyped or unsupported parameter is a
``TypeError`` here, at declaration), its name is checked against the tool-name rules at once,
and its contracts are parsed at once (a clause that does not parse is a ``ValueError`` naming
it). The remaining registration rules (duplicates, the maximum number of tools, the schema size
ceiling) are enforced when an :class:`~surefoot.agent.Agent` registers it.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final, Literal, overload

from surefoot import _check
from surefoot.agent._contracts import Contract, parse_contracts
from surefoot.errors import ActionCategory, ActionExecutionError
from surefoot.guard import Guard
from surefoot.llm._tools import ToolSpec, check_tool_name, tool_from_function
from surefoot.policy._retry import RetryPolicy

__all__ = ["ACTION_TYPES", "Action", "ActionType", "Fallback", "action", "fallback"]

ActionType = Literal["local", "http", "llm", "mcp"]
#: The action types: where the work happens, which also decides some categories (an ``llm``
#: action's failures are ``LLM``, an ``mcp`` action's are ``MCP``).
ACTION_TYPES: Final = ("local", "http", "llm", "mcp")
_FALLBACK_ATTR: Final = "__surefoot_fallback__"


@dataclass(frozen=True, slots=True)
class Fallback:
    """What runs when an action fails: another action's ``target`` name, or a callable taking
    the action's arguments as keywords (and ``error=``, the failure, when it has a parameter of
    that name). ``on`` is the set of categories it handles; ``None`` means every category."""

    target: str | Callable[..., Any]
    on: frozenset[ActionCategory] | None = None

    def handles(self, err: ActionExecutionError) -> bool:
        return self.on is None or err.category in self.on

    @property
    def name(self) -> str:
        if isinstance(self.target, str):
            return self.target
        return getattr(self.target, "__name__", None) or type(self.target).__name__

    @property
    def wants_error(self) -> bool:
        if isinstance(self.target, str):
            return False
        try:
            return "error" in inspect.signature(self.target).parameters
        except (TypeError, ValueError):
            return False


@dataclass(frozen=True, slots=True, eq=False)
class Action:
    """A declared action. Calling it calls the function directly (no checks, no recovery);
    go through ``agent.execute_action(name, args)`` for those."""

    name: str
    type: str
    fn: Callable[..., Any]
    spec: ToolSpec
    signature: inspect.Signature
    pre: tuple[Contract, ...] = ()
    post: tuple[Contract, ...] = ()
    fallback: Fallback | None = None
    requires_approval: bool = False
    approval_reason: str | None = None
    retries: int = 0
    retry_base: float = 0.5
    max_delay: float = 8.0
    timeout: float | None = None

    @property
    def description(self) -> str:
        return self.spec.description

    @property
    def is_async(self) -> bool:
        return self.spec.is_async

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def guard(self, clock: Any = None) -> Guard | None:
        """The guard of this action's retries and deadline, or ``None`` without either."""
        if self.retries == 0 and self.timeout is None:
            return None
        return Guard(
            retries=self.retries,
            retry_base=self.retry_base,
            max_delay=self.max_delay,
            timeout=self.timeout,
            on_error=_retry_retryable_categories,
            clock=clock,
            operation=f"action {self.name}",
        )


def _retry_retryable_categories(info: Any) -> Any:
    """The ``on_error`` of an action's guard: retry exactly the retryable categories."""
    from surefoot.policy import Tier

    err = info.error
    if isinstance(err, ActionExecutionError) and err.retryable:
        return Tier.RETRY
    return Tier.FAIL


def _categories(on: Iterable[ActionCategory | str] | ActionCategory | str | None) -> Any:
    if on is None:
        return None
    items = [on] if isinstance(on, (ActionCategory, str)) else list(on)
    out: set[ActionCategory] = set()
    for item in items:
        try:
            out.add(ActionCategory(item))
        except ValueError:
            names = ", ".join(c.value for c in ActionCategory)
            raise ValueError(f"on= takes ActionCategory values ({names}), got {item!r}") from None
    if not out:
        raise ValueError("on= is empty; pass the categories the fallback handles, or None")
    return frozenset(out)


def _make_fallback(
    target: str | Callable[..., Any], on: Iterable[ActionCategory | str] | Any
) -> Fallback:
    if isinstance(target, str):
        if not target:
            raise ValueError("fallback= must name an action or be a callable")
    elif not callable(target):
        raise TypeError(f"fallback= must be an action name or a callable, not {type(target)}")
    return Fallback(target, _categories(on))


def fallback(
    target: str | Callable[..., Any],
    *,
    on: Iterable[ActionCategory | str] | ActionCategory | str | None = None,
) -> Callable[[Any], Any]:
    """Decorate an action (above or below ``@action``) with an alternative that runs when it
    fails with one of the ``on`` categories (every category when ``on`` is ``None``)."""
    fb = _make_fallback(target, on)

    def decorate(obj: Any) -> Any:
        if isinstance(obj, Action):
            return dataclasses.replace(obj, fallback=fb)
        if not callable(obj):
            raise TypeError(f"@fallback decorates an action or a function, not {type(obj)}")
        setattr(obj, _FALLBACK_ATTR, fb)
        return obj

    return decorate


@overload
def action(fn: Callable[..., Any], /) -> Action: ...


@overload
def action(
    fn: None = None,
    /,
    *,
    name: str | None = None,
    type: ActionType = "local",
    description: str | None = None,
    pre: str | Iterable[str] | None = None,
    post: str | Iterable[str] | None = None,
    requires_approval: bool = False,
    approval: str | None = None,
    fallback: str | Callable[..., Any] | None = None,
    fallback_on: Iterable[ActionCategory | str] | ActionCategory | str | None = None,
    retries: int = 0,
    retry_base: float = 0.5,
    max_delay: float = 8.0,
    timeout: float | None = None,
) -> Callable[[Callable[..., Any]], Action]: ...


def action(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    type: ActionType = "local",  # noqa: A002
    description: str | None = None,
    pre: str | Iterable[str] | None = None,
    post: str | Iterable[str] | None = None,
    requires_approval: bool = False,
    approval: str | None = None,
    fallback: str | Callable[..., Any] | None = None,
    fallback_on: Iterable[ActionCategory | str] | ActionCategory | str | None = None,
    retries: int = 0,
    retry_base: float = 0.5,
    max_delay: float = 8.0,
    timeout: float | None = None,
) -> Action | Callable[[Callable[..., Any]], Action]:
    """Declare ``fn`` as an action: ``@action`` or ``@action(type="http", pre=[...], ...)``.

    ``type`` is ``local``, ``http``, ``llm`` (``fn`` returns the prompt; the agent's LLM client
    answers it) or ``mcp``. ``pre``/``post`` are contract clauses (see
    :mod:`surefoot.agent._contracts`); ``requires_approval``/``approval="reason"`` gate it;
    ``fallback``/``fallback_on`` are :func:`fallback` as keywords; ``retries``, ``retry_base``,
    ``max_delay`` and ``timeout`` (the whole call, retries included) run it through a
    :class:`surefoot.Guard` that retries exactly the retryable categories. Retries default to 0:
    an action may have side effects, so repeating it is opt-in.
    """
    _check.choice("type", type, ACTION_TYPES, what="the action type")
    if approval is not None:
        _check.text("approval", approval, fix="the reason a person must approve")
    # The retry settings and the deadline, checked now as the Guard checks them (and kept as it
    # keeps them: timeout=math.inf is no limit, stored as None).
    policy = RetryPolicy(retries=retries, retry_base=retry_base, max_delay=max_delay)
    limit = _check.timeout("timeout", timeout)
    fb_kw = _make_fallback(fallback, fallback_on) if fallback is not None else None
    if fallback is None and fallback_on is not None:
        raise ValueError("fallback_on= needs fallback=")

    def decorate(f: Callable[..., Any]) -> Action:
        if isinstance(f, Action):
            raise TypeError(f"{f.name!r} is already an action; apply @action once")
        spec = tool_from_function(f, name=name, description=description)
        check_tool_name(spec.name)
        sig = inspect.signature(f)
        params = list(sig.parameters)
        where = f"action {spec.name!r}"
        if "result" in params and post:
            raise ValueError(f"{where} has a parameter named 'result', which post= reserves")
        fb = fb_kw if fb_kw is not None else getattr(f, _FALLBACK_ATTR, None)
        return Action(
            name=spec.name,
            type=type,
            fn=f,
            spec=spec,
            signature=sig,
            pre=parse_contracts("pre", pre, params, where),
            post=parse_contracts("post", post, [*params, "result"], where),
            fallback=fb if isinstance(fb, Fallback) else None,
            requires_approval=bool(requires_approval or approval),
            approval_reason=approval,
            retries=policy.retries,
            retry_base=policy.retry_base,
            max_delay=policy.max_delay,
            timeout=limit,
        )

    if fn is not None:
        return decorate(fn)
    return decorate
