"""``sitemap-updater serve DIR``: a local preview of what ``build``, ``demo`` or ``simulate``
wrote, served as the distribution serves the bucket.

Only the objects the rebuild publishes are served (the indexes, the sitemap files, the
stylesheet, the view, robots.txt and the IndexNow key file: ``kind_of`` names them), each with
the Content-Type and Cache-Control the rebuild puts with it and the security headers of the
distribution's response headers policy, its Content-Security-Policy among them; anything else is
a 404. ``/`` is the primary host's ``sitemap.xml``, as the distribution's default root object.
A host after the first is under ``/<host>/``, as in ``DIR``. An output written before the view
existed is served with the view of this version.

It is a preview for the machine it runs on, and keeps to that:

- it listens on 127.0.0.1 unless told otherwise, and on an address that is not loopback only
  with ``--allow-remote HOST``;
- it answers only a request whose ``Host`` is its own: ``127.0.0.1:PORT``, ``localhost:PORT``
  (the loopback address it listens on, if another) or a ``HOST:PORT`` that ``--allow-remote``
  names; any other is refused with 421, so a web page whose name was made to resolve to
  127.0.0.1 (DNS rebinding) cannot read the files through the visitor's browser;
- it serves no file whose real path is out of ``DIR``: a symbolic link that leads out of it is
  a 404, as a ``..`` is;
- a connection that sends nothing for :data:`IDLE_SECONDS`, or has not sent its whole request
  line and headers after :data:`HEAD_SECONDS`, is closed, so half-sent requests cannot hold
  its threads;
- what it prints of the folder and the host folders is escaped (``sitemap_updater.printable``).

Ctrl-C stops it: one line, exit status 0.
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import os
import re
import socket
import sys
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Final
from urllib.parse import unquote, urlsplit

from sitemap_updater.printable import printable
from sitemap_updater.rebuild.outputs.bucket import kind_of
from sitemap_updater.store.keys import INDEX_KEY
from sitemap_updater.view import SECURITY_HEADERS, VIEW_PAGE, view_files
from sitemap_updater_local.console import command_line
from sitemap_updater_local.errors import EXIT_OK, CommandError

DEFAULT_PORT: Final = 8000
LOOPBACK: Final = "127.0.0.1"
#: the names of this machine that a request's Host may use, besides the loopback address served
LOCAL_NAMES: Final = ("127.0.0.1", "localhost")
#: longest wait for the next bytes of a request, and for a reader to take the answer's
IDLE_SECONDS: Final = 10.0
#: longest a connection may take to send its request line and headers
HEAD_SECONDS: Final = 30.0
#: a host name or an IPv4 address, or an IPv6 address in brackets, as a Host header holds it
_HOST_NAME: Final = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\]")


@dataclass(frozen=True)
class Output:
    """A directory of published objects: the primary host's at its top, any other host's in a
    folder named after it."""

    root: Path

    def _inside(self, path: Path) -> Path | None:
        """``path`` with every link followed, if that is still in ``root`` (else None)."""
        real = path.resolve()
        return real if real.is_relative_to(self.root.resolve()) else None

    def _has_index(self, folder: Path) -> bool:
        index = self._inside(folder / INDEX_KEY)
        return index is not None and index.is_file()

    def hosts(self) -> list[str]:
        """The key prefix of each host with an index: ``""`` first, then each host folder."""
        folders = sorted(p.name for p in self.root.iterdir() if self._has_index(p))
        primary = [""] if self._has_index(self.root) else []
        return primary + [name + "/" for name in folders]

    def body(self, key: str) -> bytes | None:
        """The bytes served under ``key``, or None for a key that is not a published object's
        (only a name at the top or in one host folder; never a path out of ``root``, by name or
        through a link)."""
        parts = key.split("/")
        if len(parts) > 2 or any(p in {"", ".", ".."} or "\\" in p for p in parts):
            return None
        try:
            kind_of(key)
        except ValueError:
            return None
        path = self.root.joinpath(*parts)
        if path.is_symlink() or path.exists():
            real = self._inside(path)
            return _read(real) if real is not None and real.is_file() else None
        if len(parts) == 1 or self._has_index(self.root / parts[0]):
            return dict(view_files()).get(parts[-1])
        return None


def _read(path: Path) -> bytes | None:
    """The file at ``path``, a path without links; None if a link took its place since."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as file:
        return file.read()


class PreviewServer(ThreadingHTTPServer):
    """Serves ``output`` to requests whose Host is one of ``hosts`` (``name:port``, lower case)."""

    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int],
        output: Output,
        names: Iterable[str],
        *,
        idle_seconds: float = IDLE_SECONDS,
        head_seconds: float = HEAD_SECONDS,
    ) -> None:
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        super().__init__(address, _Handler)
        self.output = output
        self.idle_seconds = idle_seconds
        self.head_seconds = head_seconds
        port = self.port
        self.hosts = frozenset(f"{name}:{port}".lower() for name in names) | (
            frozenset(name.lower() for name in names) if port == 80 else frozenset()
        )

    @property
    def port(self) -> int:
        return int(self.server_address[1])


class _Handler(BaseHTTPRequestHandler):
    server_version = "sitemap-updater-serve"
    server: PreviewServer

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.idle_seconds)  # each read and write of it
        self._head_deadline = threading.Timer(self.server.head_seconds, self._cut)
        self._head_deadline.daemon = True
        self._head_deadline.start()

    def _cut(self) -> None:
        """Ends a connection whose request head is still not in: its reads end at once."""
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def parse_request(self) -> bool:
        parsed = super().parse_request()  # reads the headers
        self._head_deadline.cancel()
        return parsed

    def finish(self) -> None:
        self._head_deadline.cancel()
        super().finish()

    def do_GET(self) -> None:
        self._answer(send_body=True)

    def do_HEAD(self) -> None:
        self._answer(send_body=False)

    def _for_this_server(self) -> bool:
        hosts = self.headers.get_all("Host") or []
        return len(hosts) == 1 and hosts[0].strip().lower() in self.server.hosts

    def _answer(self, *, send_body: bool) -> None:
        if not self._for_this_server():
            self.send_error(HTTPStatus.MISDIRECTED_REQUEST, "not a Host this preview answers")
            return
        key = unquote(urlsplit(self.path).path).lstrip("/") or INDEX_KEY
        body = self.server.output.body(key)
        if body is None:
            self.send_error(HTTPStatus.NOT_FOUND)
            return
        kind = kind_of(key)
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", kind.content_type)
        self.send_header("Cache-Control", kind.cache_control)
        self.send_header("Content-Length", str(len(body)))
        for name, value in SECURITY_HEADERS:
            self.send_header(name, value)
        self.end_headers()
        if send_body:
            self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return None


def _is_loopback(address: str) -> bool:
    try:
        return address == "localhost" or ipaddress.ip_address(address).is_loopback
    except ValueError:
        raise CommandError(
            f"--bind {printable(address)!r}: not an IP address (or localhost)"
        ) from None


def _check_remote_names(names: list[str]) -> None:
    for name in names:
        if _HOST_NAME.fullmatch(name) is None:
            raise CommandError(
                f"--allow-remote {printable(name)!r}: not a host name or address as a Host "
                "header names it (letters, digits, dots and hyphens, or an IPv6 address in [])"
            )


def _check_address(address: str, remote_names: list[str]) -> None:
    if not _is_loopback(address) and not remote_names:
        raise CommandError(
            f"--bind {printable(address)}: not a loopback address; anyone who can reach it "
            "could read the files (add --allow-remote HOST to mean it, HOST the name or "
            "address the other machines use)"
        )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "directory", type=Path, metavar="DIR", help="output of build, demo or simulate"
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        metavar="N",
        help=f"port (default {DEFAULT_PORT}; 0: any free one)",
    )
    parser.add_argument(
        "--bind",
        default=LOOPBACK,
        metavar="ADDRESS",
        help=f"address to listen on (default {LOOPBACK})",
    )
    parser.add_argument(
        "--allow-remote",
        action="append",
        default=[],
        metavar="HOST",
        help=(
            "also answer requests for HOST:PORT, the name or address other machines reach this "
            "one by, and allow a --bind address that is not loopback (they can then read DIR); "
            "repeat it for several names"
        ),
    )


def _local_names(bind: str) -> list[str]:
    """The names a request from this machine may give: the local ones and the address bound."""
    names = list(LOCAL_NAMES)
    if bind not in names and _is_loopback(bind):
        names.append(f"[{bind}]" if ":" in bind else bind)
    return names


def run(args: argparse.Namespace) -> int:
    remote: list[str] = args.allow_remote
    _check_remote_names(remote)
    _check_address(args.bind, remote)
    if not 0 <= args.port <= 65535:
        raise CommandError(f"--port {args.port}: must be 0 to 65535")
    output = Output(args.directory)
    shown_dir = printable(args.directory)
    if not args.directory.is_dir():
        raise CommandError(f"{shown_dir}: not a directory")
    hosts = output.hosts()
    if not hosts:
        raise CommandError(
            f"{shown_dir}: no {INDEX_KEY} (not an output of build, demo or simulate)"
        )
    local = _local_names(args.bind)
    server = PreviewServer((args.bind, args.port), output, [*local, *remote])
    try:
        # the address printed is one the server answers: where it listens when that is
        # loopback, else the first name --allow-remote gives
        bound = f"[{args.bind}]" if ":" in args.bind else args.bind
        shown = bound if _is_loopback(args.bind) else remote[0]
        base = f"http://{shown}:{server.port}/"
        print(f"Serving {shown_dir} on {base} (Ctrl-C stops it)")
        for prefix in hosts:
            name = printable(prefix.rstrip("/")) or "the first host"
            print(f"  the view of {name}: {base}{printable(prefix)}{VIEW_PAGE}")
        sys.stdout.flush()
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            print(command_line("serve", "stopped"), file=sys.stderr)
    finally:
        server.server_close()
    return EXIT_OK
