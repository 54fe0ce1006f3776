"""Arbitrary input is either refused with a rejection naming field and rule, or judged into pages
in normalized form (judged again, each is itself) whose file is valid and gives the same URLs
back through an independent parser (lxml on the decompressed output); judged leniently, as
``build`` reads a sitemap, any input with a usable URL keeps its page, and its file is valid."""

from __future__ import annotations

import json
import math
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemap_updater.ingest.judge import Change, judge_message
from sitemap_updater.ingest.listing import judge_listing
from sitemap_updater.ingest.rejection import Rejection
from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.protocol.lastmod import normalize_lastmod
from sitemap_updater.protocol.urls import Site, normalize_url
from sitemap_updater.sites import sites_of
from tests.helpers.files import urlset_file
from tests.helpers.xsd import assert_valid_urlset
from tests.property.strategies import NOW

SITE = Site.parse("https://www.example.com")
SITES = sites_of(SITE)

path_text = st.text(st.characters(codec="utf-8"), max_size=60)
url_like = st.one_of(
    path_text.map(lambda p: "https://www.example.com/" + p),
    path_text.map(lambda p: "HTTPS://WWW.EXAMPLE.COM:443/" + p),
    st.text(max_size=80),
    st.sampled_from(["https://www.example.com", "https://evil.example/x", "ftp://x/y", ""]),
)
lastmod_like = st.one_of(
    st.none(),
    st.text(max_size=30),
    st.datetimes(timezones=st.timezones()).map(lambda d: d.isoformat()),
    st.dates().map(lambda d: d.isoformat()),
    st.sampled_from(["2026-11-20T10:00:00", "2026-11-20T10:00:00+25:00", "10000-01-01"]),
)
priority_like = st.one_of(
    st.none(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(-2, 2),
    st.booleans(),
    st.text(max_size=5),
)
alternate_like = st.fixed_dictionaries(
    {
        "hreflang": st.one_of(st.sampled_from(["de", "en-GB", "x-default"]), st.text(max_size=8)),
        "href": url_like,
    }
)
image_like = st.one_of(
    st.fixed_dictionaries(
        {"loc": st.one_of(url_like, path_text.map(lambda p: "https://cdn.x.net/" + p))}
    ),
    st.text(max_size=10),
)
page_like = st.fixed_dictionaries(
    {"url": url_like},
    optional={
        "lastmod": lastmod_like,
        "changefreq": st.one_of(st.none(), st.sampled_from(["daily", "DAILY", "never", "x"])),
        "priority": priority_like,
        "alternates": st.lists(alternate_like, max_size=2),
        "images": st.lists(image_like, max_size=2),
    },
)


def _surrogate_free(fields: dict[str, Any]) -> bool:
    """Whether ``fields`` can be sent as UTF-8 JSON at all (a lone surrogate cannot)."""
    try:
        json.dumps(fields, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(page_like, min_size=1, max_size=8))
def test_changes_are_refused_naming_a_rule_or_round_trip(raw: list[dict[str, Any]]) -> None:
    pages = []
    for fields in raw:
        text = json.dumps({"action": "upsert", **fields})
        (judged,) = judge_message(text, sent_at=NOW, sites=SITES, now=NOW).items
        if isinstance(judged, Rejection):
            assert judged.field and judged.rule
            assert "\n" not in judged.rule
            continue
        assert isinstance(judged, Change) and judged.page is not None
        # a judged page is in normalized form: judged again, each field's cheap check takes it
        # as it is, and it is the same page
        again = json.dumps({"action": "upsert", **msgspec.to_builtins(judged.page)})
        (twice,) = judge_message(again, sent_at=NOW, sites=SITES, now=NOW).items
        assert isinstance(twice, Change) and twice.page == judged.page
        assert twice.digest == judged.digest
        pages.append(judged.page)
    if pages:
        locs = assert_valid_urlset(urlset_file(pages))
        assert locs == [page.url for page in pages]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(page_like, min_size=1, max_size=8))
def test_a_listing_keeps_its_page_whatever_its_fields(raw: list[dict[str, Any]]) -> None:
    pages = []
    for fields in raw:
        if not _surrogate_free(fields):
            continue
        drops: list[SitemapError] = []
        try:
            change = judge_listing(fields, sites=SITES, now=NOW, drops=drops)
        except SitemapError as error:
            assert error.field == "url"  # only a page without a usable url is lost
            continue
        assert change.page is not None
        assert all(drop.field and drop.rule for drop in drops)
        pages.append(change.page)
    if pages:
        assert assert_valid_urlset(urlset_file(pages)) == [page.url for page in pages]


@given(st.text(max_size=100))
def test_normalize_url_is_idempotent_or_rejects(raw: str) -> None:
    try:
        url = normalize_url(raw)
    except SitemapError as err:
        assert err.field == "loc"
        return
    assert normalize_url(url) == url
    assert url.isascii() and url.isprintable()
    assert url.startswith(("http://", "https://"))


@given(st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.integers(), st.booleans()))
def test_priority_refused_or_in_range_to_one_decimal(value: object) -> None:
    text = json.dumps({"action": "upsert", "url": "https://www.example.com/p", "priority": value})
    (judged,) = judge_message(text, sent_at=NOW, sites=SITES, now=NOW).items
    if isinstance(judged, Rejection):
        assert judged.field in {"priority", "message"}  # "message": a number JSON cannot hold
        return
    assert judged.page is not None and judged.page.priority is not None
    assert 0.0 <= judged.page.priority <= 1.0
    assert math.isclose(judged.page.priority * 10, round(judged.page.priority * 10))


@given(st.one_of(st.text(max_size=40), st.datetimes(timezones=st.timezones()).map(str)))
def test_lastmod_rejected_or_normalized(value: str) -> None:
    try:
        text = normalize_lastmod(value, now=NOW)
    except SitemapError as err:
        assert err.field == "lastmod"
        return
    assert normalize_lastmod(text, now=NOW) == text
    assert len(text) in (10, 20)
