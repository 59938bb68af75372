"""The README's recovery-by-category example (the port of the Java ExceptionsExample) runs."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
MARKER = "# recovery-by-category"
_FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def example(text: str) -> str | None:
    """The fenced ```python block whose first line is the marker, or None."""
    for m in _FENCE.finditer(text):
        block = m.group(1)
        if block.lstrip().startswith(MARKER):
            return block
    return None


def test_recovery_by_category_example_runs() -> None:
    path = Path(os.environ.get("SUREFOOT_README", README))
    code = example(path.read_text(encoding="utf-8"))
    if code is None:
        pytest.skip(f"{path.name} has no ```python block starting with {MARKER!r} yet")
    exec(compile(code, f"{path.name}:{MARKER}", "exec"), {"__name__": "readme_example"})


def test_the_extractor_finds_only_the_marked_block() -> None:
    text = "x\n```python\nprint(1)\n```\n```python\n# recovery-by-category\nA = 1\n```\n"
    assert example(text) == "# recovery-by-category\nA = 1\n"
    assert example("```python\nprint(1)\n```\n") is None
