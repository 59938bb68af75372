"""The option contract, as one table: the same bad value of a shared option is refused the same
way by every public constructor that takes it.

The contract (:mod:`surefoot._check`): a wrong *type* raises ``TypeError``, a wrong *value*
``ValueError``; the message reads ``"<option> must be <rule>, got <value>"``, optionally
followed by ``"; <fix>"``; ``bool`` is never a number; a timeout of ``None`` or ``math.inf``
means "no limit" and 0, negative or NaN is refused.

Each row of :data:`ROWS` is ``(option, bad value, exception class, message regex)``; its columns
are the constructors of :data:`TAKES` that take the option, each built with minimal valid other
arguments. Test ids read ``option-value-constructor``.
"""

from __future__ import annotations

import asyncio
import inspect
import math
import re
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

import surefoot
from surefoot import Agent, action, resilient
from surefoot.guard import CircuitBreaker, Guard, RetryBudget, SharedRateLimiter
from surefoot.llm import AsyncLLMClient, LLMClient
from surefoot.policy import RetryPolicy

CLIENT: dict[str, Any] = {"base_url": "http://127.0.0.1:9/v1", "model": "m"}

# -- the columns: how to build each constructor, and what it reports as its effective timeout ------


def _action_fn(x: int) -> int:
    """A minimal action."""
    return x


def _plain(x: int) -> int:
    return x


def _build_guard(kw: dict[str, Any]) -> Any:
    return Guard(**kw)


def _build_resilient(kw: dict[str, Any]) -> Any:
    return resilient(**kw)(_plain)


def _build_llm_client(kw: dict[str, Any]) -> Any:
    client = LLMClient(**CLIENT, **kw)
    client.close()
    return client


def _build_async_llm_client(kw: dict[str, Any]) -> Any:
    client = AsyncLLMClient(**CLIENT, **kw)
    asyncio.run(client.aclose())
    return client


def _build_action(kw: dict[str, Any]) -> Any:
    return action(**kw)(_action_fn)


BUILD: dict[str, Callable[[dict[str, Any]], Any]] = {
    "Guard": _build_guard,
    "resilient": _build_resilient,
    "RetryPolicy": lambda kw: RetryPolicy(**kw),
    "CircuitBreaker": lambda kw: CircuitBreaker(**kw),
    "RetryBudget": lambda kw: RetryBudget(**kw),
    "SharedRateLimiter": lambda kw: SharedRateLimiter(**kw),
    "LLMClient": _build_llm_client,
    "AsyncLLMClient": _build_async_llm_client,
    "action": _build_action,
    "Agent": lambda kw: Agent(**kw),
}

#: The effective time limit of what a column built: ``None`` is "no limit".
EFFECTIVE_TIMEOUT: dict[str, Callable[[Any], float | None]] = {
    "Guard": lambda g: g.timeout,
    "resilient": lambda wrapper: wrapper.guard.timeout,
    "LLMClient": lambda c: c._opts.timeout,
    "AsyncLLMClient": lambda c: c._opts.timeout,
    "action": lambda a: a.timeout,
}

_GUARD = {
    "timeout",
    "retries",
    "retry_base",
    "max_delay",
    "max_hint",
    "on_error",
    "clock",
    "breaker",
    "budget",
    "hooks",
    "random",
}
_CLIENT = (_GUARD - {"random"}) | {"max_connections"}

#: Which constructor takes which option of the table (pinned against the signatures below).
TAKES: dict[str, set[str]] = {
    "Guard": _GUARD,
    "resilient": _GUARD,
    "RetryPolicy": {"retries", "retry_base", "max_delay", "max_hint", "on_error", "random"},
    "CircuitBreaker": {"clock", "failure_threshold", "recovery_timeout"},
    "RetryBudget": {"capacity"},
    "SharedRateLimiter": {"clock", "max_wait", "key"},
    "LLMClient": _CLIENT,
    "AsyncLLMClient": _CLIENT,
    "action": {"timeout", "retries", "retry_base", "max_delay", "type", "approval"},
    "Agent": {"clock", "llm", "approver", "permission_check", "max_tools", "max_schema_bytes"},
}

# -- the rows --------------------------------------------------------------------------------------


def _msg(option: str, shown: str) -> str:
    """The one message form: ``<option> must be <rule>, got <shown>`` then maybe ``; <fix>``."""
    return rf"^{re.escape(option)} must be .+, got {re.escape(shown)}(; .+)?$"


_CLOCK = r"^clock must be a surefoot\.Clock\b.*, got {}(; .+)?$"


@dataclass(frozen=True)
class Row:
    option: str
    value: Any
    exc: type[Exception]
    pattern: str

    @property
    def id(self) -> str:
        return f"{self.option}-{_value_id(self.value)}"


def _value_id(value: object) -> str:
    if isinstance(value, str):
        return f"str{value!r}" if value else "empty-str"
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    if type(value) is object:
        return "object()"
    if isinstance(value, int) and not isinstance(value, bool) and value >= 10**6:
        exponent = len(str(value)) - 1
        return f"10**{exponent}" if value == 10**exponent else repr(value)
    return repr(value)


def _numeric_rows(option: str) -> list[Row]:
    """A number of seconds >= 0: the rows of ``retry_base``, ``max_delay``, ``max_hint``..."""
    return [
        Row(option, "1", TypeError, _msg(option, "str '1'")),
        Row(option, True, TypeError, _msg(option, "bool True")),
        Row(option, -1, ValueError, _msg(option, "-1")),
        Row(option, math.inf, ValueError, _msg(option, "inf")),
        Row(option, math.nan, ValueError, _msg(option, "nan")),
    ]


ROWS: list[Row] = [
    # timeout: seconds > 0, or None / math.inf for no limit (the accepted values are below).
    Row("timeout", "5", TypeError, _msg("timeout", "str '5'")),
    Row("timeout", True, TypeError, _msg("timeout", "bool True")),
    Row("timeout", 0, ValueError, _msg("timeout", "0")),
    Row("timeout", -1, ValueError, _msg("timeout", "-1")),
    Row("timeout", -math.inf, ValueError, _msg("timeout", "-inf")),
    Row("timeout", math.nan, ValueError, _msg("timeout", "nan")),
    # retries: an int, never a bool, bounded.
    Row("retries", "2", TypeError, _msg("retries", "str '2'")),
    Row("retries", 1.5, TypeError, _msg("retries", "1.5")),
    Row("retries", True, TypeError, _msg("retries", "bool True")),
    Row("retries", -1, ValueError, _msg("retries", "-1")),
    Row("retries", 10**6, ValueError, _msg("retries", "1000000")),
    *_numeric_rows("retry_base"),
    *_numeric_rows("max_delay"),
    *_numeric_rows("max_hint"),
    # the callables and the shared objects
    Row("on_error", 3, TypeError, _msg("on_error", "3")),
    Row("random", 3, TypeError, _msg("random", "3")),
    Row("clock", 3, TypeError, _CLOCK.format("3")),
    Row("clock", object(), TypeError, _CLOCK.format(r"object <object object at 0x[0-9a-f]+>")),
    Row("breaker", 3, TypeError, _msg("breaker", "3")),
    Row("budget", 3, TypeError, _msg("budget", "3")),
    Row("hooks", 5, TypeError, _msg("hooks", "5")),
    # the clients' pool size
    Row("max_connections", 0, ValueError, _msg("max_connections", "0")),
    Row("max_connections", "10", TypeError, _msg("max_connections", "str '10'")),
    # class-specific options
    Row("failure_threshold", 0, ValueError, _msg("failure_threshold", "0")),
    Row("failure_threshold", "3", TypeError, _msg("failure_threshold", "str '3'")),
    Row("recovery_timeout", -1, ValueError, _msg("recovery_timeout", "-1")),
    Row("recovery_timeout", "x", TypeError, _msg("recovery_timeout", "str 'x'")),
    Row("capacity", 0, ValueError, _msg("capacity", "0")),
    Row("capacity", "x", TypeError, _msg("capacity", "str 'x'")),
    Row("max_wait", -1, ValueError, _msg("max_wait", "-1")),
    Row("max_wait", "x", TypeError, _msg("max_wait", "str 'x'")),
    Row("key", "", ValueError, _msg("key", "str ''")),
    Row("key", 3, TypeError, _msg("key", "3")),
    Row("type", "soap", ValueError, _msg("type", "str 'soap'")),
    Row("type", 3, TypeError, _msg("type", "3")),
    Row("approval", "", ValueError, _msg("approval", "str ''")),
    Row("approval", 3, TypeError, _msg("approval", "3")),
    Row("llm", 3, TypeError, _msg("llm", "3")),
    Row("llm", "gpt", TypeError, _msg("llm", "str 'gpt'")),
    Row("approver", 3, TypeError, _msg("approver", "3")),
    Row("permission_check", "no", TypeError, _msg("permission_check", "str 'no'")),
    Row("max_tools", 0, ValueError, _msg("max_tools", "0")),
    Row("max_tools", "3", TypeError, _msg("max_tools", "str '3'")),
    Row("max_schema_bytes", 0, ValueError, _msg("max_schema_bytes", "0")),
    Row("max_schema_bytes", True, TypeError, _msg("max_schema_bytes", "bool True")),
]

OPTIONS = {row.option for row in ROWS}


def _columns(option: str) -> list[str]:
    return [name for name, takes in TAKES.items() if option in takes]


def _cells() -> Iterator[Any]:
    for row in ROWS:
        for ctor in _columns(row.option):
            yield pytest.param(row, ctor, id=f"{row.id}-{ctor}")


def _raised(ctor: str, kw: dict[str, Any]) -> Exception:
    with pytest.raises(Exception) as info:
        BUILD[ctor](kw)
    return info.value


# -- the table -------------------------------------------------------------------------------------


#: Cells whose message shows the value's type name where the contract shows the value
#: (``got int`` for ``got 3``), in modules outside the agent: their exception class and their
#: ``"<option> must be "`` prefix are still checked; only the ``got <value>`` part is expected to
#: fail, and a cell that starts passing fails the test until it is removed from here.
KNOWN_GAPS: dict[tuple[str, str], str] = {}


@pytest.mark.parametrize(("row", "ctor"), list(_cells()))
def test_bad_value_is_refused_by_the_contract(row: Row, ctor: str) -> None:
    err = _raised(ctor, {row.option: row.value})
    assert type(err) is row.exc, f"{ctor}({row.option}={row.value!r}) raised {err!r}"
    assert str(err).startswith(f"{row.option} must be "), f"{ctor}: {err}"
    gap = KNOWN_GAPS.get((row.id, ctor))
    matched = re.match(row.pattern, str(err)) is not None
    if gap is not None:
        assert not matched, f"fixed: remove {(row.id, ctor)} from KNOWN_GAPS"
        pytest.xfail(f"{gap}: {err}")
    assert matched, f"{ctor}: {err}"


@pytest.mark.parametrize("row", [pytest.param(row, id=row.id) for row in ROWS])
def test_every_constructor_refuses_a_bad_value_the_same_way(row: Row) -> None:
    columns = _columns(row.option)
    assert columns, f"no constructor takes {row.option}"
    errors = {ctor: _raised(ctor, {row.option: row.value}) for ctor in columns}
    kinds = {ctor: type(err) for ctor, err in errors.items()}
    assert set(kinds.values()) == {row.exc}, kinds
    for ctor, err in errors.items():
        assert str(err).startswith(f"{row.option} must be "), f"{ctor}: {err}"


@pytest.mark.parametrize("value", [None, math.inf], ids=["None", "inf"])
@pytest.mark.parametrize("ctor", _columns("timeout"))
def test_no_timeout_means_no_limit(ctor: str, value: float | None) -> None:
    built = BUILD[ctor]({"timeout": value})
    assert EFFECTIVE_TIMEOUT[ctor](built) is None


@pytest.mark.parametrize("ctor", _columns("timeout"))
def test_a_finite_timeout_is_kept(ctor: str) -> None:
    built = BUILD[ctor]({"timeout": 2.5})
    assert EFFECTIVE_TIMEOUT[ctor](built) == 2.5


def test_an_action_with_no_limit_and_no_retries_runs_unguarded() -> None:
    # timeout=math.inf is "no limit", exactly as timeout=None: no guard is built for it.
    assert _build_action({"timeout": math.inf}).guard() is None
    assert _build_action({"timeout": None}).guard() is None
    guard = _build_action({"timeout": 2.5}).guard()
    assert guard is not None and guard.timeout == 2.5


@pytest.mark.parametrize(
    "row", [pytest.param(row, id=row.id) for row in ROWS if "Guard" in _columns(row.option)]
)
def test_resilient_refuses_at_decoration_time_as_guard_does(row: Row) -> None:
    bad = {row.option: row.value}
    with pytest.raises(Exception) as guard_info:
        Guard(**bad)
    with pytest.raises(Exception) as resilient_info:
        resilient(**bad)  # before any function is decorated, let alone called
    assert type(resilient_info.value) is type(guard_info.value)
    assert str(resilient_info.value) == str(guard_info.value)


@pytest.mark.parametrize(
    "row",
    [
        pytest.param(row, id=row.id)
        for row in ROWS
        if {"Guard", "action"} <= {*_columns(row.option)}
    ],
)
def test_action_refuses_at_declaration_time_as_guard_does(row: Row) -> None:
    bad = {row.option: row.value}
    with pytest.raises(Exception) as guard_info:
        Guard(**bad)
    with pytest.raises(Exception) as action_info:
        action(**bad)
    assert type(action_info.value) is type(guard_info.value)
    assert str(action_info.value) == str(guard_info.value)


# -- the table covers what the constructors take ---------------------------------------------------


def _parameters(ctor: str) -> set[str]:
    fn: Any
    if ctor == "resilient":
        fn = typing.get_overloads(resilient)[-1]  # the keyword form
    elif ctor in ("LLMClient", "AsyncLLMClient"):
        from surefoot.llm._base import ClientBase

        fn = ClientBase.__init__  # the clients forward **options to it
    elif ctor == "action":
        fn = typing.get_overloads(action)[-1]
    elif ctor == "RetryPolicy":
        fn = RetryPolicy
    else:
        fn = getattr(surefoot, ctor).__init__
    return set(inspect.signature(fn).parameters)


@pytest.mark.parametrize("ctor", list(TAKES))
def test_the_columns_match_the_signatures(ctor: str) -> None:
    assert _parameters(ctor) & OPTIONS == TAKES[ctor]


def test_every_option_of_the_brief_has_rows_and_columns() -> None:
    shared = {
        "timeout",
        "retries",
        "retry_base",
        "max_delay",
        "max_hint",
        "on_error",
        "clock",
        "breaker",
        "budget",
        "hooks",
        "random",
        "max_connections",
        "recovery_timeout",
        "failure_threshold",
        "capacity",
        "max_wait",
        "key",
    }
    assert shared <= OPTIONS
    for option in OPTIONS:
        assert _columns(option), option
