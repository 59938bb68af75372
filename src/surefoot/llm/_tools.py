"""Tools the model can call: :class:`ToolSpec`, schemas derived from Python signatures,
argument validation, and the :class:`ToolRegistry` that enforces the registration rules.

:func:`tool_from_function` builds one pydantic model from a function's parameters; its JSON
schema is what the model sees, and :func:`validate_arguments` checks and coerces the model's
arguments with the same pydantic model, so the schema and the checks never disagree.

* required = the parameters without a default;
* the tool description is the docstring's first paragraph;
* a parameter's description comes from ``Annotated[int, "text"]``, a pydantic ``Field``
  (``Annotated[int, Field(description=...)]`` or ``= Field(..., description=...)``), or the
  docstring (Google ``Args:`` section or Sphinx ``:param x:``), in that order.

Registration rules (each refused with a ``ValueError`` naming the rule and the fix, before
anything is sent): the platform's reserved names, the provider name pattern
``^[a-zA-Z0-9_-]{1,64}$``, duplicates, a maximum number of tools (128 by default) and a
per-tool ceiling on the serialized JSON of the input schema (16 KiB by default).
"""

from __future__ import annotations

import functools
import inspect
import json
import re
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final

import pydantic
from pydantic.fields import FieldInfo

__all__ = [
    "DEFAULT_MAX_SCHEMA_BYTES",
    "DEFAULT_MAX_TOOLS",
    "RESERVED_TOOL_NAMES",
    "ToolArgumentsError",
    "ToolRegistry",
    "ToolSpec",
    "check_tool_name",
    "schema_size",
    "tool_from_function",
    "validate_arguments",
]

#: Names the agent platform keeps for its own tools (RESERVED_TOOL_NAME).
RESERVED_TOOL_NAMES: Final = frozenset(
    (
        "exec_agent",
        "finish",
        "list_agents",
        "search_available_tools",
        "context_ls",
        "context_search",
        "context_grep",
        "context_cat",
        "conversation_ls",
        "conversation_search",
        "conversation_grep",
        "conversation_cat",
    )
)
DEFAULT_MAX_TOOLS: Final = 128
DEFAULT_MAX_SCHEMA_BYTES: Final = 16 * 1024
_NAME: Final = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_SCHEMA_ERRORS = (
    pydantic.PydanticSchemaGenerationError,
    pydantic.PydanticInvalidForJsonSchema,
    pydantic.PydanticUserError,
    TypeError,
    ValueError,
)


class ToolArgumentsError(ValueError):
    """The model's arguments for a tool are missing, unexpected or of a wrong type.

    ``problems`` lists ``(field, what is wrong)``; ``str()`` is written for the model to read
    and fix its call.
    """

    def __init__(self, tool_name: str, problems: Iterable[tuple[str, str]]) -> None:
        self.tool_name = tool_name
        self.problems = tuple(problems)
        listed = "; ".join(f"{f}: {why}" if f else why for f, why in self.problems)
        super().__init__(
            f"invalid arguments for tool {tool_name!r}: {listed}. Fix them and call it again."
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.tool_name, self.problems))


@dataclass(frozen=True, slots=True, eq=False)
class ToolSpec:
    """One tool: its name, description, JSON schema of its input, and the function to run.

    ``model`` is the pydantic model behind the schema (``None`` for a hand-written spec, whose
    arguments are then only checked for required and unexpected keys).
    """

    name: str
    description: str
    parameters: dict[str, Any]
    fn: Callable[..., Any] | None = None
    is_async: bool = False
    model: type[pydantic.BaseModel] | None = field(default=None, repr=False)


def check_tool_name(name: str) -> None:
    """Raise ``ValueError`` unless providers accept ``name`` and it is not reserved."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(
            f"tool name {name!r} is refused by the providers: it must be 1 to 64 characters "
            "among a-z, A-Z, 0-9, '_' and '-'; rename the function or pass name='...'"
        )
    if name in RESERVED_TOOL_NAMES:
        raise ValueError(
            f"tool name {name!r} is reserved by the agent platform (RESERVED_TOOL_NAME) and "
            "is never released; rename the function or pass name='...'"
        )


def schema_size(spec: ToolSpec) -> int:
    """Bytes of the compact serialized JSON of ``spec``'s input schema."""
    return len(json.dumps(spec.parameters, separators=(",", ":")).encode())


def _label(fn: Callable[..., Any]) -> str:
    """``Class.method`` or ``function``, without the ``outer.<locals>.`` prefix."""
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
    if not isinstance(name, str):
        return type(fn).__name__
    return name.rsplit(".<locals>.", 1)[-1]


_SECTION: Final = re.compile(r"(args|arguments|parameters|params)\s*:\s*$", re.I)
_OTHER: Final = re.compile(r"(returns?|raises|yields|examples?|notes?|see also)\s*:\s*$", re.I)
_GOOGLE: Final = re.compile(r"(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)")
_SPHINX: Final = re.compile(r":param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)")


def _docs(doc: str) -> tuple[str, dict[str, str]]:
    """The first paragraph and the per-parameter descriptions (Google ``Args:`` section or
    Sphinx ``:param x:`` lines) of a cleaned docstring."""
    lines = doc.splitlines()
    summary: list[str] = []
    for line in lines:
        s = line.strip()
        if not s or _SECTION.match(s) or _OTHER.match(s) or s.startswith(":"):
            break
        summary.append(s)
    params: dict[str, str] = {}
    current: str | None = None
    base: int | None = None
    in_args = False
    for line in lines:
        s = line.strip()
        indent = len(line) - len(line.lstrip())
        sphinx = _SPHINX.match(s)
        if sphinx:
            current, in_args = sphinx[1], False
            params[current] = sphinx[2].strip()
        elif _SECTION.match(s):
            in_args, current, base = True, None, None
        elif not in_args or not s:
            continue
        elif _OTHER.match(s) or (base is not None and indent < base):
            in_args, current = False, None
        else:
            base = indent if base is None else base
            google = _GOOGLE.match(s)
            if indent == base and google:
                current = google[1]
                params[current] = google[2].strip()
            elif current is not None:
                params[current] = f"{params[current]} {s}".strip()
    return " ".join(summary), params


def _has_description(annotation: Any, default: Any) -> bool:
    infos = [m for m in getattr(annotation, "__metadata__", ()) if isinstance(m, FieldInfo)]
    if isinstance(default, FieldInfo):
        infos.append(default)
    return any(i.description for i in infos)


def _strip_titles(schema: dict[str, Any]) -> None:
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        if isinstance(prop, dict):
            prop.pop("title", None)
    for sub in schema.get("$defs", {}).values():
        if isinstance(sub, dict):
            _strip_titles(sub)


def tool_from_function(
    fn: Callable[..., Any], *, name: str | None = None, description: str | None = None
) -> ToolSpec:
    """A :class:`ToolSpec` whose schema comes from ``fn``'s signature and type hints.

    Raises ``TypeError`` naming the function and parameter for a missing or unsupported
    annotation, for ``*args``/``**kwargs`` and for positional-only parameters.
    """
    if not callable(fn):
        raise TypeError(f"a tool must be a function, not {type(fn).__name__}")
    target = fn.func if isinstance(fn, functools.partial) else fn
    label = _label(target)
    tool_name = name or getattr(fn, "__name__", None)
    if not tool_name:
        raise TypeError(f"{label} has no __name__; pass name='...' for this tool")
    try:
        sig = inspect.signature(fn)
        source: Any = target if inspect.isroutine(target) else type(target).__call__
        hints = typing.get_type_hints(source, include_extras=True)
    except (NameError, TypeError, ValueError, AttributeError) as exc:
        raise TypeError(
            f"cannot read the type hints of {label}() ({exc}); import every name used in its "
            "annotations at module level"
        ) from None
    summary, param_docs = _docs(inspect.getdoc(target) or "")
    fields: dict[str, Any] = {}
    for i, (pname, p) in enumerate(sig.parameters.items()):
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            star = "*" if p.kind is p.VAR_POSITIONAL else "**"
            raise TypeError(
                f"parameter '{star}{pname}' of {label}() cannot be described to a model; "
                "replace it with named, annotated parameters"
            )
        if p.kind is p.POSITIONAL_ONLY:
            raise TypeError(
                f"parameter {pname!r} of {label}() is positional-only, but tools are called "
                "with keyword arguments; remove the '/' from the signature"
            )
        if pname not in hints:
            raise TypeError(
                f"parameter {pname!r} of {label}() has no type annotation; annotate it, "
                f"e.g. {pname}: str"
            )
        ann = hints[pname]
        default = p.default
        extra: dict[str, Any] = {"alias": pname}
        if not _has_description(ann, default):
            texts = [m for m in getattr(ann, "__metadata__", ()) if isinstance(m, str)]
            desc = texts[0] if texts else param_docs.get(pname)
            if desc:
                extra["description"] = desc
        if isinstance(default, FieldInfo):
            info = FieldInfo.merge_field_infos(default, pydantic.Field(**extra))
        elif default is p.empty:
            info = pydantic.Field(**extra)
        else:
            info = pydantic.Field(default, **extra)
        fields[f"p{i}"] = (ann, info)
    config = pydantic.ConfigDict(extra="forbid")
    try:
        model = pydantic.create_model(f"{tool_name}_arguments", __config__=config, **fields)
        schema = model.model_json_schema()
    except _SCHEMA_ERRORS as exc:
        raise _unsupported(label, sig, hints, exc) from None
    _strip_titles(schema)
    call = getattr(fn, "__call__", None)  # noqa: B004 - an async __call__ counts too
    is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(call)
    text = summary if description is None else description
    return ToolSpec(tool_name, text, schema, fn, is_async, model)


def _unsupported(
    label: str, sig: inspect.Signature, hints: dict[str, Any], exc: Exception
) -> TypeError:
    """The TypeError naming the first parameter whose type has no JSON schema."""
    for pname in sig.parameters:
        hint = hints[pname]
        try:
            pydantic.TypeAdapter(hint).json_schema()
        except _SCHEMA_ERRORS:
            shown = getattr(hint, "__name__", None) or repr(hint)
            return TypeError(
                f"parameter {pname!r} of {label}() has type {shown}, which has no JSON schema; "
                "annotate it with JSON types (str, int, float, bool, list, dict, Literal, Enum) "
                "or a pydantic model"
            )
    return TypeError(f"cannot build the JSON schema of {label}(): {str(exc).splitlines()[0]}")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def validate_arguments(spec: ToolSpec, args: Any) -> dict[str, Any]:
    """``args`` checked and coerced for ``spec`` (defaults filled), as keyword arguments.

    Raises :class:`ToolArgumentsError` naming every missing, unexpected or wrong field.
    """
    if not isinstance(args, Mapping):
        raise ToolArgumentsError(
            spec.name, [("", f"expected a JSON object of arguments, got {type(args).__name__}")]
        )
    if spec.model is None:
        return _check_keys(spec, args)
    try:
        instance = spec.model.model_validate(dict(args))
    except pydantic.ValidationError as exc:
        expected = ", ".join(sorted(spec.parameters.get("properties", {}))) or "no arguments"
        problems: list[tuple[str, str]] = []
        for err in exc.errors(include_url=False):
            where = ".".join(str(part) for part in err["loc"])
            if err["type"] == "missing":
                problems.append((where, "missing (required)"))
            elif err["type"] == "extra_forbidden":
                problems.append((where, f"unexpected argument; the tool takes {expected}"))
            else:
                problems.append((where, f"{err['msg']} (got {_short(err.get('input'))})"))
        raise ToolArgumentsError(spec.name, problems) from None
    fields = type(instance).model_fields
    return {info.alias or key: getattr(instance, key) for key, info in fields.items()}


def _check_keys(spec: ToolSpec, args: Mapping[str, Any]) -> dict[str, Any]:
    props = spec.parameters.get("properties", {})
    required = spec.parameters.get("required", [])
    problems = [(k, "missing (required)") for k in required if k not in args]
    if spec.parameters.get("additionalProperties") is False:
        problems += [(k, "unexpected argument") for k in args if k not in props]
    if problems:
        raise ToolArgumentsError(spec.name, problems)
    return dict(args)


class ToolRegistry:
    """The tools offered to a model, checked at registration (see the module docstring)."""

    def __init__(
        self,
        tools: Iterable[Callable[..., Any] | ToolSpec] = (),
        *,
        max_tools: int = DEFAULT_MAX_TOOLS,
        max_schema_bytes: int = DEFAULT_MAX_SCHEMA_BYTES,
    ) -> None:
        if not isinstance(max_tools, int) or max_tools < 1:
            raise ValueError(f"max_tools must be a positive int, got {max_tools!r}")
        if not isinstance(max_schema_bytes, int) or max_schema_bytes < 1:
            raise ValueError(f"max_schema_bytes must be a positive int, got {max_schema_bytes!r}")
        self.max_tools = max_tools
        self.max_schema_bytes = max_schema_bytes
        self._tools: dict[str, ToolSpec] = {}
        for tool in tools:
            self.register(tool)

    def register(
        self,
        tool: Callable[..., Any] | ToolSpec,
        *,
        name: str | None = None,
        description: str | None = None,
    ) -> ToolSpec:
        """Add a function (its schema derived) or a ready :class:`ToolSpec`; returns the spec."""
        if isinstance(tool, ToolSpec):
            spec = tool
            if name is not None or description is not None:
                spec = replace(
                    spec, name=name or spec.name, description=description or spec.description
                )
        else:
            spec = tool_from_function(tool, name=name, description=description)
        check_tool_name(spec.name)
        if spec.name in self._tools:
            raise ValueError(
                f"a tool named {spec.name!r} is already registered; tool names must be unique, "
                "so rename one or pass name='...'"
            )
        if len(self._tools) >= self.max_tools:
            raise ValueError(
                f"cannot register {spec.name!r}: the registry already holds {len(self._tools)} "
                f"tools, the maximum (TOO_MANY_TOOLS); offer fewer tools per run or raise "
                "max_tools"
            )
        size = schema_size(spec)
        if size > self.max_schema_bytes:
            raise ValueError(
                f"the input schema of tool {spec.name!r} is {size} bytes of serialized JSON, "
                f"over the per-tool ceiling of {self.max_schema_bytes} bytes "
                "(TOOL_SCHEMA_TOO_LARGE); narrow its parameters and shorten their "
                "descriptions, or raise max_schema_bytes"
            )
        self._tools[spec.name] = spec
        return spec

    def get(self, name: str) -> ToolSpec | None:
        return self._tools.get(name)

    def __getitem__(self, name: str) -> ToolSpec:
        return self._tools[name]

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[ToolSpec]:
        return iter(tuple(self._tools.values()))

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        return tuple(self._tools.values())
