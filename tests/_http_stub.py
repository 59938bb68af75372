"""A tiny loopback HTTP stub, like the seed-003 examples' ``Stub``: every POST gets
``handler()``'s ``(status, body)``; ``calls`` counts the requests."""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Handler = Callable[[], tuple[int, str]]


class Stub:
    """The seed's ``Stub``: answers every POST with ``handler()``; counts calls."""

    def __init__(self, handler: Handler) -> None:
        stub = self
        self.calls = 0
        self.handler = handler

        class H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                stub.calls += 1
                status, body = stub.handler()
                data = body.encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
