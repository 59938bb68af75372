"""Tools: schemas derived from signatures, argument validation, and each registration rule."""

from __future__ import annotations

import functools
import pickle
import threading
from typing import Annotated, Any, Literal

import pydantic
import pytest

from surefoot.llm._tools import (
    DEFAULT_MAX_SCHEMA_BYTES,
    DEFAULT_MAX_TOOLS,
    RESERVED_TOOL_NAMES,
    ToolArgumentsError,
    ToolRegistry,
    ToolSpec,
    schema_size,
    tool_from_function,
    validate_arguments,
)


class Place(pydantic.BaseModel):
    lat: float
    lon: float


def forecast(
    city: Annotated[str, "The city name"],
    days: int = 3,
    unit: Literal["c", "f"] = "c",
    place: Place | None = None,
    note: Annotated[str, pydantic.Field(description="A free note", max_length=20)] = "",
    limit: int = pydantic.Field(5, ge=1, description="At most this many"),
) -> str:
    """Forecast the weather
    for a city.

    Longer explanation that is not sent.

    Args:
        city: ignored, the Annotated text wins.
        days: How many days
            ahead to forecast.
        unit: Temperature unit.
    """
    return f"{city}:{days}"


def test_schema_from_signature() -> None:
    spec = tool_from_function(forecast)
    assert spec.name == "forecast"
    assert spec.description == "Forecast the weather for a city."
    assert spec.fn is forecast and spec.is_async is False
    assert spec.parameters == {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "city": {"type": "string", "description": "The city name"},
            "days": {
                "type": "integer",
                "default": 3,
                "description": "How many days ahead to forecast.",
            },
            "unit": {
                "type": "string",
                "enum": ["c", "f"],
                "default": "c",
                "description": "Temperature unit.",
            },
            "place": {"anyOf": [{"$ref": "#/$defs/Place"}, {"type": "null"}], "default": None},
            "note": {
                "type": "string",
                "default": "",
                "description": "A free note",
                "maxLength": 20,
            },
            "limit": {
                "type": "integer",
                "default": 5,
                "minimum": 1,
                "description": "At most this many",
            },
        },
        "required": ["city"],
        "$defs": {
            "Place": {
                "type": "object",
                "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
                "required": ["lat", "lon"],
            }
        },
    }


def test_sphinx_docstring_and_overrides() -> None:
    def lookup(key: str, strict: bool = False) -> None:
        """Look a key up.

        :param key: The key to find.
        :param bool strict: Fail when absent.
        """

    spec = tool_from_function(lookup, name="find", description="Custom.")
    assert (spec.name, spec.description) == ("find", "Custom.")
    props = spec.parameters["properties"]
    assert props["key"]["description"] == "The key to find."
    assert props["strict"]["description"] == "Fail when absent."


def test_no_parameters_and_no_docstring() -> None:
    def ping() -> str:
        return "pong"

    spec = tool_from_function(ping)
    assert spec.description == ""
    assert spec.parameters == {"type": "object", "properties": {}, "additionalProperties": False}
    assert validate_arguments(spec, {}) == {}


def test_async_tools_detected() -> None:
    async def fetch(url: str) -> str:
        return url

    class Caller:
        async def __call__(self, q: str) -> str:
            return q

    assert tool_from_function(fetch).is_async
    spec = tool_from_function(Caller(), name="caller")
    assert spec.is_async and spec.parameters["required"] == ["q"]


def test_partial_needs_a_name() -> None:
    part = functools.partial(forecast, days=1)
    with pytest.raises(TypeError, match="pass name="):
        tool_from_function(part)
    assert tool_from_function(part, name="fc").parameters["properties"]["days"]["default"] == 1


def test_awkward_parameter_names() -> None:
    def odd(json: int, model_config: str, copy: bool = True) -> None: ...

    spec = tool_from_function(odd)
    assert set(spec.parameters["properties"]) == {"json", "model_config", "copy"}
    assert validate_arguments(spec, {"json": "1", "model_config": "x"}) == {
        "json": 1,
        "model_config": "x",
        "copy": True,
    }


# --------------------------------------------------------------------------- bad signatures


def test_missing_annotation_is_named() -> None:
    def bad(city: str, x, y: int = 0) -> None:  # type: ignore[no-untyped-def]
        ...

    with pytest.raises(TypeError) as info:
        tool_from_function(bad)
    assert str(info.value) == (
        "parameter 'x' of bad() has no type annotation; annotate it, e.g. x: str"
    )


@pytest.mark.parametrize(
    ("star", "fn"),
    [
        ("*args", lambda *args: None),
        ("**kwargs", lambda **kwargs: None),
    ],
)
def test_star_parameters_refused(star: str, fn: Any) -> None:
    with pytest.raises(TypeError, match=rf"parameter '\{star}'.*named, annotated parameters"):
        tool_from_function(fn, name="x")


def test_positional_only_refused() -> None:
    def pos(a: int, /) -> None: ...

    with pytest.raises(TypeError, match=r"positional-only.*remove the '/'"):
        tool_from_function(pos)


def test_unsupported_type_is_named() -> None:
    def locked(name: str, lock: threading.Event) -> None: ...

    with pytest.raises(TypeError) as info:
        tool_from_function(locked)
    msg = str(info.value)
    assert "parameter 'lock' of" in msg and "locked()" in msg
    assert "no JSON schema" in msg and "pydantic model" in msg


def test_unresolvable_annotation() -> None:
    def fwd(x: NotDefinedAnywhere) -> None:  # type: ignore[name-defined]  # noqa: F821
        ...

    with pytest.raises(TypeError, match=r"cannot read the type hints of .*fwd"):
        tool_from_function(fwd)


def test_not_callable() -> None:
    with pytest.raises(TypeError, match="must be a function"):
        tool_from_function(42)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- argument validation


def test_validate_coerces_and_fills_defaults() -> None:
    spec = tool_from_function(forecast)
    args = validate_arguments(spec, {"city": "Oslo", "days": "4", "place": {"lat": 1, "lon": 2}})
    assert args == {
        "city": "Oslo",
        "days": 4,
        "unit": "c",
        "place": Place(lat=1, lon=2),
        "note": "",
        "limit": 5,
    }
    assert forecast(**args) == "Oslo:4"


def test_validate_names_every_bad_field() -> None:
    spec = tool_from_function(forecast)
    with pytest.raises(ToolArgumentsError) as info:
        validate_arguments(spec, {"days": "soon", "unit": "k", "colour": 1, "limit": 0})
    err = info.value
    assert isinstance(err, ValueError)
    fields = dict(err.problems)
    assert fields["city"] == "missing (required)"
    assert "valid integer" in fields["days"] and "'soon'" in fields["days"]
    assert "'c' or 'f'" in fields["unit"]
    assert fields["colour"].startswith("unexpected argument; the tool takes city, days")
    assert "greater than or equal to 1" in fields["limit"]
    assert str(err).startswith("invalid arguments for tool 'forecast': ")
    assert str(err).endswith("Fix them and call it again.")


def test_validate_nested_and_bounded() -> None:
    spec = tool_from_function(forecast)
    with pytest.raises(ToolArgumentsError) as info:
        validate_arguments(spec, {"city": "x" * 1000 + "y", "place": {"lat": "north"}})
    fields = dict(info.value.problems)
    assert "place.lat" in fields and "place.lon" in fields
    with pytest.raises(ToolArgumentsError) as info:
        validate_arguments(spec, {"city": 5, "note": "z" * 10_000})
    assert len(str(info.value)) < 600  # the offending input is shortened


def test_validate_rejects_non_object() -> None:
    spec = tool_from_function(forecast)
    with pytest.raises(ToolArgumentsError, match="expected a JSON object of arguments, got list"):
        validate_arguments(spec, [1, 2])


def test_validate_hand_written_spec() -> None:
    spec = ToolSpec(
        "raw",
        "",
        {
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "required": ["a"],
            "additionalProperties": False,
        },
    )
    assert validate_arguments(spec, {"a": 1}) == {"a": 1}
    with pytest.raises(ToolArgumentsError) as info:
        validate_arguments(spec, {"b": 1})
    assert info.value.problems == (("a", "missing (required)"), ("b", "unexpected argument"))


def test_tool_arguments_error_pickles() -> None:
    err = ToolArgumentsError("t", [("x", "missing (required)")])
    back = pickle.loads(pickle.dumps(err))
    assert (back.tool_name, back.problems, str(back)) == (err.tool_name, err.problems, str(err))


# --------------------------------------------------------------------------- registration rules


def _tool(name: str) -> ToolSpec:
    return ToolSpec(name, "d", {"type": "object", "properties": {}})


@pytest.mark.parametrize("name", sorted(RESERVED_TOOL_NAMES))
def test_reserved_names_refused(name: str) -> None:
    registry = ToolRegistry()
    with pytest.raises(ValueError) as info:
        registry.register(_tool(name))
    msg = str(info.value)
    assert f"tool name {name!r} is reserved" in msg and "RESERVED_TOOL_NAME" in msg
    assert "rename the function or pass name=" in msg
    assert name not in registry


def test_reserved_list_is_the_platforms() -> None:
    assert len(RESERVED_TOOL_NAMES) == 12
    assert {"exec_agent", "finish", "search_available_tools", "conversation_cat"} <= (
        RESERVED_TOOL_NAMES
    )

    def finish(reason: str) -> None: ...

    with pytest.raises(ValueError, match="reserved"):
        ToolRegistry().register(finish)
    assert ToolRegistry().register(finish, name="finish_task").name == "finish_task"


@pytest.mark.parametrize("name", ["<lambda>", "has space", "x" * 65, "", "naïve", "a.b"])
def test_names_providers_reject(name: str) -> None:
    with pytest.raises(ValueError, match=r"refused by the providers: it must be 1 to 64"):
        ToolRegistry().register(_tool(name))


def test_lambda_needs_a_name() -> None:
    registry = ToolRegistry()
    with pytest.raises(ValueError, match=r"'<lambda>'.*pass name="):
        registry.register(lambda: 0)
    assert registry.register(lambda: 1, name="one-1_ok").name == "one-1_ok"
    assert len("y" * 64) == 64 and registry.register(_tool("y" * 64))


def test_duplicates_refused() -> None:
    registry = ToolRegistry([forecast])
    with pytest.raises(ValueError, match=r"'forecast' is already registered.*pass name="):
        registry.register(forecast)
    registry.register(forecast, name="forecast2")
    assert [s.name for s in registry] == ["forecast", "forecast2"]


def test_max_tools_default_and_configurable() -> None:
    registry = ToolRegistry()
    for i in range(DEFAULT_MAX_TOOLS):
        registry.register(_tool(f"t{i}"))
    assert DEFAULT_MAX_TOOLS == 128 and len(registry) == 128
    with pytest.raises(ValueError) as info:
        registry.register(_tool("one_more"))
    assert "already holds 128 tools" in str(info.value) and "TOO_MANY_TOOLS" in str(info.value)
    assert "raise max_tools" in str(info.value)

    small = ToolRegistry([_tool("a"), _tool("b")], max_tools=2)
    with pytest.raises(ValueError, match="already holds 2 tools"):
        small.register(_tool("c"))


def test_schema_ceiling_default_and_configurable() -> None:
    assert DEFAULT_MAX_SCHEMA_BYTES == 16 * 1024

    def big(choice: str) -> None: ...

    options = tuple(f"option_{i:05d}" for i in range(1500))
    big.__annotations__["choice"] = Literal.__getitem__(options)

    spec = tool_from_function(big)
    assert schema_size(spec) > 16 * 1024
    with pytest.raises(ValueError) as info:
        ToolRegistry().register(spec)
    msg = str(info.value)
    assert f"is {schema_size(spec)} bytes of serialized JSON" in msg
    assert "per-tool ceiling of 16384 bytes" in msg and "TOOL_SCHEMA_TOO_LARGE" in msg
    assert "narrow its parameters" in msg
    assert ToolRegistry(max_schema_bytes=64 * 1024).register(spec) is spec

    tiny = ToolRegistry(max_schema_bytes=100)
    with pytest.raises(ValueError, match="ceiling of 100 bytes"):
        tiny.register(forecast)
    exact = tool_from_function(forecast)
    assert ToolRegistry(max_schema_bytes=schema_size(exact)).register(exact) is exact


@pytest.mark.parametrize("kwargs", [{"max_tools": 0}, {"max_schema_bytes": -1}])
def test_registry_limits_validated(kwargs: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="must be a positive int"):
        ToolRegistry((), **kwargs)


def test_registry_lookup() -> None:
    registry = ToolRegistry([forecast])
    assert "forecast" in registry and registry["forecast"].fn is forecast
    assert registry.get("nope") is None
    assert registry.specs == (registry["forecast"],)
    renamed = registry.register(registry["forecast"], name="fc", description="Short.")
    assert (renamed.name, renamed.description) == ("fc", "Short.")
