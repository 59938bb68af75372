"""The word model: the guess for a failure no rule names, where its status says nothing.

The model itself is pure (counted and parsed here on small hand-made corpora); the shipped
table must be what ``scripts/build_word_model.py`` counts from the corpora, never from the
fresh held-out split.
"""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path
from types import ModuleType

import pytest

from surefoot import classify, classify_event, classify_exception
from surefoot._classify._http import guessed, unknown_unless_named
from surefoot._classify._wordmodel import (
    MAX_CHARS,
    MIN_POSTERIOR,
    WORD_MODEL_LABEL,
    count,
    model,
    parse,
    tokens,
)
from test_classify_corpus import CORPUS, CORPUS_2026, FRESH_SPLIT

ROOT = Path(__file__).resolve().parent.parent


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "build_word_model", ROOT / "scripts" / "build_word_model.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# A small corpus: three kinds, each in its own words.
SMALL = [
    (None, "the upstream worker crashed while sampling", "server_error"),
    (None, "worker crashed during sampling of the batch", "server_error"),
    (None, "the sampling worker crashed again", "server_error"),
    (None, "tenant is not allowed to use this deployment", "permission_denied"),
    (None, "this tenant is not allowed here", "permission_denied"),
    (None, "monthly spend cap of the workspace is spent", "quota_exhausted"),
    (429, "slow down please", "rate_limit"),
]


def test_tokens_are_words_pairs_and_the_status() -> None:
    assert tokens(None, "Model_Not-found: it's GONE 42 x") == [
        "model",
        "not",
        "found",
        "it's",
        "gone",
        "model|not",
        "not|found",
        "found|it's",
        "it's|gone",
        "S-",
    ]
    assert tokens(503, "busy")[-2:] == ["S503", "S5xx"]


def test_tokens_read_only_the_opening_of_a_long_body() -> None:
    long = "alpha " * (MAX_CHARS // 6) + "omega " * 1000
    assert "omega" not in tokens(None, long)


def test_the_words_decide_the_kind_and_are_named() -> None:
    m = parse(count(SMALL))
    found = m.guess(None, "a worker crashed in the middle of sampling")
    assert found is not None
    assert found.kind == "server_error"
    assert found.posterior >= MIN_POSTERIOR
    assert found.reason.startswith(f"{WORD_MODEL_LABEL}: server_error (p=")
    # the words that decided are the ones only server errors held
    assert set(found.evidence) <= {"worker", "crashed", "sampling", "worker crashed"}
    assert found.evidence
    tenant = m.guess(None, "your tenant is not allowed to call this")
    assert tenant is not None and tenant.kind == "permission_denied"


def test_too_few_counted_words_or_an_even_choice_is_no_answer() -> None:
    m = parse(count(SMALL))
    assert m.guess(None, "worker") is None  # one counted word
    assert m.guess(None, "zebra quokka narwhal") is None  # no counted word
    even = parse(count([(None, "gamma delta", "server_error"), (None, "gamma delta", "timeout")]))
    assert even.guess(None, "gamma delta") is None  # 50/50: below MIN_POSTERIOR


def test_counting_does_not_depend_on_the_order_of_lines() -> None:
    shuffled = list(SMALL)
    random.Random(7).shuffle(shuffled)
    assert count(shuffled) == count(SMALL)
    assert parse(count(SMALL)).lines["server_error"] == 3


def test_the_shipped_model_is_counted_from_the_corpora_without_the_fresh_split() -> None:
    script = _script()
    assert script.fresh_split() == FRESH_SPLIT
    shipped = (ROOT / "src/surefoot/_classify/_wordmodel.tsv").read_text("utf-8")
    assert shipped == script.model_text(FRESH_SPLIT), "run scripts/build_word_model.py"
    rows = [
        json.loads(line)
        for path in (CORPUS, CORPUS_2026)
        for line in path.read_text("utf-8").splitlines()
        if line.strip()
    ]
    outside = [r for r in rows if r.get("split") != FRESH_SPLIT]
    assert sum(model().lines.values()) == len(outside)
    assert f"every split but {FRESH_SPLIT}" in shipped.splitlines()[0]


def test_a_statusless_server_sentence_is_guessed_not_a_lost_connection() -> None:
    err = classify(None, {}, "The selected tenant could not be matched to this resource.")
    assert err.kind != "network"
    by = err.context.metadata["classified_by"]
    assert by.startswith(WORD_MODEL_LABEL) and guessed(err)
    assert err.kind == "permission_denied" and not err.retryable


def test_a_statusless_json_failure_in_unknown_words_is_no_lost_connection() -> None:
    err = classify(None, {}, {"detail": {"status": "failure", "message": "routing table empty"}})
    assert err.kind != "network"
    assert guessed(err) or err.kind == "unknown"


def test_a_rule_still_decides_before_the_model() -> None:
    err = classify(None, {}, "httpx.ConnectError: [Errno 111] Connection refused")
    assert err.kind == "network"
    assert not err.context.metadata["classified_by"].startswith(WORD_MODEL_LABEL)


def test_a_status_keeps_its_default() -> None:
    err = classify(400, {}, {"detail": {"status": "failure", "message": "routing table empty"}})
    assert not err.context.metadata["classified_by"].startswith(WORD_MODEL_LABEL)


def test_a_2xx_body_without_a_failure_is_not_guessed() -> None:
    ok = {
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": "the worker crashed while sampling"},
            }
        ]
    }
    err = classify(200, {}, ok)
    assert err.kind == "unknown"
    assert err.context.metadata["classified_by"] == "no failure found in the 2xx response"


def test_an_error_event_in_unknown_words_is_guessed() -> None:
    err = classify_event(
        "error", {"type": "error", "message": "the generation worker fell over while sampling"}
    )
    assert err is not None
    assert err.kind == "server_error" and err.retryable
    assert guessed(err)


def test_callers_who_do_not_know_it_failed_get_unknown_not_a_guess() -> None:
    text = "The selected tenant could not be matched to this resource."
    exc = classify_exception(RuntimeError(text))
    assert exc.kind == "unknown" and not exc.retryable
    plain = unknown_unless_named(classify(None, {}, text), text)
    assert plain.kind == "unknown"


@pytest.mark.parametrize(
    "secret", ["sk-proj-abcdefghijklmnopqrstuvwxyz0123456789", "Bearer eyJhbGciOiJIUzI1NiJ9.abc"]
)
def test_no_secret_reaches_the_reason(secret: str) -> None:
    err = classify(None, {}, f"{secret} The selected tenant could not be matched to this resource.")
    assert secret not in str(err.context.metadata.get("classified_by"))
    assert secret not in repr(err)
