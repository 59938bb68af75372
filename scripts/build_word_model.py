"""Count the word model (``src/surefoot/_classify/_wordmodel.tsv``) from both corpora.

Every line of ``tests/data/classify_corpus.jsonl`` and ``classify_corpus_2026.jsonl`` is
counted under its label, except the fresh held-out split's: the model, like a rule, must not
have seen the lines that estimate it. The fresh split is the one
``tests/test_classify_corpus.py`` names (``FRESH_SPLIT``), so it is named in one place.
``tests/test_classify_wordmodel.py`` checks that the shipped file is what this script writes.

Usage: ``python scripts/build_word_model.py [--check]`` (``--check`` writes nothing and exits 1
when the shipped file is not current).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from surefoot._classify._input import decode_body  # noqa: E402
from surefoot._classify._wordmodel import count  # noqa: E402

DATA = ROOT / "tests" / "data"
CORPORA = (DATA / "classify_corpus.jsonl", DATA / "classify_corpus_2026.jsonl")
TARGET = ROOT / "src/surefoot/_classify/_wordmodel.tsv"
_FRESH = re.compile(r'^FRESH_SPLIT = "(\w+)"$', re.MULTILINE)


def fresh_split() -> str:
    """The fresh held-out split's name, as the corpus test names it."""
    found = _FRESH.search((ROOT / "tests/test_classify_corpus.py").read_text("utf-8"))
    if found is None:
        raise SystemExit("tests/test_classify_corpus.py names no FRESH_SPLIT")
    return found.group(1)


def model_text(fresh: str) -> str:
    """The data file for every corpus line outside ``fresh``."""
    lines: list[tuple[int | None, str, str]] = []
    for path in CORPORA:
        for raw in path.read_text("utf-8").splitlines():
            if not raw.strip():
                continue
            row = json.loads(raw)
            if row.get("split") == fresh:
                continue
            lines.append((row["status"], decode_body(row["body"]).text, row["kind"]))
    note = f"{len(lines)} corpus lines, every split but {fresh}; scripts/build_word_model.py"
    return count(lines, note=note)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the file is not current")
    args = parser.parse_args(argv)
    text = model_text(fresh_split())
    if args.check:
        current = TARGET.read_text("utf-8") if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET.relative_to(ROOT)} is not current: run scripts/build_word_model.py")
            return 1
        return 0
    TARGET.write_text(text, "utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)} ({len(text.splitlines())} rows)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
