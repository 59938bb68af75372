"""Fixtures of the wrapper's tests: an event loop thread for the async SDK clients."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from _sdks import SDKS, Runner, Sdk


@pytest.fixture
def runner() -> Iterator[Runner]:
    r = Runner()
    yield r
    r.close()


@pytest.fixture(params=SDKS, ids=[s.id for s in SDKS])
def sdk(request: pytest.FixtureRequest) -> Sdk:
    value: Sdk = request.param
    return value
