"""Redaction against two corpora: every credential shape masked, every ordinary message intact.

* ``tests/data/credentials_corpus.jsonl``: realistic lines (headers, JSON bodies, URLs, log
  lines, reprs, SDK error messages) each embedding FAKE credentials of a documented shape
  (``credentials_corpus.md`` says where each shape comes from). Every listed secret must be gone
  and the text just before it (its label) kept, followed by ``[REDACTED]``.
* the human-readable strings of every ``tests/data/classify_corpus*.jsonl`` line's ``body``,
  plus a hand list of sentences with the trigger words: ``redact(s) == s``.
"""

from __future__ import annotations

import glob
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from surefoot import _redact
from surefoot._redact import redact

DATA = Path(__file__).parent / "data"
MASK = "[REDACTED]"

#: Classifier-corpus lines that genuinely contain a credential, so their body changes.
ALLOWED_CREDENTIALS = {
    # "Incorrect API key provided: sk-VKMIs***...wjh3": OpenAI's own masked echo of a key; the
    # sk- shape masks it whole (by choice: it still shows nine characters of the key).
    "openai-invalid-api-key-401",
    # "Rate limit exceeded for api_key: b2f139a7...": LiteLLM's echo of a key's first
    # characters after the api_key label; the label masks what follows (by choice: a key's
    # prefix is still part of the key)
    "proxy-litellm-gateway-key-rpm-limit-429",
    # Ollama's sign-in URL "https://ollama.com/connect?name=hostname&key=publickey": a key=
    # query parameter masks whatever it holds (by choice: Google's API keys travel as ?key=),
    # here the device's public key
    "ollama-401-unauthorized-signin-url",
    # a relay's own masked echo "[sk-***REDACTED***]": the sk- shape masks it again (by
    # choice: the shape is matched, whatever follows it)
    "relay-401-token-amount-exhausted-reranker",
}

ORDINARY = [
    "the caller gets every token exactly once",
    "Token limit exceeded",
    "max_tokens is too large",
    "max_tokens: 128001 > 64000, which is the maximum allowed number of output tokens",
    "Invalid API key provided",
    "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
    "Basic usage",
    "Basic Authentication is not supported for this endpoint",
    "Bearer of bad news",
    "Bearer authentication is required",
    "Expected 'Authorization: Bearer <token>'",
    "secret sauce",
    "password reset",
    "Your password must be at least 12 characters long.",
    "key points",
    "key=value pairs",
    "tokens per min (TPM): Limit 10000, Used 9348, Requested 5086",
    "prompt is too long: 212345 tokens > 200000 maximum",
    "the API key header is missing",
    "x-api-key header is required",
    "invalid x-api-key",
    "authorization failed",
    "Authorization: failed",
    "api_key: missing",
    "Invalid proxy server token passed. valid_token=None.",
    "api_key=null",
    "Please check your API key.",
    "token_count",
    "the token count (3475108) exceeds the maximum number of tokens allowed (1048576).",
    "OAuth token does not meet scope requirement user:profile",
    "unexpected token in JSON at position 12",
    "https://platform.openai.com/docs/guides/error-codes/api-errors",
    "https://docs.anthropic.com/en/api/errors#http-errors",
    "See https://ai.google.dev/gemini-api/docs/rate-limits?hl=en&tab=quota for details.",
    "req_011CSHoEeqs5C35K2UUqR7Fy",
    "chatcmpl-9nYAG9LPNonX8DAyrkwYfemr3C8HC",
    "msg_01234",
    "resp_123",
    "org-**********",
    "organization org-66tr5xhH5yhaqZAy6PAIy1Xi",
    "claude-3-5-sonnet-20241022",
    "gpt-4o-mini-2024-07-18",
    "skills, tasks and risk-free retries",
    "task-42 finished",
    "disk-usage-report-2026-12-02 generated",
    "The signature of the function changed.",
    "design signals: see the credentials page",
    "Rate limit for Asia-Pacific region reached",
    "Contact support@openai.com if the problem persists.",
    "a secret: nobody knows",
    "token: the smallest unit the model reads",
    "HF_HUB_ENABLE_HF_TRANSFER is set",
    "fw_version_string_too_long",
    "The model `llama-3.1-70b-versatile` has been decommissioned",
    "Bearer tokens must be sent in the Authorization header",
]


def _strings(value: Any) -> list[str]:
    """The human-readable strings of a body: every string in it, recursively."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings(k) + _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _classifier_lines() -> list[dict[str, Any]]:
    lines = []
    for path in sorted(glob.glob(str(DATA / "classify_corpus*.jsonl"))):
        with open(path, encoding="utf-8") as f:
            lines += [json.loads(line) for line in f if line.strip()]
    return lines


def _credential_lines() -> list[dict[str, Any]]:
    with open(DATA / "credentials_corpus.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _credential_misses(line: dict[str, Any]) -> list[str]:
    """What is wrong with ``redact`` of a credential line: a secret left, a label lost."""
    text, out = line["text"], redact(line["text"])
    problems = []
    for secret in line["secrets"]:
        if secret in out:
            problems.append(f"secret left: {secret!r}")
        i = text.index(secret)
        label = text[max(0, i - 8) : i]
        if label + MASK not in out:
            problems.append(f"label lost: {label!r} not followed by the mask in {out!r}")
    return problems


def test_credentials_corpus_is_fully_masked() -> None:
    lines = _credential_lines()
    assert len(lines) >= 60
    ids = [line["id"] for line in lines]
    assert len(ids) == len(set(ids)), "corpus ids must be unique"
    failures = {line["id"]: p for line in lines if (p := _credential_misses(line))}
    masked = len(lines) - len(failures)
    print(f"credentials {masked}/{len(lines)} masked")
    assert not failures, json.dumps(failures, indent=1)


def test_credentials_corpus_lines_are_well_formed() -> None:
    for line in _credential_lines():
        assert set(line) == {"id", "text", "secrets", "shape", "source"}, line["id"]
        assert line["secrets"] and all(s in line["text"] for s in line["secrets"]), line["id"]
        assert line["source"], line["id"]


def test_ordinary_text_is_intact(monkeypatch: pytest.MonkeyPatch) -> None:
    # Only the shapes and labels are measured here: no key registered by another test.
    monkeypatch.setattr(_redact, "_registered", set())
    lines = _classifier_lines()
    assert lines, "no classifier corpus found"
    known = {line["id"] for line in lines}
    assert known >= ALLOWED_CREDENTIALS, f"stale allow-list: {ALLOWED_CREDENTIALS - known}"
    total, changed = 0, []
    for line in lines:
        if line["id"] in ALLOWED_CREDENTIALS:
            continue
        for s in _strings(line["body"]):
            total += 1
            if redact(s) != s:
                changed.append((line["id"], s, redact(s)))
    for s in ORDINARY:
        total += 1
        if redact(s) != s:
            changed.append(("hand list", s, redact(s)))
    assert len(ORDINARY) >= 40
    print(f"ordinary {total - len(changed)}/{total} intact")
    assert not changed, "\n".join(f"{i}: {s!r} -> {r!r}" for i, s, r in changed)


def test_allowed_credentials_are_masked() -> None:
    for line in _classifier_lines():
        if line["id"] in ALLOWED_CREDENTIALS:
            assert any(MASK in redact(s) for s in _strings(line["body"])), line["id"]


def test_the_demo_sentence() -> None:
    text = "the caller gets every token exactly once"
    assert redact(text) == text
    assert redact("Authorization: Bearer abc") == "Authorization: Bearer [REDACTED]"
    assert redact("api_key=abc") == "api_key=[REDACTED]"
    assert redact("https://user:pw@host/x") == "https://user:[REDACTED]@host/x"
    assert redact("?key=AIza" + "x1" * 18 + "&alt=sse") == "?key=[REDACTED]&alt=sse"


# -- properties --------------------------------------------------------------------------------

_FRAGMENTS = [
    "Bearer ",
    "Basic ",
    "Token ",
    "token",
    "api_key",
    "x-api-key",
    ": ",
    "=",
    '"',
    "'",
    " ",
    "sk-",
    "sk-proj-",
    "AIza",
    "ya29.",
    "AKIA",
    "gsk_",
    "hf_",
    "eyJ",
    ".",
    "@",
    "://",
    "?key=",
    "&sig=",
    "password",
    "secret",
    "Authorization",
    "[REDACTED]",
    "abc",
    "0123456789",
    "XYZ",
    "_KEY=",
    "\\",
    "\n",
    "\u212a",
    "\u017f",
    "é",
]
_TEXTS = st.one_of(
    st.text(),
    st.lists(st.one_of(st.sampled_from(_FRAGMENTS), st.text(max_size=6)), max_size=20).map("".join),
)


@settings(max_examples=400, deadline=None)
@given(_TEXTS)
def test_redact_is_idempotent_and_total(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


@settings(max_examples=400, deadline=None)
@given(_TEXTS)
def test_the_fast_path_is_exact(text: str) -> None:
    if not any(s in text for s in _redact._registered):
        assert redact(text) == _redact._PATTERNS.sub(_redact._sub, text)


@pytest.mark.parametrize("placeholder", ["test", "EMPTY", "ollama", "dummy", "testtest"])
def test_a_placeholder_key_is_not_registered(
    monkeypatch: pytest.MonkeyPatch, placeholder: str
) -> None:
    """A local server's dummy key, given to a client, must not cut every word that holds it
    ("latest", "devtest"): only values that can be keys are remembered."""
    monkeypatch.setattr(_redact, "_registered", set())
    _redact.register_secret(placeholder)
    assert redact("gemini-1.0-pro-vision-latest on truefoundry-devtest") == (
        "gemini-1.0-pro-vision-latest on truefoundry-devtest"
    )
    _redact.register_secret("k3y-0f-a-l0cal-server")
    assert redact("sent k3y-0f-a-l0cal-server") == "sent [REDACTED]"


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "token",
                "tokens",
                "Token",
                "TOKEN",
                " ",
                "\t",
                "\x1f",
                ":",
                "=",
                '"',
                "'",
                "\\",
                "abcdefghijklmnop1234",
                "refresh_",
                "auth_",
                "maximum context length is 8192",
                "key",
                "api_",
                "Bearer ",
                "x",
            ]
        ),
        max_size=10,
    )
)
def test_the_probe_skips_only_text_the_full_regex_leaves_alone(parts: list[str]) -> None:
    """``redact`` skips its regex when no candidate literal occurs: that shortcut must never
    change the answer (the refined ``token`` candidates included)."""
    text = "".join(parts)
    assert redact(text) == _redact._PATTERNS.sub(_redact._sub, text)


def test_a_value_that_says_none_is_kept_and_a_real_one_is_not() -> None:
    assert redact("valid_token=None.") == "valid_token=None."
    assert redact("api_key=null; token=undefined") == "api_key=null; token=undefined"
    # a value that only starts like one of those words is a value
    assert "nullified" not in redact("api_key=nullified9Xk2")
    assert "Nonesuch" not in redact("password=Nonesuch42!")
