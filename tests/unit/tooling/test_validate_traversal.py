"""``validate`` reads everything it is given: a directory's host folders (an output of several
hosts), an index URL's children on its own origin (within one source's caps), and it exits 3
when it read nothing."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from sitemap_updater.page.model import Page
from sitemap_updater.page.render import url_element
from sitemap_updater.protocol.index import render_index
from sitemap_updater.protocol.urlset import urlset_of
from sitemap_updater_local import cli
from sitemap_updater_local.inputs.opening import SourcePolicy
from sitemap_updater_local.validation.document import validate_path, validate_url

FIRST, SECOND = "https://www.example.com", "https://www.example.de"
BROKEN = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n'
    b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
    b"<url><loc>https://www.example.de/a</loc><changefreq>often</changefreq></url></urlset>"
)


def _urlset(origin: str, *paths: str) -> bytes:
    """A urlset as the writers render it (its URLs in normalized form), uncompressed."""
    return urlset_of([url_element(Page(origin + p)).encode() for p in paths], stylesheet=False)


def _index(*locs: str) -> bytes:
    return render_index([(loc, None) for loc in locs])[0]


def _two_hosts(out: Path) -> Path:
    """An output of two hosts as build and the rebuild lay it out, the second host's file
    broken."""
    out.mkdir()
    (out / "sitemap.xml").write_bytes(_index(f"{FIRST}/sitemap-pages-r.xml.gz"))
    (out / "sitemap-pages-r.xml.gz").write_bytes(_urlset(FIRST, "/a"))
    host = out / "www.example.de"
    host.mkdir()
    (host / "sitemap.xml").write_bytes(_index(f"{SECOND}/sitemap-pages-r.xml.gz"))
    (host / "sitemap-pages-r.xml.gz").write_bytes(BROKEN)
    (out / "state").mkdir()  # not a host: not read
    (out / "state" / "other.xml").write_bytes(b"not a sitemap")
    return host


def test_every_host_folder_of_a_directory_is_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    host = _two_hosts(tmp_path / "out")

    reports = validate_path(tmp_path / "out", base_url=FIRST + "/")

    by_source = {Path(r.source).relative_to(tmp_path / "out").as_posix(): r for r in reports}
    assert sorted(by_source) == [
        "sitemap-pages-r.xml.gz",
        "sitemap.xml",
        "www.example.de/sitemap-pages-r.xml.gz",
        "www.example.de/sitemap.xml",
    ]
    assert by_source["www.example.de/sitemap.xml"].ok  # its files are on its own host
    [problem] = by_source["www.example.de/sitemap-pages-r.xml.gz"].problems
    assert "often" in problem.text
    assert cli.main(["validate", str(tmp_path / "out")]) == 1
    out = capsys.readouterr().out.splitlines()
    said = f"{host / 'sitemap-pages-r.xml.gz'}:3: changefreq: 'often' is invalid"
    assert [line for line in out if line.startswith(said)]
    assert out[-1] == "sitemap-updater validate: 4 file(s), 2 URL(s): 1 problem(s), 0 warning(s)"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    root = tmp_path / "served"
    root.mkdir()
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", root
    server.shutdown()
    server.server_close()


def test_the_children_of_an_index_url_on_its_origin_are_checked(
    served: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    origin, root = served
    (root / "good.xml").write_bytes(_urlset(origin, "/a"))
    (root / "bad.xml").write_bytes(
        _urlset(origin, "/b").replace(b"</loc>", b"</loc><lastmod>soon</lastmod>")
    )
    listed = [f"{origin}/good.xml", f"{origin}/gone.xml", f"{origin}/bad.xml", f"{origin}/good.xml"]
    (root / "sitemap.xml").write_bytes(_index(*listed, "https://elsewhere.example.org/s.xml"))

    reports = validate_url(f"{origin}/sitemap.xml")

    assert [r.source for r in reports] == [
        f"{origin}/{n}.xml" for n in ("sitemap", "good", "gone", "bad")
    ]
    index, good, gone, bad = reports
    [elsewhere] = index.problems  # the index breaks the same-site rule
    assert "elsewhere.example.org" in elsewhere.text and good.ok and good.url_count == 1
    assert index.notes == [f"1 child sitemap(s) not on {origin} not fetched or checked"]
    assert "404" in gone.problems[0].text and not bad.ok
    assert cli.main(["validate", f"{origin}/sitemap.xml"]) == 1
    out = capsys.readouterr().out
    assert f"{origin}/gone.xml: cannot open" in out and f"{origin}/good.xml: ok" in out


def test_the_children_are_read_within_one_sources_byte_cap(served: tuple[str, Path]) -> None:
    origin, root = served
    children = [f"{origin}/child-{i}.xml" for i in range(5)]
    for i in range(len(children)):
        (root / f"child-{i}.xml").write_bytes(_urlset(origin, f"/page-{i}"))
    (root / "sitemap.xml").write_bytes(_index(*children))
    size = len((root / "sitemap.xml").read_bytes()) + len((root / "child-0.xml").read_bytes())

    index, *read = validate_url(f"{origin}/sitemap.xml", SourcePolicy(max_bytes=size + 10))

    assert read[0].ok and len(read) == 2
    assert "more than" in read[1].problems[0].text
    assert [p.text for p in index.problems] == [
        f"the children after {size + 10:,} bytes read are not checked"
    ]


def test_reading_nothing_exits_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty.xml").write_bytes(b"")
    (tmp_path / "nothing").mkdir()

    assert cli.main(["validate", str(tmp_path / "empty.xml"), str(tmp_path / "nothing")]) == 3

    captured = capsys.readouterr()
    assert "empty file: nothing to read" in captured.out and "no .xml" in captured.out
    assert (
        captured.err
        == "sitemap-updater validate: nothing read: no sitemap file, or only empty ones\n"
    )
