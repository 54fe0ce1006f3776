"""What a person sees who opens the sitemap files in a browser: headless Chromium, served over
HTTP from localhost as the bucket serves them (a browser applies an XSLT stylesheet named by a
processing instruction only over HTTP, never from ``file://``), shows the index and a urlset as
tables with a row for every file and every URL.

Chromium has deprecated XSLT and plans to turn it off by default (feature ``XSLT``); the test
asks for it with ``--enable-features=XSLT`` so that it keeps checking the stylesheet itself for
as long as Chromium ships the code. Without Chromium the test is skipped, except in CI (``CI``
set), where ``make test`` installs it and its absence is a failure.
"""

from __future__ import annotations

import gzip
import os
import shutil
import struct
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from lxml import etree, html

from sitemap_updater.page.model import Page
from sitemap_updater.protocol.index import render_index
from sitemap_updater.protocol.stylesheet import STYLESHEET_NAME, stylesheet_body
from sitemap_updater.protocol.urls import Site
from sitemap_updater.rebuild.outputs.bucket import kind_of
from sitemap_updater.sites import sites_of
from sitemap_updater_local.pipeline.static_build import build_static
from tests.helpers.files import urlset_file
from tests.helpers.pages import make_page

SITE = Site.parse("https://www.example.com")
NS = {
    "sm": "http://www.sitemaps.org/schemas/sitemap/0.9",
    "xhtml": "http://www.w3.org/1999/xhtml",
    "image": "http://www.google.com/schemas/sitemap-image/1.1",
}
WINDOW = (1280, 900)
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-features=XSLT",
    f"--window-size={WINDOW[0]},{WINDOW[1]}",
)

pytestmark = pytest.mark.browser


def chromium() -> str:
    """The Chromium binary; skips the test where there is none, fails in CI."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed (.ci/run installs it: apt-get install chromium)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return found


class _BucketLike(SimpleHTTPRequestHandler):
    """Serves a directory with the headers the rebuild gives each object; a gzipped urlset is
    sent as its own bytes with ``Content-Encoding: gzip``, as a site may serve it to browsers."""

    def end_headers(self) -> None:
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()

    def guess_type(self, path: Any) -> str:
        name = os.path.basename(str(path))
        if name.endswith(".xml.gz"):
            return "application/xml; charset=utf-8"
        return kind_of(name).content_type

    def send_head(self) -> Any:
        if self.path.endswith(".gz"):
            body = (Path(self.directory) / self.path.lstrip("/")).read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", self.guess_type(self.path))
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return None
        return super().send_head()

    def log_message(self, *args: Any) -> None:
        return None


@dataclass(frozen=True)
class Served:
    base: str
    root: Path


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    root = tmp_path / "site"
    root.mkdir()
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_BucketLike, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Served(f"http://127.0.0.1:{server.server_address[1]}", root)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def run_chromium(tmp_path: Path, *arguments: str) -> bytes:
    """What headless Chromium prints, run with a profile of its own."""
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    done = subprocess.run(
        [chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *arguments],
        capture_output=True,
        timeout=60,
        check=True,
    )
    return done.stdout


def open_page(url: str, screenshot: Path) -> html.HtmlElement:
    """The document Chromium builds for ``url`` (after the stylesheet); its screenshot is taken
    into ``screenshot``, a PNG of the window's size."""
    dom = html.fromstring(
        run_chromium(screenshot.parent, f"--screenshot={screenshot}", "--dump-dom", url)
    )
    data = screenshot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{screenshot} is not a PNG"
    assert struct.unpack(">II", data[16:24]) == WINDOW
    return dom


def section_of(url: str) -> str:
    """The section a file name ``sitemap-<section>-<shard>.xml.gz`` carries, or the dash."""
    stem = url.rsplit("/", 1)[-1].removeprefix("sitemap-").removesuffix(".xml.gz")
    return stem.rpartition("-")[0] or "—"


def cells(row: html.HtmlElement) -> list[html.HtmlElement]:
    return list(row.findall("td"))


def test_the_index_of_a_build_shows_a_row_for_every_file(served: Served, tmp_path: Path) -> None:
    source = tmp_path / "pages.csv"
    source.write_text(
        "url,lastmod\n"
        + "".join(f"{SITE.origin}/p/{i},2026-11-{1 + i % 20:02d}\n" for i in range(60))
    )
    build_static([str(source)], sites_of(SITE), str(served.root), max_urls=8, jobs=1)
    index = etree.fromstring((served.root / "sitemap.xml").read_bytes())
    listed = [
        (s.findtext("sm:loc", namespaces=NS), s.findtext("sm:lastmod", namespaces=NS))
        for s in index.findall("sm:sitemap", NS)
    ]
    assert len(listed) > 5

    page = open_page(f"{served.base}/sitemap.xml", tmp_path / "index.png")

    rows = page.xpath("//table[@id='files']/tbody/tr")
    shown = [(cells(r)[0].find("a").get("href"), cells(r)[2].text_content().strip()) for r in rows]
    assert shown == [(loc, lastmod or "—") for loc, lastmod in listed]
    assert [c[1].text_content().strip() for c in map(cells, rows)] == [
        section_of(str(loc)) for loc, _ in listed
    ]
    assert page.get_element_by_id("count").text_content() == str(len(listed))


def test_the_sections_of_file_names_are_shown(served: Served, tmp_path: Path) -> None:
    names = [
        "sitemap-products-r01.xml.gz",
        "sitemap-blog-posts-r0.xml.gz",
        "sitemap-news-1.xml.gz",
        "sitemap-r0101.xml.gz",
        "sitemap-home.xml.gz",
    ]
    index, _ = render_index([(f"{SITE.origin}/{n}", None) for n in names], stylesheet=True)
    (served.root / "sitemap.xml").write_bytes(index)
    (served.root / STYLESHEET_NAME).write_bytes(stylesheet_body())

    page = open_page(f"{served.base}/sitemap.xml", tmp_path / "sections.png")

    rows = page.xpath("//table[@id='files']/tbody/tr")
    assert [cells(r)[1].text_content().strip() for r in rows] == [section_of(n) for n in names]
    assert [section_of(n) for n in names] == ["products", "blog-posts", "news", "—", "—"]


def _entries() -> list[Page]:
    origin = SITE.origin
    now = datetime(2026, 11, 20, 12, tzinfo=UTC)
    entries = [
        make_page(
            SITE,
            url=f"{origin}/p/{i}",
            lastmod=f"2026-11-{1 + i:02d}" if i % 3 else None,
            alternates=[
                {"hreflang": "de", "href": f"{origin}/de/p/{i}"},
                {"hreflang": "x-default", "href": f"{origin}/p/{i}"},
            ]
            if i % 2
            else [],
            images=[{"loc": f"https://cdn.example.net/{i}/{k}.jpg"} for k in range(i % 4)],
            now=now,
        )
        for i in range(9)
    ]
    news = {
        "publication": {"name": "The Example Times", "language": "en"},
        "publication_date": "2026-11-20T10:00:00Z",
        "title": "Markets <rise> & fall",
    }
    video = {
        "thumbnail_loc": "https://cdn.example.net/t.jpg",
        "title": "A talk",
        "description": "About sitemaps",
        "content_loc": "https://cdn.example.net/talk.mp4",
    }
    entries.append(make_page(SITE, url=f"{origin}/story", news=news, now=now))
    entries.append(make_page(SITE, url=f"{origin}/talk", videos=[video], now=now))
    return entries


def test_a_urlset_shows_a_row_for_every_url(served: Served, tmp_path: Path) -> None:
    body = urlset_file(_entries(), stylesheet=True)
    (served.root / "sitemap-r.xml.gz").write_bytes(body)
    (served.root / STYLESHEET_NAME).write_bytes(stylesheet_body())
    urlset = etree.fromstring(gzip.decompress(body))
    urls = urlset.findall("sm:url", NS)

    page = open_page(f"{served.base}/sitemap-r.xml.gz", tmp_path / "urlset.png")

    rows = page.xpath("//table[@id='urls']/tbody/tr")
    assert len(rows) == len(urls)
    assert page.get_element_by_id("count").text_content() == str(len(urls))
    for row, url in zip(rows, urls, strict=True):
        loc, lastmod, alternates, images, extensions = cells(row)
        assert loc.find("a").get("href") == url.findtext("sm:loc", namespaces=NS)
        assert lastmod.text_content().strip() == (url.findtext("sm:lastmod", namespaces=NS) or "—")
        expected = [(a.get("hreflang"), a.get("href")) for a in url.findall("xhtml:link", NS)]
        shown = [
            (li.find_class("hreflang")[0].text_content(), li.find("a").get("href"))
            for li in alternates.iter("li")
        ]
        assert shown == expected
        pictures = [i.findtext("image:loc", namespaces=NS) for i in url.findall("image:image", NS)]
        assert images.find_class("n")[0].text_content() == str(len(pictures))
        assert [a.get("href") for a in images.iter("a")] == pictures
        title = url.findtext(
            "{http://www.google.com/schemas/sitemap-news/0.9}news/"
            "{http://www.google.com/schemas/sitemap-news/0.9}title"
        ) or url.findtext(
            "{http://www.google.com/schemas/sitemap-video/1.1}video/"
            "{http://www.google.com/schemas/sitemap-video/1.1}title"
        )
        assert (title or "—") in extensions.text_content()
