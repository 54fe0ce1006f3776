"""A local IndexNow endpoint on 127.0.0.1 that records what it is sent and accepts it.

```python
with RecordingEndpoint() as endpoint:          # a free port, its own thread
    endpoint.url                               # http://127.0.0.1:PORT/indexnow
    ...
    endpoint.requests                          # every JSON body received, in order
```

It answers every POST with 200, as IndexNow answers a submission it accepts; a subclass answers
otherwise by overriding :meth:`RecordingEndpoint.respond`. Nothing here reaches the network
beyond the loopback interface.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True, slots=True)
class Received:
    path: str
    content_type: str
    body: dict[str, Any]


class RecordingEndpoint:
    """The IndexNow API played on a local port; a context manager."""

    def __init__(self) -> None:
        self.requests: list[Received] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the endpoint is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/indexnow"

    @property
    def urls(self) -> list[str]:
        """Every URL received, in order."""
        return [str(u) for r in self.requests for u in r.body.get("urlList", [])]

    def record(self, received: Received) -> None:
        with self._lock:
            self.requests.append(received)

    def respond(self, handler: BaseHTTPRequestHandler, received: Received) -> None:
        """Answer a request, recorded already as ``received``: 200."""
        write(handler, 200)

    def __enter__(self) -> RecordingEndpoint:
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw.decode("utf-8"))
                except ValueError:
                    body = {"unparsed": raw.decode("utf-8", "replace")}
                received = Received(self.path, self.headers.get("Content-Type", ""), body)
                endpoint.record(received)
                endpoint.respond(self, received)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None


def write(
    handler: BaseHTTPRequestHandler,
    status: int,
    headers: Mapping[str, str] | None = None,
    body: str = "",
) -> None:
    """Answer on ``handler``'s connection (a client that gave up is let go)."""
    data = body.encode("utf-8")
    try:
        handler.send_response(status)
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)
    except OSError:  # the client gave up waiting
        handler.close_connection = True
