"""HTTP requests with an overall deadline, for ``urllib.request``.

A socket timeout bounds each read, not a request: an endpoint that answers one byte at a time,
each within the timeout, holds a request for as long as it likes. Here every socket operation of
one request (connect, TLS handshake, send, each read of the answer) may last only until the
request's deadline, so the request as a whole ends by then, with a ``TimeoutError``.

Given an ``address``, a connection goes to that address (by number, no name resolved) whatever
the URL's host, which still names the site in ``Host`` and in TLS (SNI and the certificate's
check): a caller that checked where a name points connects exactly there.

Use :func:`opener` (or add :func:`handlers` to your own opener) for each request.
"""

from __future__ import annotations

import email.utils
import functools
import http.client
import io
import socket
import ssl
import time
import urllib.request
from collections.abc import Callable
from datetime import UTC
from typing import Any

Clock = Callable[[], float]


class Deadline:
    """A point in time on a monotonic clock; :meth:`left` is what remains of it."""

    def __init__(self, seconds: float, clock: Clock = time.monotonic) -> None:
        self.seconds = seconds
        self._clock = clock
        self._end = clock() + seconds

    def left(self) -> float:
        """Seconds left; raises ``TimeoutError`` once the deadline has passed."""
        left = self._end - self._clock()
        if left <= 0:
            raise self.expired()
        return left

    def expired(self) -> TimeoutError:
        return TimeoutError(f"no complete answer within the deadline of {self.seconds:g} s")

    def wait(self, sock: Any, call: Callable[..., Any], *args: Any) -> Any:
        """``call(*args)`` on ``sock``, waiting at most until the deadline."""
        sock.settimeout(self.left())
        try:
            return call(*args)
        except TimeoutError as error:  # the socket waited exactly what the deadline left
            raise self.expired() from error


class _BoundedSocket:
    """The parts of a connected socket ``http.client`` uses, each bounded by the deadline.

    Like a socket's own ``makefile``, a reader keeps the socket open until it is closed too:
    ``urllib`` closes the connection's socket as soon as the answer's head is read."""

    def __init__(self, sock: Any, deadline: Deadline) -> None:
        self._sock = sock
        self._deadline = deadline
        self._readers = 0
        self._closed = False

    def sendall(self, data: bytes) -> None:
        # sendall's timeout is the longest the whole call may take
        self._deadline.wait(self._sock, self._sock.sendall, data)

    def recv_into(self, buffer: Any) -> int:
        return int(self._deadline.wait(self._sock, self._sock.recv_into, buffer))

    def makefile(self, mode: str, *_: Any, **__: Any) -> io.BufferedReader:
        if mode != "rb":
            raise ValueError(f"mode {mode!r}: only 'rb' is supported")
        self._readers += 1
        return io.BufferedReader(_Reader(self))

    def reader_closed(self) -> None:
        self._readers -= 1
        if self._closed and not self._readers:
            self._sock.close()

    def close(self) -> None:
        self._closed = True
        if not self._readers:
            self._sock.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


class _Reader(io.RawIOBase):
    """Reads from a bounded socket, each read waiting only as long as the deadline leaves."""

    def __init__(self, sock: _BoundedSocket) -> None:
        self._sock = sock

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        return self._sock.recv_into(buffer)

    def close(self) -> None:
        if not self.closed:
            self._sock.reader_closed()
        super().close()


def _connect_to(address: str) -> Callable[..., socket.socket]:
    """A ``create_connection`` that connects to ``address`` (a numeric IPv4 or IPv6 address)
    on the port asked for, without resolving any name."""

    def create(
        host_port: tuple[str, int], timeout: Any = None, source_address: Any = None
    ) -> socket.socket:
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            if isinstance(timeout, int | float):
                sock.settimeout(timeout)
            if source_address:
                sock.bind(source_address)
            sock.connect((address, host_port[1]))
        except BaseException:
            sock.close()
            raise
        return sock

    return create


class _Bounded(http.client.HTTPConnection):
    """A connection whose every socket operation ends by its deadline (and that goes to
    ``address`` when one is given)."""

    deadline: Deadline

    def pin(self, address: str | None) -> None:
        if address is not None:
            self._create_connection = _connect_to(address)

    def connect(self) -> None:
        # the timeout of connect and of the TLS handshake is each call's longest wait
        timeout = self.timeout if isinstance(self.timeout, int | float) else self.deadline.seconds
        self.timeout = min(timeout, self.deadline.left())
        super().connect()
        self.sock = _BoundedSocket(self.sock, self.deadline)


class BoundedHTTPConnection(_Bounded):
    def __init__(
        self, *args: Any, deadline: Deadline, address: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.deadline = deadline
        self.pin(address)


class BoundedHTTPSConnection(_Bounded, http.client.HTTPSConnection):
    def __init__(
        self, *args: Any, deadline: Deadline, address: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.deadline = deadline
        self.pin(address)


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, deadline: Deadline, address: str | None = None) -> None:
        super().__init__()
        self._deadline = deadline
        self._address = address

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        connection = functools.partial(
            BoundedHTTPConnection, deadline=self._deadline, address=self._address
        )
        return self.do_open(connection, req)


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """The verifying TLS context of every https request, made once: loading the system's CA
    certificates takes a tenth of a second or more, which a context per request would pay on
    every request (the observer makes a hundred a run)."""
    return ssl.create_default_context()


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, deadline: Deadline, address: str | None = None) -> None:
        super().__init__(context=_tls_context())
        self._deadline = deadline
        self._address = address

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        connection = functools.partial(
            BoundedHTTPSConnection, deadline=self._deadline, address=self._address
        )
        return self.do_open(connection, req)


def handlers(deadline: Deadline, address: str | None = None) -> list[urllib.request.BaseHandler]:
    """The handlers that bound every http and https request of an opener by ``deadline`` (and
    send each to ``address``, with no proxy, when one is given)."""
    found: list[urllib.request.BaseHandler] = [
        _HTTPHandler(deadline, address),
        _HTTPSHandler(deadline, address),
    ]
    if address is not None:  # a proxy would be connected to instead: none
        found.append(urllib.request.ProxyHandler({}))
    return found


def opener(
    deadline: Deadline,
    *extra: urllib.request.BaseHandler | type[urllib.request.BaseHandler],
    address: str | None = None,
) -> urllib.request.OpenerDirector:
    """An opener whose requests (and the reads of their answers) end by ``deadline``, each
    connected to ``address`` when one is given."""
    return urllib.request.build_opener(*handlers(deadline, address), *extra)


def retry_after_seconds(value: str | None, now: float) -> float | None:
    """An HTTP ``Retry-After`` (delta-seconds, or an HTTP-date) as seconds from ``now``; None
    when there is none or it is not of either form (RFC 9110, 10.2.3)."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        moment = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return max(0.0, moment.timestamp() - now)
