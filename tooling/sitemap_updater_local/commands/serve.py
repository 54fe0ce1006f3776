"""``sitemap-updater serve DIR``: a local preview of what ``build``, ``demo`` or ``simulate``
wrote, served as the distribution serves the bucket.

Only the objects the rebuild publishes are served (the indexes, the sitemap files, the
stylesheet, the view, robots.txt and the IndexNow key file: ``kind_of`` names them), each with
the Content-Type and Cache-Control the rebuild puts with it and the security headers of the
distribution's response headers policy, its Content-Security-Policy among them; anything else is
a 404. ``/`` is the primary host's ``sitemap.xml``, as the distribution's default root object.
A host after the first is under ``/<host>/``, as in ``DIR``. An output written before the view
existed is served with the view of this version.

It listens on 127.0.0.1 unless told otherwise, and on an address that is not loopback only with
``--allow-remote``. Ctrl-C stops it: one line, exit status 0.
"""

from __future__ import annotations

import argparse
import ipaddress
import socket
import sys
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Final
from urllib.parse import unquote, urlsplit

from sitemap_updater.rebuild.outputs.bucket import kind_of
from sitemap_updater.store.keys import INDEX_KEY
from sitemap_updater.view import SECURITY_HEADERS, VIEW_PAGE, view_files
from sitemap_updater_local.console import command_line
from sitemap_updater_local.errors import EXIT_OK, CommandError

DEFAULT_PORT: Final = 8000
LOOPBACK: Final = "127.0.0.1"


@dataclass(frozen=True)
class Output:
    """A directory of published objects: the primary host's at its top, any other host's in a
    folder named after it."""

    root: Path

    def hosts(self) -> list[str]:
        """The key prefix of each host with an index: ``""`` first, then each host folder."""
        folders = sorted(p.name for p in self.root.iterdir() if (p / INDEX_KEY).is_file())
        primary = [""] if (self.root / INDEX_KEY).is_file() else []
        return primary + [name + "/" for name in folders]

    def body(self, key: str) -> bytes | None:
        """The bytes served under ``key``, or None for a key that is not a published object's
        (only a name at the top or in one host folder; never a path out of ``root``)."""
        parts = key.split("/")
        if len(parts) > 2 or any(p in {"", ".", ".."} or "\\" in p for p in parts):
            return None
        try:
            kind_of(key)
        except ValueError:
            return None
        path = self.root.joinpath(*parts)
        if path.is_file():
            return path.read_bytes()
        if len(parts) == 1 or (self.root / parts[0] / INDEX_KEY).is_file():
            return dict(view_files()).get(parts[-1])
        return None


def _handler(output: Output) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "sitemap-updater-serve"

        def do_GET(self) -> None:
            self._answer(send_body=True)

        def do_HEAD(self) -> None:
            self._answer(send_body=False)

        def _answer(self, *, send_body: bool) -> None:
            key = unquote(urlsplit(self.path).path).lstrip("/") or INDEX_KEY
            body = output.body(key)
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

        def log_message(self, format: str, *args: object) -> None:
            return None

    return Handler


def _shown(path: Path) -> str:
    """A path as printed: as it is, or escaped (``repr``) when it holds a control character."""
    text = str(path)
    return text if text.isprintable() else repr(text)


class _Server(ThreadingHTTPServer):
    daemon_threads = True


class _Server6(_Server):
    address_family = socket.AF_INET6


def _check_address(address: str, allow_remote: bool) -> None:
    try:
        loopback = address == "localhost" or ipaddress.ip_address(address).is_loopback
    except ValueError:
        raise CommandError(f"--bind {address!r}: not an IP address (or localhost)") from None
    if not loopback and not allow_remote:
        raise CommandError(
            f"--bind {address}: not a loopback address; anyone who can reach it could read the "
            "files (add --allow-remote to mean it)"
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
        action="store_true",
        help="allow a --bind address that is not loopback (other machines can then read DIR)",
    )


def run(args: argparse.Namespace) -> int:
    _check_address(args.bind, args.allow_remote)
    if not 0 <= args.port <= 65535:
        raise CommandError(f"--port {args.port}: must be 0 to 65535")
    output = Output(args.directory)
    if not args.directory.is_dir():
        raise CommandError(f"{_shown(args.directory)}: not a directory")
    hosts = output.hosts()
    if not hosts:
        raise CommandError(
            f"{_shown(args.directory)}: no {INDEX_KEY} (not an output of build, demo or simulate)"
        )
    kind = _Server6 if ":" in args.bind else _Server
    server = kind((args.bind, args.port), _handler(output))
    try:
        host, port = str(server.server_address[0]), int(server.server_address[1])
        shown = f"[{host}]" if ":" in host else host
        print(f"Serving {_shown(args.directory)} on http://{shown}:{port}/ (Ctrl-C stops it)")
        for prefix in hosts:
            print(
                f"  the view of {prefix.rstrip('/') or 'the first host'}: http://{shown}:{port}/{prefix}{VIEW_PAGE}"
            )
        sys.stdout.flush()
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            print(command_line("serve", "stopped"), file=sys.stderr)
    finally:
        server.server_close()
    return EXIT_OK
