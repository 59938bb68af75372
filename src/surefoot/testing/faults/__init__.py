"""A fault-injecting LLM server and a chaos proxy, for tests and rehearsals.

:class:`FaultServer` speaks OpenAI chat completions, Anthropic messages and the OpenAI Responses
API (``POST /v1/responses``, ``GET /v1/responses/{id}`` with background resume by
``starting_after``), JSON and SSE, with a deterministic scripted model (which continues an
assistant prefill) and injects faults by queue or by rule. Its streams carry ``id:`` lines
unless ``event_ids=False`` (as the real providers stream); the faults include the ones real
providers have: :class:`SlowFirstToken`, :class:`MalformedChunk`, :class:`NoDone`,
:class:`PrefillRejected`, silence and stalls (:class:`Hang`), cuts (:class:`Truncate`,
:class:`Reset`) and outages on a schedule (``Match(start=, end=)``); :class:`ChaosProxy`
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
    MalformedChunk,
    MalformedToolCall,
    NoDone,
    Ok,
    PrefillRejected,
    Reset,
    SlowFirstToken,
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
    "MalformedChunk",
    "MalformedToolCall",
    "Match",
    "Model",
    "NoDone",
    "Ok",
    "PortInUseError",
    "PrefillRejected",
    "RecordedRequest",
    "Reset",
    "Rule",
    "Scenario",
    "ScenarioError",
    "ScriptedToolCall",
    "SlowFirstToken",
    "Status",
    "StreamError",
    "ToolCall",
    "Truncate",
    "Turn",
    "load_scenario",
    "parse_scenario",
]
