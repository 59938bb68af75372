"""The conformance corpus: every line classified with the right kind and retryability."""

from __future__ import annotations

import collections
import json
from pathlib import Path
from typing import Any

import pytest

from surefoot import KINDS, classify

CORPUS = Path(__file__).parent / "data" / "classify_corpus.jsonl"
THRESHOLD = 0.97


def _rows() -> list[dict[str, Any]]:
    if not CORPUS.exists():
        return []
    return [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]


ROWS = _rows()


def _verdict(row: dict[str, Any]) -> tuple[str, bool]:
    err = classify(row["status"], row.get("headers") or {}, row["body"], provider=row["provider"])
    return err.kind, err.retryable


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_corpus_line(row: dict[str, Any]) -> None:
    assert row["kind"] in KINDS
    kind, retryable = _verdict(row)
    assert (kind, retryable) == (row["kind"], row["retryable"]), (
        f"{row['id']}: got {kind}/{retryable}, corpus says {row['kind']}/{row['retryable']} "
        f"(source: {row['source']})"
    )


def test_corpus_accuracy() -> None:
    assert len(ROWS) >= 100, "the corpus should hold at least 100 failures"
    hits: collections.Counter[str] = collections.Counter()
    totals: collections.Counter[str] = collections.Counter()
    for row in ROWS:
        totals[row["kind"]] += 1
        if _verdict(row) == (row["kind"], row["retryable"]):
            hits[row["kind"]] += 1
    accuracy = sum(hits.values()) / len(ROWS)
    lines = [f"corpus accuracy {accuracy:.1%} ({sum(hits.values())}/{len(ROWS)})"]
    for kind in sorted(totals):
        lines.append(f"  {kind:<20} {hits[kind]}/{totals[kind]}")
    print("\n".join(lines))
    assert accuracy >= THRESHOLD, "\n".join(lines)


def test_every_corpus_line_has_a_source() -> None:
    for row in ROWS:
        assert row.get("source"), row["id"]
        assert row["where"] in {"http", "body200", "sse", "transport"}, row["id"]
