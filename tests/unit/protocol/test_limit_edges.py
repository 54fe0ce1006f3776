"""Each protocol limit right at its edge, at the real values (50,000 URLs and 52,428,800 bytes):
a leaf that holds exactly the limit is one file, one URL or one byte more splits it
(``rebuild.render``), and the index holds exactly its limits and refuses one more.

The sizes are computed here from the sitemaps.org markup, loc by loc, and checked against the
bytes actually written, so a miscount shows as a wrong size.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator

import pytest

from sitemap_updater.page.model import Page
from sitemap_updater.page.render import url_element
from sitemap_updater.protocol.errors import SitemapFullError
from sitemap_updater.protocol.index import render_index
from sitemap_updater.protocol.limits import MAX_BYTES, MAX_LOC_LENGTH, MAX_URLS
from sitemap_updater.protocol.urls import Site
from sitemap_updater.protocol.urlset import URLSET_FRAME_BYTES
from sitemap_updater.rebuild.render import RenderedShard, render_leaves
from sitemap_updater.store.keys import url_hash
from tests.helpers.xsd import assert_valid_index

SITE = Site.parse("https://www.example.com")
ORIGIN = SITE.origin
#: Markup around one loc (each file kind), and the index's opening and closing.
URL_MARKUP = len("<url><loc></loc></url>\n")
SITEMAP_MARKUP = len("<sitemap><loc></loc></sitemap>\n")
INDEX_FRAME = len(
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
    "</sitemapindex>\n"
)


def _loc(name: str, length: int) -> str:
    """A URL on the site of exactly ``length`` characters, unique by ``name``."""
    head = f"{ORIGIN}/{name}/"
    assert len(head) < length <= MAX_LOC_LENGTH
    return head + "p" * (length - len(head))


def _locs_filling(room: int, markup: int) -> Iterator[str]:
    """Locs whose elements (``markup`` bytes each plus the loc) take exactly ``room`` bytes; the
    last loc leaves room for two more characters under the length limit."""
    i = 0
    while room - markup > MAX_LOC_LENGTH - 2:
        length = min(MAX_LOC_LENGTH, room - markup - 100)  # never leave too little for one more
        yield _loc(str(i), length)
        room -= length + markup
        i += 1
    yield _loc("last", room - markup)


def _leaves(locs: list[str], *, stylesheet: bool = True) -> list[RenderedShard]:
    pairs = sorted((url_hash(loc), url_element(Page(loc)).encode()) for loc in locs)
    return render_leaves(
        "r", list(pairs), max_urls=MAX_URLS, max_bytes=MAX_BYTES, stylesheet=stylesheet
    )


def _pages_of(leaves: list[RenderedShard]) -> list[str]:
    return sorted(
        loc.decode()
        for leaf in leaves
        if leaf.body is not None
        for loc in _loc_texts(gzip.decompress(leaf.body))
    )


def _loc_texts(text: bytes) -> list[bytes]:
    return [part.split(b"</loc>")[0] for part in text.split(b"<loc>")[1:]]


def test_a_leaf_of_exactly_max_urls_is_one_file_and_one_more_url_splits_it() -> None:
    locs = [f"{ORIGIN}/{i}" for i in range(MAX_URLS + 1)]
    (whole,) = _leaves(locs[:MAX_URLS], stylesheet=False)
    assert whole.url_count == MAX_URLS
    split = _leaves(locs, stylesheet=False)
    assert len(split) >= 2
    assert all(0 < leaf.url_count <= MAX_URLS for leaf in split)
    assert sum(leaf.url_count for leaf in split) == MAX_URLS + 1
    assert _pages_of(split) == sorted(locs)


@pytest.mark.slow
def test_a_file_of_exactly_max_bytes_is_one_file_and_one_byte_more_splits_it() -> None:
    # with the stylesheet the frame is its largest, URLSET_FRAME_BYTES: the file is the cap
    *bulk, last = _locs_filling(MAX_BYTES - URLSET_FRAME_BYTES, URL_MARKUP)
    (whole,) = _leaves([*bulk, last])
    assert whole.body is not None
    assert whole.uncompressed_bytes == len(gzip.decompress(whole.body)) == MAX_BYTES
    assert whole.url_count == len(bulk) + 1

    over = _leaves([*bulk, last + "o"])
    assert len(over) >= 2
    assert all(leaf.uncompressed_bytes <= MAX_BYTES for leaf in over)
    assert sum(leaf.url_count for leaf in over) == len(bulk) + 1
    assert _pages_of(over) == sorted([*bulk, last + "o"])


def test_the_index_holds_max_urls_children_and_refuses_one_more() -> None:
    children = [(f"{ORIGIN}/sitemap-{i}.xml.gz", "2026-01-01") for i in range(MAX_URLS + 1)]
    data, stats = render_index(children[:MAX_URLS])
    assert stats.count == MAX_URLS
    assert assert_valid_index(data) == [loc for loc, _ in children[:MAX_URLS]]
    with pytest.raises(SitemapFullError) as info:
        render_index(children)
    assert info.value.limit == "urls"


@pytest.mark.slow
def test_the_index_holds_exactly_max_bytes_and_refuses_one_byte_more() -> None:
    *bulk, last = _locs_filling(MAX_BYTES - INDEX_FRAME, SITEMAP_MARKUP)
    data, stats = render_index([(loc, None) for loc in [*bulk, last]])
    assert len(data) == stats.uncompressed_bytes == MAX_BYTES
    locs = assert_valid_index(data)
    assert len(locs) == stats.count == len(bulk) + 1
    assert locs[-1] == last
    with pytest.raises(SitemapFullError) as info:
        render_index([(loc, None) for loc in [*bulk, last + "o"]])
    assert info.value.limit == "bytes"
