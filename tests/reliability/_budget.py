"""How hard the reliability suite works: CI's bounded budget, or `make reliability`'s deeper one.

Every property test sizes itself with :func:`examples`; ``SUREFOOT_RELIABILITY=deep`` (what
``make reliability`` sets) multiplies the example counts by :data:`DEEP_FACTOR`.
"""

from __future__ import annotations

import os

#: ``make reliability`` runs this many times the examples of a CI run.
DEEP_FACTOR = 20
DEEP = os.environ.get("SUREFOOT_RELIABILITY", "") == "deep"


def examples(n: int) -> int:
    """The number of examples a property runs: ``n`` in CI, ``n * DEEP_FACTOR`` when deep."""
    return n * DEEP_FACTOR if DEEP else n
