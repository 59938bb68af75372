"""A fault-injecting LLM server and a chaos proxy, for tests and rehearsals.

:class:`FaultServer` speaks OpenAI chat completions and Anthropic messages (JSON and SSE) with
a deterministic scripted model and injects faults by queue or by rule; :class:`ChaosProxy`
injects the same faults into real traffic to an upstream. Scenarios are Python dataclasses
(:class:`Scenario`, :class:`Rule`, :class:`Match`, the faults) or YAML
(:func:`load_scenario`).
"""

from __future__ import annotations

from surefoot.testing.faults._base import PortInUseError
from surefoot.testing.faults._faults import (
    ERROR_KINDS,
    FAULT_TYPES,
    ContentFilter,
    Drip,
    ErrorIn200,
    Fault,
    Hang,
    HugeBody,
    Latency,
    MalformedToolCall,
    Ok,
    Reset,
    Status,
    StreamError,
    Truncate,
)
from surefoot.testing.faults._model import Model, ToolCall, Turn
from surefoot.testing.faults._proxy import ChaosProxy
from surefoot.testing.faults._record import RecordedRequest
from surefoot.testing.faults._rules import Match, Rule, Scenario
from surefoot.testing.faults._scenario import ScenarioError, load_scenario, parse_scenario
from surefoot.testing.faults._server import FaultServer

#: The fault server's scripted tool call (``ToolCall`` here), by a name that cannot be
#: confused with :class:`surefoot.llm.ToolCall`, the call a model made.
ScriptedToolCall = ToolCall

__all__ = [
    "ERROR_KINDS",
    "FAULT_TYPES",
    "ChaosProxy",
    "ContentFilter",
    "Drip",
    "ErrorIn200",
    "Fault",
    "FaultServer",
    "Hang",
    "HugeBody",
    "Latency",
    "MalformedToolCall",
    "Match",
    "Model",
    "Ok",
    "PortInUseError",
    "RecordedRequest",
    "Reset",
    "Rule",
    "Scenario",
    "ScenarioError",
    "ScriptedToolCall",
    "Status",
    "StreamError",
    "ToolCall",
    "Truncate",
    "Turn",
    "load_scenario",
    "parse_scenario",
]
