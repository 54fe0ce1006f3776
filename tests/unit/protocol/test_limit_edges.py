"""Each protocol limit right at its edge, at the real values (50,000 and 52,428,800).

The sizes are computed here from the sitemaps.org markup, entry by entry, and the result is
checked against the bytes actually written, so a miscount by the writers shows as a wrong size.
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterator

import pytest

from sitemap_updater.page.model import Page
from sitemap_updater.protocol.errors import SitemapFullError
from sitemap_updater.protocol.limits import MAX_BYTES, MAX_URLS
from sitemap_updater.protocol.urls import Site
from sitemap_updater.protocol import IndexWriter, UrlsetWriter  # GONE
from tests.helpers.xsd import assert_valid_index, assert_valid_urlset

SITE = Site.parse("https://www.example.com")
ORIGIN = SITE.origin
LONGEST = 2048
#: Markup around one loc (each file kind), and each file's closing tag.
URL_MARKUP = len("<url><loc></loc></url>\n")
SITEMAP_MARKUP = len("<sitemap><loc></loc></sitemap>\n")
URLSET_CLOSE = len("</urlset>\n")
INDEX_CLOSE = len("</sitemapindex>\n")


def _loc(name: str, length: int) -> str:
    """A URL on the site of exactly ``length`` characters, unique by ``name``."""
    head = f"{ORIGIN}/{name}/"
    assert len(head) < length <= LONGEST
    return head + "p" * (length - len(head))


def _locs_filling(room: int, markup: int) -> Iterator[str]:
    """Locs whose entries (``markup`` bytes each plus the loc) take exactly ``room`` bytes; the
    last loc leaves room for two more characters under the length limit."""
    i = 0
    while room - markup > LONGEST - 2:
        # never leave a remainder too short for one last loc
        length = min(LONGEST, room - markup - 100)
        yield _loc(str(i), length)
        room -= length + markup
        i += 1
    yield _loc("last", room - markup)


@pytest.mark.slow
def test_urlset_one_byte_under_the_byte_limit_and_the_entry_one_byte_over() -> None:
    # exactly at the limit: test_urlset.py::test_file_exactly_at_the_byte_cap_and_one_over
    total = MAX_BYTES - 1
    sink = io.BytesIO()
    writer = UrlsetWriter(sink, SITE, compresslevel=1)
    room = total - writer.uncompressed_bytes - URLSET_CLOSE
    *bulk, last = _locs_filling(room, URL_MARKUP)
    writer.add_many(Page(url=loc) for loc in bulk)

    # the entry that would end the file at MAX_BYTES + 1 bytes is refused and changes nothing
    over = last + "oo"
    before = (writer.url_count, writer.uncompressed_bytes)
    with pytest.raises(SitemapFullError) as info:
        writer.add(Page(url=over))
    assert info.value.limit == "bytes"
    assert (writer.url_count, writer.uncompressed_bytes) == before

    writer.add(Page(url=last))
    stats = writer.close()
    xml = gzip.decompress(sink.getvalue())
    assert len(xml) == stats.uncompressed_bytes == total
    locs = assert_valid_urlset(sink.getvalue())
    assert len(locs) == stats.url_count == len(bulk) + 1
    assert locs[-1] == last


def test_urlset_at_max_urls_through_add_many() -> None:
    sink = io.BytesIO()
    writer = UrlsetWriter(sink, SITE)
    entries = [Page(url=f"{ORIGIN}/{i}") for i in range(MAX_URLS + 1)]
    with pytest.raises(SitemapFullError) as info:
        writer.add_many(entries)
    assert info.value.limit == "urls"
    assert writer.url_count == MAX_URLS
    assert writer.close().url_count == MAX_URLS
    locs = assert_valid_urlset(sink.getvalue())
    assert locs == [e.url for e in entries[:MAX_URLS]]


def test_index_holds_max_urls_children_and_refuses_one_more() -> None:
    sink = io.BytesIO()
    writer = IndexWriter(sink)
    children = [f"{ORIGIN}/sitemap-{i}.xml.gz" for i in range(MAX_URLS)]
    for child in children:
        writer.add(child, "2026-01-01")
    with pytest.raises(SitemapFullError) as info:
        writer.add(f"{ORIGIN}/sitemap-one-more.xml.gz", "2026-01-01")
    assert info.value.limit == "urls"
    stats = writer.close()
    assert stats.url_count == MAX_URLS
    assert assert_valid_index(sink.getvalue()) == children


@pytest.mark.slow
def test_index_exactly_at_the_byte_limit_and_the_child_one_byte_over() -> None:
    total = MAX_BYTES
    sink = io.BytesIO()
    writer = IndexWriter(sink)
    start = len(b'<?xml version="1.0" encoding="UTF-8"?>\n')
    start += len(b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')
    *bulk, last = _locs_filling(total - start - INDEX_CLOSE, SITEMAP_MARKUP)
    for loc in bulk:
        writer.add(loc, None)
    # the child that would end the index at MAX_BYTES + 1 bytes is refused
    with pytest.raises(SitemapFullError) as info:
        writer.add(last + "o", None)
    assert info.value.limit == "bytes"
    writer.add(last, None)
    stats = writer.close()
    data = sink.getvalue()
    assert len(data) == stats.uncompressed_bytes == total
    locs = assert_valid_index(data)
    assert len(locs) == stats.url_count == len(bulk) + 1
    assert locs[-1] == last
