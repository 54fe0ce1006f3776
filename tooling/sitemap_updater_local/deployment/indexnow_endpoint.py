"""A local IndexNow endpoint on 127.0.0.1 that records what it is sent and answers as told.

```python
with RecordingEndpoint() as endpoint:          # a free port, its own thread
    endpoint.url                               # http://127.0.0.1:PORT/indexnow
    endpoint.script(Reply(429, {"Retry-After": "120"}), Reply(200))   # then 200 for the rest
    ...
    endpoint.requests                          # every JSON body received, in order
```

A :class:`Reply` may ``drop`` the connection without an answer, or ``hold`` it until
:meth:`RecordingEndpoint.release` (an answer slower than the client's timeout). Nothing here
reaches the network beyond the loopback interface.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: How long a held answer waits for :meth:`RecordingEndpoint.release` at most.
HOLD_LIMIT_SECONDS = 30.0


@dataclass(frozen=True, slots=True)
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: str = ""
    #: close the connection without answering
    drop: bool = False
    #: answer only once the endpoint is released
    hold: bool = False


@dataclass(frozen=True, slots=True)
class Received:
    path: str
    content_type: str
    body: dict[str, Any]


class RecordingEndpoint:
    """The IndexNow API played on a local port; a context manager."""

    def __init__(self, default: Reply | None = None) -> None:
        self.default = default or Reply(200)
        self.requests: list[Received] = []
        self._script: list[Reply] = []
        self._lock = threading.Lock()
        self._released = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the endpoint is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/indexnow"

    def script(self, *replies: Reply) -> None:
        """The next answers, in order; after them, the default one."""
        with self._lock:
            self._script.extend(replies)

    def release(self) -> None:
        """Let every held answer go."""
        self._released.set()

    @property
    def urls(self) -> list[str]:
        """Every URL received, in order."""
        return [str(u) for r in self.requests for u in r.body.get("urlList", [])]

    def _next(self, received: Received) -> Reply:
        with self._lock:
            self.requests.append(received)
            return self._script.pop(0) if self._script else self.default

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
                reply = endpoint._next(
                    Received(self.path, self.headers.get("Content-Type", ""), body)
                )
                if reply.hold:
                    endpoint._released.wait(HOLD_LIMIT_SECONDS)
                if reply.drop:
                    self.close_connection = True
                    return
                data = reply.body.encode("utf-8")
                try:
                    self.send_response(reply.status)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up waiting
                    self.close_connection = True

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
