"""Every error code surefoot knows: status, retryability, title, meaning, next action.

Codes come in families: ``http`` (HTTP rejections), ``task`` (run outcomes), ``document``
(document ingestion), ``library``, ``tool_host``, ``llm`` (LLM error types), ``action`` (action
failure categories), ``surefoot`` (codes of surefoot's own), and ``class`` (the ``SUREFOOT-*``
codes of the error classes). A few codes exist in more than one family with different meanings
(``CONTENT_FILTERED``, ``CONFLICT``, ...): :func:`find` returns all of them, :func:`get` the one
of the family asked for, or the first in :data:`FAMILY_ORDER`.
"""

from __future__ import annotations

import functools

from surefoot._codes import CatalogEntry, data_entries, index, normalize
from surefoot._codes import suggest as _suggest
from surefoot._codes_data import FAMILIES

__all__ = [
    "FAMILY_ORDER",
    "CatalogEntry",
    "UnknownCodeError",
    "best_entry",
    "default_status",
    "default_title",
    "entries",
    "find",
    "get",
    "suggest",
]

FAMILY_ORDER: tuple[str, ...] = (*FAMILIES, "class")


class UnknownCodeError(KeyError):
    """No catalog entry has this code; ``suggestions`` lists the closest known codes."""

    def __init__(self, code: str, suggestions: list[str]) -> None:
        super().__init__(code)
        self.code = code
        self.suggestions = suggestions

    def __str__(self) -> str:
        hint = f"; did you mean {', '.join(self.suggestions)}?" if self.suggestions else ""
        return f"unknown error code {self.code!r}{hint}"


@functools.cache
def entries() -> tuple[CatalogEntry, ...]:
    """Every entry, family by family in :data:`FAMILY_ORDER`."""
    return (*data_entries(), *_class_entries())


def _class_entries() -> list[CatalogEntry]:
    from surefoot.errors import ERROR_CLASSES, error_code_for

    rows = []
    for cls in ERROR_CLASSES:
        doc = (cls.__doc__ or cls.__name__).strip().split("\n\n")[0]
        meaning = " ".join(doc.split())
        rows.append(
            CatalogEntry(
                code=error_code_for(cls),
                family="class",
                status=None,
                retryable=cls.default_retryable,
                title=cls.__name__,
                meaning=meaning,
                next_action=f"catch surefoot.{cls.__name__}; its default catalog code is "
                f"{cls.default_code}",
                retry_delay=cls.default_retry_delay,
                max_retry_attempts=cls.default_max_attempts,
            )
        )
    return rows


@functools.cache
def _index() -> dict[str, tuple[CatalogEntry, ...]]:
    return index(entries())


def find(code: str) -> tuple[CatalogEntry, ...]:
    """Every entry with this code (case-insensitive), or ``()``."""
    return _index().get(normalize(code), ())


def get(code: str, family: str | None = None) -> CatalogEntry:
    """The entry of ``code`` in ``family`` (or the first family that has it).

    Raises :class:`UnknownCodeError` (a ``KeyError``) with the closest codes when none does.
    """
    if family is not None and family not in FAMILY_ORDER:
        raise ValueError(f"unknown family {family!r}; choose one of {', '.join(FAMILY_ORDER)}")
    found = find(code)
    for e in found:
        if family is None or e.family == family:
            return e
    raise UnknownCodeError(code, suggest(code))


def best_entry(code: str) -> CatalogEntry | None:
    """The first entry with this code, or ``None``."""
    found = find(code)
    return found[0] if found else None


def default_status(code: str) -> int | None:
    e = best_entry(code)
    return e.status if e is not None else None


def default_title(code: str) -> str | None:
    e = best_entry(code)
    return e.title if e is not None else None


def suggest(code: str, n: int = 3) -> list[str]:
    """The known codes closest to ``code``."""
    return _suggest(code, list(_index()), n)
