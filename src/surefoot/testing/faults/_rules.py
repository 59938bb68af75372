"""Which request gets which fault: a queue ("the next N requests get X") and rules.

A :class:`Rule` pairs a :class:`Match` with a fault. Every rule sees every request, so its
counters (``every``, ``times``) and its seeded random draws do not depend on the other rules;
the first rule that fires wins. The queue, when not empty, takes precedence over the rules.
"""

from __future__ import annotations

import collections
import fnmatch
import random
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from surefoot.testing.faults._faults import Fault, check_types
from surefoot.testing.faults._model import Model

__all__ = ["Match", "Rule", "RuleEngine", "Scenario"]


@dataclass(frozen=True)
class Match:
    """When a rule fires. Every given condition must hold.

    ``path`` and ``model`` are globs; ``stream`` matches streaming or not; ``start``/``end``
    are a window ``[start, end)`` in seconds since the server started (or was reset);
    ``every`` fires on the Nth, 2Nth... request that met the conditions above;
    ``probability`` fires at random with a seeded generator (``seed``, else the scenario's
    seed plus the rule's index); ``times`` caps how often the rule fires.
    """

    path: str | None = None
    model: str | None = None
    stream: bool | None = None
    every: int | None = None
    probability: float | None = None
    seed: int | None = None
    start: float | None = None
    end: float | None = None
    times: int | None = None

    def __post_init__(self) -> None:
        check_types(self)
        if self.every is not None and self.every < 1:
            raise ValueError(f"`every` must be at least 1, not {self.every}")
        if self.probability is not None and not 0.0 <= self.probability <= 1.0:
            raise ValueError(f"`probability` must be between 0 and 1, not {self.probability}")
        if self.start is not None and self.start < 0:
            raise ValueError(f"`start` must be non-negative seconds, not {self.start}")
        if self.start is not None and self.end is not None and self.end <= self.start:
            raise ValueError(f"`end` ({self.end}) must be after `start` ({self.start})")
        if self.end is not None and self.end <= 0:
            raise ValueError(f"`end` must be positive seconds, not {self.end}")
        if self.times is not None and self.times < 1:
            raise ValueError(f"`times` must be at least 1, not {self.times}")


@dataclass(frozen=True)
class Rule:
    """Inject ``fault`` into the requests ``match`` selects."""

    fault: Fault
    match: Match = field(default_factory=Match)

    def __post_init__(self) -> None:
        check_types(self)


@dataclass(frozen=True)
class Scenario:
    """Models, rules and an initial queue: what a server or proxy does."""

    rules: Sequence[Rule] = ()
    models: Sequence[Model] = ()
    queue: Sequence[Fault] = ()
    seed: int = 0
    strict_models: bool = False

    def __post_init__(self) -> None:
        check_types(self)


class _RuleState:
    def __init__(self, rule: Rule, seed: int) -> None:
        self.rule = rule
        self.seen = 0
        self.fired = 0
        self.rng = random.Random(rule.match.seed if rule.match.seed is not None else seed)

    def consider(self, path: str, model: str | None, stream: bool, elapsed: float) -> bool:
        m = self.rule.match
        if m.path is not None and not fnmatch.fnmatchcase(path, m.path):
            return False
        if m.model is not None and (model is None or not fnmatch.fnmatchcase(model, m.model)):
            return False
        if m.stream is not None and m.stream != stream:
            return False
        if m.start is not None and elapsed < m.start:
            return False
        if m.end is not None and elapsed >= m.end:
            return False
        self.seen += 1
        if m.every is not None and self.seen % m.every:
            return False
        if m.probability is not None and self.rng.random() >= m.probability:
            return False
        if m.times is not None and self.fired >= m.times:
            return False
        self.fired += 1
        return True


class RuleEngine:
    """The thread-safe runtime state of a scenario's queue and rules."""

    def __init__(self, scenario: Scenario) -> None:
        self._lock = threading.Lock()
        self.scenario = scenario
        self._rules: list[_RuleState] = []
        self._queue: collections.deque[Fault] = collections.deque()
        self.reset()

    def reset(self) -> None:
        """Back to the scenario's initial queue and fresh rule counters."""
        with self._lock:
            seed = self.scenario.seed
            self._rules = [_RuleState(r, seed + i) for i, r in enumerate(self.scenario.rules)]
            self._queue = collections.deque(self.scenario.queue)

    def enqueue(self, fault: Fault, times: int = 1) -> None:
        if times < 1:
            raise ValueError(f"`times` must be at least 1, not {times}")
        with self._lock:
            self._queue.extend([fault] * times)

    def add_rule(self, rule: Rule) -> None:
        with self._lock:
            index = len(self._rules)
            self._rules.append(_RuleState(rule, self.scenario.seed + index))

    def choose(self, path: str, model: str | None, stream: bool, elapsed: float) -> Fault | None:
        """The fault for one request, or ``None``; advances the counters."""
        with self._lock:
            queued = self._queue.popleft() if self._queue else None
            chosen: Fault | None = None
            for state in self._rules:
                if state.consider(path, model, stream, elapsed) and chosen is None:
                    chosen = state.rule.fault
            return queued if queued is not None else chosen
