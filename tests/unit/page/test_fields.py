"""The rules of a page's own fields (``page.normalize``), as the judge applies them to a change:
each normalized value, and each value that breaks a rule refused naming field, value and rule."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from sitemap_updater.ingest.judge import Change
from sitemap_updater.ingest.rejection import MISSING, Rejection
from sitemap_updater.page.model import CHANGEFREQS, Alternate, Image, Page
from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.protocol.limits import MAX_IMAGES_PER_URL
from sitemap_updater.protocol.urls import Site
from tests.helpers.pages import judge_sent, make_page

SITE = Site.parse("https://www.example.com")
U = "https://www.example.com/p"


def judged(**fields: Any) -> Change | Rejection:
    return judge_sent(SITE, {"action": "upsert", "url": U, **fields})


def page(**fields: Any) -> Page:
    change = judged(**fields)
    assert isinstance(change, Change), change
    assert change.page is not None
    return change.page


def refused(**fields: Any) -> Rejection:
    rejection = judged(**fields)
    assert isinstance(rejection, Rejection), rejection
    return rejection


def test_every_field_is_normalized() -> None:
    change = judge_sent(
        SITE,
        {
            "action": "upsert",
            "url": "HTTPS://WWW.EXAMPLE.COM/p#x",
            "lastmod": "2026-11-19T10:00:00+01:00",
            "changefreq": "weekly",
            "priority": 0.85,
            "alternates": [{"hreflang": "de", "href": "https://www.example.com/de/p"}],
            "images": [{"loc": "https://CDN.other.net:443/a_b.jpg"}],
        },
    )
    assert isinstance(change, Change)
    assert change.url == U
    assert change.page == Page(
        url=U,
        lastmod="2026-11-19T09:00:00Z",
        changefreq="weekly",
        priority=0.9,
        alternates=(Alternate("de", "https://www.example.com/de/p"),),
        images=(Image("https://cdn.other.net/a_b.jpg"),),
    )


def test_a_judged_page_is_immutable() -> None:
    judged_page = page()
    with pytest.raises(AttributeError):
        judged_page.url = "https://www.example.com/other"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0, 0.0), (1, 1.0), (0.05, 0.1), (0.15, 0.2), (0.25, 0.3), (0.94, 0.9), (0.95, 1.0)],
)
def test_priority_rounds_half_up_to_one_decimal(value: float, expected: float) -> None:
    assert page(priority=value).priority == expected


@pytest.mark.parametrize(
    ("value", "rule"),
    [
        (1.5, "must be at most 1.0"),
        (-0.1, "must be at least 0.0"),
        ("0.8", "must be a number (not a string)"),
        ("high", "must be a number (not a string)"),
        (True, "must be a number (not true or false)"),
        ([1], "must be a number (not an array)"),
    ],
)
def test_priority_out_of_range_or_not_a_number_is_refused(value: object, rule: str) -> None:
    rejection = refused(priority=value)
    assert (rejection.field, rejection.value, rejection.rule) == ("priority", value, rule)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_a_listing_s_priority_that_is_no_number_in_range_is_refused(value: str) -> None:
    # a sitemap's values are text, read as numbers: NaN and infinities are no priority
    with pytest.raises(SitemapError) as info:
        make_page(SITE, url=U, priority=value)
    assert (info.value.field, info.value.value) == ("priority", value)


def test_the_error_names_field_value_and_rule() -> None:
    with pytest.raises(SitemapError) as info:
        make_page(SITE, url=U, priority=1.5)
    assert str(info.value) == "priority: 1.5 is invalid: must be at most 1.0"


@pytest.mark.parametrize("value", sorted(CHANGEFREQS))
def test_each_changefreq_of_the_protocol_is_kept(value: str) -> None:
    assert page(changefreq=value).changefreq == value


@pytest.mark.parametrize("value", ["DAILY", "sometimes", "daily</changefreq><x>", ""])
def test_any_other_changefreq_is_refused_naming_the_seven(value: str) -> None:
    rejection = refused(changefreq=value)
    assert (rejection.field, rejection.value) == ("changefreq", value)
    assert rejection.rule == "must be one of " + ", ".join(sorted(CHANGEFREQS))


def test_a_changefreq_that_is_no_string_is_refused() -> None:
    rejection = refused(changefreq=1)
    assert (rejection.field, rejection.value) == ("changefreq", 1)
    assert rejection.rule == "must be a string (not an integer)"


@pytest.mark.parametrize(
    ("lastmod", "expected"),
    [
        ("2026-11-20", "2026-11-20"),
        ("2026-11-20T10:00+02:00", "2026-11-20T08:00:00Z"),
        ("2026-11-21T12:00:00Z", "2026-11-21T12:00:00Z"),  # a day ahead of the clock, no more
        ("1970-01-01", "1970-01-01"),
    ],
)
def test_lastmod_is_normalized_up_to_a_day_ahead(lastmod: str, expected: str) -> None:
    assert page(lastmod=lastmod).lastmod == expected


@pytest.mark.parametrize(
    ("lastmod", "rule"),
    [
        ("2026-11-21T12:00:01Z", "future"),
        ("1969-12-31", "before 1970"),
        ("2026-11-20T10:00:00", "time zone"),
        ("yesterday", "must be YYYY-MM-DD"),
        (20261120, "must be a string"),
    ],
)
def test_a_bad_lastmod_is_refused(lastmod: object, rule: str) -> None:
    rejection = refused(lastmod=lastmod)
    assert (rejection.field, rejection.value) == ("lastmod", lastmod)
    assert rule in rejection.rule


@pytest.mark.parametrize("hreflang", ['de"><x', "d\x01e", "", "toolonglang", "de_DE"])
def test_a_bad_hreflang_is_refused_at_its_place(hreflang: str) -> None:
    alternates = [{"hreflang": "fr", "href": U + "/fr"}, {"hreflang": hreflang, "href": U}]
    rejection = refused(alternates=alternates)
    assert (rejection.field, rejection.value) == ("alternates[1].hreflang", hreflang)
    assert "BCP 47 language tag" in rejection.rule


def test_a_language_is_named_once_case_aside() -> None:
    alternates = [{"hreflang": "en", "href": U + "/en"}, {"hreflang": "EN", "href": U}]
    rejection = refused(alternates=alternates)
    assert (rejection.field, rejection.value) == ("alternates[1].hreflang", "EN")
    assert rejection.rule.startswith("must name a language once: alternates[0] names it already")


def test_an_alternate_must_be_on_the_site() -> None:
    rejection = refused(alternates=[{"hreflang": "fr", "href": "https://evil.example.org/fr"}])
    assert (rejection.field, rejection.value) == (
        "alternates[0].href",
        "https://evil.example.org/fr",
    )
    assert SITE.origin in rejection.rule


def test_an_alternate_href_is_normalized() -> None:
    alternate = {"hreflang": "de", "href": "HTTPS://www.example.com:443/de/./p#top"}
    assert page(alternates=[alternate]).alternates == (Alternate("de", U.replace("/p", "/de/p")),)


@pytest.mark.parametrize(
    ("alternates", "field", "value", "rule"),
    [
        ({"hreflang": "de"}, "alternates", {"hreflang": "de"}, "must be an array (not an object)"),
        (["x"], "alternates[0]", "x", "must be an object (not a string)"),
        ([{"href": U}], "alternates[0].hreflang", MISSING, "is required"),
        ([{"hreflang": "de", "href": 5}], "alternates[0].href", 5, "must be a string"),
    ],
)
def test_a_malformed_alternate_is_refused_at_its_place(
    alternates: object, field: str, value: object, rule: str
) -> None:
    rejection = refused(alternates=alternates)
    assert (rejection.field, rejection.value) == (field, value)
    assert rejection.rule.startswith(rule)


def test_images_may_live_on_any_host_without_media_hosts_and_repeat_once() -> None:
    images = [
        {"loc": "https://CDN.Example.NET/x.jpg"},
        {"loc": "https://cdn.example.net:443/x.jpg#again"},  # the same image, spelled otherwise
        {"loc": "https://cdn.example.net/y.jpg"},
    ]
    assert page(images=images).images == (
        Image("https://cdn.example.net/x.jpg"),
        Image("https://cdn.example.net/y.jpg"),
    )


@pytest.mark.parametrize(
    ("images", "field", "value", "rule"),
    [
        ([{"loc": "https://cdn.example.net/1.jpg"}, {"src": "x"}], "images[1].loc", MISSING, "is"),
        ([{"loc": "ftp://cdn.example.net/x.jpg"}], "images[0].loc", "ftp://cdn.example.net/x.jpg",
         "scheme 'ftp'"),
        ([{"loc": "/x.jpg"}], "images[0].loc", "/x.jpg", "must be an absolute"),
        (["https://cdn.example.net/x.jpg"], "images[0]", "https://cdn.example.net/x.jpg",
         "must be an object"),
    ],
)  # fmt: skip
def test_a_bad_image_is_refused_at_its_place(
    images: object, field: str, value: object, rule: str
) -> None:
    rejection = refused(images=images)
    assert (rejection.field, rejection.value) == (field, value)
    assert rejection.rule.startswith(rule)


def test_at_most_1000_images() -> None:
    images = [{"loc": f"https://cdn.example.net/{i}.jpg"} for i in range(MAX_IMAGES_PER_URL + 1)]
    rejection = refused(images=images)
    assert rejection.field == "images"
    assert rejection.rule == f"must have at most {MAX_IMAGES_PER_URL} items"
    assert len(page(images=images[:MAX_IMAGES_PER_URL]).images) == MAX_IMAGES_PER_URL


def test_the_first_field_in_field_order_that_breaks_a_rule_is_named() -> None:
    # lastmod comes before changefreq, which comes before the alternates
    rejection = refused(
        alternates=[{"hreflang": "xx", "href": U}], changefreq="sometimes", lastmod="soon"
    )
    assert rejection.field == "lastmod"
    assert refused(alternates=[{"hreflang": "xx", "href": U}], changefreq="x").field == (
        "changefreq"
    )


def test_a_page_as_judged_is_judged_again_to_itself() -> None:
    first = page(
        lastmod="2026-11-19T10:00:00+01:00",
        priority=0.85,
        alternates=[{"hreflang": "de", "href": "https://www.example.com/de/p"}],
        images=[{"loc": "https://CDN.example.net/a b.jpg"}],
    )
    again = page(**msgspec.to_builtins(first))
    assert again == first
