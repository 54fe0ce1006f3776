"""``backfill`` from a URL: children and redirects on the index's own origin only (unless
``--allow-origin`` names more), http(s) only, each child read once, and the caps on what one
source gives. Every server listens on 127.0.0.1."""

from __future__ import annotations

import functools
import http.server
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

from sitemap_updater_local.cli import main
from tests.integration.cli.support import index_xml, page_urls, urlset_xml


class _Handler(http.server.SimpleHTTPRequestHandler):
    #: path -> where it redirects to
    redirects: ClassVar[dict[str, str]] = {}

    def do_GET(self) -> None:
        target = self.redirects.get(self.path)
        if target is not None:
            self.send_response(302)
            self.send_header("Location", target)
            self.end_headers()
            return
        super().do_GET()

    def log_message(self, format: str, *args: object) -> None:
        pass


@dataclass
class Origins:
    """Two servers on 127.0.0.1 (two origins), each serving its own directory."""

    a: str
    b: str
    folder_a: Path
    folder_b: Path
    handler_a: type[_Handler]


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[Origins]:
    running = []
    for name in ("a", "b"):
        folder = tmp_path / name
        folder.mkdir()
        handler = type(f"Handler{name}", (_Handler,), {"redirects": {}})
        server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(handler, directory=str(folder))
        )
        threading.Thread(target=server.serve_forever, daemon=True).start()
        running.append((server, folder, handler))
    (a, fa, ha), (b, fb, _) = running
    try:
        yield Origins(
            f"http://127.0.0.1:{a.server_address[1]}",
            f"http://127.0.0.1:{b.server_address[1]}",
            fa,
            fb,
            ha,
        )
    finally:
        for server, _, _ in running:
            server.shutdown()
            server.server_close()


def _backfill(source: str, out: Path, *extra: str) -> int:
    return main(["backfill", "--from", source, "--out", str(out), "--no-progress", *extra])


def _urls(out: Path) -> list[str]:
    return sorted(json.loads(line)["url"] for line in out.read_text().splitlines())


def test_a_child_on_another_origin_is_refused_unless_allowed(
    tmp_path: Path, servers: Origins, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b, fa, fb = servers.a, servers.b, servers.folder_a, servers.folder_b
    here, there = list(page_urls(3, "here")), list(page_urls(2, "there"))
    (fa / "one.xml").write_text(urlset_xml(here))
    (fb / "two.xml").write_text(urlset_xml(there))
    (fa / "index.xml").write_text(index_xml([f"{a}/one.xml", f"{b}/two.xml"]))
    out = tmp_path / "events.jsonl"

    assert _backfill(f"{a}/index.xml", out) == 1
    err = capsys.readouterr().err
    assert f"{b}/two.xml: URL refused: origin {b} is not the source's own ({a})" in err
    assert "--allow-origin" in err
    assert _urls(out) == sorted(here)

    assert _backfill(f"{a}/index.xml", out, "--allow-origin", b) == 0
    assert _urls(out) == sorted(here + there)


def test_a_redirect_to_another_origin_is_refused(
    tmp_path: Path, servers: Origins, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b, fa, fb = servers.a, servers.b, servers.folder_a, servers.folder_b
    urls = list(page_urls(2))
    (fb / "secret.xml").write_text(urlset_xml(urls))
    (fa / "local.xml").write_text(urlset_xml(urls))
    servers.handler_a.redirects["/moved.xml"] = f"{b}/secret.xml"
    servers.handler_a.redirects["/here.xml"] = "/local.xml"
    out = tmp_path / "events.jsonl"

    assert _backfill(f"{a}/moved.xml", out) == 2
    err = capsys.readouterr().err
    assert f"{b}/secret.xml: redirect from {a}/moved.xml refused: origin {b}" in err
    assert "secret" in err and err.count("\n") == 1  # one line, no content of the other server

    assert _backfill(f"{a}/here.xml", out) == 0
    assert _urls(out) == sorted(urls)


def test_an_index_listing_itself_and_a_child_many_times_reads_each_once(
    tmp_path: Path, servers: Origins, capsys: pytest.CaptureFixture[str]
) -> None:
    a, fa = servers.a, servers.folder_a
    urls = list(page_urls(5))
    (fa / "child.xml").write_text(urlset_xml(urls))
    (fa / "index.xml").write_text(index_xml([f"{a}/index.xml", f"{a}/child.xml"] * 2000))
    out = tmp_path / "events.jsonl"

    assert _backfill(f"{a}/index.xml", out) == 0
    captured = capsys.readouterr()
    assert _urls(out) == sorted(urls)
    assert len(captured.err.splitlines()) == 1
    assert "3999 <sitemap> entries listed a child already read" in captured.err


def test_a_scheme_other_than_http_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "events.jsonl"
    assert _backfill("ftp://127.0.0.1/sitemap.xml", out) == 2
    assert "scheme 'ftp' is not allowed" in capsys.readouterr().err


def test_the_records_of_one_source_are_capped(
    tmp_path: Path, servers: Origins, capsys: pytest.CaptureFixture[str]
) -> None:
    a, fa = servers.a, servers.folder_a
    for name in ("one", "two", "three"):
        (fa / f"{name}.xml").write_text(urlset_xml(list(page_urls(40, name))))
    (fa / "index.xml").write_text(index_xml([f"{a}/{n}.xml" for n in ("one", "two", "three")]))
    out = tmp_path / "events.jsonl"

    assert _backfill(f"{a}/index.xml", out, "--max-records", "50") == 2
    err = capsys.readouterr().err
    assert "more than 50 records read from one source" in err and "--max-records" in err
    assert _backfill(f"{a}/index.xml", out, "--max-records", "500") == 0
    assert len(_urls(out)) == 120
    assert _backfill(f"{a}/index.xml", out, "--max-bytes", "5000") == 2
    assert "--max-bytes" in capsys.readouterr().err
