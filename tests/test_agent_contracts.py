"""Contracts: pass, pre fails, post fails, a clause that does not parse, one that raises, and
the restricted evaluator (never eval)."""

from __future__ import annotations

import pytest

import surefoot
from surefoot import ActionCategory, ActionExecutionError, ContractViolationError
from surefoot.agent import Agent, action


def forecast_agent() -> Agent:
    agent = Agent()

    @agent.action(pre=["city != ''", "days <= 14"], post=["len(result) > 0"])
    def forecast(city: str, days: int = 3) -> str:
        return "" if city == "Nowhere" else f"{city}: sunny for {days} days"

    return agent


def violation(err: ActionExecutionError) -> ContractViolationError:
    assert err.category is ActionCategory.VALIDATION and not err.retryable
    assert isinstance(err.__cause__, ContractViolationError)
    return err.__cause__


def test_contracts_pass() -> None:
    assert forecast_agent().execute_action("forecast", {"city": "Paris"}) == (
        "Paris: sunny for 3 days"
    )


async def test_pre_condition_fails_before_the_call() -> None:
    with pytest.raises(ActionExecutionError) as info:
        await forecast_agent().aexecute_action("forecast", {"city": "Paris", "days": 20})
    cv = violation(info.value)
    assert cv.contract_kind == "pre"
    assert cv.violated_expression == "days <= 14"
    assert cv.bindings == {"days": 20}
    assert "days <= 14" in info.value.detailed_message


def test_post_condition_sees_the_result() -> None:
    with pytest.raises(ActionExecutionError) as info:
        forecast_agent().execute_action("forecast", {"city": "Nowhere"})
    cv = violation(info.value)
    assert cv.contract_kind == "post"
    assert cv.violated_expression == "len(result) > 0"
    assert cv.bindings == {"result": ""}


def test_a_clause_that_does_not_parse_is_refused_at_declaration() -> None:
    with pytest.raises(ValueError, match=r"pre-condition 'days <=' of action 'f' does not parse"):

        @action(pre=["days <="])
        def f(days: int) -> int:
            return days


@pytest.mark.parametrize(
    ("clause", "message"),
    [
        ("__import__('os').system('true')", "unknown name '__import__'"),
        ("city.__class__", "attribute '__class__'"),
        ("(lambda: 1)()", "Lambda"),
        ("nope > 1", "unknown name 'nope'"),
        ("[c := 1]", "NamedExpr"),
    ],
)
def test_unsafe_or_unknown_constructs_are_refused_at_declaration(clause: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):

        @action(pre=[clause])
        def f(city: str) -> str:
            return city


async def test_a_clause_that_raises_is_validation_with_the_error_reported() -> None:
    agent = Agent()

    @agent.action(pre=["total / count > 1"])
    def average(total: int, count: int) -> float:
        return total / count

    with pytest.raises(ActionExecutionError) as info:
        await agent.aexecute_action("average", {"total": 4, "count": 0})
    cv = violation(info.value)
    assert isinstance(cv.__cause__, ZeroDivisionError)
    assert "could not be evaluated: ZeroDivisionError" in info.value.detailed_message
    assert cv.bindings == {"total": 4, "count": 0}
    assert agent.execute_action("average", {"total": 4, "count": 2}) == 2.0


def test_calls_outside_the_whitelist_fail_at_evaluation() -> None:
    agent = Agent()

    @agent.action(pre=["items.pop() > 0"])
    def first(items: list[int]) -> int:
        return items[0]

    with pytest.raises(ActionExecutionError) as info:
        agent.execute_action("first", {"items": [1]})
    assert "'pop' on a list is not allowed" in info.value.detailed_message


def test_rich_expressions() -> None:
    agent = Agent()

    @agent.action(
        pre=[
            "all(n > 0 for n in nums)",
            "name.strip().lower().startswith('a') and 0 < len(nums) <= 5",
            "isinstance(meta, dict) and meta.get('k', 0) in (0, 1)",
            "sum([n * 2 for n in nums]) == 2 * sum(nums)",
            "{k: v for k, v in meta.items()} == meta",
            "nums[0] if nums else False",
            "nums[-1:] != [] and -nums[0] < 0 and not None",
        ],
        post=["result['count'] == len(nums)"],
    )
    def stats(name: str, nums: list[int], meta: dict[str, int]) -> dict[str, int]:
        return {"count": len(nums)}

    assert agent.execute_action("stats", {"name": " Ann", "nums": [1, 2], "meta": {"k": 1}}) == {
        "count": 2
    }
    with pytest.raises(ActionExecutionError) as info:
        agent.execute_action("stats", {"name": "Bob", "nums": [1], "meta": {}})
    assert violation(info.value).violated_expression.startswith("name.strip()")


def test_size_bounds() -> None:
    agent = Agent()

    @agent.action(pre=["n ** 100000 > 0"])
    def big(n: int) -> int:
        return n

    with pytest.raises(ActionExecutionError, match="contract bound"):
        agent.execute_action("big", {"n": 2})


def test_post_reserves_result() -> None:
    with pytest.raises(ValueError, match="'result'"):

        @action(post=["result"])
        def f(result: int) -> int:
            return result


def test_contract_violation_is_a_surefoot_validation_error() -> None:
    with pytest.raises(ActionExecutionError) as info:
        forecast_agent().execute_action("forecast", {"city": ""})
    assert isinstance(info.value.__cause__, surefoot.ValidationError)
