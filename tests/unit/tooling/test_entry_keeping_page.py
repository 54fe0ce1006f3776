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
    InvalidUrlError,
    InvalidVideoError,
    TooManyImagesError,
)
from sitemap_updater.protocol.fields import is_blank
from sitemap_updater.sites import media_hosts_of
from sitemap_updater_local.pipeline.raw_entries import Repaired, make_entry_keeping_page

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
    assert sorted(type(e).__name__ for e in dropped) == sorted(
        t.__name__
        for t in (DuplicateHreflangError, InvalidVideoError, InvalidNewsError, ForeignHostError)
    )
    [duplicate] = [e for e in dropped if isinstance(e, DuplicateHreflangError)]
    assert duplicate.field == "alternates[1].hreflang" and duplicate.value == "DE"


def test_each_element_left_out_is_named_by_its_place_in_the_list_given() -> None:
    given = [{"hreflang": "english", "href": f"{LOC}/{n}"} if n % 3 == 0 else
             {"hreflang": "de" if n == 1 else "fr" if n == 2 else "en", "href": f"{LOC}/{n}"}
             for n in range(30)]  # fmt: skip
    entry, dropped = make_entry_keeping_page(SITE, loc=LOC, alternates=given, now=NOW)
    assert [a.href for a in entry.alternates] == [f"{LOC}/1", f"{LOC}/2", f"{LOC}/4"]
    named = {e.field for e in dropped}
    assert {f"alternates[{n}].hreflang" for n in range(0, 30, 3)} <= named
    assert {f"alternates[{n}].hreflang" for n in range(5, 30) if n % 3} <= named  # repeats of en
    assert len(dropped) == 30 - 3


def test_a_list_that_is_not_one_is_left_out_whole() -> None:
    entry, dropped = make_entry_keeping_page(SITE, loc=LOC, alternates="de", now=NOW)
    assert entry.alternates == ()
    assert [e.field for e in dropped] == ["alternates"]


def test_images_beyond_the_thousandth_are_left_out() -> None:
    images = [{"loc": f"{LOC}/{n}.jpg"} for n in range(1005)]
    entry, dropped = make_entry_keeping_page(SITE, loc=LOC, images=images, now=NOW)
    assert len(entry.images) == 1000 and entry.images[-1] == Image(f"{LOC}/999.jpg")
    assert [type(e) for e in dropped] == [TooManyImagesError]


def test_a_bad_page_field_is_left_out_and_costs_the_page_only_when_asked() -> None:
    entry, dropped = make_entry_keeping_page(
        SITE, loc=LOC, lastmod="1969-12-31", changefreq="often", priority=5, now=NOW
    )
    assert (entry.loc, entry.lastmod, entry.changefreq, entry.priority) == (LOC, None, None, None)
    assert [e.field for e in dropped] == ["lastmod", "changefreq", "priority"]
    with pytest.raises(InvalidLastmodError):
        make_entry_keeping_page(SITE, loc=LOC, lastmod="1969-12-31", now=NOW, keep_page=False)
    with pytest.raises(InvalidUrlError):
        make_entry_keeping_page(SITE, loc="/relative", now=NOW)


@pytest.mark.parametrize(
    ("language", "read_as"),
    [("en-US", "en"), ("pt_BR", "pt"), ("zh-Hant-HK", "zh-tw"), ("zh_Hans", "zh-cn"),
     ("zh-HK", None), ("english", None), ("zh-yue", None)],
)  # fmt: skip
def test_a_news_language_is_repaired_only_where_it_stands_for_one_code(
    language: str, read_as: str | None
) -> None:
    news = {
        "publication": {"name": "The Paper", "language": language},
        "publication_date": "2026-11-19",
        "title": "A title",
    }
    entry, [error] = make_entry_keeping_page(SITE, loc=LOC, news=news, now=NOW)
    assert error.field == "news.publication.language" and error.value == language
    if read_as is None:
        assert entry.news is None and not isinstance(error, Repaired)
    else:
        assert entry.news is not None and entry.news.language == read_as
        assert isinstance(error, Repaired) and error.to == read_as


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
