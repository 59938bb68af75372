"""Small total helpers shared by the dialects: typed reads of untrusted JSON."""

from __future__ import annotations

from typing import Any

__all__ = ["MAX_ITEMS", "as_dict", "as_list", "as_str", "status_of"]

#: The most list items any dialect walks (details, choices, candidates, ...).
MAX_ITEMS = 32


def as_dict(value: object) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def as_list(value: object) -> list[Any]:
    return value[:MAX_ITEMS] if isinstance(value, list) else []


def as_str(value: object, limit: int = 4096) -> str:
    """``value`` when it is a string (cut to ``limit``), else ``""``."""
    return value[:limit] if isinstance(value, str) else ""


def status_of(value: object) -> int | None:
    """An HTTP status carried in a body (``429``, ``"429"``), or ``None``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 100 <= value <= 599 else None
    if isinstance(value, str) and len(value) == 3 and value.isdigit():
        n = int(value)
        return n if 100 <= n <= 599 else None
    return None
