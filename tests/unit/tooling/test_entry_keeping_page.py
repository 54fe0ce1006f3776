"""``make_entry_keeping_page``: an element that breaks a rule is left out with its error, the
page is kept; a field of the page itself still raises."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sitemap_updater.protocol import Site
from sitemap_updater.protocol.entry import Alternate, Image
from sitemap_updater.protocol.errors import (
    DuplicateHreflangError,
    ForeignHostError,
    InvalidLastmodError,
    InvalidNewsError,
    InvalidVideoError,
    TooManyImagesError,
)
from sitemap_updater.protocol.fields import is_blank
from sitemap_updater.sites import media_hosts_of
from sitemap_updater_local.pipeline.raw_entries import make_entry_keeping_page

SITE = Site.parse("https://www.example.com", media_hosts_of(""))
LOC = "https://www.example.com/p"
NOW = datetime(2026, 11, 20, tzinfo=UTC)


def test_each_bad_element_is_left_out_with_its_error() -> None:
    entry, dropped = make_entry_keeping_page(
        SITE,
        loc=LOC,
        alternates=[
            {"hreflang": "de", "href": LOC + "/de"},
            {"hreflang": "DE", "href": LOC + "/at"},
            {"hreflang": "en", "href": LOC},
        ],
        images=[{"loc": "https://elsewhere.example.net/a.jpg"}, {"loc": LOC + ".jpg"}],
        videos=[{"title": "no thumbnail"}],
        news={"publication": {"name": " \u200b\u2060", "language": "en"}},
        now=NOW,
    )
    assert entry.alternates == (Alternate("de", LOC + "/de"), Alternate("en", LOC))
    assert entry.images == (Image(LOC + ".jpg"),)
    assert entry.videos == () and entry.news is None
    assert [type(e) for e in dropped] == [
        DuplicateHreflangError,
        InvalidVideoError,
        InvalidNewsError,
        ForeignHostError,
    ]
    assert dropped[0].field == "alternates[1].hreflang" and dropped[0].value == "DE"


def test_a_list_that_is_not_one_is_left_out_whole() -> None:
    entry, dropped = make_entry_keeping_page(SITE, loc=LOC, alternates="de", now=NOW)
    assert entry.alternates == ()
    assert [e.field for e in dropped] == ["alternates"]


def test_images_beyond_the_thousandth_are_left_out() -> None:
    images = [{"loc": f"{LOC}/{n}.jpg"} for n in range(1005)]
    entry, dropped = make_entry_keeping_page(SITE, loc=LOC, images=images, now=NOW)
    assert len(entry.images) == 1000 and entry.images[-1] == Image(f"{LOC}/999.jpg")
    assert [type(e) for e in dropped] == [TooManyImagesError]


def test_a_field_of_the_page_itself_still_costs_the_page() -> None:
    with pytest.raises(InvalidLastmodError):
        make_entry_keeping_page(SITE, loc=LOC, lastmod="1969-12-31", now=NOW)


@pytest.mark.parametrize(
    ("text", "blank"),
    [
        ("", True),
        (" \t", True),
        ("\u200b", True),
        ("\u200b \ufeff\u2060\u00ad", True),
        ("\u200e\u200f", True),
        ("a\u200b", False),
        ("\u05e9\u200f", False),
        ("\u00a0x", False),
    ],
)
def test_text_of_only_invisible_characters_is_blank(text: str, blank: bool) -> None:
    assert is_blank(text) is blank
