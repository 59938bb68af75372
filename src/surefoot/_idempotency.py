"""Idempotency keys: one per logical request, reused by every retry of it.

A key is 32 hex digits: 80 random bits drawn once per process (again in a forked child) and a
48-bit counter, as unique across processes and restarts as a uuid4 and much cheaper than
``os.urandom`` plus a ``UUID`` per request. Sent as ``Idempotency-Key`` by the LLM client and by
the transport under a wrapped SDK (when the request has none of its own).
"""

from __future__ import annotations

import itertools
import os

__all__ = ["idempotency_key"]

_key_prefix = ""
_key_counter = itertools.count()


def _new_key_prefix() -> None:
    global _key_prefix, _key_counter
    _key_prefix = os.urandom(10).hex()
    _key_counter = itertools.count()


_new_key_prefix()
if hasattr(os, "register_at_fork"):  # no fork on Windows
    os.register_at_fork(after_in_child=_new_key_prefix)


def idempotency_key() -> str:
    """A new idempotency key (see the module docstring); thread-safe."""
    return f"{_key_prefix}{next(_key_counter):012x}"
