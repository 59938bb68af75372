"""Shut a socket at a deadline: how a sync driver ends a blocking read on time.

A blocking ``recv`` cannot be cancelled, and a per-read timeout set from the time left when the
request went out lets a body that drips a byte at a time run far past the deadline (each read
is quick, their sum is not). :func:`shut_at` arms ``socket.shutdown(SHUT_RDWR)`` for the
deadline: the blocked read returns at once with an error the driver reports as the deadline's.

One daemon thread serves every armed socket of the process (a heap of deadlines under one
condition), so arming costs a heap push, not a thread per request; a disarmed entry is dropped
lazily. The thread starts on first use and again in a forked child.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import os
import socket
import threading
import time

__all__ = ["Armed", "shut_at"]

_monotonic = time.monotonic


class Armed:
    """One armed socket; :meth:`disarm` before the deadline and it is left alone."""

    __slots__ = ("sock", "when")

    def __init__(self, when: float, sock: socket.socket) -> None:
        self.when = when
        self.sock: socket.socket | None = sock

    def disarm(self) -> None:
        self.sock = None

    def _fire(self) -> None:
        sock, self.sock = self.sock, None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


class _Shutter:
    def __init__(self) -> None:
        self._heap: list[tuple[float, int, Armed]] = []
        self._cond = threading.Condition(threading.Lock())
        self._ids = itertools.count()
        self._thread: threading.Thread | None = None

    def arm(self, delay: float, sock: socket.socket) -> Armed:
        entry = Armed(_monotonic() + max(delay, 0.0), sock)
        with self._cond:
            heapq.heappush(self._heap, (entry.when, next(self._ids), entry))
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="surefoot-deadlines", daemon=True
                )
                self._thread.start()
            elif self._heap[0][2] is entry:
                self._cond.notify()
        return entry

    def _run(self) -> None:
        heap, cond = self._heap, self._cond
        while True:
            with cond:
                while heap and heap[0][2].sock is None:
                    heapq.heappop(heap)  # disarmed
                if not heap:
                    cond.wait()
                    continue
                wait = heap[0][0] - _monotonic()
                if wait > 0:
                    cond.wait(wait)
                    continue
                entry = heapq.heappop(heap)[2]
            entry._fire()


_SHUTTER = _Shutter()


def _reset_after_fork() -> None:
    global _SHUTTER
    _SHUTTER = _Shutter()


if hasattr(os, "register_at_fork"):  # no fork on Windows
    os.register_at_fork(after_in_child=_reset_after_fork)


def shut_at(delay: float, sock: socket.socket) -> Armed:
    """Shut ``sock`` for reading and writing ``delay`` seconds from now, unless disarmed."""
    return _SHUTTER.arm(delay, sock)
