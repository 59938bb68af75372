"""Run every benchmark (or the ones named) and print their tables: ``python -m bench [NAME...]``.

Names: guard, import, sse, classify, client, redis. Each benchmark measures surefoot and its
anchors in the same run and prints ratios; absolute figures drift with the machine's load, ratios
less so.
"""

from __future__ import annotations

import importlib
import sys
import time

BENCHES = ("guard", "import", "sse", "classify", "client", "sdk", "redis")


def main(argv: list[str]) -> int:
    names = argv or list(BENCHES)
    unknown = [n for n in names if n not in BENCHES]
    if unknown:
        print(f"unknown benchmark(s) {', '.join(unknown)}; choose from {', '.join(BENCHES)}")
        return 2
    for name in names:
        try:
            module = importlib.import_module(f"bench.bench_{name}")
        except ModuleNotFoundError as exc:
            print(f"\n== {name}: skipped ({exc})")
            continue
        print(f"\n== {name} ==", flush=True)
        start = time.perf_counter()
        module.main()
        print(f"({name}: {time.perf_counter() - start:.1f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
