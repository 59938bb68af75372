"""surefoot's pytest plugin, registered through the ``pytest11`` entry point.

Fixtures:

* ``fault_server``: a started :class:`~surefoot.testing.faults.FaultServer` (echo model, no
  faults until the test adds some), closed after the test;
* ``fake_clock``: a :class:`~surefoot.testing.clock.FakeClock` for tests that must not sleep.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from surefoot.testing.faults import FaultServer

__all__ = ["fake_clock", "fault_server"]


@pytest.fixture
def fault_server() -> Iterator[FaultServer]:
    """A started fault server on a free loopback port; ``fault_server.base_url`` to call it."""
    with FaultServer() as server:
        yield server


@pytest.fixture
def fake_clock() -> Any:
    """A fake clock: ``now()``, ``sleep()`` (advances instead of waiting), ``advance()``."""
    from surefoot.testing.clock import FakeClock

    return FakeClock()
