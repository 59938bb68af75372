"""The catalog holds every code of the reference documents, with the documents' facts."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from surefoot import catalog
from surefoot.cli import main
from surefoot.errors import ERROR_CLASSES, error_code_for

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"

# Every code the three documents name, by family; this list is the contract.
DOCUMENT_CODES = {
    "http": "AUTHENTICATION_FAILED AUTHORIZATION_FAILED NOT_FOUND CONFLICT BAD_REQUEST "
    "VALIDATION_ERROR RATE_LIMIT_EXCEEDED SERVICE_UNAVAILABLE INTERNAL_ERROR METHOD_NOT_ALLOWED "
    "NOT_ACCEPTABLE GONE REQUEST_BODY_TOO_LARGE UNSUPPORTED_MEDIA_TYPE",
    "task": "TASK_DEADLINE_EXCEEDED TASK_EXPIRED TASK_STOPPED BILLING_LIMIT_EXCEEDED "
    "CONTENT_FILTERED LLM_CONFIG_UNAVAILABLE LLM_CONFIG_CONTEXT_TOO_SMALL "
    "LLM_PROVIDERS_UNAVAILABLE LLM_NO_PROGRESS CONTINUATION_UNAVAILABLE RESULT_UNAVAILABLE "
    "PARENT_TASK_NOT_FOUND PARENT_TASK_UNAVAILABLE INTERNAL_ERROR",
    "document": "FORMAT_UNSUPPORTED CORRUPT_DOCUMENT ENCRYPTED_DOCUMENT DOCUMENT_TOO_LARGE "
    "MALWARE_DETECTED HASH_MISMATCH SIZE_MISMATCH EXPIRED_UPLOAD LIBRARY_DELETED "
    "LIBRARY_ACCESS_REVOKED EXTRACTION_FAILED PROCESSING_TIMEOUT DOCUMENT_PROCESSING_FAILED "
    "DOCUMENT_UPLOAD_CANCELLED",
    "library": "ACR_STEPUP_REQUIRED DOCUMENT_UPLOAD_TOO_LARGE DOCUMENT_TAGS_TOO_LARGE "
    "TAGS_TOO_LARGE UPLOAD_SESSION_EXPIRED DOCUMENT_PURGED CONFLICT",
    "tool_host": "TOO_MANY_TOOLS REQUEST_BODY_TOO_LARGE TOOL_SCHEMA_TOO_LARGE RESERVED_TOOL_NAME "
    "RATE_LIMIT_EXCEEDED",
    "llm": "MODEL_NOT_FOUND AUTHENTICATION_FAILED CONTENT_FILTERED INVALID_REQUEST "
    "MODEL_OVERLOADED CONTEXT_TOO_LONG SERVER_ERROR MALFORMED_TOOL_CALL CAPABILITY_MISMATCH "
    "UNKNOWN QUOTA_EXHAUSTED",
    "action": "NETWORK PARAMETER CLIENT_ERROR SERVER_ERROR VALIDATION LLM MCP INVOCATION UNKNOWN",
}

# (family, code): (status, retryable) straight from the documents' tables.
FACTS = {
    ("task", "TASK_DEADLINE_EXCEEDED"): (504, False),
    ("task", "TASK_EXPIRED"): (410, False),
    ("task", "TASK_STOPPED"): (409, False),
    ("task", "BILLING_LIMIT_EXCEEDED"): (429, False),
    ("task", "CONTENT_FILTERED"): (400, False),
    ("task", "LLM_CONFIG_UNAVAILABLE"): (503, False),
    ("task", "LLM_CONFIG_CONTEXT_TOO_SMALL"): (503, False),
    ("task", "LLM_PROVIDERS_UNAVAILABLE"): (503, True),
    ("task", "LLM_NO_PROGRESS"): (422, False),
    ("task", "CONTINUATION_UNAVAILABLE"): (410, False),
    ("task", "RESULT_UNAVAILABLE"): (500, False),
    ("task", "PARENT_TASK_NOT_FOUND"): (404, False),
    ("task", "PARENT_TASK_UNAVAILABLE"): (409, True),
    ("task", "INTERNAL_ERROR"): (500, None),
    ("http", "AUTHENTICATION_FAILED"): (401, None),
    ("http", "AUTHORIZATION_FAILED"): (403, None),
    ("http", "NOT_FOUND"): (404, None),
    ("http", "CONFLICT"): (409, None),
    ("http", "BAD_REQUEST"): (400, None),
    ("http", "VALIDATION_ERROR"): (422, None),
    ("http", "RATE_LIMIT_EXCEEDED"): (429, None),
    ("http", "SERVICE_UNAVAILABLE"): (503, None),
    ("http", "INTERNAL_ERROR"): (500, None),
    ("http", "METHOD_NOT_ALLOWED"): (405, False),
    ("http", "NOT_ACCEPTABLE"): (406, False),
    ("http", "GONE"): (410, False),
    ("http", "REQUEST_BODY_TOO_LARGE"): (413, False),
    ("http", "UNSUPPORTED_MEDIA_TYPE"): (415, False),
    ("library", "ACR_STEPUP_REQUIRED"): (401, False),
    ("library", "DOCUMENT_UPLOAD_TOO_LARGE"): (413, False),
    ("library", "DOCUMENT_TAGS_TOO_LARGE"): (413, False),
    ("library", "TAGS_TOO_LARGE"): (422, False),
    ("library", "UPLOAD_SESSION_EXPIRED"): (410, False),
    ("library", "DOCUMENT_PURGED"): (410, False),
    ("library", "CONFLICT"): (409, False),
    ("tool_host", "TOO_MANY_TOOLS"): (422, False),
    ("tool_host", "REQUEST_BODY_TOO_LARGE"): (413, False),
    ("tool_host", "TOOL_SCHEMA_TOO_LARGE"): (422, False),
    ("tool_host", "RESERVED_TOOL_NAME"): (422, False),
    ("tool_host", "RATE_LIMIT_EXCEEDED"): (429, False),
    ("llm", "MODEL_OVERLOADED"): (529, True),
    ("llm", "SERVER_ERROR"): (500, True),
    ("llm", "UNKNOWN"): (None, True),
    ("llm", "QUOTA_EXHAUSTED"): (429, False),
    ("action", "NETWORK"): (None, True),
    ("action", "SERVER_ERROR"): (None, True),
    ("action", "LLM"): (None, True),
    ("action", "MCP"): (None, True),
    ("action", "PARAMETER"): (None, False),
    ("action", "INVOCATION"): (None, False),
}


@pytest.mark.parametrize("family", sorted(DOCUMENT_CODES))
def test_catalog_is_complete(family: str) -> None:
    have = {e.code for e in catalog.entries() if e.family == family}
    missing = set(DOCUMENT_CODES[family].split()) - have
    assert not missing, f"{family} lacks {sorted(missing)}"


def test_document_tables_agree_with_catalog() -> None:
    for (family, code), (status, retryable) in FACTS.items():
        e = catalog.get(code, family=family)
        assert (e.status, e.retryable) == (status, retryable), (family, code)


def test_every_document_code_in_seed_002_is_in_the_catalog() -> None:
    """A guard against a table growing in the reference document without the catalog."""
    path = SEEDS / "002_86810f19ca361bb9.txt"
    if not path.exists():
        pytest.skip(f"reference document not found at {path}")
    text = path.read_text()
    # The page's rendering glued some table headers together; those are not codes.
    codes = {c for c in re.findall(r"\b([A-Z][A-Z]+(?:_[A-Z]+)+)\b", text) if len(c) <= 40}
    ignore = {"DUALEAI_TENANT_ID"}
    known = {e.code for e in catalog.entries()}
    assert codes - ignore - known == set()


def test_every_entry_is_complete() -> None:
    for e in catalog.entries():
        assert e.title and e.meaning and e.next_action, e
        assert e.family in catalog.FAMILY_ORDER


def test_error_classes_are_in_the_catalog_and_default_codes_exist() -> None:
    for cls in ERROR_CLASSES:
        assert catalog.get(error_code_for(cls), family="class").title == cls.__name__
        assert catalog.find(cls.default_code), (cls, cls.default_code)


def test_llm_delays() -> None:
    assert catalog.get("MODEL_OVERLOADED", family="llm").retry_delay == 5.0
    assert catalog.get("SERVER_ERROR", family="llm").retry_delay == 2.0


def test_lookup_is_case_and_dash_insensitive_and_unknown_suggests() -> None:
    assert catalog.get("rate-limit-exceeded").code == "RATE_LIMIT_EXCEEDED"
    with pytest.raises(catalog.UnknownCodeError) as info:
        catalog.get("RATE_LIMT_EXCEEDED")
    assert "RATE_LIMIT_EXCEEDED" in info.value.suggestions
    assert isinstance(info.value, KeyError)
    with pytest.raises(ValueError, match="unknown family"):
        catalog.get("GONE", family="nope")


def test_explain_prints_for_a_person(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "TASK_DEADLINE_EXCEEDED"]) == 0
    out = capsys.readouterr().out
    assert "504" in out and "later deadline" in out and "retryable   no" in out


def test_explain_json_for_a_program(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "--json", "CONTENT_FILTERED"]) == 0
    doc = json.loads(capsys.readouterr().out)
    families = {e["family"] for e in doc["entries"]}
    assert families == {"task", "llm"}
    assert all(e["retryable"] is False for e in doc["entries"])


def test_explain_unknown_exits_2_with_suggestions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "TASK_STOPED"]) == 2
    err = capsys.readouterr().err
    assert "TASK_STOPPED" in err


def test_explain_runs_as_a_console_command() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "surefoot", "explain", "SUREFOOT-RATELIMIT", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    entry = json.loads(proc.stdout)["entries"][0]
    assert entry["retryable"] is True and entry["max_retry_attempts"] == 5
