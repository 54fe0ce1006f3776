from __future__ import annotations

import gzip
import io
import zlib

import pytest
from lxml import etree

from sitemap_updater.page.model import Alternate, Image, Page
from sitemap_updater.protocol.errors import (
    EmptySitemapError,
    EntryTooLargeError,
    ForbiddenCharacterError,
    ForeignHostError,
    InvalidChangefreqError,
    InvalidLastmodError,
    InvalidPriorityError,
    SitemapFullError,
)
from sitemap_updater.protocol.limits import MAX_BYTES, MAX_URLS
from sitemap_updater.protocol.urls import Site
from sitemap_updater.protocol import UrlsetWriter, render_urlset  # GONE
from tests.helpers.xsd import assert_valid_urlset

SITE = Site.parse("https://www.example.com")
ORIGIN = SITE.origin
NS = {
    "s": "http://www.sitemaps.org/schemas/sitemap/0.9",
    "x": "http://www.w3.org/1999/xhtml",
    "i": "http://www.google.com/schemas/sitemap-image/1.1",
}


def _entry(path: str, **kw: object) -> Page:
    return Page(url=ORIGIN + path, **kw)  # type: ignore[arg-type]


def test_full_entry_is_escaped_ordered_and_valid() -> None:
    entry = _entry(
        "/q?a=1&b='2'",
        lastmod="2026-01-02T03:04:05Z",
        changefreq="daily",
        priority=0.5,
        alternates=(Alternate("de", ORIGIN + "/de?a=1&b='2'"),),
        images=(Image("https://cdn.example.net/a.jpg?x=1&y='<z>\"'"),),
    )
    data, stats = render_urlset([entry], SITE)
    assert assert_valid_urlset(data) == [entry.url]
    xml = gzip.decompress(data)
    assert b"&amp;b=&apos;2&apos;" in xml
    assert b"&lt;z&gt;&quot;" in xml
    url = etree.fromstring(xml).find("s:url", NS)
    assert url is not None
    assert [etree.QName(child).localname for child in url] == [
        "loc",
        "lastmod",
        "changefreq",
        "priority",
        "link",
        "image",
    ]
    link = url.find("x:link", NS)
    assert link is not None
    assert link.get("href") == ORIGIN + "/de?a=1&b='2'"
    assert link.get("hreflang") == "de"
    assert (
        url.findtext("i:image/i:loc", namespaces=NS)
        == "https://cdn.example.net/a.jpg?x=1&y='<z>\"'"
    )
    assert stats.url_count == 1
    assert stats.uncompressed_bytes == len(xml)
    assert stats.newest_lastmod == "2026-01-02T03:04:05Z"
    assert xml.startswith(b'<?xml version="1.0" encoding="UTF-8"?>')


def test_non_ascii_is_counted_in_utf8_bytes() -> None:
    entry = _entry("/a", images=(Image("https://cdn.example.net/ü€𝄞.jpg"),))
    data, stats = render_urlset([entry], SITE)
    assert_valid_urlset(data)
    assert stats.uncompressed_bytes == len(gzip.decompress(data))


def test_output_is_deterministic_gzip() -> None:
    entries = [_entry(f"/p{i}", lastmod="2026-01-01") for i in range(100)]
    first, _ = render_urlset(entries, SITE)
    second, _ = render_urlset(entries, SITE)
    assert first == second
    assert first[:4] == b"\x1f\x8b\x08\x00"  # gzip, deflate, no FNAME/FEXTRA flags
    assert first[4:8] == b"\x00\x00\x00\x00"  # mtime 0
    assert gzip.decompress(first).count(b"<url>") == 100


def test_newest_lastmod_over_mixed_forms() -> None:
    entries = [
        _entry("/a", lastmod="2026-01-02"),
        _entry("/b", lastmod="2026-01-02T00:00:01Z"),
        _entry("/c", lastmod="2025-12-31T23:59:59Z"),
        _entry("/d"),
    ]
    data, stats = render_urlset(entries, SITE)
    assert_valid_urlset(data)
    assert stats.newest_lastmod == "2026-01-02T00:00:01Z"


@pytest.mark.parametrize(
    ("entry", "error", "field"),
    [
        (Page(url="https://evil.example.org/x"), ForeignHostError, "loc"),
        (_entry("/a\x00b"), ForbiddenCharacterError, "loc"),
        (_entry("/a\ud800b"), ForbiddenCharacterError, "loc"),
        (_entry("/a", lastmod="2026-01-01</lastmod>"), InvalidLastmodError, "lastmod"),
        (_entry("/a", changefreq="DAILY"), InvalidChangefreqError, "changefreq"),
        (_entry("/a", priority=0.55), InvalidPriorityError, "priority"),
        (
            _entry("/a", alternates=(Alternate("de", "https://evil.example.org/"),)),
            ForeignHostError,
            "alternates[0].href",
        ),
        (
            _entry("/a", alternates=(Alternate("d\x01e", ORIGIN + "/de"),)),
            ForbiddenCharacterError,
            "alternates[0].hreflang",
        ),
        (
            _entry("/a", images=(Image("https://cdn.example.net/\x0b"),)),
            ForbiddenCharacterError,
            "images[0].loc",
        ),
    ],
)
def test_bad_trusted_entry_is_rejected_and_loses_nothing(
    entry: Page, error: type[Exception], field: str
) -> None:
    sink = io.BytesIO()
    writer = UrlsetWriter(sink, SITE)
    writer.add(_entry("/before"))
    with pytest.raises(error) as info:
        writer.add(entry)
    assert getattr(info.value, "field", None) == field
    writer.add(_entry("/after"))
    stats = writer.close()
    assert stats.url_count == 2
    assert assert_valid_urlset(sink.getvalue()) == [ORIGIN + "/before", ORIGIN + "/after"]


def test_closing_an_empty_writer_is_an_error() -> None:
    writer = UrlsetWriter(io.BytesIO(), SITE)
    with pytest.raises(EmptySitemapError, match="at least one"):
        writer.close()


def test_context_manager_closes() -> None:
    sink = io.BytesIO()
    with UrlsetWriter(sink, SITE) as writer:
        writer.add(_entry("/x"))
    assert assert_valid_urlset(sink.getvalue()) == [ORIGIN + "/x"]


def test_exactly_max_urls_then_full() -> None:
    sink = io.BytesIO()
    writer = UrlsetWriter(sink, SITE)
    for i in range(MAX_URLS):
        writer.add(Page(url=f"{ORIGIN}/{i}"))
    with pytest.raises(SitemapFullError) as info:
        writer.add(Page(url=f"{ORIGIN}/one-more"))
    assert info.value.limit == "urls"
    stats = writer.close()
    assert stats.url_count == MAX_URLS
    locs = assert_valid_urlset(sink.getvalue())
    assert len(locs) == MAX_URLS
    assert locs[-1] == f"{ORIGIN}/{MAX_URLS - 1}"


def test_lower_url_cap() -> None:
    writer = UrlsetWriter(io.BytesIO(), SITE, max_urls=3)
    for i in range(3):
        writer.add(_entry(f"/{i}"))
    with pytest.raises(SitemapFullError):
        writer.add(_entry("/3"))
    assert writer.close().url_count == 3


# Bytes of <url><loc>...</loc></url>\n around a loc.
URL_OVERHEAD = len("<url><loc></loc></url>\n")


def _fill_to(writer: UrlsetWriter, target: int, close_len: int = len("</urlset>\n")) -> int:
    """Add entries until the file (closing tag included) is exactly ``target`` bytes."""
    i = 0
    longest = 2048
    while True:
        remaining = target - close_len - writer.uncompressed_bytes
        if remaining - URL_OVERHEAD <= longest:
            break
        # never leave a remainder too short for one more loc
        size = min(longest, remaining - URL_OVERHEAD - 100)
        prefix = f"{ORIGIN}/{i}/"
        writer.add(Page(url=prefix + "a" * (size - len(prefix))))
        i += 1
    prefix = f"{ORIGIN}/last/"
    writer.add(Page(url=prefix + "b" * (remaining - URL_OVERHEAD - len(prefix))))
    return i + 1


@pytest.mark.parametrize("cap", [20_000, MAX_BYTES])
def test_file_exactly_at_the_byte_cap_and_one_over(cap: int) -> None:
    sink = io.BytesIO()
    writer = UrlsetWriter(sink, SITE, max_bytes=cap, compresslevel=1)
    count = _fill_to(writer, cap)
    with pytest.raises(SitemapFullError) as info:
        writer.add(Page(url=f"{ORIGIN}/x"))  # even the shortest entry is over
    assert info.value.limit == "bytes"
    stats = writer.close()
    assert stats.uncompressed_bytes == cap
    assert len(gzip.decompress(sink.getvalue())) == cap
    assert len(assert_valid_urlset(sink.getvalue())) == count


def test_one_byte_under_and_one_byte_over_the_cap() -> None:
    cap = 20_000
    under = UrlsetWriter(io.BytesIO(), SITE, max_bytes=cap)
    _fill_to(under, cap - 1)
    assert under.close().uncompressed_bytes == cap - 1

    # entries that land exactly one byte over the cap: the last one is refused
    recorder = _RecordingWriter(io.BytesIO(), SITE, max_bytes=MAX_BYTES)
    _fill_to(recorder, cap + 1)
    over_entries = recorder.entries
    sink = io.BytesIO()
    over = UrlsetWriter(sink, SITE, max_bytes=cap)
    for entry in over_entries[:-1]:
        over.add(entry)
    with pytest.raises(SitemapFullError):
        over.add(over_entries[-1])
    stats = over.close()
    assert stats.uncompressed_bytes < cap
    assert_valid_urlset(sink.getvalue())
    assert stats.uncompressed_bytes == len(gzip.decompress(sink.getvalue()))


class _RecordingWriter(UrlsetWriter):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.entries: list[Page] = []

    def add(self, entry: Page) -> None:
        super().add(entry)
        self.entries.append(entry)


def test_entry_larger_than_an_empty_file() -> None:
    writer = UrlsetWriter(io.BytesIO(), SITE, max_bytes=300)
    with pytest.raises(EntryTooLargeError):
        writer.add(_entry("/" + "a" * 200))


def test_gzip_stream_is_complete() -> None:
    data, _ = render_urlset([_entry("/x")], SITE)
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    inflater.decompress(data)
    assert inflater.eof and not inflater.unused_data
