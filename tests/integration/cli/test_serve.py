"""``sitemap-updater serve DIR``: a build's output on 127.0.0.1 with the headers the distribution
sends (the bucket's Content-Type and Cache-Control, the response headers policy's security
headers), only the objects the rebuild publishes, loopback unless told, and Ctrl-C a clean stop.
A safe preview: no file through a link out of DIR, no answer to a Host not its own (DNS
rebinding), no connection kept that stalls, and what it prints escaped.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from sitemap_updater.rebuild.outputs.bucket import kind_of
from sitemap_updater.sites import Sites
from sitemap_updater.view import SECURITY_HEADERS, VIEW_NAMES, view_files
from sitemap_updater_local.cli import main
from sitemap_updater_local.commands.build import build_static
from sitemap_updater_local.commands.serve import HEAD_SECONDS, IDLE_SECONDS, Output, PreviewServer
from tests.helpers.interrupt import default_interrupt

COM, DE = "https://www.example.com", "https://www.example.de"
ROOT = Path(__file__).resolve().parents[3]
COMMAND = [sys.executable, "-m", "sitemap_updater_local.cli", "serve"]


@dataclass
class Running:
    process: subprocess.Popen[str]
    lines: list[str]
    base: str


def _start(directory: Path, *options: str, views: int | None = None) -> Running:
    """The server started on ``directory``, with its first line and the one of each of its
    ``views`` (by default one for each folder with an index)."""
    process = subprocess.Popen(
        [*COMMAND, str(directory), "--port", "0", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_interrupt,  # stopped with Ctrl-C
    )
    assert process.stdout is not None
    lines = [process.stdout.readline()]
    count = len(_hosts(directory)) if views is None else views
    lines += [process.stdout.readline() for _ in range(count)]
    base = lines[0].split(" on ", 1)[1].split("/ ", 1)[0]
    return Running(process, lines, base)


def _hosts(directory: Path) -> list[Path]:
    """The folders with an index: one line each follows the address."""
    return [p for p in (directory, *directory.iterdir()) if (p / "sitemap.xml").is_file()]


@pytest.fixture
def output(tmp_path: Path) -> Path:
    source = tmp_path / "pages.csv"
    source.write_text(
        "url,lastmod\n"
        + "".join(f"{origin}/p/{i},2026-11-01\n" for origin in (COM, DE) for i in range(5))
    )
    out = tmp_path / "out"
    build_static([str(source)], Sites.parse(f"{COM},{DE}"), str(out))
    (out / "pages.csv").write_text("not published")
    return out


@pytest.fixture
def served(output: Path) -> Iterator[Running]:
    running = _start(output)
    try:
        yield running
    finally:
        running.process.terminate()
        # what it still writes is read, so that a full pipe can never hold up its exit
        running.process.communicate(timeout=30)


def _get(url: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method=method)) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), b""


def test_it_prints_each_hosts_view_and_serves_every_published_object_as_the_bucket_does(
    served: Running, output: Path
) -> None:
    assert served.base.startswith("http://127.0.0.1:")
    assert served.lines[1:] == [
        f"  the view of the first host: {served.base}/sitemap.html\n",
        f"  the view of www.example.de: {served.base}/www.example.de/sitemap.html\n",
    ]
    published = [p for p in output.rglob("*") if p.is_file() and p.name != "pages.csv"]
    published = [p for p in published if not p.name.startswith(".")]
    assert {p.name for p in published} >= {"sitemap.xml", "sitemap.xsl", *VIEW_NAMES}
    for path in published:
        key = path.relative_to(output).as_posix()
        status, headers, body = _get(f"{served.base}/{key}")
        assert status == 200, key
        assert body == path.read_bytes()
        kind = kind_of(key)
        assert headers["Content-Type"] == kind.content_type
        assert headers["Cache-Control"] == kind.cache_control
        assert "Content-Encoding" not in headers  # a .xml.gz is a gzip file, as in the bucket
        for name, value in SECURITY_HEADERS:
            assert headers[name] == value
    assert _get(f"{served.base}/")[2] == (output / "sitemap.xml").read_bytes()
    status, headers, body = _get(f"{served.base}/sitemap.html", method="HEAD")
    assert (status, body, headers["Content-Type"]) == (200, b"", "text/html; charset=utf-8")


@pytest.mark.parametrize(
    "path",
    ["pages.csv", "www.example.de/../pages.csv", "%2e%2e/etc/passwd", "a/b/sitemap.xml", "nope/"],
)
def test_what_the_rebuild_does_not_publish_is_not_found(served: Running, path: str) -> None:
    assert _get(f"{served.base}/{path}")[0] == 404


def test_an_output_from_before_the_view_is_shown_with_this_versions_view(tmp_path: Path) -> None:
    source = tmp_path / "pages.csv"
    source.write_text(f"url,lastmod\n{COM}/a,2026-11-01\n")
    out = tmp_path / "out"
    build_static([str(source)], Sites.parse(COM), str(out))
    for name in VIEW_NAMES:
        (out / name).unlink()
    running = _start(out)
    try:
        for name, body in view_files():
            assert _get(f"{running.base}/{name}")[2] == body
    finally:
        running.process.terminate()
        # what it still writes is read, so that a full pipe can never hold up its exit
        running.process.communicate(timeout=30)


def test_ctrl_c_stops_it_with_one_line_and_status_0(output: Path) -> None:
    running = _start(output)
    assert _get(f"{running.base}/sitemap.html")[0] == 200
    running.process.send_signal(signal.SIGINT)
    _, err = running.process.communicate(timeout=30)
    assert running.process.returncode == 0
    assert err == "sitemap-updater serve: stopped\n"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--bind", "0.0.0.0"], "--bind 0.0.0.0: not a loopback address"),
        (["--bind", "192.0.2.7"], "add --allow-remote HOST to mean it"),
        (["--allow-remote", "a b"], "--allow-remote 'a b': not a host name or address"),
        (["--allow-remote", "evil.test/x"], "--allow-remote 'evil.test/x': not a host name"),
        (["--bind", "example.com"], "--bind 'example.com': not an IP address (or localhost)"),
        (["--port", "70000"], "--port 70000: must be 0 to 65535"),
    ],
)
def test_it_refuses_to_listen_beyond_loopback_unless_told(
    output: Path, arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", str(output), *arguments]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sitemap-updater serve: ") and message in err
    assert err.count("\n") == 1


def test_a_directory_without_an_index_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", str(tmp_path)]) == 2
    assert "no sitemap.xml (not an output of build, demo or simulate)" in capsys.readouterr().err
    assert main(["serve", str(tmp_path / "missing")]) == 2
    assert "not a directory" in capsys.readouterr().err


# ---------------------------------------------------------------- a safe local preview


def _raw(base: str, request: bytes, timeout: float = 30) -> bytes:
    """What the server answers ``request`` on a connection of its own, until it closes."""
    host, port = urlsplit(base).hostname, urlsplit(base).port
    assert host is not None and port is not None
    with socket.create_connection((host, port), timeout=timeout) as conn:
        conn.sendall(request)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    return answer


def _status(base: str, host: str | None, path: str = "/sitemap.xml") -> int:
    head = f"GET {path} HTTP/1.1\r\n" + (f"Host: {host}\r\n" if host is not None else "")
    answer = _raw(base, (head + "Connection: close\r\n\r\n").encode())
    return int(answer.split(b" ", 2)[1])


def test_it_answers_only_its_own_host(served: Running) -> None:
    port = urlsplit(served.base).port
    assert _status(served.base, f"127.0.0.1:{port}") == 200
    assert _status(served.base, f"localhost:{port}") == 200
    assert _status(served.base, f"LOCALHOST:{port}") == 200  # host names are case-insensitive
    # a page on a name that resolves to 127.0.0.1 (DNS rebinding) sends that name
    for host in (f"attacker.example:{port}", "localhost", f"127.0.0.1:{port + 1}", ""):
        assert _status(served.base, host) == 421, host
    assert _status(served.base, None) == 421  # no Host at all
    two = f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nHost: evil.test:{port}\r\n\r\n"
    assert int(_raw(served.base, two.encode()).split(b" ", 2)[1]) == 421


def test_allow_remote_names_a_host_it_answers_too(output: Path) -> None:
    running = _start(output, "--allow-remote", "preview.test", "--allow-remote", "192.0.2.7")
    try:
        port = urlsplit(running.base).port
        assert running.base.startswith("http://127.0.0.1:")  # it still listens on loopback
        assert _status(running.base, f"preview.test:{port}") == 200
        assert _status(running.base, f"192.0.2.7:{port}") == 200
        assert _status(running.base, f"127.0.0.1:{port}") == 200
        assert _status(running.base, f"other.test:{port}") == 421
    finally:
        running.process.terminate()
        running.process.communicate(timeout=30)


@pytest.fixture
def linked(output: Path, tmp_path: Path) -> Path:
    """The output with links: out of it (a file, and a host folder), and one within it."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "sitemap-secret.xml.gz").write_bytes(b"secret")
    (outside / "sitemap.xml").write_bytes(b"<sitemapindex/>")
    (output / "sitemap-secret.xml.gz").symlink_to(outside / "sitemap-secret.xml.gz")
    (output / "www.example.fr").symlink_to(outside, target_is_directory=True)
    # a published file moved to a folder of the output, a link left in its place
    moved = next(output.glob("sitemap-*.xml.gz"))
    (output / "kept").mkdir()
    moved.rename(output / "kept" / moved.name)
    moved.symlink_to(output / "kept" / moved.name)
    return output


def test_no_link_leads_out_of_its_folder(linked: Path) -> None:
    running = _start(linked, views=2)  # the first host's and www.example.de's
    try:
        # the linked folder is not a host of the output: its view is not offered
        assert not any("www.example.fr" in line for line in running.lines)
        running.process.terminate()
        rest, _ = running.process.communicate(timeout=30)
        assert "www.example.fr" not in rest
        running = _start(linked, views=2)
        assert _get(f"{running.base}/sitemap-secret.xml.gz")[0] == 404
        assert _get(f"{running.base}/www.example.fr/sitemap.xml")[0] == 404
        assert _get(f"{running.base}/www.example.fr/sitemap-secret.xml.gz")[0] == 404
        assert _get(f"{running.base}/www.example.fr/sitemap.html")[0] == 404
        # a link that stays within the folder is served as its target
        (moved,) = (
            p for p in linked.glob("sitemap-*.xml.gz") if (linked / "kept" / p.name).exists()
        )
        status, _, body = _get(f"{running.base}/{moved.name}")
        assert (status, body) == (200, moved.read_bytes())
    finally:
        running.process.terminate()
        running.process.communicate(timeout=30)


@pytest.fixture
def preview(output: Path) -> Iterator[Callable[..., PreviewServer]]:
    """Starts an in-process preview of ``output`` with the deadlines given; stops them all."""
    started: list[tuple[PreviewServer, threading.Thread]] = []

    def start(**deadlines: float) -> PreviewServer:
        server = PreviewServer(("127.0.0.1", 0), Output(output), ["127.0.0.1"], **deadlines)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        started.append((server, thread))
        return server

    yield start
    for server, thread in started:
        server.shutdown()
        server.server_close()
        thread.join(timeout=30)


def _half_sent(server: PreviewServer, request: bytes) -> bytes:
    """Sends the start of a request and waits (at most 20 s) for what the server does."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=20) as conn:
        conn.sendall(request)
        answer = b""
        while chunk := conn.recv(65536):  # b"" once the server closes the connection
            answer += chunk
    return answer


def test_a_connection_that_stalls_is_closed_and_others_are_served(
    preview: Callable[..., PreviewServer],
) -> None:
    server = preview(idle_seconds=0.2, head_seconds=60)
    port = server.port
    # nothing sent, and half a request line: both closed once idle, with no answer
    assert _half_sent(server, b"") == b""
    assert _half_sent(server, b"GET /sitemap.x") == b""
    ok = f"GET /sitemap.xml HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    assert _half_sent(server, ok.encode()).startswith(b"HTTP/1.0 200 ")


def test_a_request_head_that_never_ends_is_cut_at_its_deadline(
    preview: Callable[..., PreviewServer],
) -> None:
    # reads never wait long enough to time out (60 s), yet the head must be in within 0.2 s:
    # the connection is closed while its client still waits (20 s at most)
    server = preview(idle_seconds=60, head_seconds=0.2)
    with socket.create_connection(("127.0.0.1", server.port), timeout=20) as held:
        held.sendall(b"GET /sitemap.xml HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        assert held.recv(65536) == b""
        # meanwhile the server answers a whole request at once
        ok = f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nConnection: close\r\n\r\n"
        assert _half_sent(server, ok.encode()).startswith(b"HTTP/1.0 200 ")


def test_what_it_prints_of_the_folders_is_escaped(tmp_path: Path) -> None:
    source = tmp_path / "pages.csv"
    source.write_text(f"url,lastmod\n{COM}/a,2026-11-01\n{DE}/b,2026-11-01\n")
    out = tmp_path / "out\x1b[31m\u202e"
    build_static([str(source)], Sites.parse(f"{COM},{DE}"), str(out))
    # a host folder whose name a terminal would act on
    (out / "www.example.de").rename(out / "evil\x1b]0;title\x07\nline")
    running = _start(out)
    try:
        assert all("\x1b" not in line and "\u202e" not in line for line in running.lines)
        assert len(running.lines) == 3 and all(line.endswith("\n") for line in running.lines)
        assert "out\\x1b[31m\\u202e" in running.lines[0]
        assert "evil\\x1b]0;title\\x07\\x0aline" in running.lines[2]
    finally:
        running.process.terminate()
        running.process.communicate(timeout=30)


def test_the_documented_deadlines_are_the_servers() -> None:
    text = " ".join((ROOT / "docs" / "cli.md").read_text(encoding="utf-8").split())
    assert f"sends nothing for {IDLE_SECONDS:g} s" in text
    assert f"request head after {HEAD_SECONDS:g} s" in text
