"""The README's pytest-plugin example runs, as written, in a user's own test suite."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

README = Path(__file__).resolve().parents[1] / "README.md"


def _example() -> str:
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    found = [b for b in blocks if "def test_my_agent_survives_a_429" in b]
    assert found, "README lost its pytest-plugin example"
    return found[0]


def test_plugin_example_passes_in_a_users_suite(pytester: pytest.Pytester) -> None:
    header = "import surefoot\nfrom surefoot.testing.faults import Status\n\n"
    pytester.makepyfile(test_user=header + _example())
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_plugin_fixtures_are_registered(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_fixtures="""
def test_fixtures(fault_server, fake_clock):
    assert fault_server.base_url.startswith("http://127.0.0.1:")
    fake_clock.sleep(5)
    assert fake_clock.now() == 5
"""
    )
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
