"""``surefoot demo``: a travel agent on a bad day at the provider, with no key and no network.

:func:`run_demo` starts the local :class:`~surefoot.testing.faults.FaultServer` and runs the
scenario's :data:`STEPS` through the resilient :class:`~surefoot.AsyncLLMClient`: tool calls, a
429 with Retry-After, a 503 burst, an overload mid-stream resumed without a lost or repeated
token, a context overflow
answered by a larger model, an outage behind a circuit breaker, a stalled run ended by its
deadline. Each step checks explicit expectations against what happened; the
:class:`DemoResult` says whether every step passed.

::

    result = asyncio.run(run_demo(sink=Timeline(make_console())))
    write_html(result, "report.html")
    print(to_json(result))

Modules: :mod:`~surefoot.demo._scenario` (the scripted world), :mod:`~surefoot.demo._steps`
(the steps and their expectations), :mod:`~surefoot.demo._env` (what a step runs with),
:mod:`~surefoot.demo._runner`, :mod:`~surefoot.demo._timeline` (the terminal),
:mod:`~surefoot.demo._html` and :mod:`~surefoot.demo._svg` (the report),
:mod:`~surefoot.demo._json`.
"""

from surefoot.demo._env import Sink, StepEnv, Target
from surefoot.demo._html import render_html, write_html
from surefoot.demo._json import to_json
from surefoot.demo._records import AttemptRow, Check, DemoResult, Mark, StepResult, Summary
from surefoot.demo._runner import SKIPPED, DemoOptions, NullSink, run_demo
from surefoot.demo._steps import STEPS, Step
from surefoot.demo._timeline import Timeline, make_console

__all__ = [
    "SKIPPED",
    "STEPS",
    "AttemptRow",
    "Check",
    "DemoOptions",
    "DemoResult",
    "Mark",
    "NullSink",
    "Sink",
    "Step",
    "StepEnv",
    "StepResult",
    "Summary",
    "Target",
    "Timeline",
    "make_console",
    "render_html",
    "run_demo",
    "to_json",
    "write_html",
]
