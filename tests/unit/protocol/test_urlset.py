"""The urlset frame (``protocol.urlset``): fragments joined into a file and taken apart again,
byte for byte, with or without the stylesheet's instruction; any other file refused; the room
the frame leaves for fragments; deterministic gzip."""

from __future__ import annotations

import gzip
import zlib

import pytest
from lxml import etree

from sitemap_updater.page.render import url_element
from sitemap_updater.protocol.gzipio import gzip_bytes
from sitemap_updater.protocol.stylesheet import STYLESHEET_INSTRUCTION, XML_DECLARATION
from sitemap_updater.protocol.urls import Site
from sitemap_updater.protocol.urlset import (
    URLSET_CLOSE,
    URLSET_FRAME_BYTES,
    URLSET_ROOT,
    PublishedFormatError,
    fragment_loc,
    fragments_of,
    newest_lastmod,
    urlset_of,
    urlset_opening,
    urlset_text,
)
from tests.helpers.pages import make_page
from tests.helpers.xsd import assert_valid_urlset

SITE = Site.parse("https://www.example.com")
ORIGIN = SITE.origin
NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}


def _fragments() -> list[bytes]:
    pages = [
        make_page(SITE, url=ORIGIN + "/a?x=1&y='2'", lastmod="2026-01-02", priority=0.5),
        make_page(
            SITE,
            url=ORIGIN + "/b",
            alternates=[{"hreflang": "de", "href": ORIGIN + "/de/b"}],
            images=[{"loc": 'https://cdn.example.net/"odd".jpg'}],
        ),
        make_page(SITE, url=ORIGIN + "/c", lastmod="2026-01-02T00:00:01Z"),
    ]
    return [url_element(page).encode() for page in pages]


@pytest.mark.parametrize("stylesheet", [False, True])
def test_fragments_joined_into_a_file_come_back_as_they_were(stylesheet: bool) -> None:
    fragments = _fragments()
    text = urlset_of(fragments, stylesheet=stylesheet)
    assert text.startswith(urlset_opening(stylesheet))
    assert (STYLESHEET_INSTRUCTION.encode() in text) is stylesheet
    body = gzip_bytes(text)
    assert fragments_of(body) == fragments
    assert [fragment_loc(f) for f in fragments_of(body)] == assert_valid_urlset(body)
    assert fragment_loc(fragments[0]) == ORIGIN + "/a?x=1&y='2'"  # unescaped


def test_the_file_s_text_and_where_its_fragments_lie() -> None:
    fragments = _fragments()
    text, start, end = urlset_text(gzip_bytes(urlset_of(fragments, stylesheet=True)))
    assert text[start:end] == b"".join(fragments)
    assert text[:start] == (XML_DECLARATION + STYLESHEET_INSTRUCTION + URLSET_ROOT).encode()
    assert text[end:] == URLSET_CLOSE.encode()


def test_a_file_of_no_fragment_has_none_to_give() -> None:
    body = gzip_bytes(urlset_opening(False) + URLSET_CLOSE.encode())
    assert fragments_of(body) == []


def test_the_room_left_for_fragments_is_the_frame_with_the_stylesheet() -> None:
    with_instruction = len(XML_DECLARATION + STYLESHEET_INSTRUCTION + URLSET_ROOT + URLSET_CLOSE)
    assert with_instruction == URLSET_FRAME_BYTES
    fragment = _fragments()[0]
    assert len(urlset_of([fragment], stylesheet=True)) == URLSET_FRAME_BYTES + len(fragment)
    assert len(urlset_of([fragment], stylesheet=False)) < URLSET_FRAME_BYTES + len(fragment)


def test_the_root_declares_every_namespace_a_fragment_uses() -> None:
    root = etree.fromstring(urlset_of(_fragments(), stylesheet=False))
    assert set(root.nsmap.values()) == {
        "http://www.sitemaps.org/schemas/sitemap/0.9",
        "http://www.w3.org/1999/xhtml",
        "http://www.google.com/schemas/sitemap-image/1.1",
        "http://www.google.com/schemas/sitemap-video/1.1",
        "http://www.google.com/schemas/sitemap-news/0.9",
    }


@pytest.mark.parametrize(
    "opening",
    [
        STYLESHEET_INSTRUCTION + XML_DECLARATION + URLSET_ROOT,  # not where it goes
        XML_DECLARATION + STYLESHEET_INSTRUCTION + STYLESHEET_INSTRUCTION + URLSET_ROOT,
        STYLESHEET_INSTRUCTION + URLSET_ROOT,  # no declaration
        XML_DECLARATION + '<?xml-stylesheet href="evil.xsl"?>\n' + URLSET_ROOT,
        XML_DECLARATION + '<!DOCTYPE urlset [<!ENTITY e "x">]>\n' + URLSET_ROOT,
        XML_DECLARATION + '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n',
    ],
)
def test_an_opening_this_project_never_writes_is_refused(opening: str) -> None:
    text = opening.encode() + _fragments()[0] + URLSET_CLOSE.encode()
    with pytest.raises(PublishedFormatError):
        fragments_of(gzip_bytes(text))


def test_a_file_not_in_this_project_s_format_is_refused() -> None:
    with pytest.raises(PublishedFormatError):
        fragments_of(b"not gzip")
    with pytest.raises(PublishedFormatError):
        fragments_of(gzip_bytes(b"<urlset></urlset>\n"))
    truncated = urlset_of(_fragments(), stylesheet=False)[: -len(URLSET_CLOSE) - 3]
    with pytest.raises(PublishedFormatError):
        fragments_of(gzip_bytes(truncated + URLSET_CLOSE.encode()))
    with pytest.raises(PublishedFormatError):
        fragments_of(gzip_bytes(urlset_of(_fragments(), stylesheet=False))[:-12])


@pytest.mark.parametrize(
    "fragment", [b"<url><lastmod>x</lastmod></url>\n", b"<url><loc>\xff</loc></url>\n"]
)
def test_a_fragment_that_does_not_start_with_its_loc_is_refused(fragment: bytes) -> None:
    with pytest.raises(PublishedFormatError):
        fragment_loc(fragment)


def test_the_newest_lastmod_over_mixed_forms() -> None:
    text = urlset_of(_fragments(), stylesheet=False)
    assert newest_lastmod(text) == "2026-01-02T00:00:01Z"
    assert newest_lastmod(_fragments()[1]) is None


def test_the_same_fragments_give_the_same_gzip_bytes() -> None:
    first = gzip_bytes(urlset_of(_fragments(), stylesheet=False))
    assert first == gzip_bytes(urlset_of(_fragments(), stylesheet=False))
    assert first[:4] == b"\x1f\x8b\x08\x00"  # gzip, deflate, no FNAME/FEXTRA flags
    assert first[4:8] == b"\x00\x00\x00\x00"  # mtime 0
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    inflater.decompress(first)
    assert inflater.eof and not inflater.unused_data  # one complete stream
    assert gzip.decompress(first).count(b"<url>") == 3
