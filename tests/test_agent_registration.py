"""Registration rules, checked locally with a clear ValueError (TypeError for bad signatures)."""

from __future__ import annotations

from typing import Any

import pytest

from surefoot.agent import Agent, action
from surefoot.llm._tools import RESERVED_TOOL_NAMES


class Opaque:
    """A plain class: no JSON schema."""


@pytest.mark.parametrize("name", sorted(RESERVED_TOOL_NAMES))
def test_reserved_names(name: str) -> None:
    def f(x: int) -> int:
        return x

    with pytest.raises(ValueError, match="reserved"):
        action(name=name)(f)
    with pytest.raises(ValueError, match="RESERVED_TOOL_NAME"):
        Agent().add(f, name=name)


def test_name_pattern() -> None:
    with pytest.raises(ValueError, match="1 to 64 characters"):

        @action(name="no spaces")
        def f(x: int) -> int:
            return x


def test_duplicates() -> None:
    agent = Agent()

    @agent.action
    def lookup(x: int) -> int:
        return x

    with pytest.raises(ValueError, match="already registered"):
        agent.add(lookup)
    assert list(agent.actions) == ["lookup"]


def test_max_tools() -> None:
    agent = Agent(max_tools=2)

    def make(n: str) -> Any:
        def f(x: int) -> int:
            return x

        f.__name__ = n
        return f

    agent.add(make("a"))
    agent.add(make("b"))
    with pytest.raises(ValueError, match="TOO_MANY_TOOLS"):
        agent.add(make("c"))


def test_schema_size_ceiling() -> None:
    agent = Agent(max_schema_bytes=200)

    def wide(a: str, b: str, c: str, d: str, e: str, f: str, g: str, h: str) -> str:
        """Too many parameters for a tiny ceiling."""
        return a

    with pytest.raises(ValueError, match="TOOL_SCHEMA_TOO_LARGE"):
        agent.add(wide)


def test_untyped_and_unsupported_parameters() -> None:
    with pytest.raises(TypeError, match="has no type annotation"):

        @action
        def f(x):  # type: ignore[no-untyped-def]
            return x

    with pytest.raises(TypeError, match="no JSON schema"):

        @action
        def g(x: Opaque) -> None:
            return None

    with pytest.raises(TypeError, match=r"\*\*kw"):

        @action
        def h(**kw: int) -> None:
            return None


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="action type"):
        action(type="soap")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="retries"):
        action(retries=-1)
    with pytest.raises(ValueError, match="timeout"):
        action(timeout=0)
    with pytest.raises(TypeError, match="llm must be"):
        Agent(llm="gpt")  # type: ignore[arg-type]


def test_schema_comes_from_the_signature() -> None:
    @action(type="http")
    def forecast(city: str, days: int = 3) -> str:
        """The forecast for a city.

        Args:
            city: the city name
        """
        return city

    spec = forecast.spec
    assert spec.name == "forecast" and spec.description == "The forecast for a city."
    assert spec.parameters["required"] == ["city"]
    assert spec.parameters["properties"]["city"]["description"] == "the city name"
    assert forecast.type == "http"
