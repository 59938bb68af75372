"""Shared fixtures: a real ``redis-server`` on a free loopback port.

Without the binary the Redis tests are skipped, unless ``SUREFOOT_REQUIRE_REDIS=1`` (CI), when
they fail loudly.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator

import pytest

from _http_stub import Handler, Stub


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisServer:
    """One ``redis-server`` process: no persistence, its own temp dir, loopback only."""

    def __init__(self, *extra: str, port: int | None = None) -> None:
        self.binary = shutil.which("redis-server")
        if self.binary is None:
            msg = "redis-server is not installed (apt-get install redis-server)"
            if os.environ.get("SUREFOOT_REQUIRE_REDIS") == "1":
                pytest.fail(f"SUREFOOT_REQUIRE_REDIS=1 but {msg}")
            pytest.skip(msg)
        self.extra = extra
        self.port = port or _free_port()
        self.dir = tempfile.mkdtemp(prefix="surefoot-redis-")
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        assert self.binary is not None
        args = [
            self.binary,
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            self.dir,
            *self.extra,
        ]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.proc.returncode}: {args}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.02)
        raise RuntimeError("redis-server did not start within 10 s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """The session's shared redis-server."""
    server = RedisServer().start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def redis_factory() -> Iterator[type[RedisServer]]:
    """Start extra servers inside a test (``redis_factory("--requirepass", "x").start()``); all
    are stopped at the end of the test."""
    started: list[RedisServer] = []

    class Tracked(RedisServer):
        def __init__(self, *extra: str, port: int | None = None) -> None:
            super().__init__(*extra, port=port)
            started.append(self)

    yield Tracked
    for s in started:
        s.close()


@pytest.fixture
def namespace(request: pytest.FixtureRequest) -> str:
    """A namespace unique to the test, so tests sharing the session server never collide."""
    return f"t{abs(hash(request.node.nodeid)) % 10**10}-{time.monotonic_ns() % 10**6}"


@pytest.fixture
def http_stub() -> Iterator[Callable[[Handler], Stub]]:
    """A factory of loopback HTTP stubs (see ``tests/_http_stub.py``), closed after the test."""
    made: list[Stub] = []

    def make(handler: Handler) -> Stub:
        made.append(Stub(handler))
        return made[-1]

    yield make
    for s in made:
        s.close()
