"""The tool loop and the run outcomes: tools, bad arguments, raising tools, TaskComplete,
suspension and resume, response_model, no progress, deadline, stop, cancellation."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pydantic
import pytest

import surefoot
from surefoot.errors import LLMError
from surefoot.llm import AsyncLLMClient, WaitFor
from surefoot.testing.faults import FaultServer, Hang, MalformedToolCall, Model, ToolCall, Turn
from test_client_helpers import MODES, STYLES, Harness

both = pytest.mark.parametrize("style", STYLES)
modes = pytest.mark.parametrize("mode", MODES)


def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


def weather_model(*extra: Turn) -> Model:
    return Model(
        "m1",
        turns=[
            Turn(tool_calls=[ToolCall("get_weather", {"city": "Paris"})]),
            *extra,
            Turn(text="It is sunny in Paris."),
        ],
    )


@modes
@both
def test_tool_loop(mode: str, style: str) -> None:
    with FaultServer(models=[weather_model()]) as srv:
        r = Harness(mode, srv, style).run("weather?", tools=[get_weather])
        assert r.text == "It is sunny in Paris."
        assert r.turns == 2
        tool_msgs = [m for m in r.messages if m.role == "tool"]
        assert [m.content for m in tool_msgs] == ["sunny in Paris"]
        assert not tool_msgs[0].is_error
        assert len(srv.requests) == 2


@modes
@both
def test_parallel_tool_calls_run_concurrently(mode: str, style: str) -> None:
    calls = [ToolCall("meet", {"who": "a"}), ToolCall("meet", {"who": "b"})]
    model = Model("m1", turns=[Turn(tool_calls=calls), Turn(text="done")])
    if mode == "sync":
        barrier = threading.Barrier(2, timeout=5)

        def meet(who: str) -> str:
            barrier.wait()  # both calls must be running at the same time
            return who

        tool: Any = meet
    else:
        arrived: list[str] = []

        async def meet(who: str) -> str:  # type: ignore[misc]
            arrived.append(who)
            for _ in range(200):
                if len(arrived) == 2:
                    return who
                await asyncio.sleep(0.005)
            raise RuntimeError("the other call never ran concurrently")

        tool = meet
    with FaultServer(models=[model]) as srv:
        r = Harness(mode, srv, style).run("go", tools=[tool])
        assert [m.content for m in r.messages if m.role == "tool"] == ["a", "b"]
        assert r.text == "done"


@modes
@both
def test_invalid_arguments_go_back_to_the_model(mode: str, style: str) -> None:
    bad = Turn(tool_calls=[ToolCall("get_weather", '{"city": "Par')])
    wrong = Turn(tool_calls=[ToolCall("get_weather", {"town": "Paris"})])
    with FaultServer(models=[weather_model(bad, wrong)]) as srv:
        r = Harness(mode, srv, style).run("weather?", tools=[get_weather])
        assert r.text == "It is sunny in Paris."
        results = [m for m in r.messages if m.role == "tool"]
        assert [m.is_error for m in results] == [False, True, True]
        assert "JSON" in results[1].content
        assert "city" in results[2].content


@modes
@both
def test_malformed_tool_call_fault_is_recovered(mode: str, style: str) -> None:
    with FaultServer(models=[Model("m1", turns=[Turn(text="fine")])]) as srv:
        srv.enqueue(MalformedToolCall(name="get_weather"))
        r = Harness(mode, srv, style).run("weather?", tools=[get_weather])
        assert r.text == "fine"
        assert [m.is_error for m in r.messages if m.role == "tool"] == [True]


@modes
@both
def test_invalid_arguments_are_bounded(mode: str, style: str) -> None:
    turns = [Turn(tool_calls=[ToolCall("get_weather", {"n": i})]) for i in range(10)]
    with FaultServer(models=[Model("m1", turns=turns)]) as srv:
        with pytest.raises(LLMError) as ei:
            Harness(mode, srv, style, max_tool_errors=2).run("x", tools=[get_weather])
        assert ei.value.code == "MALFORMED_TOOL_CALL"
        assert len(srv.requests) == 3


@modes
@both
def test_raising_tool_error_goes_back_then_bounded(mode: str, style: str) -> None:
    def flaky(city: str) -> str:
        raise ValueError(f"no station in {city}")

    turns = [Turn(tool_calls=[ToolCall("flaky", {"city": f"c{i}"})]) for i in range(10)]
    with FaultServer(models=[Model("m1", turns=turns)]) as srv:
        with pytest.raises(surefoot.ActionExecutionError) as ei:
            Harness(mode, srv, style, max_tool_errors=1).run("x", tools=[flaky])
        assert isinstance(ei.value.__cause__, ValueError)
        sent = srv.requests[1].json
        assert "no station in c0" in json_text(sent)


@modes
@both
def test_a_failing_tool_keeps_an_action_errors_category(mode: str, style: str) -> None:
    """A tool whose exception is (or is caused by) an ActionExecutionError: after
    max_tool_errors rounds the run fails with that error's category and action type, not the
    generic INVOCATION/"tool"."""
    action_err = surefoot.ActionExecutionError(
        "weather API answered 503",
        action_name="forecast",
        action_type="http",
        category=surefoot.ActionCategory.SERVER_ERROR,
    )

    def direct(city: str) -> str:
        raise action_err

    def wrapped(city: str) -> str:
        try:
            raise action_err
        except surefoot.ActionExecutionError as exc:
            raise RuntimeError("the tool gave up") from exc

    def plain(city: str) -> str:
        raise ValueError("no station")

    cases = [
        (direct, surefoot.ActionCategory.SERVER_ERROR, "http"),
        (wrapped, surefoot.ActionCategory.SERVER_ERROR, "http"),
        (plain, surefoot.ActionCategory.INVOCATION, "tool"),
    ]
    for fn, category, action_type in cases:
        turns = [Turn(tool_calls=[ToolCall(fn.__name__, {"city": f"c{i}"})]) for i in range(5)]
        with FaultServer(models=[Model("m1", turns=turns)]) as srv:
            with pytest.raises(surefoot.ActionExecutionError) as ei:
                Harness(mode, srv, style, max_tool_errors=1).run("x", tools=[fn])
            err = ei.value
            assert err is not action_err
            assert (err.category, err.action_type) == (category, action_type), fn.__name__
            assert err.action_name == fn.__name__ and not err.retryable
            assert len(srv.requests) == 2


def json_text(obj: Any) -> str:
    import json

    return json.dumps(obj)


@modes
@both
def test_task_complete_ends_the_run(mode: str, style: str) -> None:
    def done(answer: str) -> str:
        raise surefoot.TaskCompleteError(result=answer)

    model = Model("m1", turns=[Turn(tool_calls=[ToolCall("done", {"answer": "42"})])])
    with FaultServer(models=[model]) as srv:
        r = Harness(mode, srv, style).run("x", tools=[done])
        assert r.status == "completed" and r.text == "42" and r.output == "42"
        assert len(srv.requests) == 1


@modes
@both
def test_suspend_and_resume(mode: str, style: str) -> None:
    def ask_human(question: str) -> str:
        raise WaitFor(question, kind="approval")

    model = Model(
        "m1",
        turns=[Turn(tool_calls=[ToolCall("ask_human", {"question": "ship it?"})]), Turn("shipped")],
    )
    with FaultServer(models=[model]) as srv:
        h = Harness(mode, srv, style)
        r = h.run("deploy", tools=[ask_human], task_id="job-1")
        assert r.status == "pending"
        assert r.pending is not None and r.pending.prompt == "ship it?"
        assert r.pending.kind == "approval"

        final = h.call(lambda c: c.resume(r, "yes", tools=[ask_human]))
        assert final.status == "completed" and final.text == "shipped"
        assert final.messages[-2].role == "tool" and final.messages[-2].content == "yes"
        again = h.run(
            messages=[
                *r.messages,
                {"role": "tool", "content": "yes", "tool_call_id": r.pending.tool_call.id},
            ],
            tools=[ask_human],
        )
        assert again.text == "shipped"


class Weather(pydantic.BaseModel):
    city: str
    temp: int


@modes
@both
def test_response_model_retries_with_validation_error(mode: str, style: str) -> None:
    turns = [Turn(text="it is warm"), Turn(text='{"city": "Paris", "temp": 21}')]
    with FaultServer(models=[Model("m1", turns=turns)]) as srv:
        r = Harness(mode, srv, style).run("weather as json", response_model=Weather)
        assert r.output == Weather(city="Paris", temp=21)
        assert "does not match" in json_text(srv.requests[1].json)


@modes
@both
def test_response_model_never_matches(mode: str, style: str) -> None:
    with FaultServer(models=[Model("m1", reply='{"city": "Paris"}')]) as srv:
        with pytest.raises(surefoot.ValidationError) as ei:
            Harness(mode, srv, style, max_validation_retries=1).run("x", response_model=Weather)
        assert "temp" in str(ei.value)
        assert len(srv.requests) == 2


@modes
@both
def test_repeated_tool_call_is_no_progress(mode: str, style: str) -> None:
    model = Model("m1", turns=[Turn(tool_calls=[ToolCall("get_weather", {"city": "Paris"})])])
    with FaultServer(models=[model]) as srv:
        with pytest.raises(LLMError) as ei:
            Harness(mode, srv, style).run("x", tools=[get_weather])
        assert ei.value.code == "LLM_NO_PROGRESS"
        assert len(srv.requests) == 3


@modes
@both
def test_turn_limit_is_no_progress(mode: str, style: str) -> None:
    turns = [Turn(tool_calls=[ToolCall("get_weather", {"city": f"c{i}"})]) for i in range(10)]
    with FaultServer(models=[Model("m1", turns=turns)]) as srv:
        with pytest.raises(LLMError) as ei:
            Harness(mode, srv, style, max_turns=4).run("x", tools=[get_weather])
        assert ei.value.code == "LLM_NO_PROGRESS"
        assert len(srv.requests) == 4


@modes
@both
def test_deadline_raises_run_timeout(mode: str, style: str) -> None:
    with FaultServer(models=[Model("m1", reply="late")]) as srv:
        srv.enqueue(Hang(), times=5)
        h = Harness(mode, srv, style, clock=_RealClock(), timeout=0.3)
        with pytest.raises(surefoot.RunTimeoutError) as ei:
            h.run("x", task_id="t9")
        err = ei.value
        assert err.code == "TASK_DEADLINE_EXCEEDED" and not err.retryable
        assert err.context.task_id == "t9"


@modes
@both
def test_hang_after_headers_bounded_by_deadline(mode: str, style: str) -> None:
    with FaultServer(models=[Model("m1", reply="late")]) as srv:
        srv.enqueue(Hang(after_events=1), times=5)
        h = Harness(mode, srv, style, clock=_RealClock(), timeout=0.3)
        _events, exc = h.stream("x")
        assert isinstance(exc, surefoot.RunTimeoutError)


class _RealClock:
    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    async def asleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


@modes
@both
def test_stop_from_a_tool(mode: str, style: str) -> None:
    holder: dict[str, Any] = {}

    def get_weather(city: str) -> str:
        holder["client"].stop("task-7", "user cancelled")
        return "sunny"

    with FaultServer(models=[weather_model()]) as srv:
        h = Harness(mode, srv, style)

        def go(c: Any) -> Any:
            holder["client"] = c
            return c.run("x", tools=[get_weather], task_id="task-7")

        with pytest.raises(surefoot.TaskStoppedError) as ei:
            h.call(go)
        assert ei.value.reason == "user cancelled" and ei.value.task_id == "task-7"
        assert len(srv.requests) == 1


@both
async def test_cancellation_passes_through(style: str) -> None:
    with FaultServer(models=[Model("m1", reply="late")]) as srv:
        srv.enqueue(Hang())
        async with AsyncLLMClient(
            base_url=srv.base_url + ("/v1" if style == "openai" else ""),
            model="m1",
            style=style,
            timeout=30,
        ) as c:
            task = asyncio.ensure_future(c.run("x"))
            await asyncio.sleep(0.2)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
