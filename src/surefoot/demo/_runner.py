"""The demo runner: start the fault server (or point at an endpoint), run every step, judge it.

:func:`run_demo` is a coroutine; cancel it (Ctrl-C under ``asyncio.run``) and the fault server
is closed on the way out. A step fails when one of its checks fails or it raises something it
did not expect; against a real endpoint the steps that need injected faults are skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from surefoot._redact import redact
from surefoot._version import __version__
from surefoot.clock import SYSTEM_CLOCK
from surefoot.demo._env import Sink, StepEnv, Target
from surefoot.demo._records import AttemptRow, Check, DemoResult, Mark, StepResult
from surefoot.demo._scenario import server_models
from surefoot.demo._steps import STEPS, Step
from surefoot.testing.faults import FaultServer

__all__ = ["SKIPPED", "DemoOptions", "NullSink", "run_demo"]

#: Why a step that injects faults is skipped against a real endpoint.
SKIPPED = "skipped (needs the fault server)"
#: The fault server needs no key; the client sends this placeholder, as a real one would.
_NO_KEY = "sk-demo-no-key-needed"


@dataclass(frozen=True, slots=True)
class DemoOptions:
    """``base_url`` ``None``: the local fault server. Otherwise a real endpoint, which needs
    ``model`` (and usually ``api_key``). ``style`` is the wire format in both cases."""

    base_url: str | None = None
    api_key: str | None = None
    model: str | None = None
    style: str = "openai"

    def __post_init__(self) -> None:
        if self.style not in ("openai", "anthropic"):
            raise ValueError(f"style must be 'openai' or 'anthropic', not {self.style!r}")
        if self.base_url is not None and not self.model:
            raise ValueError("a real endpoint needs a model: pass --model NAME with --base-url")
        if self.base_url is None and (self.api_key is not None or self.model is not None):
            raise ValueError("--api-key and --model go with --base-url (a real endpoint)")


class NullSink:
    """A sink that shows nothing."""

    def begin(self, mode: str, where: str, steps: int) -> None:
        pass

    def step_started(self, index: int, step: StepResult) -> None:
        pass

    def attempt(self, row: AttemptRow) -> None:
        pass

    def mark(self, mark: Mark) -> None:
        pass

    def step_finished(self, index: int, step: StepResult) -> None:
        pass

    def finished(self, result: DemoResult) -> None:
        pass


def _server_url(server: FaultServer, style: str) -> str:
    return server.base_url + "/v1" if style == "openai" else server.base_url


async def run_demo(
    options: DemoOptions | None = None,
    *,
    sink: Sink | None = None,
    steps: Sequence[Step] | None = None,
) -> DemoResult:
    """Run the scenario's ``steps`` (default: all of them) and return what happened."""
    opts = options if options is not None else DemoOptions()
    out: Sink = sink if sink is not None else NullSink()
    chosen = tuple(STEPS if steps is None else steps)
    t0 = SYSTEM_CLOCK.now()
    if opts.base_url is not None:
        where = redact(opts.base_url)
        target = Target(opts.base_url, opts.style, opts.api_key, opts.model)
        out.begin("endpoint", where, len(chosen))
        results = [await _run_step(i, s, target, None, t0, out) for i, s in enumerate(chosen)]
    else:
        async with FaultServer(models=server_models()) as server:
            where = server.base_url
            target = Target(_server_url(server, opts.style), opts.style, _NO_KEY)
            out.begin("fault-server", where, len(chosen))
            results = [await _run_step(i, s, target, server, t0, out) for i, s in enumerate(chosen)]
    result = DemoResult(
        mode="endpoint" if opts.base_url is not None else "fault-server",
        base_url=where,
        style=opts.style,
        steps=results,
        wall_time=SYSTEM_CLOCK.now() - t0,
        version=__version__,
    )
    out.finished(result)
    return result


async def _run_step(
    index: int,
    step: Step,
    target: Target,
    server: FaultServer | None,
    t0: float,
    sink: Sink,
) -> StepResult:
    result = StepResult(step.key, step.title, step.story)
    env = StepEnv(target=target, server=server, t0=t0, result=result, sink=sink)
    result.t_start = env.now()
    sink.step_started(index, result)
    if step.needs_server and server is None:
        result.status, result.skip_reason = "skipped", SKIPPED
    else:
        try:
            result.checks = await step.body(env, step.params)
        except Exception as exc:  # an unexpected failure is a failed step, not a crash
            result.error = redact(f"{type(exc).__name__}: {exc}")
            result.checks.append(
                Check("the step runs without an unexpected error", False, result.error)
            )
        if server is not None:
            result.server_requests = len(env.requests())
        result.status = "passed" if all(c.ok for c in result.checks) else "failed"
    result.t_end = env.now()
    sink.step_finished(index, result)
    return result
