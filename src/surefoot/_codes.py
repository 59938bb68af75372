"""The catalog's rows and their lookup, with no dependency on the rest of surefoot (a leaf).

The error tree (:mod:`surefoot.errors`) and the problem details (:mod:`surefoot.problem`) read
titles and statuses here; the public :mod:`surefoot.catalog` adds the ``class`` family, which
needs the error classes themselves.
"""

from __future__ import annotations

import difflib
import functools
from dataclasses import asdict, dataclass
from typing import Any

from surefoot._codes_data import CATEGORIES, FAMILIES

__all__ = [
    "CatalogEntry",
    "best_entry",
    "data_entries",
    "default_status",
    "default_title",
    "find",
    "index",
    "normalize",
    "suggest",
]


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """One code of one family.

    ``retryable`` is ``None`` where the service decides per response ("read the response's
    ``retryable`` field"); ``status`` is ``None`` where no HTTP status belongs to the code.
    """

    code: str
    family: str
    status: int | None
    retryable: bool | None
    title: str
    meaning: str
    next_action: str
    retry_delay: float | None = None
    max_retry_attempts: int | None = None
    error_category: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


_LLM_DELAYS = {"MODEL_OVERLOADED": 5.0, "SERVER_ERROR": 2.0}


@functools.cache
def data_entries() -> tuple[CatalogEntry, ...]:
    """Every entry of the data families (all but ``class``), family by family."""
    out: list[CatalogEntry] = []
    for family, rows in FAMILIES.items():
        for code, status, retryable, title, meaning, action in rows:
            delay = _LLM_DELAYS.get(code) if family == "llm" else None
            out.append(
                CatalogEntry(
                    code=code,
                    family=family,
                    status=status,
                    retryable=retryable,
                    title=title,
                    meaning=meaning,
                    next_action=action,
                    retry_delay=delay,
                    error_category=CATEGORIES.get(code),
                )
            )
    return tuple(out)


def index(entries: tuple[CatalogEntry, ...]) -> dict[str, tuple[CatalogEntry, ...]]:
    """``entries`` by code (each code's entries in the order given)."""
    idx: dict[str, list[CatalogEntry]] = {}
    for e in entries:
        idx.setdefault(e.code, []).append(e)
    return {k: tuple(v) for k, v in idx.items()}


@functools.cache
def _index() -> dict[str, tuple[CatalogEntry, ...]]:
    return index(data_entries())


def normalize(code: str) -> str:
    """A code as the catalog spells it (upper case; ``-`` as ``_`` except in ``SUREFOOT-``)."""
    c = code.strip().upper()
    return c if c.startswith("SUREFOOT-") else c.replace("-", "_")


def find(code: str) -> tuple[CatalogEntry, ...]:
    """Every data entry with this code (case-insensitive), or ``()``."""
    return _index().get(normalize(code), ())


def best_entry(code: str) -> CatalogEntry | None:
    """The first data entry with this code, or ``None``."""
    found = find(code)
    return found[0] if found else None


def default_status(code: str) -> int | None:
    e = best_entry(code)
    return e.status if e is not None else None


def default_title(code: str) -> str | None:
    e = best_entry(code)
    return e.title if e is not None else None


def suggest(code: str, known: list[str], n: int = 3) -> list[str]:
    """The ``known`` codes closest to ``code``."""
    return difflib.get_close_matches(normalize(code), known, n=n, cutoff=0.5)
