"""The sitemap index (``protocol.index.render_index``): plain XML, every child's loc normalized and
escaped, its lastmod in normalized form, and the protocol's limits of children and bytes."""

from __future__ import annotations

import pytest

from sitemap_updater.protocol.errors import (
    EmptySitemapError,
    InvalidUrlError,
    SitemapError,
    SitemapFullError,
)
from sitemap_updater.protocol.index import render_index
from tests.helpers.xsd import assert_valid_index

BASE = "https://www.example.com/"


def test_the_index_lists_its_children_with_their_lastmod() -> None:
    items = [
        (BASE + "sitemap-r0.xml.gz", "2026-01-01T00:00:00Z"),
        (BASE + "sitemap-r1.xml.gz", None),
        (BASE + "sitemap-r2.xml.gz", "2026-01-02"),
    ]
    data, stats = render_index(items)
    assert data.startswith(b'<?xml version="1.0" encoding="UTF-8"?>')  # plain XML, not gzip
    assert assert_valid_index(data) == [loc for loc, _ in items]
    assert stats.count == 3
    assert stats.uncompressed_bytes == len(data)
    assert stats.newest_lastmod == "2026-01-02"


def test_the_index_escapes_and_normalizes_each_loc() -> None:
    data, _ = render_index([("HTTPS://WWW.EXAMPLE.COM/s.xml.gz?a=1&b=2", None)])
    assert b"<loc>https://www.example.com/s.xml.gz?a=1&amp;b=2</loc>" in data
    assert assert_valid_index(data) == ["https://www.example.com/s.xml.gz?a=1&b=2"]


def test_a_bad_loc_is_refused_naming_it() -> None:
    with pytest.raises(InvalidUrlError) as info:
        render_index([(BASE + "a.xml.gz", None), ("ftp://x.example/a", None)])
    assert (info.value.field, info.value.value) == ("loc", "ftp://x.example/a")


@pytest.mark.parametrize("lastmod", ["2026-01-01T00:00:00", "2026-01-01T01:00:00+01:00", "x"])
def test_a_lastmod_not_in_normalized_form_is_refused(lastmod: str) -> None:
    with pytest.raises(SitemapError) as info:
        render_index([(BASE + "a.xml.gz", lastmod)])
    assert (info.value.field, info.value.value) == ("lastmod", lastmod)
    assert "normalized" in info.value.rule


def test_the_index_holds_as_many_children_as_allowed_and_refuses_one_more() -> None:
    children = [(BASE + f"{name}.xml.gz", None) for name in "abc"]
    data, stats = render_index(children[:2], max_files=2)
    assert stats.count == 2 and len(assert_valid_index(data)) == 2
    with pytest.raises(SitemapFullError) as info:
        render_index(children, max_files=2)
    assert info.value.limit == "urls"


def test_the_index_fills_its_byte_cap_exactly_and_refuses_one_byte_more() -> None:
    one, _ = render_index([(BASE + "a.xml.gz", None)])
    two, stats = render_index([(BASE + "a.xml.gz", None), (BASE + "b.xml.gz", None)])
    assert render_index([(BASE + "a.xml.gz", None)], max_bytes=len(one))[0] == one
    assert stats.uncompressed_bytes == len(two)
    render_index([(BASE + "a.xml.gz", None), (BASE + "b.xml.gz", None)], max_bytes=len(two))
    with pytest.raises(SitemapFullError) as info:
        render_index([(BASE + "a.xml.gz", None), (BASE + "b.xml.gz", None)], max_bytes=len(two) - 1)
    assert info.value.limit == "bytes"


def test_an_empty_index_is_an_error() -> None:
    with pytest.raises(EmptySitemapError, match="at least one"):
        render_index([])
