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
- **One scan for every literal.** The literals of a whole table are found in one pass of one
  regex built as a trie (:func:`trie_pattern`, searched as a lookahead at every position, so
  overlapping literals are all seen): the rows to try are then the union of the bit sets of
  the literals present, in order, and the other rows cost nothing at all.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
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


def _substrings(text: str, min_len: int) -> Iterator[str]:
    """Every substring of ``text`` at least ``min_len`` characters long (repeats included)."""
    for i in range(len(text) - min_len + 1):
        for j in range(i + min_len, len(text) + 1):
            yield text[i:j]


def _cover(lits: frozenset[str], min_len: int = 4) -> tuple[str, ...]:
    """Fewer strings to look for than ``lits``, each literal containing one of them (so the
    check stays a necessary condition): the substring of at least ``min_len`` characters
    shared by the most literals, greedily, longest first on ties ("unsupported" and "not
    supported" -> "supported"). Fewer ``in`` tests cost less than the rare extra regex run."""
    left = set(lits)
    # every substring of at least min_len characters -> the literals containing it, built once
    holders: dict[str, set[str]] = {}
    for lit in left:
        for sub in _substrings(lit, min_len):
            holders.setdefault(sub, set()).add(lit)
    out: list[str] = []
    while left:
        # the substring in the most literals, the longest on ties (then the greatest string,
        # so the answer does not depend on the hash seed)
        best = max(holders, key=lambda sub: (len(holders[sub]), len(sub), sub), default="")
        if not best or len(holders[best]) < 2:
            out.extend(sorted(left))
            break
        out.append(best)
        covered = holders[best].copy()
        left -= covered
        for lit in covered:
            for sub in _substrings(lit, min_len):
                held = holders.get(sub)
                if held is not None:
                    held.discard(lit)
                    if not held:
                        del holders[sub]
    return tuple(sorted(out, key=len))


def split_alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of ``pattern`` (``a|b(c|d)`` -> ``["a", "b(c|d)"]``).

    A search for the whole pattern finds a match exactly when a search for one of them does, so
    each can be searched alone, behind its own literals: most never run, and one starting with
    a literal lets ``sre`` scan for it instead of trying a group at every position."""
    parts: list[str] = []
    depth = 0
    in_class = False
    start = 0
    i = 0
    n = len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
        elif ch == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "^":
                i += 1
            if pattern[i + 1 : i + 2] == "]":
                i += 1
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
        i += 1
    parts.append(pattern[start:])
    return parts


#: One searchable alternative of a row: its compiled search and the literals it needs.
_Piece = tuple[Callable[[str], object], tuple[str, ...] | None]
#: The same, for the one-scan path: the literals as a set, to test against those present.
_SetPiece = tuple[Callable[[str], object], frozenset[str] | None]


def trie_pattern(words: Sequence[str]) -> str:
    """A regex matching, at a position, the *longest* of ``words`` starting there.

    The words share their prefixes in a trie, so the engine follows one branch per character
    instead of trying every word; a word that is a prefix of another is an optional tail
    (``rate(?:limit)?``), tried longest first.
    """
    root: dict[str, Any] = {}
    for w in words:
        node = root
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict[str, Any]) -> str:
        ends = "" in node
        alts = [re.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        if ends:
            return "(?:" + body + ")?"
        return body

    return emit(root)


#: Tables with fewer rows are searched row by row (measured on the classifier's corpora).
SCAN_MIN_ROWS = 24


class _Scan:
    """Every literal of a table found in one pass: ``present(low)`` is the set of them that
    occur in ``low``, ``rows(present)`` the bit set of the rows worth trying."""

    __slots__ = ("_always", "_findall", "_masks", "_prefixes")

    def __init__(
        self, row_lits: Sequence[frozenset[str] | None], piece_lits: Sequence[frozenset[str]]
    ) -> None:
        words = sorted(
            {w for lits in row_lits if lits is not None for w in lits}.union(*piece_lits)
        )
        self._findall = re.compile("(?=(" + trie_pattern(words) + "))", re.DOTALL).findall
        # a literal found at a position implies its prefixes that are literals too
        self._prefixes = {
            w: frozenset(v for v in words if v != w and w.startswith(v)) for w in words
        }
        self._prefixes = {w: p for w, p in self._prefixes.items() if p}
        masks: dict[str, int] = {}
        always = 0
        for i, lits in enumerate(row_lits):
            if lits is None:
                always |= 1 << i
                continue
            for w in lits:
                masks[w] = masks.get(w, 0) | (1 << i)
        self._masks = masks
        self._always = always

    def present(self, low: str) -> set[str]:
        found = set(self._findall(low))
        found.discard("")
        prefixes = self._prefixes
        for w in [w for w in found if w in prefixes]:
            found |= prefixes[w]
        return found

    def rows(self, present: set[str]) -> int:
        masks = self._masks
        mask = self._always
        for w in present:
            mask |= masks.get(w, 0)  # a piece's literal may be no row's
        return mask


class RuleTable(Generic[T]):
    """An ordered ``(value, pattern)`` table answering "the first row that matches"."""

    __slots__ = ("_any", "_fast", "_rows", "_scan", "_sets")

    def __init__(self, rows: Sequence[tuple[T, re.Pattern[str]]]) -> None:
        self._rows = tuple(rows)
        fast: list[tuple[int, tuple[str, ...] | None, tuple[_Piece, ...]]] = []
        for i, (_, pattern) in enumerate(self._rows):
            if pattern.flags & _FLAGS != _FLAGS or not _lowercase_only(pattern.pattern):
                raise ValueError(f"a rule must be lower-case, IGNORECASE|DOTALL: {pattern!r}")
            # the row's literals (any of its alternatives' literals) say whether to look at
            # it at all; then each top-level alternative behind its own
            parts = split_alternatives(pattern.pattern)
            part_lits = [required_literals(part) for part in parts]
            row_lits: tuple[str, ...] | None = None
            if all(lits is not None for lits in part_lits):
                row_lits = _cover(frozenset().union(*part_lits))  # type: ignore[arg-type]
            if len(parts) == 1:
                pieces: tuple[_Piece, ...] = ((re.compile(parts[0], re.DOTALL).search, None),)
            else:
                pieces = tuple(
                    (re.compile(part, re.DOTALL).search, None if lits is None else _cover(lits))
                    for part, lits in zip(parts, part_lits, strict=True)
                )
            fast.append((i, row_lits, pieces))
        self._fast = tuple(fast)
        # the one-scan path: every row's literals, and each piece's as a set
        self._sets: tuple[tuple[_SetPiece, ...], ...] = tuple(
            tuple((search, None if lits is None else frozenset(lits)) for search, lits in pieces)
            for _, _, pieces in fast
        )
        # a short table is cheaper row by row than with one scan of all its literals
        self._scan: _Scan | None = None
        # a short table whose every row needs a literal: one search for any of them first
        # (most texts hold none), then row by row
        self._any: Callable[[str], object] | None = None
        if all(r is not None for _, r, _ in fast) and fast:
            words = sorted({w for _, r, _ in fast for w in r or ()})
            self._any = re.compile(trie_pattern(words), re.DOTALL).search
        if len(fast) >= SCAN_MIN_ROWS:
            self._scan = _Scan(
                [None if r is None else frozenset(r) for _, r, _ in fast],
                [lits for row in self._sets for _, lits in row if lits is not None],
            )

    def _first_unlowered(self, text: str) -> int:
        """The first matching row by the original ``IGNORECASE`` patterns (text whose
        lower-casing the fast tables cannot trust)."""
        for i, (_, pattern) in enumerate(self._rows):
            if pattern.search(text):
                return i
        return -1

    def first(self, text: str, low: str | None) -> T | None:
        """The value of the first row matching ``text``; ``low`` is ``text.lower()`` when
        ``text`` is ASCII, else ``None``."""
        i = self.first_index(text, low)
        return None if i < 0 else self._rows[i][0]

    def first_index(self, text: str, low: str | None) -> int:
        """The index of the first row matching ``text`` (``-1`` for none): callers keep
        per-row data, such as the label naming the rule, in a tuple parallel to the rows."""
        if not text:
            return -1
        if low is None:
            return self._first_unlowered(text)
        scan = self._scan
        if scan is None:
            if self._any is not None and self._any(low) is None:
                return -1
            return self.first_index_by_row(text, low)
        present = scan.present(low)
        mask = scan.rows(present)
        sets = self._sets
        disjoint = present.isdisjoint
        while mask:
            bit = mask & -mask
            i = bit.bit_length() - 1
            mask ^= bit
            for search, lits in sets[i]:
                if lits is not None and disjoint(lits):
                    continue
                if search(low):
                    return i
        return -1

    def first_index_by_row(self, text: str, low: str | None) -> int:
        """:meth:`first_index` row by row, each row's literals tested on their own: the path
        of a table shorter than :data:`SCAN_MIN_ROWS`, and the reference the one-scan path is
        tested against."""
        if not text:
            return -1
        if low is None:
            return self._first_unlowered(text)
        has = low.__contains__
        for i, row_lits, pieces in self._fast:
            # the literal checks in C (``any`` over ``map``), not one bytecode loop per literal
            if row_lits is not None and not any(map(has, row_lits)):
                continue
            for search, lits in pieces:
                if lits is not None and not any(map(has, lits)):
                    continue
                if search(low):
                    return i
        return -1


#: The non-ASCII characters ``IGNORECASE`` matches against an ASCII letter although
#: ``str.lower`` does not map them onto it: U+0130 (capital I with dot), U+0131 (dotless i),
#: U+017F (long s), U+212A (Kelvin sign) -- every such character, found by trying
#: ``(?i)[a-z0-9_]`` on all of Unicode (``tests/test_classify_fastrules.py`` checks the
#: list). U+0130 is also the only character whose ``lower()`` is longer than itself.
FOLD_SPECIAL = frozenset("\u0130\u0131\u017f\u212a")


def lowered(text: str) -> str | None:
    """``text.lower()`` where the lower-cased, case-sensitive tables give the same answer as
    the original ones: ASCII text, and text whose non-ASCII characters (a typographic
    apostrophe, an accented letter) have no ASCII case partner; else ``None``."""
    if text.isascii():
        return text.lower()
    if not FOLD_SPECIAL.isdisjoint(text):
        return None
    return text.lower()
