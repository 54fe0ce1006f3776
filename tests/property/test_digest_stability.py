"""The content digest keeps its bytes: stored items and ordering keys hold it, so a faster way
of computing it must give what the table already has.

Two checks: golden digests of a few entries, computed by the version that wrote today's tables,
and, on arbitrary entries and sections, the digest as that version computed it, kept here
field by field (:func:`stored_form_digest`), against :func:`content_digest`.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitemap_updater.ingest.ordering import content_digest
from sitemap_updater.protocol.entry import Alternate, Entry, Image
from sitemap_updater.protocol.extensions.news import News
from sitemap_updater.protocol.extensions.video import Relationship, Video
from sitemap_updater.store.items import news_fields, video_fields
from tests.property.strategies import SETTINGS

LOC = "https://www.example.com/a"
VIDEO = Video(
    "https://cdn.example.com/v.jpg",
    "Talks",
    "Two minutes.",
    content_loc="https://cdn.example.com/v.mp4",
    duration=120,
    tags=("a", "b"),
    restriction=Relationship("allow", ("GB", "DE")),
    live=False,
)
NEWS = News("The Times", "en", "2026-11-20", "A & B")


def stored_form_digest(entry: Entry, section: str | None) -> str:
    """The digest as the tables hold it: sha256 of the sorted, ASCII-escaped JSON of the plain
    fields (``null`` when absent, the priority as text at one decimal), and of the section,
    the videos and the news object only when present."""
    fields: dict[str, Any] = {
        "alternates": [[a.hreflang, a.href] for a in entry.alternates],
        "changefreq": entry.changefreq,
        "images": [i.loc for i in entry.images],
        "lastmod": entry.lastmod,
        "loc": entry.loc,
        "priority": None if entry.priority is None else f"{entry.priority:.1f}",
    }
    if section is not None:
        fields["section"] = section
    if entry.videos:
        fields["videos"] = [video_fields(v) for v in entry.videos]
    if entry.news is not None:
        fields["news"] = news_fields(entry.news)
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


GOLDEN = [
    (Entry(LOC), None, "c3c18ee4ec1efbc35d2330ab8d4c3be99b7b99f1aa4ba257b779ba0e13fba1f5"),
    (
        Entry(
            LOC,
            "2026-11-20T08:00:00Z",
            "daily",
            0.8,
            (Alternate("en", LOC), Alternate("de", LOC + "/de")),
            (Image("https://cdn.example.com/1.jpg"), Image("https://cdn.example.com/2.jpg")),
        ),
        "products",
        "c9e524e7eb970cf7f888c8a108f57a46b199fd07407200eb9c2afad2b2f331ee",
    ),
    (
        Entry(LOC, priority=0.0, images=(Image("https://cdn.example.com/%C3%A9.jpg"),)),
        None,
        "75f154b6ec390343bedf140490739bfe33c37c3340dea91702736dbb795c85ac",
    ),
    (
        Entry(LOC, "2026-11-20", videos=(VIDEO,), news=NEWS),
        "news",
        "3e9f474315629466b761bb41eee014cfa5cbd10712a1c0d479ee3fa3dcb79259",
    ),
    (
        Entry(LOC, news=News("Zeitung \u00e9\u200f", "de", "2026-11-20", "\u00dcber \x7f")),
        None,
        "d125171de991e6a03754bdaf81429eca8111d4819cd262050eb3a72f9f33c050",
    ),
]


@pytest.mark.parametrize(("entry", "section", "digest"), GOLDEN)
def test_the_digest_of_known_entries_is_the_one_stored(
    entry: Entry, section: str | None, digest: str
) -> None:
    assert content_digest(entry, section) == digest
    assert stored_form_digest(entry, section) == digest


text = st.text(max_size=12)
urls = st.one_of(text, st.sampled_from([LOC, LOC + "/de", "https://cdn.example.com/1.jpg"]))
entries = st.builds(
    Entry,
    loc=urls,
    lastmod=st.none() | text,
    changefreq=st.none() | st.sampled_from(["daily", "weekly"]) | text,
    priority=st.none() | st.sampled_from([k / 10 for k in range(11)]) | st.floats(0, 1),
    alternates=st.lists(st.builds(Alternate, text, urls), max_size=3).map(tuple),
    images=st.lists(st.builds(Image, urls), max_size=3).map(tuple),
    videos=st.just(()) | st.lists(st.just(VIDEO), max_size=2).map(tuple),
    news=st.none() | st.builds(News, text, st.just("en"), st.just("2026-11-20"), text),
)


@SETTINGS
@given(entries, st.none() | text)
def test_the_digest_is_the_stored_form_on_arbitrary_entries(
    entry: Entry, section: str | None
) -> None:
    assert content_digest(entry, section) == stored_form_digest(entry, section)
