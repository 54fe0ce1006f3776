"""The autouse check of tests/conftest.py: every urlset and index made is validated."""

from __future__ import annotations

import pytest

from sitemap_updater.page.model import Page
from sitemap_updater.protocol import urlset
from sitemap_updater.protocol.index import render_index
from sitemap_updater.protocol.urls import Site
from sitemap_updater.rebuild.render import render_home, render_shard
from sitemap_updater.store.items import live_item
from tests.helpers.files import urlset_file
from tests.helpers.xsd import WrittenSitemaps

SITE = Site.parse("https://www.example.com")
ORIGIN = SITE.origin


def test_every_file_made_is_counted_whoever_makes_it(written_sitemaps: WrittenSitemaps) -> None:
    urlset_file([Page(url=ORIGIN + "/a")])
    render_index([(ORIGIN + "/sitemap-r.xml.gz", None)])
    render_home(SITE, stylesheet=True)
    render_shard(
        "r",
        [live_item(Page(url=ORIGIN + "/b"), "e", "d")],
        SITE,
        max_urls=8,
        max_bytes=10_000,
        stylesheet=False,
    )
    assert written_sitemaps.checked == 4
    assert written_sitemaps.problems == []


def test_an_invalid_file_is_reported(
    written_sitemaps: WrittenSitemaps, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every file is joined from valid parts, so an invalid one is made here by breaking the
    # closing tag the frame adds; the check must notice.
    monkeypatch.setattr(urlset, "URLSET_CLOSE_BYTES", b"</urlsex>\n")
    urlset_file([Page(url=ORIGIN + "/a")])
    [problem] = written_sitemaps.problems
    assert problem.startswith("urlset_of made an invalid file")
    written_sitemaps.problems.clear()  # seen and asserted: do not fail this test at teardown
