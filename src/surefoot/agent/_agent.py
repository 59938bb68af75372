"""The :class:`Agent`: actions, approvals, permission checks, knowledge, and chat over the LLM
client with the actions as its tools."""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from surefoot import _check
from surefoot.agent._action import Action, action
from surefoot.agent._drivers_async import ainvoke
from surefoot.agent._drivers_sync import invoke
from surefoot.agent._knowledge import KnowledgeSource, SourceKind
from surefoot.clock import Clock
from surefoot.errors import (
    ApprovalRequiredError,
    ConfigurationError,
    SecurityError,
    TaskCompleteError,
)
from surefoot.guard import Guard
from surefoot.llm._tools import DEFAULT_MAX_SCHEMA_BYTES, DEFAULT_MAX_TOOLS, ToolRegistry

if TYPE_CHECKING:
    from surefoot.llm import AsyncLLMClient, LLMClient, RunResult

__all__ = ["Agent", "Approver", "PermissionCheck"]

#: ``approver(action_name, arguments) -> bool`` (or an awaitable of one, in the async calls).
Approver = Callable[[str, dict[str, Any]], Any]
#: ``permission_check(action_name, arguments)``: raise :class:`SecurityError` (or
#: ``PermissionError``), or return ``False``, to refuse; return ``None``/``True`` to allow.
PermissionCheck = Callable[[str, Any], Any]

_ABORT = object()
_UNWRAPPED = (ApprovalRequiredError, SecurityError, PermissionError)


class Agent:
    """Actions you declare, run with recovery by category, and offered to a model as tools.

    ``llm`` is an :class:`~surefoot.AsyncLLMClient`, an :class:`~surefoot.LLMClient` or
    ``None``; ``actions`` are functions or :class:`Action` objects; ``approver`` and
    ``permission_check`` gate calls; ``clock`` drives the retries' waits (inject a fake one in
    tests); ``max_tools`` and ``max_schema_bytes`` are the registration ceilings;
    ``instructions`` is the system message of :meth:`chat`.
    """

    def __init__(
        self,
        name: str = "agent",
        *,
        llm: AsyncLLMClient | LLMClient | None = None,
        actions: Iterable[Action | Callable[..., Any]] = (),
        approver: Approver | None = None,
        permission_check: PermissionCheck | None = None,
        clock: Clock | None = None,
        instructions: str | None = None,
        max_tools: int = DEFAULT_MAX_TOOLS,
        max_schema_bytes: int = DEFAULT_MAX_SCHEMA_BYTES,
    ) -> None:
        if llm is not None:  # the client's modules load when one is passed
            from surefoot.llm import AsyncLLMClient, LLMClient

            _check.instance(
                "llm",
                llm,
                (AsyncLLMClient, LLMClient),
                "a surefoot.AsyncLLMClient, a surefoot.LLMClient",
            )
        self.name = name
        self.llm = llm
        self.approver = _check.function(
            "approver", approver, "taking (action_name, arguments) and returning a bool"
        )
        self.permission_check = _check.function(
            "permission_check", permission_check, "taking (action_name, arguments)"
        )
        self.clock = _check.clock("clock", clock)
        self.instructions = instructions
        self._registry = ToolRegistry(
            max_tools=_check.count("max_tools", max_tools, low=1),
            max_schema_bytes=_check.count("max_schema_bytes", max_schema_bytes, low=1),
        )
        self._actions: dict[str, Action] = {}
        self._approved: set[str] = set()
        self._guards: dict[str, Guard | None] = {}
        self._knowledge: list[KnowledgeSource] = []
        self._lock = threading.Lock()
        for a in actions:
            self.add(a)

    def __repr__(self) -> str:
        return f"Agent({self.name!r}, actions={list(self._actions)}, llm={self.llm!r})"

    # -- actions ------------------------------------------------------------------------------

    def add(self, fn: Action | Callable[..., Any], /, **options: Any) -> Action:
        """Register an action (or a function, declared with ``options`` as for
        :func:`action`). Raises ``ValueError`` for a reserved or invalid name, a duplicate, too
        many tools, or an input schema over the ceiling."""
        if isinstance(fn, Action):
            if options:
                raise TypeError("options apply to a plain function; this is already an action")
            act = fn
        else:
            act = action(**options)(fn)
        with self._lock:
            self._registry.register(act.spec)
            self._actions[act.name] = act
        return act

    def action(self, fn: Callable[..., Any] | None = None, /, **options: Any) -> Any:
        """``@agent.action`` or ``@agent.action(type="http", ...)``: declare and register."""
        if fn is not None:
            return self.add(fn, **options)
        return lambda f: self.add(f, **options)

    @property
    def actions(self) -> Mapping[str, Action]:
        """The registered actions by name (read-only)."""
        return dict(self._actions)

    def _guard(self, act: Action) -> Guard | None:
        try:
            return self._guards[act.name]
        except KeyError:
            guard = act.guard(self.clock)
            if guard is not None:  # its telemetry spans are the action's
                guard._span = ("agent", "execute_tool", act.name)
            self._guards[act.name] = guard
            return guard

    # -- approvals ----------------------------------------------------------------------------

    def approve(self, name: str) -> None:
        """Approve action ``name`` from now on (until :meth:`revoke`)."""
        if name not in self._actions:
            raise ValueError(f"the agent has no action named {name!r}")
        self._approved.add(name)

    def revoke(self, name: str) -> None:
        self._approved.discard(name)

    def is_approved(self, name: str) -> bool:
        return name in self._approved

    # -- calls --------------------------------------------------------------------------------

    def execute_action(
        self, name: str, args: Mapping[str, Any] | None = None, /, **kwargs: Any
    ) -> Any:
        """Run action ``name`` with ``args`` (a mapping, or keywords) and return its result.

        A failure raises :class:`~surefoot.ActionExecutionError` (after the action's retries
        and fallback); :class:`~surefoot.ApprovalRequiredError` and :class:`SecurityError` are
        raised as they are; a :class:`~surefoot.TaskCompleteError` raised inside returns its
        ``result``.
        """
        try:
            return invoke(self, name, _args(args, kwargs))
        except TaskCompleteError as done:
            return done.result

    async def aexecute_action(
        self, name: str, args: Mapping[str, Any] | None = None, /, **kwargs: Any
    ) -> Any:
        """The async :meth:`execute_action`; the action's deadline cancels a hung call."""
        try:
            return await ainvoke(self, name, _args(args, kwargs))
        except TaskCompleteError as done:
            return done.result

    # -- knowledge ----------------------------------------------------------------------------

    def knowledge(
        self,
        source: str | os.PathLike[str] | Callable[[], Any],
        *,
        name: str | None = None,
        kind: SourceKind | None = None,
        encoding: str = "utf-8",
    ) -> KnowledgeSource:
        """Declare a source the agent depends on: a file, a directory, or a callable returning
        text (one that fetches a URL, say). Checked by :meth:`check_knowledge`."""
        src = KnowledgeSource.create(source, name=name, kind=kind, encoding=encoding)
        self._knowledge.append(src)
        return src

    def check_knowledge(self) -> None:
        """Raise :class:`~surefoot.KnowledgeNotReadyError` for the first source not ready."""
        for src in self._knowledge:
            src.check(self.name)

    async def acheck_knowledge(self) -> None:
        for src in self._knowledge:
            await src.acheck(self.name)

    # -- chat ---------------------------------------------------------------------------------

    def _tools(self, is_async: bool, aborted: list[BaseException]) -> ToolRegistry | None:
        if not self._actions:
            return None
        specs = []
        for act in self._actions.values():
            if is_async:
                fn: Callable[..., Any] = _async_tool(self, act.name, aborted)
            else:
                fn = _sync_tool(self, act.name, aborted)
            specs.append(dataclasses.replace(act.spec, fn=fn, is_async=is_async))
        r = self._registry
        return ToolRegistry(specs, max_tools=r.max_tools, max_schema_bytes=r.max_schema_bytes)

    def _messages(self, question: Any) -> Any:
        if self.instructions and isinstance(question, str):
            return [
                {"role": "system", "content": self.instructions},
                {"role": "user", "content": question},
            ]
        return question

    def _client(self, want_async: bool) -> Any:
        from surefoot.llm import AsyncLLMClient, LLMClient

        client = self.llm
        if client is None:
            raise ConfigurationError(
                f"agent {self.name!r} has no LLM client; pass Agent(llm=AsyncLLMClient(...) "
                "or LLMClient(...)) to chat"
            )
        if not want_async and not isinstance(client, LLMClient):
            raise TypeError("this agent's LLM client is async; use await agent.achat(...)")
        assert isinstance(client, (AsyncLLMClient, LLMClient))
        return client

    def chat(self, question: Any, *, timeout: float | None = None, **run_options: Any) -> RunResult:
        """Check the knowledge sources, then run the LLM client with the actions as tools.

        Returns the client's :class:`~surefoot.RunResult`: ``status="completed"`` (also when an
        action raised :class:`~surefoot.TaskCompleteError`), or ``"pending"`` when an action
        raised :class:`~surefoot.WaitFor` (continue with :meth:`resume`). An
        :class:`~surefoot.ApprovalRequiredError` or :class:`SecurityError` raised by an action
        ends the run and is raised as it is.
        """
        client = self._client(want_async=False)
        self.check_knowledge()
        aborted: list[BaseException] = []
        result: RunResult = client.run(
            self._messages(question),
            tools=self._tools(False, aborted),
            timeout=timeout,
            **run_options,
        )
        return _finish(result, aborted)

    async def achat(
        self, question: Any, *, timeout: float | None = None, **run_options: Any
    ) -> RunResult:
        """The async :meth:`chat` (an :class:`~surefoot.LLMClient` runs in a thread)."""
        client = self._client(want_async=True)
        await self.acheck_knowledge()
        from surefoot.llm import AsyncLLMClient

        aborted: list[BaseException] = []
        messages = self._messages(question)
        if isinstance(client, AsyncLLMClient):
            tools = self._tools(True, aborted)
            result = await client.run(messages, tools=tools, timeout=timeout, **run_options)
        else:
            import asyncio

            tools = self._tools(False, aborted)
            result = await asyncio.to_thread(
                client.run, messages, tools=tools, timeout=timeout, **run_options
            )
        return _finish(result, aborted)

    def resume(self, result: RunResult, answer: Any, *, timeout: float | None = None) -> RunResult:
        """Continue a ``"pending"`` chat with the ``answer`` to the action that waits."""
        client = self._client(want_async=False)
        aborted: list[BaseException] = []
        tools = self._tools(False, aborted)
        return _finish(client.resume(result, answer, tools=tools, timeout=timeout), aborted)

    async def aresume(
        self, result: RunResult, answer: Any, *, timeout: float | None = None
    ) -> RunResult:
        client = self._client(want_async=True)
        from surefoot.llm import AsyncLLMClient

        aborted: list[BaseException] = []
        if isinstance(client, AsyncLLMClient):
            tools = self._tools(True, aborted)
            out = await client.resume(result, answer, tools=tools, timeout=timeout)
        else:
            import asyncio

            tools = self._tools(False, aborted)
            out = await asyncio.to_thread(
                client.resume, result, answer, tools=tools, timeout=timeout
            )
        return _finish(out, aborted)


def _args(args: Mapping[str, Any] | None, kwargs: dict[str, Any]) -> Any:
    if args is None:
        return kwargs
    if kwargs:
        if not isinstance(args, Mapping):
            return args  # reported as PARAMETER
        return {**args, **kwargs}
    return args


def _finish(result: RunResult, aborted: list[BaseException]) -> RunResult:
    if aborted:
        raise aborted[0]
    return result


def _sync_tool(agent: Agent, name: str, aborted: list[BaseException]) -> Callable[..., Any]:
    def tool(**kwargs: Any) -> Any:
        try:
            return invoke(agent, name, kwargs)
        except _UNWRAPPED as exc:
            aborted.append(exc)
            raise TaskCompleteError(_ABORT) from exc

    tool.__name__ = name
    return tool


def _async_tool(agent: Agent, name: str, aborted: list[BaseException]) -> Callable[..., Any]:
    async def tool(**kwargs: Any) -> Any:
        try:
            return await ainvoke(agent, name, kwargs)
        except _UNWRAPPED as exc:
            aborted.append(exc)
            raise TaskCompleteError(_ABORT) from exc

    tool.__name__ = name
    return tool
