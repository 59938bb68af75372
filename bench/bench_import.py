"""Import cost of surefoot against tenacity, stamina and pybreaker, measured in one run.

Each figure is the best of ``RUNS`` fresh interpreters of ``python -c "<statement>"`` minus the
best of ``python -c pass`` (the interpreter's own start-up), in milliseconds; the interpreters
of every statement are interleaved so that the machine's load falls on all of them alike.
``import surefoot`` loads names on first use, so the fair figures for a user are those of the
statements that take what the program uses: ``@resilient`` alone, the breaker and the deadline
with it, or the LLM client.

Run: ``python -m bench import``. Ratios > 1 mean surefoot is cheaper.
"""

from __future__ import annotations

import subprocess
import sys
import time

RUNS = 25

CASES = {
    "surefoot: import surefoot": "import surefoot",
    "surefoot: a function under @resilient": (
        "from surefoot import resilient\nresilient(retries=2)(lambda: 1)"
    ),
    "surefoot: retry + breaker + budget + deadline": (
        "from surefoot import CircuitBreaker, RetryBudget, deadline, resilient\n"
        "resilient(retries=2, timeout=30, breaker=CircuitBreaker('b'), budget=RetryBudget())"
        "(lambda: 1)"
    ),
    "surefoot: the error tree": "from surefoot import SurefootError, RateLimitError",
    "surefoot: LLMClient": "from surefoot import LLMClient",
    "tenacity: import tenacity": "import tenacity",
    "tenacity: a function under @retry": (
        "import tenacity\ntenacity.retry(stop=tenacity.stop_after_attempt(3))(lambda: 1)"
    ),
    "stamina": "import stamina\nstamina.retry(on=Exception, attempts=3)(lambda: 1)",
    "pybreaker": "import pybreaker\npybreaker.CircuitBreaker()(lambda: 1)",
}


def _once(statement: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", statement], check=True)
    return time.perf_counter() - t0


def _compile() -> None:
    """Byte-compile surefoot first, as ``pip install`` does for the anchors: a source tree
    without ``.pyc`` files (an editable install under ``PYTHONDONTWRITEBYTECODE``) would be
    measured compiling itself."""
    import compileall
    from pathlib import Path

    import surefoot

    compileall.compile_dir(str(Path(surefoot.__file__).parent), quiet=1)


def measure(runs: int = RUNS) -> dict[str, float]:
    """Best wall time in ms over ``runs`` interpreters, start-up subtracted."""
    _compile()
    best = {name: float("inf") for name in CASES}
    base = float("inf")
    for _ in range(runs):
        base = min(base, _once("pass"))
        for name, statement in CASES.items():
            try:
                best[name] = min(best[name], _once(statement))
            except subprocess.CalledProcessError:
                best[name] = float("nan")  # an anchor that is not installed
    return {name: max(0.0, (t - base) * 1000) for name, t in best.items()}


def main() -> None:
    figures = measure()
    print(f"\nimport cost (best of {RUNS} interpreters, start-up subtracted)")
    print(f"  {'statement':56} {'ms':>7}")
    for name, ms in figures.items():
        print(f"  {name:56} {ms:7.1f}")
    pairs = [
        ("import surefoot", "surefoot: import surefoot", "tenacity: import tenacity"),
        (
            "@resilient",
            "surefoot: a function under @resilient",
            "tenacity: a function under @retry",
        ),
        (
            "full engine",
            "surefoot: retry + breaker + budget + deadline",
            "tenacity: a function under @retry",
        ),
    ]
    print()
    ok = True
    for label, ours, theirs in pairs:
        ratio = figures[theirs] / figures[ours] if figures[ours] else float("inf")
        ok = ok and (label == "full engine" or figures[ours] <= figures[theirs])
        print(f"  tenacity / surefoot, {label:16} = {ratio:6.2f}x")
    print("\ntargets:")
    print(f"  import surefoot, and @resilient, <= tenacity's     {'PASS' if ok else 'FAIL'}")


if __name__ == "__main__":
    main()
