"""The fakes surefoot ships for your tests: virtual time, and a fault-injecting LLM server.

::

    from surefoot.testing import FakeClock, FaultServer, Model, Status

    clock = FakeClock()                      # sleeps advance virtual time at once
    with FaultServer(models=[Model("m1", reply="ok")]) as server:
        server.enqueue(Status(503), times=2)  # the next two requests fail
        ...                                   # call server.base_url with any client

- :class:`FakeClock` (:mod:`surefoot.testing.clock`): virtual monotonic time with autojump for
  asyncio and ``call_later``, injectable as ``clock=`` everywhere.
- :class:`FaultServer`, :class:`ChaosProxy`, the scripted :class:`Model`, the faults
  (:class:`Status`, :class:`Hang`, :class:`Reset`, :class:`Truncate`, :class:`StreamError`,
  :class:`SlowFirstToken`, :class:`MalformedChunk`, :class:`NoDone`...)
  and scenarios (:mod:`surefoot.testing.faults`).
- The pytest plugin (``fault_server`` and ``fake_clock`` fixtures) is registered when surefoot
  is installed.

Each name is loaded on first use: ``from surefoot.testing import FakeClock`` does not start
or import the server.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from surefoot.testing.clock import FakeClock, FakeTimer
    from surefoot.testing.faults import (
        ERROR_KINDS,
        FAULT_TYPES,
        ChaosProxy,
        ContentFilter,
        Drip,
        ErrorIn200,
        Fault,
        FaultServer,
        Hang,
        HugeBody,
        Latency,
        MalformedChunk,
        MalformedToolCall,
        Match,
        Model,
        NoDone,
        Ok,
        PortInUseError,
        PrefillRejected,
        RecordedRequest,
        Reset,
        Rule,
        Scenario,
        ScenarioError,
        ScriptedToolCall,
        SlowFirstToken,
        Status,
        StreamError,
        Truncate,
        Turn,
        load_scenario,
        parse_scenario,
    )

_CLOCK = ("FakeClock", "FakeTimer")


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name in _CLOCK:
        module = importlib.import_module("surefoot.testing.clock")
    else:
        module = importlib.import_module("surefoot.testing.faults")
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "ERROR_KINDS",
    "FAULT_TYPES",
    "ChaosProxy",
    "ContentFilter",
    "Drip",
    "ErrorIn200",
    "FakeClock",
    "FakeTimer",
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
    "Truncate",
    "Turn",
    "load_scenario",
    "parse_scenario",
]
