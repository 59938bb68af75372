"""Agents: actions declared as Python functions, failures by category, contracts, fallbacks,
approvals, completion, suspension and knowledge sources.

::

    from surefoot.agent import Agent, action, fallback
    from surefoot import ActionCategory

    @fallback(lambda **kw: "no forecast right now", on={ActionCategory.NETWORK})
    @action(type="http", pre=["city != ''", "days <= 14"], post=["len(result) > 0"], retries=2)
    def forecast(city: str, days: int = 3) -> str:
        ...

    agent = Agent(llm=client, actions=[forecast])
    agent.execute_action("forecast", {"city": "Paris"})
    result = agent.chat("Will it rain in Paris?")

Every failing action call raises :class:`~surefoot.ActionExecutionError` whose ``category``
names the cause (:mod:`surefoot.agent._categorize` tells how it is decided);
:class:`~surefoot.ApprovalRequiredError` and :class:`SecurityError` are never wrapped;
:class:`~surefoot.TaskCompleteError` ends a call or a chat run with its result;
:class:`~surefoot.WaitFor` raised in an action suspends a chat run (``status="pending"``).
"""

from surefoot.agent._action import ACTION_TYPES, Action, ActionType, Fallback, action, fallback
from surefoot.agent._agent import Agent, Approver, PermissionCheck
from surefoot.agent._knowledge import KnowledgeSource
from surefoot.errors import FallbackFailedError, SecurityError

__all__ = [
    "ACTION_TYPES",
    "Action",
    "ActionType",
    "Agent",
    "Approver",
    "Fallback",
    "FallbackFailedError",
    "KnowledgeSource",
    "PermissionCheck",
    "SecurityError",
    "action",
    "fallback",
]
