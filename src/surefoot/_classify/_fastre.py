"""Fast, verdict-preserving evaluation of the classifier's ordered regex tables.

A table is a tuple of ``(kind, pattern)`` rows compiled with ``IGNORECASE | DOTALL``; the answer
is the kind of the *first row* whose pattern matches anywhere in the text. :class:`RuleTable`
gives exactly that answer, faster:

- **Lower-cased text, case-sensitive patterns.** For ASCII text, a pattern whose literals are all
  lower-case matches the lower-cased text without ``IGNORECASE`` exactly when it matches the
  original text with it (ASCII case-folding is one-to-one, and ``\\w``, ``\\d``, ``\\s``, ``\\b``
  do not depend on case); and ``sre`` is several times faster without ``IGNORECASE``. Text with
  any non-ASCII character (where Unicode folding has special cases such as U+212A, the Kelvin
  sign, for ``k`` or U+017F, the long s, for ``s``) uses the original patterns.
- **A keyword pre-filter.** Each pattern's parse tree gives a set of literal strings at least one
  of which every match must contain (:func:`required_literals`); a row whose set shares nothing
  with the text is skipped without running its regex.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from re import _constants as _c  # type: ignore[attr-defined]
from re import _parser as _p  # type: ignore[attr-defined]
from typing import Any, Generic, TypeVar

__all__ = ["RuleTable", "required_literals"]

T = TypeVar("T")

_FLAGS = re.IGNORECASE | re.DOTALL


def _required(items: Any) -> frozenset[str] | None:
    """Literals one of which every match of the parsed sequence ``items`` contains, or ``None``
    when no such set is known (the row is then never skipped)."""
    candidates: list[frozenset[str]] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            candidates.append(frozenset(("".join(run),)))
            run.clear()

    for op, av in items:
        if op is _c.LITERAL:
            run.append(chr(av))
            continue
        flush()
        if op is _c.SUBPATTERN:
            sub = _required(av[-1])
            if sub is not None:
                candidates.append(sub)
        elif op is _c.BRANCH:
            branches = [_required(b) for b in av[1]]
            if branches and all(b is not None for b in branches):
                candidates.append(frozenset().union(*branches))  # type: ignore[arg-type]
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT) and av[0] >= 1:
            sub = _required(av[2])
            if sub is not None:
                candidates.append(sub)
        # anything else (classes, anchors, lookarounds, optional parts) requires no literal
    flush()
    if not candidates:
        return None
    # the most selective: the longest shortest literal, then the fewest literals
    return max(candidates, key=lambda s: (min(map(len, s)), -len(s)))


def required_literals(pattern: str) -> frozenset[str] | None:
    """A set of strings at least one of which occurs in every match of ``pattern`` (parsed
    without flags, so compare against text cased as the pattern is), or ``None``."""
    lits = _required(_p.parse(pattern, 0))
    if lits is None or "" in lits:
        return None
    # a literal containing another is implied by it: keep only the minimal ones
    return frozenset(a for a in lits if not any(b != a and b in a for b in lits))


def _lowercase_only(pattern: str) -> bool:
    """True when every literal of ``pattern`` is unchanged by lower-casing."""

    def walk(items: Any) -> bool:
        for op, av in items:
            if op in (_c.LITERAL, _c.NOT_LITERAL):
                if chr(av).lower() != chr(av) or not chr(av).isascii():
                    return False
            elif op is _c.IN:
                for iop, iav in av:
                    if iop is _c.LITERAL and (chr(iav).lower() != chr(iav) or iav > 127):
                        return False
                    if iop is _c.RANGE and (
                        iav[1] > 127
                        or any(chr(x).lower() != chr(x) for x in range(iav[0], iav[1] + 1))
                    ):
                        return False
            elif op is _c.SUBPATTERN:
                if not walk(av[-1]):
                    return False
            elif op is _c.BRANCH:
                if not all(walk(b) for b in av[1]):
                    return False
            elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
                if not walk(av[2]):
                    return False
            elif op in (_c.ASSERT, _c.ASSERT_NOT) and not walk(av[1]):
                return False
        return True

    return walk(_p.parse(pattern, 0))


class RuleTable(Generic[T]):
    """An ordered ``(value, pattern)`` table answering "the first row that matches"."""

    __slots__ = ("_fast", "_rows")

    def __init__(self, rows: Sequence[tuple[T, re.Pattern[str]]]) -> None:
        self._rows = tuple(rows)
        fast: list[tuple[T, re.Pattern[str], tuple[str, ...] | None]] = []
        for value, pattern in self._rows:
            if pattern.flags & _FLAGS != _FLAGS or not _lowercase_only(pattern.pattern):
                raise ValueError(f"a rule must be lower-case, IGNORECASE|DOTALL: {pattern!r}")
            lits = required_literals(pattern.pattern)
            fast.append(
                (
                    value,
                    re.compile(pattern.pattern, re.DOTALL),
                    None if lits is None else tuple(sorted(lits, key=len)),
                )
            )
        self._fast = tuple(fast)

    def first(self, text: str, low: str | None) -> T | None:
        """The value of the first row matching ``text``; ``low`` is ``text.lower()`` when
        ``text`` is ASCII, else ``None``."""
        if not text:
            return None
        if low is None:
            for value, pattern in self._rows:
                if pattern.search(text):
                    return value
            return None
        for value, pattern, lits in self._fast:
            if lits is not None:
                for lit in lits:
                    if lit in low:
                        break
                else:
                    continue
            if pattern.search(low):
                return value
        return None


def lowered(text: str) -> str | None:
    """``text.lower()`` for ASCII text (where it is exact), else ``None``."""
    return text.lower() if text.isascii() else None
