"""Scenarios written in YAML, checked line by line.

A scenario file is a mapping with optional keys ``seed``, ``strict_models``, ``models``,
``queue`` and ``rules``::

    seed: 7
    models:
      - name: gpt-4o-mini
        context_window: 8000
        event_ids: false                 # stream without id: lines, as real providers do
      - name: claude-old
        prefill: false                   # a prefilled request gets the provider's 400
      - name: agent-*
        turns:
          - tool_calls: [{name: get_weather, arguments: {city: Paris}}]
          - text: It is sunny in Paris.
    queue:                               # the first requests, in order
      - fault: {type: status, status: 429, retry_after: 1}
        times: 2
    rules:
      - match: {path: /v1/messages, every: 3}
        fault: {type: status, status: 529}
      - match: {model: "gpt-*", probability: 0.2, start: 5, end: 10}
        fault: stream_error              # a bare name takes the defaults
      - match: {stream: true, end: 1.0}  # the first second: a slow first token
        fault: {type: slow_first_token, seconds: 2, ping_every: 0.5}

Fault names: ``ok``, ``latency``, ``status``, ``hang``, ``reset``, ``truncate``,
``stream_error``, ``malformed_tool_call``, ``content_filter``, ``error_in_200``,
``huge_body``, ``drip``, ``slow_first_token``, ``malformed_chunk``, ``no_done``,
``prefill_rejected`` (:data:`~surefoot.testing.faults.FAULT_TYPES`).

Anything wrong raises :class:`ScenarioError` naming the line and the allowed values.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, TypeVar, Union

import yaml

from surefoot.testing.faults._faults import FAULT_TYPES, Fault
from surefoot.testing.faults._model import Model, ToolCall, Turn
from surefoot.testing.faults._rules import Match, Rule, Scenario

__all__ = ["MAX_TIMES", "ScenarioError", "load_scenario", "parse_scenario"]

#: The most requests one queue entry may cover (``times:``).
MAX_TIMES = 100_000

T = TypeVar("T")


class ScenarioError(ValueError):
    """A scenario that cannot be used; the message names the source, the line and the fix."""

    def __init__(self, message: str, *, source: str = "<scenario>", line: int | None = None):
        where = f"{source}, line {line}" if line is not None else source
        super().__init__(f"{where}: {message}")
        self.source = source
        self.line = line
        self.reason = message


class _Reader:
    def __init__(self, source: str) -> None:
        self.source = source
        self.loader = yaml.SafeLoader("")

    def fail(self, node: yaml.Node, message: str) -> ScenarioError:
        return ScenarioError(message, source=self.source, line=node.start_mark.line + 1)

    def scalar(self, node: yaml.Node) -> Any:
        try:
            return self.loader.construct_object(node, deep=True)
        except yaml.MarkedYAMLError as exc:
            raise self.fail(node, f"not a valid value: {exc.problem}") from None
        except (yaml.YAMLError, ValueError, TypeError, OverflowError, RecursionError) as exc:
            tag = f" for its tag {node.tag}" if node.tag else ""
            raise self.fail(node, f"not a valid value{tag}: {exc}") from None

    def mapping(self, node: yaml.Node, what: str, allowed: tuple[str, ...]) -> dict[str, Any]:
        """A mapping's value nodes by key, rejecting keys outside ``allowed``."""
        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node, f"{what} must be a mapping with keys {', '.join(allowed)}")
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = self.scalar(key_node)
            if key not in allowed:
                raise self.fail(
                    key_node, f"unknown key {key!r} in {what}; allowed: {', '.join(allowed)}"
                )
            out[key] = value_node
        return out

    def sequence(self, node: yaml.Node, what: str) -> list[yaml.Node]:
        if not isinstance(node, yaml.SequenceNode):
            raise self.fail(node, f"{what} must be a list")
        return list(node.value)

    def value(self, node: yaml.Node, hint: Any, what: str) -> Any:
        """The Python value of ``node`` checked against a (simple) type hint."""
        origin = typing.get_origin(hint)
        if origin in (Union, types.UnionType):
            options = typing.get_args(hint)
            is_null = isinstance(node, yaml.ScalarNode) and self.scalar(node) is None
            if is_null and type(None) in options:
                return None
            for option in options:
                if option is type(None):
                    continue
                try:
                    return self.value(node, option, what)
                except ScenarioError:
                    continue
            names = " or ".join(_type_name(o) for o in options)
            raise self.fail(node, f"{what} must be {names}")
        if origin is Literal:
            allowed = typing.get_args(hint)
            got = self.scalar(node) if isinstance(node, yaml.ScalarNode) else None
            if got not in allowed:
                raise self.fail(
                    node, f"{what} must be one of {', '.join(map(str, allowed))}, not {got!r}"
                )
            return got
        if origin is not None and issubclass(origin, Mapping):
            raw = self.scalar(node) if isinstance(node, yaml.MappingNode) else None
            if not isinstance(raw, dict) or not all(isinstance(k, str) for k in raw):
                raise self.fail(node, f"{what} must be a mapping of names to strings")
            return {k: str(v) for k, v in raw.items()}
        if not isinstance(node, yaml.ScalarNode):
            raise self.fail(node, f"{what} must be {_type_name(hint)}")
        got = self.scalar(node)
        if hint is float and isinstance(got, int) and not isinstance(got, bool):
            return float(got)
        if (
            isinstance(hint, type)
            and isinstance(got, hint)
            and not (hint is int and isinstance(got, bool))
        ):
            return got
        raise self.fail(node, f"{what} must be {_type_name(hint)}, not {got!r}")

    def dataclass(self, node: yaml.Node, cls: type[T], what: str, skip: tuple[str, ...] = ()) -> T:
        hints = typing.get_type_hints(cls)
        fields = tuple(
            f.name
            for f in dataclasses.fields(cls)  # type: ignore[arg-type]
            if f.name not in skip
        )
        nodes = self.mapping(node, what, fields + skip)
        kwargs = {
            name: self.value(n, hints[name], f"`{name}`")
            for name, n in nodes.items()
            if name not in skip
        }
        try:
            return cls(**kwargs)
        except (ValueError, TypeError) as exc:
            raise self.fail(node, f"{what}: {exc}") from None


def _type_name(hint: Any) -> str:
    if hint is type(None):
        return "null"
    names = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}
    return names.get(hint, getattr(hint, "__name__", str(hint)))


def _fault(reader: _Reader, node: yaml.Node) -> Fault:
    allowed = ", ".join(sorted(FAULT_TYPES))
    if isinstance(node, yaml.ScalarNode):
        name = reader.scalar(node)
        if name not in FAULT_TYPES:
            raise reader.fail(node, f"unknown fault {name!r}; allowed: {allowed}")
        return FAULT_TYPES[name]()
    if not isinstance(node, yaml.MappingNode):
        raise reader.fail(node, f"a fault is a name or a mapping with `type:` ({allowed})")
    type_node = next((v for k, v in node.value if reader.scalar(k) == "type"), None)
    if type_node is None:
        raise reader.fail(node, f"a fault mapping needs `type:`, one of {allowed}")
    name = reader.scalar(type_node)
    if name not in FAULT_TYPES:
        raise reader.fail(type_node, f"unknown fault {name!r}; allowed: {allowed}")
    return reader.dataclass(node, FAULT_TYPES[name], f"fault {name!r}", skip=("type",))


def _model(reader: _Reader, node: yaml.Node) -> Model:
    keys = ("name", "reply", "turns", "context_window", "event_ids", "prefill")
    nodes = reader.mapping(node, "a model", keys)
    kwargs: dict[str, Any] = {}
    for key in ("name", "reply"):
        if key in nodes:
            kwargs[key] = reader.value(nodes[key], str, f"`{key}`")
    if "context_window" in nodes:
        kwargs["context_window"] = reader.value(nodes["context_window"], int, "`context_window`")
    for key in ("event_ids", "prefill"):
        if key in nodes:
            kwargs[key] = reader.value(nodes[key], bool, f"`{key}`")
    if "turns" in nodes:
        kwargs["turns"] = tuple(_turn(reader, n) for n in reader.sequence(nodes["turns"], "turns"))
    try:
        return Model(**kwargs)
    except ValueError as exc:
        raise reader.fail(node, f"a model: {exc}") from None


def _turn(reader: _Reader, node: yaml.Node) -> Turn:
    nodes = reader.mapping(node, "a turn", ("text", "tool_calls"))
    text = reader.value(nodes["text"], str, "`text`") if "text" in nodes else ""
    calls: list[ToolCall] = []
    for call_node in reader.sequence(nodes.get("tool_calls", yaml.SequenceNode("", [])), "calls"):
        call = reader.mapping(call_node, "a tool call", ("name", "arguments"))
        if "name" not in call:
            raise reader.fail(call_node, "a tool call needs `name:`")
        arguments: Any = {}
        if "arguments" in call:
            arguments = reader.scalar(call["arguments"])
            if not isinstance(arguments, dict | str):
                raise reader.fail(call["arguments"], "`arguments` must be a mapping or a string")
        calls.append(ToolCall(reader.value(call["name"], str, "`name`"), arguments))
    return Turn(text, tuple(calls))


def _rule(reader: _Reader, node: yaml.Node) -> Rule:
    nodes = reader.mapping(node, "a rule", ("match", "fault"))
    if "fault" not in nodes:
        raise reader.fail(node, "a rule needs `fault:`")
    match = reader.dataclass(nodes["match"], Match, "`match`") if "match" in nodes else Match()
    return Rule(_fault(reader, nodes["fault"]), match)


def _queue(reader: _Reader, node: yaml.Node) -> list[Fault]:
    out: list[Fault] = []
    for item in reader.sequence(node, "`queue`"):
        nodes = reader.mapping(item, "a queue entry", ("fault", "times"))
        if "fault" not in nodes:
            raise reader.fail(item, "a queue entry needs `fault:`")
        times = reader.value(nodes["times"], int, "`times`") if "times" in nodes else 1
        if times < 1:
            raise reader.fail(nodes["times"], f"`times` must be at least 1, not {times}")
        if times > MAX_TIMES:
            raise reader.fail(
                nodes["times"],
                f"`times` must be at most {MAX_TIMES}, not {times}; for a fault on every "
                "request use a rule (`rules: [{fault: ...}]`)",
            )
        out.extend([_fault(reader, nodes["fault"])] * times)
    return out


def parse_scenario(text: str, source: str = "<scenario>") -> Scenario:
    """A :class:`Scenario` from YAML text; raises :class:`ScenarioError`."""
    reader = _Reader(source)
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark is not None else None
        raise ScenarioError(f"not valid YAML: {exc.problem}", source=source, line=line) from None
    except yaml.YAMLError as exc:
        detail = " ".join(str(exc).split())
        raise ScenarioError(f"not valid YAML: {detail}", source=source) from None
    except RecursionError:
        raise ScenarioError("not usable YAML: nested too deeply", source=source) from None
    if root is None:
        return Scenario()
    top = reader.mapping(root, "a scenario", ("seed", "strict_models", "models", "queue", "rules"))
    kwargs: dict[str, Any] = {}
    if "seed" in top:
        kwargs["seed"] = reader.value(top["seed"], int, "`seed`")
    if "strict_models" in top:
        kwargs["strict_models"] = reader.value(top["strict_models"], bool, "`strict_models`")
    if "models" in top:
        models = reader.sequence(top["models"], "`models`")
        kwargs["models"] = tuple(_model(reader, n) for n in models)
    if "queue" in top:
        kwargs["queue"] = tuple(_queue(reader, top["queue"]))
    if "rules" in top:
        kwargs["rules"] = tuple(_rule(reader, n) for n in reader.sequence(top["rules"], "`rules`"))
    return Scenario(**kwargs)


def load_scenario(path: str | Path) -> Scenario:
    """A :class:`Scenario` from a YAML file; raises :class:`ScenarioError` (or ``OSError``)."""
    path = Path(path)
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ScenarioError(
            f"not UTF-8 text (byte {data[exc.start]:#04x} at offset {exc.start}); "
            "save the scenario as UTF-8",
            source=str(path),
            line=line,
        ) from None
    return parse_scenario(text, source=str(path))
