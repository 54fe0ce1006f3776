"""The autouse check of tests/conftest.py: every file a writer produces is validated."""

from __future__ import annotations

import io

import pytest

from sitemap_updater.page.model import Page
from sitemap_updater.protocol.index import render_index
from sitemap_updater.protocol.urls import Site
from sitemap_updater.protocol import IndexWriter, UrlsetWriter, render_urlset  # GONE
from tests.helpers.xsd import WrittenSitemaps

SITE = Site.parse("https://www.example.com")
ORIGIN = SITE.origin


class _Chunks:
    """A sink that is neither a BytesIO nor a file."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def write(self, data: bytes, /) -> int:
        self.parts.append(data)
        return len(data)


def test_valid_files_are_counted_whatever_the_sink(written_sitemaps: WrittenSitemaps) -> None:
    render_urlset([Page(url=ORIGIN + "/a")], SITE)
    render_index([(ORIGIN + "/sitemap-r.xml.gz", None)], gzip=True)
    sink = _Chunks()
    with UrlsetWriter(sink, SITE) as writer:
        writer.add(Page(url=ORIGIN + "/b"))
    plain = io.BytesIO()
    with IndexWriter(plain) as index:
        index.add(ORIGIN + "/sitemap-r.xml.gz", "2026-01-01")
    assert written_sitemaps.checked == 4
    assert written_sitemaps.problems == []
    # the writer's own sink still receives every byte
    assert b"".join(sink.parts)[:2] == b"\x1f\x8b"
    assert plain.getvalue().startswith(b"<?xml")


def test_a_writer_left_unclosed_is_not_a_file(written_sitemaps: WrittenSitemaps) -> None:
    UrlsetWriter(io.BytesIO(), SITE).add(Page(url=ORIGIN + "/a"))
    assert written_sitemaps.checked == 0


def test_an_invalid_file_is_reported(
    written_sitemaps: WrittenSitemaps, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The writer refuses every value that would make a file invalid, so an invalid file is made
    # here by breaking its closing tag (same length, so the byte count stays exact); the check
    # must notice.
    monkeypatch.setattr(UrlsetWriter, "closing", "</urlsex>\n")
    render_urlset([Page(url=ORIGIN + "/a")], SITE)
    [problem] = written_sitemaps.problems
    assert problem.startswith("a UrlsetWriter wrote an invalid file")
    written_sitemaps.problems.clear()  # seen and asserted: do not fail this test at teardown
