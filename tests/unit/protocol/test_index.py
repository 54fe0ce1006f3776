from __future__ import annotations

import gzip
import io

import pytest

from sitemap_updater.protocol.errors import (
    EmptySitemapError,
    InvalidLastmodError,
    InvalidUrlError,
    SitemapFullError,
)
from sitemap_updater.protocol.index import render_index
from sitemap_updater.protocol import IndexWriter  # GONE
from tests.helpers.xsd import assert_valid_index

BASE = "https://www.example.com/"


def test_index_lists_children_with_lastmod() -> None:
    items = [
        (BASE + "sitemap-r0.xml.gz", "2026-01-01T00:00:00Z"),
        (BASE + "sitemap-r1.xml.gz", None),
    ]
    data, stats = render_index(items)
    assert data.startswith(b"<?xml")  # plain XML, not gzip
    assert assert_valid_index(data) == [loc for loc, _ in items]
    assert stats.url_count == 2
    assert stats.uncompressed_bytes == len(data)
    assert stats.newest_lastmod == "2026-01-01T00:00:00Z"


def test_index_escapes_and_normalizes_loc() -> None:
    data, _ = render_index([("HTTPS://WWW.EXAMPLE.COM/s.xml.gz?a=1&b=2", None)])
    assert b"https://www.example.com/s.xml.gz?a=1&amp;b=2" in data
    assert assert_valid_index(data) == ["https://www.example.com/s.xml.gz?a=1&b=2"]


def test_gzipped_index() -> None:
    data, stats = render_index([(BASE + "a.xml.gz", None)], gzip=True)
    assert data[:2] == b"\x1f\x8b"
    assert stats.uncompressed_bytes == len(gzip.decompress(data))
    assert_valid_index(data)


def test_index_rejects_bad_input_and_keeps_going() -> None:
    sink = io.BytesIO()
    writer = IndexWriter(sink)
    with pytest.raises(InvalidUrlError):
        writer.add("ftp://x.example/a", None)
    with pytest.raises(InvalidLastmodError):
        writer.add(BASE + "a.xml.gz", "2026-01-01T00:00:00")
    writer.add(BASE + "b.xml.gz", None)
    writer.close()
    assert assert_valid_index(sink.getvalue()) == [BASE + "b.xml.gz"]


def test_index_entry_limit() -> None:
    writer = IndexWriter(io.BytesIO(), max_entries=2)
    writer.add(BASE + "a.xml.gz", None)
    writer.add(BASE + "b.xml.gz", None)
    with pytest.raises(SitemapFullError):
        writer.add(BASE + "c.xml.gz", None)
    assert writer.close().url_count == 2


def test_index_byte_limit_exact() -> None:
    one, _ = render_index([(BASE + "a.xml.gz", None)])
    cap = len(one)
    writer = IndexWriter(io.BytesIO(), max_bytes=cap)
    writer.add(BASE + "b.xml.gz", None)  # same length as a.xml.gz
    with pytest.raises(SitemapFullError):
        writer.add(BASE + "c.xml.gz", None)
    assert writer.close().uncompressed_bytes == cap


def test_empty_index_is_an_error() -> None:
    with pytest.raises(EmptySitemapError):
        IndexWriter(io.BytesIO()).close()
