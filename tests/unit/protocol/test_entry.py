from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sitemap_updater.page.model import Alternate, Image, Page
from sitemap_updater.protocol.errors import (
    ForeignHostError,
    InvalidAlternateError,
    InvalidChangefreqError,
    InvalidHreflangError,
    InvalidImageError,
    InvalidPriorityError,
    SitemapError,
    TooManyImagesError,
)
from sitemap_updater.protocol.urls import Site
from sitemap_updater.protocol import make_entry  # GONE

SITE = Site.parse("https://www.example.com")
NOW = datetime(2026, 11, 20, tzinfo=UTC)
U = "https://www.example.com/p"


def test_make_entry_normalizes_every_field() -> None:
    entry = make_entry(
        SITE,
        loc="HTTPS://WWW.EXAMPLE.COM/p#x",
        lastmod="2026-11-19T10:00:00+01:00",
        changefreq="weekly",
        priority=0.85,
        alternates=[{"hreflang": "de", "href": "https://www.example.com/de/p"}],
        images=[{"loc": "https://cdn.other.net/a b.jpg".replace(" ", "_")}],
        now=NOW,
    )
    assert entry == Page(
        url=U,
        lastmod="2026-11-19T09:00:00Z",
        changefreq="weekly",
        priority=0.9,
        alternates=(Alternate("de", "https://www.example.com/de/p"),),
        images=(Image("https://cdn.other.net/a_b.jpg"),),
    )


def test_entry_is_immutable() -> None:
    entry = make_entry(SITE, loc=U)
    with pytest.raises(AttributeError):
        entry.url = "https://www.example.com/other"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0, 0.0), (1, 1.0), (0.05, 0.1), (0.15, 0.2), (0.25, 0.3), (0.94, 0.9), (0.95, 1.0)],
)
def test_priority_rounds_half_up_to_one_decimal(value: float, expected: float) -> None:
    assert make_entry(SITE, loc=U, priority=value).priority == expected


@pytest.mark.parametrize(
    "value", [1.5, -0.1, float("nan"), float("inf"), float("-inf"), "0.8", "high", True, False, [1]]
)
def test_priority_rejects(value: object) -> None:
    with pytest.raises(InvalidPriorityError) as info:
        make_entry(SITE, loc=U, priority=value)
    assert info.value.field == "priority"
    assert "0.0 to 1.0" in info.value.rule


def test_error_message_names_field_value_and_rule() -> None:
    with pytest.raises(SitemapError) as info:
        make_entry(SITE, loc=U, priority=1.5)
    assert str(info.value) == "priority: 1.5 is invalid: must be a number from 0.0 to 1.0"


@pytest.mark.parametrize("value", ["DAILY", "sometimes", "daily</changefreq><x>", 1, "\udfff"])
def test_changefreq_rejects(value: object) -> None:
    with pytest.raises(InvalidChangefreqError) as info:
        make_entry(SITE, loc=U, changefreq=value)
    assert info.value.field == "changefreq"


@pytest.mark.parametrize("hreflang", ['de"><x', "d\x01e", "", "toolonglang", "de_DE", 5])
def test_hreflang_rejects(hreflang: object) -> None:
    alternates = [{"hreflang": "fr", "href": U + "/fr"}, {"hreflang": hreflang, "href": U}]
    with pytest.raises(InvalidHreflangError) as info:
        make_entry(SITE, loc=U, alternates=alternates)
    assert info.value.field == "alternates[1].hreflang"


def test_alternate_href_must_be_on_the_site() -> None:
    with pytest.raises(ForeignHostError) as info:
        make_entry(
            SITE, loc=U, alternates=[{"hreflang": "fr", "href": "https://evil.example.org/fr"}]
        )
    assert info.value.field == "alternates[0].href"
    assert info.value.value == "https://evil.example.org/fr"


@pytest.mark.parametrize(
    ("alternates", "field"),
    [
        ({"hreflang": "de"}, "alternates"),
        (["x"], "alternates[0]"),
        ([{"href": U}], "alternates[0]"),
    ],
)
def test_malformed_alternates(alternates: object, field: str) -> None:
    with pytest.raises(InvalidAlternateError) as info:
        make_entry(SITE, loc=U, alternates=alternates)
    assert info.value.field == field


def test_images_any_host_but_absolute_http() -> None:
    entry = make_entry(SITE, loc=U, images=[{"loc": "https://CDN.Example.NET/x.jpg"}])
    assert entry.images == (Image("https://cdn.example.net/x.jpg"),)
    with pytest.raises(InvalidImageError) as info:
        make_entry(SITE, loc=U, images=[{"loc": "https://cdn.example.net/1.jpg"}, {"src": "x"}])
    assert info.value.field == "images[1]"
    with pytest.raises(SitemapError) as bad:
        make_entry(SITE, loc=U, images=[{"loc": "ftp://cdn.example.net/x.jpg"}])
    assert bad.value.field == "images[0].loc"


def test_at_most_1000_images() -> None:
    images = [{"loc": f"https://cdn.example.net/{i}.jpg"} for i in range(1001)]
    with pytest.raises(TooManyImagesError) as info:
        make_entry(SITE, loc=U, images=images)
    assert info.value.field == "images"
    assert len(make_entry(SITE, loc=U, images=images[:1000]).images) == 1000
