"""The word model: a best guess for a status-less failure no rule names.

The rules read a failure's codes, its structure and its phrasings. A failure that reaches
the classifier with no status (a message a caller passes on, an error event in a stream, a
wrapper's text) and in words no rule knows ends as ``unknown`` (nothing matched) or, when its
words speak of an exchange, as a lost connection. Rules written from one held-out split's
misses did not reach the next split's (see ``tests/data/classify_corpus_2026.md``), so this
last step is statistical instead: a multinomial naive Bayes over the words and word pairs of
the body, counted on both corpora (:mod:`scripts.build_word_model`, never on the fresh
held-out split), answers which kind of the corpus such words were.

Measured forward in time (for each of ``heldout8`` to ``heldout14``, a model counted on the
lines collected before it, on the lines its round's rules left unnamed or defaulted to a lost
connection), it named 17 of 23 against the rules' 3. On failures with a status the rules'
status defaults did better than the model, so it is asked only when there is no status.

It is asked only where the rules found a failure and could not name it: never for a 2xx
body in which no failure was found. It answers only when the body has at least
:data:`MIN_WORDS` words the model has counted and its posterior is at least
:data:`MIN_POSTERIOR`; the reason names the words that decided.
The model is a table of counts in ``_wordmodel.tsv``, read on first use.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib import resources

from surefoot._classify._kinds import Kind
from surefoot._classify._rules import NOTHING_MATCHED, TRANSPORT_DEFAULT_LABEL, Finding

__all__ = [
    "MIN_POSTERIOR",
    "MIN_WORDS",
    "WORD_MODEL_LABEL",
    "Guess",
    "WordModel",
    "count",
    "guess",
    "guess_unnamed",
    "model",
    "parse",
    "tokens",
]

#: Every ``classified_by`` of a guess starts with this.
WORD_MODEL_LABEL = "word model"
#: The smallest posterior of the best kind that is answered.
MIN_POSTERIOR = 0.6
#: The fewest counted words (not the status token) a body must have to be answered.
MIN_WORDS = 2
#: The smoothing count added to every word of every kind.
ALPHA = 0.3
#: How much of a body is read (the opening of a failure says what it is).
MAX_CHARS = 4000
#: A header line's mark in the data file.
_META = "#"

_LOG_ALPHA = math.log(ALPHA)
_WORD = re.compile(r"[a-z][a-z']+")
_SPLIT = str.maketrans("_-", "  ")


def tokens(status: int | None, text: str) -> list[str]:
    """The words, adjacent word pairs (``"not|supported"``) and status tokens (``"S-"`` for
    none, else ``"S429"`` and ``"S4xx"``) of a body, in order. Words are lowercase ASCII
    letters (an apostrophe inside), two or more; ``_`` and ``-`` separate words."""
    words = _WORD.findall(text[:MAX_CHARS].lower().translate(_SPLIT))
    out = list(words)
    out += [f"{a}|{b}" for a, b in itertools.pairwise(words)]
    if status is None:
        out.append("S-")
    else:
        out += [f"S{status}", f"S{str(status)[0]}xx"]
    return out


@dataclass(frozen=True, slots=True)
class Guess:
    """The model's answer: the kind, its posterior and the words that decided it."""

    kind: Kind
    posterior: float
    evidence: tuple[str, ...]

    @property
    def reason(self) -> str:
        words = ", ".join(repr(w.replace("|", " ")) for w in self.evidence)
        return f"{WORD_MODEL_LABEL}: {self.kind.value} (p={self.posterior:.2f}; {words})"


class WordModel:
    """Naive Bayes over token presence: a token's row says how many corpus lines of each kind
    held it, ``lines[kind]`` how many lines, ``totals[kind]`` the sum of their distinct
    tokens. The prior is softened (square root) so the corpus's mix of kinds weighs less than
    the words. A token's row is decoded the first time a body holds it: the table is large and
    most of it is never asked for."""

    __slots__ = ("_base", "_cells", "_gains", "_kinds", "lines", "totals")

    def __init__(
        self,
        lines: dict[Kind, int],
        totals: dict[Kind, int],
        cells: dict[str, str],
        kinds: Sequence[Kind],
    ) -> None:
        self.lines = lines
        self.totals = totals
        #: per token, its row as written (``i:count`` cells, ``i`` an index of ``kinds``)
        self._cells = cells
        self._kinds = tuple(kinds)
        n = sum(lines.values())
        vocab = len(cells)
        #: per kind that holds a line: its log prior, and the log likelihood of a token it
        #: never held
        self._base = {
            k: (0.5 * math.log(c / n), _LOG_ALPHA - math.log(totals[k] + ALPHA * vocab))
            for k, c in lines.items()
            if c > 0
        }
        #: per decoded token: what each kind that held it gains over a kind that never did
        self._gains: dict[str, dict[Kind, float]] = {}

    def _gain(self, token: str) -> dict[Kind, float]:
        gains = self._gains.get(token)
        if gains is None:
            gains = {}
            for cell in self._cells[token].split("\t"):
                i, _, c = cell.partition(":")
                kind = self._kinds[int(i)]
                if kind in self._base:
                    gains[kind] = math.log(int(c) + ALPHA) - _LOG_ALPHA
            self._gains[token] = gains
        return gains

    def guess(self, status: int | None, text: str) -> Guess | None:
        """The best kind for a body, or ``None`` when too few counted words or no kind is
        likely enough (:data:`MIN_WORDS`, :data:`MIN_POSTERIOR`)."""
        if not self._base:
            return None
        known = [t for t in dict.fromkeys(tokens(status, text)) if t in self._cells]
        if sum(1 for t in known if not t.startswith("S")) < MIN_WORDS:
            return None
        scores = {k: prior + len(known) * unseen for k, (prior, unseen) in self._base.items()}
        for t in known:
            for k, gain in self._gain(t).items():
                scores[k] += gain
        ranked = sorted(scores, key=scores.__getitem__, reverse=True)
        best = ranked[0]
        top = scores[best]
        posterior = 1.0 / sum(math.exp(s - top) for s in scores.values())
        if posterior < MIN_POSTERIOR:
            return None
        evidence = self._evidence(known, best, ranked[1] if len(ranked) > 1 else best)
        return Guess(best, posterior, evidence)

    def _evidence(self, known: list[str], best: Kind, second: Kind) -> tuple[str, ...]:
        """The three tokens that speak most for ``best`` against the runner-up."""
        shift = self._base[best][1] - self._base[second][1]
        weight = {
            t: self._gain(t).get(best, 0.0) - self._gain(t).get(second, 0.0) + shift
            for t in known
            if not t.startswith("S")
        }
        ranked = sorted(weight, key=lambda t: (-weight[t], t))
        return tuple(t for t in ranked[:3] if weight[t] > 0)


def count(lines: Iterable[tuple[int | None, str, str]], *, note: str = "") -> str:
    """The data file's text for labelled lines ``(status, body text, kind)``: a header of
    kinds, line counts and token totals, then one row per token (``token<TAB>i:count...``,
    ``i`` the kind's column), sorted, so the same lines always give the same file."""
    seen: dict[Kind, int] = dict.fromkeys(Kind, 0)
    totals: dict[Kind, int] = dict.fromkeys(Kind, 0)
    per: dict[str, dict[Kind, int]] = {}
    for status, text, kind_name in lines:
        kind = Kind(kind_name)
        seen[kind] += 1
        held = dict.fromkeys(tokens(status, text))
        totals[kind] += len(held)
        for t in held:
            cell = per.setdefault(t, {})
            cell[kind] = cell.get(kind, 0) + 1
    kinds = list(Kind)
    column = {k: i for i, k in enumerate(kinds)}
    out = [f"{_META} surefoot word model: {note}".rstrip(), f"{_META}kinds\t" + "\t".join(kinds)]
    out.append(f"{_META}lines\t" + "\t".join(str(seen[k]) for k in kinds))
    out.append(f"{_META}totals\t" + "\t".join(str(totals[k]) for k in kinds))
    for t in sorted(per):
        cells_of = sorted(per[t].items(), key=lambda kc: column[kc[0]])
        cells = "\t".join(f"{column[k]}:{c}" for k, c in cells_of)
        out.append(f"{t}\t{cells}")
    return "\n".join(out) + "\n"


def parse(text: str) -> WordModel:
    """A model from the data file's text (see :func:`count`)."""
    kinds: list[Kind] = []
    lines: dict[Kind, int] = {}
    totals: dict[Kind, int] = {}
    cells: dict[str, str] = {}
    for line in text.splitlines():
        head, _, rest = line.partition("\t")
        if not head.startswith(_META):
            if rest:
                cells[head] = rest
        elif head == f"{_META}kinds":
            kinds = [Kind(v) for v in rest.split("\t")]
        elif head == f"{_META}lines":
            lines = dict(zip(kinds, map(int, rest.split("\t")), strict=True))
        elif head == f"{_META}totals":
            totals = dict(zip(kinds, map(int, rest.split("\t")), strict=True))
    return WordModel(lines, totals, cells, kinds)


@functools.cache
def model() -> WordModel:
    """The shipped model, read once."""
    data = resources.files("surefoot._classify").joinpath("_wordmodel.tsv").read_text("utf-8")
    return parse(data)


def guess(status: int | None, text: str) -> Guess | None:
    """The shipped model's guess for a body (see :meth:`WordModel.guess`)."""
    return model().guess(status, text)


#: The reasons of the rules' last resorts, which a guess may replace.
_GUESSABLE = frozenset({NOTHING_MATCHED, TRANSPORT_DEFAULT_LABEL})


def guess_unnamed(kind: Kind, finding: Finding, text: Callable[[], str]) -> Kind:
    """``kind``, or the model's guess for the body ``text()`` gives when only a last resort of
    the rules named the failure (nothing matched, or the no-response default); the guess's
    reason replaces the finding's. For a failure whose status says nothing of it: none, or
    the 2xx of a response that failed inside. ``text`` is called only then (a parsed body
    writes its text only when a reader asks)."""
    if finding.reason not in _GUESSABLE:
        return kind
    found = guess(None, text())
    if found is None:
        return kind
    finding.reason = found.reason
    return found.kind
