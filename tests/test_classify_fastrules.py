"""The classifier's fast rule tables give exactly the verdicts of the reference (the first
matching ``IGNORECASE`` regex of each ordered table), on the corpus and on generated text."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from surefoot._classify import _rules
from surefoot._classify._fastre import RuleTable, lowered, required_literals, trie_pattern

CORPUS = Path(__file__).parent / "data" / "classify_corpus.jsonl"
TABLES = {
    "transport": (_rules.TRANSPORT_RULES, _rules._TRANSPORT),
    "strong": (_rules.STRONG_TEXT, _rules._STRONG),
    "text": (_rules.TEXT_RULES, _rules._TEXT),
}


def _texts() -> list[str]:
    out: list[str] = []
    for line in CORPUS.read_text().splitlines():
        if not line.strip():
            continue
        row: dict[str, Any] = json.loads(line)
        body = row["body"]
        out.append(body if isinstance(body, str) else json.dumps(body))
        if isinstance(body, dict) and isinstance(body.get("error"), dict):
            msg = body["error"].get("message")
            if isinstance(msg, str):
                out.append(msg)
    return out


TEXTS = _texts()
VARIANTS = [
    f(t)
    for t in TEXTS
    for f in (
        lambda s: s,
        str.upper,
        str.title,
        str.swapcase,
        lambda s: s.replace("k", "\u212a"),  # Kelvin sign: folds to k only under IGNORECASE
        lambda s: s.replace("s", "\u017f"),  # long s
        lambda s: "\u00e9 " + s,
    )
]
# the literals the tables are built from, to make generated text hit the rules
VOCAB = sorted(
    {
        lit
        for rows, _ in TABLES.values()
        for _, p in rows
        for lit in (required_literals(p.pattern) or ())
    }
    | {"model", "gpt-4", "not found", "tokens", "per day", "try again", " ", "'", "-", "_", "\n"}
)


def _reference(rows: Any, text: str) -> Any:
    return _rules._text_kind(rows, text)


@pytest.mark.parametrize("table", sorted(TABLES))
def test_fast_tables_agree_with_the_reference_on_the_corpus(table: str) -> None:
    rows, fast = TABLES[table]
    for text in VARIANTS:
        assert fast.first(text, lowered(text)) == _reference(rows, text), (table, text[:200])


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(VOCAB),
            st.sampled_from(VOCAB).map(str.upper),
            st.text(max_size=3),
        ),
        max_size=12,
    )
)
def test_fast_tables_agree_with_the_reference_on_generated_text(parts: list[str]) -> None:
    text = "".join(parts)
    for rows, fast in TABLES.values():
        assert fast.first(text, lowered(text)) == _reference(rows, text)
        # the one-scan pre-filter and the row-by-row one pick the same row
        assert fast.first_index(text, lowered(text)) == fast.first_index_by_row(text, lowered(text))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(alphabet="abc d", min_size=1, max_size=5), min_size=1, max_size=8),
    st.text(alphabet="abc d", max_size=40),
)
def test_trie_pattern_finds_the_longest_word_at_each_position(words: list[str], text: str) -> None:
    """The trie regex, searched as a lookahead, sees every position where a word starts and
    returns the longest word there: so the words present are exactly those it reports plus
    their prefixes (which is what the one-scan pre-filter relies on)."""
    pattern = re.compile("(?=(" + trie_pattern(sorted(set(words))) + "))")
    for i in range(len(text) + 1):
        m = pattern.match(text, i)
        starting = [w for w in set(words) if text.startswith(w, i)]
        if not starting:
            assert m is None or m.group(1) == ""
        else:
            assert m is not None and m.group(1) == max(starting, key=len)


def test_required_literals_are_necessary() -> None:
    for rows, _ in TABLES.values():
        for _, pattern in rows:
            lits = required_literals(pattern.pattern)
            assert lits, pattern.pattern  # every rule has a pre-filter
            low_pattern = re.compile(pattern.pattern, re.DOTALL)
            for text in VARIANTS:
                if text.isascii() and low_pattern.search(text.lower()):
                    assert any(lit in text.lower() for lit in lits), (pattern.pattern, text)


def test_required_literals_shapes() -> None:
    assert required_literals(r"abc") == frozenset({"abc"})
    assert required_literals(r"a(bc|de)f") == frozenset({"bc", "de"})
    assert required_literals(r"(foo|)bar") == frozenset({"bar"})
    assert required_literals(r"x?") is None
    assert required_literals(r"(hello)+ world") == frozenset({" world"})
    assert required_literals(r"(ab|c?)") is None


def test_rule_table_rejects_rules_it_cannot_lower() -> None:
    with pytest.raises(ValueError, match="lower-case"):
        RuleTable([(1, re.compile("TPM", re.IGNORECASE | re.DOTALL))])
    with pytest.raises(ValueError, match="lower-case"):
        RuleTable([(1, re.compile("tpm", re.DOTALL))])
    t = RuleTable([(1, re.compile(r"\btpm\b", re.IGNORECASE | re.DOTALL))])
    assert t.first("per TPM limit", lowered("per TPM limit")) == 1
    assert t.first("", "") is None
    assert t.first("caf\u00e9 TPM", None) == 1


def test_fold_special_is_every_non_ascii_partner_of_an_ascii_letter() -> None:
    """``lowered`` keeps the fast tables for non-ASCII text unless it holds a character that
    ``IGNORECASE`` matches against an ASCII letter, digit or ``_`` without ``str.lower``
    mapping it there: the list must be exactly those characters."""
    from surefoot._classify._fastre import FOLD_SPECIAL

    word = re.compile("[a-z0-9_]", re.IGNORECASE)
    found = {chr(c) for c in range(128, 0x110000) if word.match(chr(c))}
    assert found == FOLD_SPECIAL
    assert all(len(chr(c).lower()) == 1 or chr(c) in FOLD_SPECIAL for c in range(128, 0x3000))


def test_non_ascii_text_takes_the_fast_path_with_the_same_verdicts() -> None:
    for text in (
        "Azure OpenAI\u2019s content management policy",
        "Kelvin \u212aey invalid api key",
    ):
        for reference, table in TABLES.values():
            want = next((k for k, p in reference if p.search(text)), None)
            assert table.first(text, lowered(text)) == want
    assert lowered("it\u2019s") == "it\u2019s"
    assert lowered("\u212a") is None
