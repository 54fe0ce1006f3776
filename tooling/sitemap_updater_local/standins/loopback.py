"""A small HTTP server on 127.0.0.1 (a free port, its own thread) that stand-ins build on.

A subclass answers each :class:`Request` with a :class:`Reply`; :meth:`LoopbackServer.fail`
queues failures that replace the next answers of a channel (a stand-in names its channels,
e.g. ``token`` and ``api``). Every request is kept in :attr:`LoopbackServer.requests`. A server
may listen on another loopback address (``127.0.0.2``: a second host of a site), and may be
told how long each answer takes on a simulated clock (:attr:`LoopbackServer.latency`, moved on
by :attr:`LoopbackServer.advance`), as the real service's would, without waiting for it.
"""

from __future__ import annotations

import enum
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit

#: Seconds between two bytes of a dripping answer.
DRIP_INTERVAL = 0.05
#: A slow answer is padded with trailing spaces to at least this many bytes (10 s of dripping).
DRIP_BYTES = 200


class Failure(enum.Enum):
    """How a stand-in may fail a request, as the real API does."""

    #: the API's own error JSON for a request it refuses (400)
    ERROR = "error"
    #: quota spent: 429 with the API's error JSON
    QUOTA = "quota"
    #: a per-minute quota spent: 429 with the API's error JSON and a ``Retry-After``
    RATE = "rate"
    #: 503 with the API's error JSON
    UNAVAILABLE = "unavailable"
    #: the right answer, one byte every DRIP_INTERVAL seconds
    SLOW = "slow"
    #: the connection closed without an answer
    DROP = "drop"


@dataclass(frozen=True, slots=True)
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: Message
    body: bytes

    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except ValueError:
            return None


@dataclass(frozen=True, slots=True)
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    #: seconds between two bytes of the answer (0: all at once)
    drip: float = 0.0
    #: close the connection without answering
    drop: bool = False


def json_reply(status: int, value: object, headers: dict[str, str] | None = None) -> Reply:
    body = json.dumps(value).encode("utf-8")
    return Reply(
        status, body, {"Content-Type": "application/json; charset=UTF-8", **(headers or {})}
    )


class LoopbackServer:
    """A context manager serving :meth:`answer` on ``http://127.0.0.1:PORT``."""

    def __init__(self, address: str = "127.0.0.1") -> None:
        if not address.startswith("127."):
            raise ValueError(f"address {address!r}: a stand-in listens on loopback only")
        self.address = address
        #: seconds each answer takes on the simulated clock that ``advance`` moves on
        self.latency = 0.0
        self.advance: Callable[[float], None] | None = None
        self.requests: list[Request] = []
        self._failures: dict[str, list[Failure]] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # what a stand-in provides
    def answer(self, request: Request) -> Reply:
        raise NotImplementedError

    def channel(self, request: Request) -> str:
        """The channel a request belongs to (for :meth:`fail`)."""
        return "api"

    def channels(self, request: Request) -> tuple[str, ...]:
        """The channels whose failures may replace the answer to ``request``, the most
        particular first (a stand-in may name one for a kind of call within ``api``)."""
        return (self.channel(request),)

    def failure_reply(self, failure: Failure, request: Request) -> Reply:
        """The API's answer for ``failure`` (SLOW and DROP are handled here)."""
        raise NotImplementedError

    # what tests and the demo use
    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the stand-in is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def fail(self, failure: Failure, *, times: int = 1, channel: str = "api") -> None:
        """Fail the next ``times`` requests of ``channel`` with ``failure``."""
        with self._lock:
            self._failures.setdefault(channel, []).extend([failure] * times)

    def requests_to(self, path_prefix: str) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if r.path.startswith(path_prefix)]

    def _reply(self, request: Request) -> Reply:
        if self.advance is not None and self.latency:
            self.advance(self.latency)
        with self._lock:
            self.requests.append(request)
            failure = None
            for channel in self.channels(request):
                queue = self._failures.get(channel, [])
                if queue:
                    failure = queue.pop(0)
                    break
        if failure is Failure.DROP:
            return Reply(drop=True)
        if failure is Failure.SLOW:
            reply = self.answer(request)
            body = reply.body.ljust(DRIP_BYTES)  # JSON and HTML allow trailing spaces
            return Reply(reply.status, body, reply.headers, drip=DRIP_INTERVAL)
        if failure is not None:
            return self.failure_reply(failure, request)
        return self.answer(request)

    def _send(self, handler: BaseHTTPRequestHandler, reply: Reply) -> None:
        if reply.drop:
            handler.close_connection = True
            return
        handler.send_response(reply.status)
        for name, value in reply.headers.items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(reply.body)))
        handler.end_headers()
        if not reply.drip:
            handler.wfile.write(reply.body)
            return
        handler.wfile.flush()
        for byte in reply.body:
            if self._stopping.wait(reply.drip):
                return
            handler.wfile.write(bytes([byte]))
            handler.wfile.flush()

    def __enter__(self) -> Self:
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                parts = urlsplit(self.path)
                request = Request(
                    self.command, parts.path, parse_qs(parts.query), self.headers, body
                )
                try:
                    stand_in._send(self, stand_in._reply(request))
                except OSError:  # the client gave up
                    self.close_connection = True

            do_GET = do_POST = do_PUT = do_DELETE = _any

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer((self.address, 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
