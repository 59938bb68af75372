"""The coverage-guided fuzzer (scripts/fuzz.py, atheris) over every server-facing parser: a
short run per target in CI, a longer one in ``make reliability``; a crash fails with its input.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from _budget import examples

atheris = pytest.importorskip("atheris", reason="atheris does not install on this platform")

FUZZ = Path(__file__).resolve().parents[2] / "scripts" / "fuzz.py"
TARGETS = ("classify", "inspect", "event", "ratelimit", "problem", "sse")


@pytest.mark.parametrize("target", TARGETS)
def test_no_parser_crashes_under_coverage_guided_fuzzing(target: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(FUZZ), target, f"-runs={examples(20_000)}", "-seed=1"],
        capture_output=True,
        text=True,
        cwd=tmp_path,  # a crash writes its input here
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert f"Done {examples(20_000)} runs" in done.stderr
