"""The run loop (pure): call the model, run the tools it asks for, feed back the results, stop.

Rules, each bounded:

- ``max_turns`` model turns at most, then ``LLM_NO_PROGRESS``; the same tool called with the
  same arguments ``max_repeats`` times is ``LLM_NO_PROGRESS`` too.
- A tool call with arguments that are not JSON, fail the tool's schema, or name an unknown tool
  is answered with a tool error message the model can fix; after ``max_tool_errors`` such rounds
  the run fails with an :class:`~surefoot.LLMError` of type ``MALFORMED_TOOL_CALL``.
- A tool that raises: its error text goes back to the model as the tool result; after
  ``max_tool_errors`` such rounds the run fails with an :class:`~surefoot.ActionExecutionError`
  (the tool's exception as ``__cause__``) of category ``INVOCATION`` and ``action_type``
  ``"tool"``, unless the tool's exception is (or is caused by) an ``ActionExecutionError``, as
  an agent's action raises: then its category and action type are kept. Two exceptions:
  :class:`~surefoot.TaskCompleteError` ends the run at once with its ``result`` (status
  ``"completed"``), and :class:`~surefoot.llm.WaitFor` suspends it (status ``"pending"``, see
  ``RunResult.pending``).
- With a ``response_model``, the final text is parsed as JSON and validated; a mismatch is sent
  back with the validation errors, at most ``max_validation_retries`` times, then
  :class:`surefoot.ValidationError`.
"""

from __future__ import annotations

import json
from collections.abc import Generator, Sequence
from typing import Any

import pydantic

from surefoot._redact import redact
from surefoot.errors import (
    ActionCategory,
    ActionExecutionError,
    LLMError,
    LLMErrorType,
    TaskCompleteError,
    ValidationError,
)
from surefoot.llm._call import call_model
from surefoot.llm._ctx import RunCtx, no_progress
from surefoot.llm._messages import Message, ToolCall, Usage
from surefoot.llm._ops import Emit, RunTools, ToolJob
from surefoot.llm._result import Pending, RunResult, ToolResultEvent, WaitFor
from surefoot.llm._tools import ToolArgumentsError, ToolRegistry, validate_arguments

__all__ = ["run_flow"]

_MAX_TOOL_TEXT = 16_384


#: The usage before the first turn (frozen, so one shared instance).
_NO_USAGE = Usage()


class _State:
    __slots__ = ("arg_errors", "repeats", "tool_failures", "usage", "validation_rounds")

    def __init__(self) -> None:
        self.usage = _NO_USAGE
        self.repeats: dict[tuple[str, str], int] = {}
        self.arg_errors = 0
        self.tool_failures = 0
        self.validation_rounds = 0


def run_flow(
    ctx: RunCtx,
    messages: list[Message],
    tools: ToolRegistry | None,
    response_model: type[pydantic.BaseModel] | None,
    *,
    stream: bool = False,
) -> Generator[Any, Any, RunResult]:
    """The whole run; returns the :class:`RunResult` (see the module docstring)."""
    opts = ctx.opts
    specs = tools.specs if tools is not None else ()
    st = _State()
    for turn in range(opts.max_turns):
        ctx.turn = turn
        completion, spec = yield from call_model(ctx, messages, specs, stream=stream)
        # The first turn's usage is the sum so far (Usage is frozen): no addition needed.
        usage = st.usage
        st.usage = completion.usage if usage is _NO_USAGE else usage + completion.usage
        msg = completion.message
        messages.append(msg)
        if msg.tool_calls:
            ended = yield from _tool_round(ctx, messages, msg.tool_calls, tools, st, stream)
            if ended is not None:
                ended.usage = st.usage
                ended.failed_usage = ctx.failed_usage
                ended.model = spec.name
                ended.turns = turn + 1
                return ended
            continue
        text = msg.content
        output = None
        if response_model is not None:
            output, problem = _validate(response_model, text)
            if problem is not None:
                st.validation_rounds += 1
                if st.validation_rounds > opts.max_validation_retries:
                    raise _validation_failed(response_model, problem, ctx)
                messages.append(Message("user", _fix_request(problem)))
                continue
        return RunResult(
            text,
            messages,
            st.usage,
            "completed",
            output,
            ctx.attempts,
            spec.name,
            ctx.task_id,
            None,
            turn + 1,
            ctx.failed_usage,
        )
    raise no_progress(
        f"the model gave no final answer within max_turns={opts.max_turns} turns; narrow the "
        "instruction, use a more capable model, or raise max_turns",
        ctx,
    )


def _tool_round(
    ctx: RunCtx,
    messages: list[Message],
    calls: Sequence[ToolCall],
    tools: ToolRegistry | None,
    st: _State,
    stream: bool,
) -> Generator[Any, Any, RunResult | None]:
    opts = ctx.opts
    for c in calls:
        key = (c.name, _canonical(c.arguments))
        n = st.repeats.get(key, 0) + 1
        st.repeats[key] = n
        if n >= opts.max_repeats:
            raise no_progress(
                f"the model called tool {c.name!r} with the same arguments {n} times; it is "
                "repeating the same work",
                ctx,
            )
    results: dict[str, tuple[str, bool]] = {}
    jobs: list[ToolJob] = []
    bad_args: list[str] = []
    for c in calls:
        spec = tools.get(c.name) if tools is not None else None
        if spec is None or spec.fn is None:
            names = ", ".join(t.name for t in tools) if tools is not None else "none"
            text = f"error: there is no tool named {c.name!r}; the available tools are: {names}"
            results[c.id] = (text, True)
            bad_args.append(text)
            continue
        args, why = c.parsed()
        if why is not None:
            results[c.id] = (f"error: {why}", True)
            bad_args.append(why)
            continue
        try:
            kwargs = validate_arguments(spec, args)
        except ToolArgumentsError as exc:
            results[c.id] = (f"error: {exc}", True)
            bad_args.append(str(exc))
            continue
        jobs.append(ToolJob(c, spec.fn, kwargs))
    if bad_args:
        st.arg_errors += 1
        if st.arg_errors > opts.max_tool_errors:
            raise LLMError(
                f"the model sent invalid tool calls {st.arg_errors} times: {bad_args[-1]}",
                error_type=LLMErrorType.MALFORMED_TOOL_CALL,
                retryable=False,
                provider=opts.style,
            )
    pending: Pending | None = None
    if jobs:
        ctx.check()
        outcomes = yield RunTools(jobs, ctx.left())
        ctx.check()
        failure: tuple[ToolJob, BaseException] | None = None
        for job, out in zip(jobs, outcomes, strict=True):
            if isinstance(out, TaskCompleteError):
                result = out.result
                text = result if isinstance(result, str) else _to_text(result)
                results[job.call.id] = (text, False)
                yield from _append_results(ctx, messages, calls, results, stream)
                return RunResult(
                    text, messages, output=result, attempts=ctx.attempts, task_id=ctx.task_id
                )
            if isinstance(out, WaitFor):
                if pending is None:
                    pending = Pending(job.call, out.prompt, out.kind, out.data)
                    continue
                out = RuntimeError("another tool call of this turn is waiting for an answer")
            if isinstance(out, BaseException):
                text = redact(f"error: {type(out).__name__}: {out}")[:_MAX_TOOL_TEXT]
                results[job.call.id] = (text, True)
                failure = failure or (job, out)
            else:
                results[job.call.id] = (_to_text(out)[:_MAX_TOOL_TEXT], False)
        if failure is not None:
            st.tool_failures += 1
            if st.tool_failures > opts.max_tool_errors:
                failed_job, cause = failure
                inner = _action_error(cause)
                err = ActionExecutionError(
                    f"tool {failed_job.call.name!r} failed {st.tool_failures} rounds in a row: "
                    f"{cause}",
                    action_name=failed_job.call.name,
                    action_type="tool" if inner is None else inner.action_type,
                    category=ActionCategory.INVOCATION if inner is None else inner.category,
                    retryable=False,
                )
                raise err from cause
    yield from _append_results(ctx, messages, calls, results, stream)
    if pending is None:
        return None
    return RunResult(
        "", messages, status="pending", attempts=ctx.attempts, task_id=ctx.task_id, pending=pending
    )


def _action_error(exc: BaseException) -> ActionExecutionError | None:
    """The :class:`~surefoot.ActionExecutionError` ``exc`` is, or is caused by (``__cause__``,
    then ``__context__``, cycles and depth bounded), or ``None``."""
    seen: set[int] = set()
    todo: list[BaseException] = [exc]
    while todo and len(seen) < 32:
        e = todo.pop(0)
        if id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, ActionExecutionError):
            return e
        todo.extend(x for x in (e.__cause__, e.__context__) if x is not None)
    return None


def _append_results(
    ctx: RunCtx,
    messages: list[Message],
    calls: Sequence[ToolCall],
    results: dict[str, tuple[str, bool]],
    stream: bool,
) -> Generator[Any, Any, None]:
    for c in calls:
        got = results.get(c.id)
        if got is None:
            continue  # the suspended call: answered by resume()
        content, is_error = got
        messages.append(Message("tool", content, tool_call_id=c.id, is_error=is_error))
        if stream:
            yield Emit(ToolResultEvent(c, content, is_error))


def _canonical(arguments: str) -> str:
    try:
        return json.dumps(json.loads(arguments), sort_keys=True, separators=(",", ":"))
    except (ValueError, RecursionError):
        return arguments


def _to_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump_json()
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def _strip_fences(text: str) -> str:
    s = text.strip()
    if s.startswith("```"):
        s = s.split("\n", 1)[1] if "\n" in s else ""
        if s.rstrip().endswith("```"):
            s = s.rstrip()[:-3]
    return s.strip()


def _validate(model: type[pydantic.BaseModel], text: str) -> tuple[Any, str | None]:
    try:
        return model.model_validate_json(_strip_fences(text)), None
    except pydantic.ValidationError as exc:
        lines = [
            f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}"
            for e in exc.errors(include_url=False)[:20]
        ]
        return None, "; ".join(lines)


def _fix_request(problem: str) -> str:
    return (
        "Your last answer does not match the required JSON schema: "
        f"{problem}. Answer again with only the corrected JSON object."
    )


def schema_instruction(model: type[pydantic.BaseModel]) -> str:
    schema = json.dumps(model.model_json_schema(), separators=(",", ":"))
    return f"Answer with only a JSON object that matches this JSON schema: {schema}"


def _validation_failed(
    model: type[pydantic.BaseModel], problem: str, ctx: RunCtx
) -> ValidationError:
    err = ValidationError(
        f"the model's answer never matched {model.__name__} after "
        f"{ctx.opts.max_validation_retries} correction(s): {problem}",
        errors=[problem],
    )
    err.context.operation = ctx.operation
    err.context.task_id = ctx.task_id
    return err
