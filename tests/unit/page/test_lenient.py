"""Lenient judging (``judge_listing`` with a ``drops`` list, as ``build`` and ``backfill`` read
sitemaps and spreadsheets): a field or element that breaks a rule is left out and named, at its
place in the list as given, and the page is kept; only a page without a usable url is lost."""

from __future__ import annotations

from typing import Any

import pytest

from sitemap_updater.ingest.listing import judge_listing
from sitemap_updater.ingest.rejection import MISSING
from sitemap_updater.page.model import Alternate, Image, Page
from sitemap_updater.page.normalize import Repaired
from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.protocol.limits import MAX_IMAGES_PER_URL
from sitemap_updater.sites import Sites
from tests.helpers.pages import NOW, make_page

SITES = Sites.parse("https://www.example.com")
U = "https://www.example.com/p"
VIDEO = {"thumbnail_loc": U + ".jpg", "title": "t", "description": "d", "player_loc": U + "/v"}
NEWS = {
    "publication": {"name": "N", "language": "en"},
    "publication_date": "2026-11-20",
    "title": "T",
}


def lenient(**fields: Any) -> tuple[Page, list[tuple[str, object]]]:
    """The page kept, and the (field, value) of each error left out, in order."""
    drops: list[SitemapError] = []
    change = judge_listing({"url": U, **fields}, sites=SITES, now=NOW, drops=drops)
    assert change.page is not None
    for error in drops:
        assert error.rule  # each one says what rule it broke
    return change.page, [(error.field, error.value) for error in drops]


def test_bad_single_values_are_left_out_and_the_rest_is_kept() -> None:
    page, dropped = lenient(lastmod="soon", changefreq="sometimes", priority="high")
    assert page == Page(U)
    assert sorted(dropped) == [
        ("changefreq", "sometimes"),
        ("lastmod", "soon"),
        ("priority", "high"),
    ]
    page, dropped = lenient(lastmod="soon", changefreq="daily", priority="0.75")
    assert (page.lastmod, page.changefreq, page.priority) == (None, "daily", 0.8)
    assert dropped == [("lastmod", "soon")]


def test_a_bad_alternate_is_named_at_its_place_in_the_list_given() -> None:
    page, dropped = lenient(
        alternates=[
            {"hreflang": "en", "href": U},
            "x",  # not an object: left out before the values are judged
            {"hreflang": "xx", "href": U + "/x"},
            {"hreflang": "de", "href": U + "/de"},
            {"hreflang": "EN", "href": U + "/en"},
        ]
    )
    assert page.alternates == (Alternate("en", U), Alternate("de", U + "/de"))
    assert dropped == [
        ("alternates[1]", "x"),
        ("alternates[2].hreflang", "xx"),
        ("alternates[4].hreflang", "EN"),
    ]


def test_a_repeated_language_names_the_alternate_that_named_it_first_as_given() -> None:
    drops: list[SitemapError] = []
    alternates = [5, {"hreflang": "en", "href": U}, {"hreflang": "EN", "href": U + "/en"}]
    change = judge_listing({"url": U, "alternates": alternates}, sites=SITES, now=NOW, drops=drops)
    assert change.page is not None and change.page.alternates == (Alternate("en", U),)
    first, repeat = drops
    assert first.field == "alternates[0]"
    assert (repeat.field, repeat.value) == ("alternates[2].hreflang", "EN")
    assert repeat.rule.startswith("must name a language once: alternates[1] names it already")


def test_bad_images_are_left_out_and_good_ones_kept() -> None:
    page, dropped = lenient(images=[{"loc": "ftp://x/a.jpg"}, {"src": 1}, {"loc": U + ".jpg"}])
    assert page.images == (Image(U + ".jpg"),)
    assert sorted(dropped, key=str) == [
        ("images[0].loc", "ftp://x/a.jpg"),
        ("images[1].loc", MISSING),
    ]


def test_images_over_the_limit_are_cut_to_it() -> None:
    images = [{"loc": f"https://cdn.example.net/{i}.jpg"} for i in range(MAX_IMAGES_PER_URL + 2)]
    page, dropped = lenient(images=images)
    assert [image.loc for image in page.images] == [i["loc"] for i in images[:MAX_IMAGES_PER_URL]]
    assert [field for field, _ in dropped] == ["images"]


def test_a_bad_video_is_left_out_at_its_place() -> None:
    page, dropped = lenient(
        videos=[
            {**VIDEO, "player_loc": None},  # neither content_loc nor player_loc
            {**VIDEO, "duration": "long"},
            VIDEO,
        ]
    )
    assert len(page.videos) == 1 and page.videos[0].player_loc == U + "/v"
    assert sorted(field for field, _ in dropped) == ["videos[0]", "videos[1].duration"]


def test_a_bad_news_article_is_left_out_and_the_page_kept() -> None:
    page, dropped = lenient(news={**NEWS, "title": " "}, lastmod="2026-11-19")
    assert page == Page(U, lastmod="2026-11-19")
    assert dropped == [("news.title", " ")]


def test_a_news_language_that_stands_for_one_code_is_read_as_it() -> None:
    drops: list[SitemapError] = []
    fields = {"url": U, "news": {**NEWS, "publication": {"name": "N", "language": "en-US"}}}
    change = judge_listing(fields, sites=SITES, now=NOW, drops=drops)
    assert change.page is not None and change.page.news is not None
    assert change.page.news.publication.language == "en"
    (note,) = drops
    assert isinstance(note, Repaired)
    assert (note.field, note.value, note.to) == ("news.publication.language", "en-US", "en")
    # a language that stands for no code is no article
    page, dropped = lenient(news={**NEWS, "publication": {"name": "N", "language": "english"}})
    assert page.news is None
    assert dropped == [("news.publication.language", "english")]


def test_the_page_a_lenient_judgement_keeps_is_the_strict_page_without_the_bad_parts() -> None:
    good: dict[str, Any] = {
        "lastmod": "2026-11-19",
        "images": [{"loc": U + ".jpg"}],
        "videos": [VIDEO],
    }
    page, dropped = lenient(**good, changefreq="often", alternates=[{"hreflang": "zz", "href": U}])
    assert len(dropped) == 2
    assert page == make_page(SITES, url=U, **good)


@pytest.mark.parametrize(
    ("url", "field", "rule"),
    [
        ("ftp://www.example.com/x", "url", "scheme 'ftp'"),
        ("https://evil.example.org/x", "url", "must be on https://www.example.com"),
        (None, "url", "is required"),
    ],
)
def test_only_a_page_without_a_usable_url_is_lost(url: str | None, field: str, rule: str) -> None:
    fields = {"lastmod": "2026-11-19"} if url is None else {"url": url, "lastmod": "2026-11-19"}
    with pytest.raises(SitemapError) as info:
        judge_listing(fields, sites=SITES, now=NOW, drops=[])
    assert info.value.field == field
    assert rule in info.value.rule


def test_strictly_the_first_broken_rule_is_raised() -> None:
    with pytest.raises(SitemapError) as info:
        judge_listing(
            {"url": U, "lastmod": "soon", "changefreq": "often"}, sites=SITES, now=NOW, drops=None
        )
    assert (info.value.field, info.value.value) == ("lastmod", "soon")
