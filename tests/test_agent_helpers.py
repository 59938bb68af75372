"""Helpers of the agent tests: a scripted loopback HTTP server and a closed port."""

from __future__ import annotations

import socket
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Script:
    """Statuses to answer, in order; the last one repeats. ``hits`` counts the requests."""

    def __init__(self, *statuses: int) -> None:
        self.statuses = list(statuses) or [200]
        self.hits = 0
        self.lock = threading.Lock()

    def next_status(self) -> int:
        with self.lock:
            i = min(self.hits, len(self.statuses) - 1)
            self.hits += 1
            return self.statuses[i]


@contextmanager
def http_server(*statuses: int) -> Iterator[tuple[str, Script]]:
    script = Script(*statuses)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status = script.next_status()
            body = b'{"forecast": "sunny"}' if status < 400 else b'{"error": "nope"}'
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", script
    finally:
        server.shutdown()
        server.server_close()


def closed_port() -> int:
    """A loopback port nobody listens on (bound then closed)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port: int = s.getsockname()[1]
    s.close()
    return port


def get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as r:
        body: bytes = r.read()
        return body.decode()
