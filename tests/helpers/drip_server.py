"""An HTTP server on 127.0.0.1 that answers every request in full, but one byte at a time.

Each byte comes well within any per-read timeout, so only an overall deadline ends a request to
it before the whole answer has dripped out (:attr:`DripServer.drip_seconds`).
"""

from __future__ import annotations

import socket
import threading
from types import TracebackType
from typing import Self

_HEAD_END = b"\r\n\r\n"


class DripServer:
    """Serves ``answer`` (a whole HTTP response) to each connection, one byte every ``interval``
    seconds, until the client hangs up or the server stops."""

    def __init__(self, answer: bytes, interval: float) -> None:
        self.answer = answer
        self.interval = interval
        self.bytes_sent = 0
        self._stop = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}"

    @property
    def drip_seconds(self) -> float:
        """How long the whole answer takes to drip out."""
        return len(self.answer) * self.interval

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        # wake the accept() that waits for a client, then let the loop see the stop
        socket.create_connection(self._listener.getsockname(), timeout=5).close()
        self._thread.join(timeout=5)
        self._listener.close()

    def _serve(self) -> None:
        while not self._stop.is_set():
            connection, _ = self._listener.accept()
            if self._stop.is_set():
                connection.close()
                return
            threading.Thread(target=self._drip, args=(connection,), daemon=True).start()

    def _drip(self, connection: socket.socket) -> None:
        with connection:
            connection.settimeout(5)
            received = b""
            while _HEAD_END not in received:
                chunk = connection.recv(65536)
                if not chunk:
                    return
                received += chunk
            for byte in self.answer:
                if self._stop.wait(self.interval):
                    return
                try:
                    connection.sendall(bytes([byte]))
                except OSError:  # the client gave up
                    return
                self.bytes_sent += 1


def http_answer(status: str, body: bytes, content_type: str = "text/plain") -> bytes:
    """A complete HTTP/1.1 response."""
    head = (
        f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode("ascii") + body
