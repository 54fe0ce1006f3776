"""The fragment API (``protocol.render.fragments``).

A fragment used to be rendered by writing a whole gzipped urlset of one entry, decompressing it
and slicing it; the rebuild, news and ``build`` now share this one renderer, so that equivalence
is this module's unit test of it: a file joined from the fragments is the file the writer
writes for the same entries, and each refusal is the one the writer raises.
"""

from __future__ import annotations

import pytest

from sitemap_updater.page.model import Alternate, Image, Page
from sitemap_updater.protocol.errors import EntryTooLargeError, ForeignHostError
from sitemap_updater.page.model import News, Publication
from sitemap_updater.protocol.gzipio import gzip_bytes
from sitemap_updater.protocol.render.fragments import (
    URLSET_FRAME_BYTES,
    PublishedFormatError,
    entry_fragment,
    entry_fragments,
    fragment_loc,
    fragments_of,
    urlset_of,
)
from sitemap_updater.protocol.stylesheet import STYLESHEET_INSTRUCTION, XML_DECLARATION
from sitemap_updater.protocol.urls import Site
from sitemap_updater.protocol.urlset import (
    LEGACY_URLSET_ROOT,
    URLSET_CLOSE,
    URLSET_ROOT,
    render_urlset,
)

SITE = Site.parse("https://www.example.com")
ENTRIES = [
    Page("https://www.example.com/a?x=1&y='2'", "2026-01-02", "daily", 0.5),
    Page(
        "https://www.example.com/b",
        alternates=(Alternate("de", "https://www.example.com/de/b"),),
        images=(Image('https://cdn.example.net/"odd".jpg'),),
    ),
    Page(
        "https://www.example.com/c",
        news=News("The Paper", "en", "2026-01-02", "A & B"),
    ),
]


@pytest.mark.parametrize("stylesheet", [False, True])
def test_fragments_join_into_the_file_the_writer_writes(stylesheet: bool) -> None:
    body, _ = render_urlset(ENTRIES, SITE, stylesheet=stylesheet)
    fragments = entry_fragments(ENTRIES, SITE, max_bytes=1_000_000)
    assert all(isinstance(f, bytes) for f in fragments)
    joined = urlset_of([f for f in fragments if isinstance(f, bytes)], stylesheet=stylesheet)
    assert gzip_bytes(joined) == body
    assert (STYLESHEET_INSTRUCTION.encode() in joined) is stylesheet
    assert fragments_of(body) == fragments
    assert [entry_fragment(e, SITE, max_bytes=1_000_000) for e in ENTRIES] == fragments
    assert [fragment_loc(f) for f in fragments_of(body)] == [e.url for e in ENTRIES]


def test_a_refused_entry_gives_the_writers_reason() -> None:
    foreign = Page("https://other.example.com/a")
    [reason] = entry_fragments([foreign], SITE, max_bytes=1_000_000)
    with pytest.raises(ForeignHostError) as raised:
        render_urlset([foreign], SITE)
    assert reason == f"{foreign.loc}: {raised.value}"


def test_an_entry_alone_over_the_cap_is_refused_as_the_writer_refuses_it() -> None:
    # the fragment API keeps room for the stylesheet's instruction whether a file carries it
    # or not, so its refusals are the writer's with the stylesheet
    entry = ENTRIES[0]
    size = len(entry_fragment(entry, SITE, max_bytes=1_000_000))
    cap = URLSET_FRAME_BYTES + size - 1
    with pytest.raises(EntryTooLargeError) as raised:
        render_urlset([entry], SITE, max_bytes=cap, stylesheet=True)
    with pytest.raises(EntryTooLargeError) as fragment_raised:
        entry_fragment(entry, SITE, max_bytes=cap)
    assert str(fragment_raised.value) == str(raised.value)
    assert entry_fragments([entry], SITE, max_bytes=cap) == [f"{entry.url}: {raised.value}"]
    assert entry_fragment(entry, SITE, max_bytes=cap + 1)


def test_the_room_left_for_fragments_is_the_frame_with_the_stylesheet() -> None:
    with_instruction = len(XML_DECLARATION + STYLESHEET_INSTRUCTION + URLSET_ROOT + URLSET_CLOSE)
    assert with_instruction == URLSET_FRAME_BYTES


@pytest.mark.parametrize("instruction", ["", STYLESHEET_INSTRUCTION])
@pytest.mark.parametrize("root", [URLSET_ROOT, LEGACY_URLSET_ROOT])
def test_a_published_file_is_read_with_or_without_the_instruction(
    instruction: str, root: str
) -> None:
    fragments = entry_fragments(ENTRIES, SITE, max_bytes=1_000_000)
    inner = b"".join(f for f in fragments if isinstance(f, bytes))
    text = (XML_DECLARATION + instruction + root).encode() + inner + URLSET_CLOSE.encode()
    assert fragments_of(gzip_bytes(text)) == fragments


@pytest.mark.parametrize(
    "opening",
    [
        STYLESHEET_INSTRUCTION + XML_DECLARATION + URLSET_ROOT,  # not where it goes
        XML_DECLARATION + STYLESHEET_INSTRUCTION + STYLESHEET_INSTRUCTION + URLSET_ROOT,
        STYLESHEET_INSTRUCTION + URLSET_ROOT,  # no declaration
        XML_DECLARATION + '<?xml-stylesheet href="evil.xsl"?>\n' + URLSET_ROOT,
    ],
)
def test_an_opening_the_writer_never_wrote_is_refused(opening: str) -> None:
    [fragment] = entry_fragments(ENTRIES[:1], SITE, max_bytes=1_000_000)
    assert isinstance(fragment, bytes)
    text = opening.encode() + fragment + URLSET_CLOSE.encode()
    with pytest.raises(PublishedFormatError):
        fragments_of(gzip_bytes(text))


def test_a_file_not_in_the_writers_format_is_refused() -> None:
    with pytest.raises(PublishedFormatError):
        fragments_of(b"not gzip")
    with pytest.raises(PublishedFormatError):
        fragments_of(gzip_bytes(b"<urlset></urlset>\n"))
