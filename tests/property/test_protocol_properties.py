"""Arbitrary input either raises a typed SitemapError or renders to a valid file that gives the
same URL set back through an independent parser (lxml on the decompressed output)."""

from __future__ import annotations

import math
from datetime import UTC, datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.protocol.lastmod import normalize_lastmod
from sitemap_updater.protocol.urls import Site, normalize_url
from sitemap_updater.protocol import make_entry, render_urlset  # GONE
from tests.helpers.xsd import assert_valid_urlset

SITE = Site.parse("https://www.example.com")
NOW = datetime(2026, 11, 20, tzinfo=UTC)

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
    st.none(), st.floats(allow_nan=True), st.integers(-2, 2), st.booleans(), st.text(max_size=5)
)
alternate_like = st.fixed_dictionaries(
    {
        "hreflang": st.one_of(st.sampled_from(["de", "en-GB", "x-default"]), st.text(max_size=8)),
        "href": url_like,
    }
)
image_like = st.fixed_dictionaries(
    {"loc": st.one_of(url_like, path_text.map(lambda p: "https://cdn.x.net/" + p))}
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            url_like,
            lastmod_like,
            st.one_of(st.none(), st.sampled_from(["daily", "DAILY", "never", "x"])),
            priority_like,
            st.lists(alternate_like, max_size=2),
            st.lists(image_like, max_size=2),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_input_is_rejected_or_round_trips(raw_entries: list[tuple[object, ...]]) -> None:
    entries = []
    for loc, lastmod, changefreq, priority, alternates, images in raw_entries:
        try:
            entries.append(
                make_entry(
                    SITE,
                    loc=loc,
                    lastmod=lastmod,
                    changefreq=changefreq,
                    priority=priority,
                    alternates=alternates,
                    images=images,
                    now=NOW,
                )
            )
        except SitemapError as err:
            assert err.field and err.rule
            assert "\n" not in str(err)
    if not entries:
        return
    data, stats = render_urlset(entries, SITE)
    locs = assert_valid_urlset(data)
    assert locs == [e.url for e in entries]
    assert stats.url_count == len(entries)


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


@given(st.one_of(st.floats(), st.integers(), st.booleans(), st.text(max_size=4)))
def test_priority_rejected_or_in_range(value: object) -> None:
    try:
        entry = make_entry(SITE, loc="https://www.example.com/p", priority=value)
    except SitemapError as err:
        assert err.field == "priority"
        return
    assert entry.priority is not None
    assert 0.0 <= entry.priority <= 1.0
    assert math.isclose(entry.priority * 10, round(entry.priority * 10))


@given(st.one_of(st.text(max_size=40), st.datetimes(timezones=st.timezones()).map(str)))
def test_lastmod_rejected_or_normalized(value: str) -> None:
    try:
        text = normalize_lastmod(value, now=NOW)
    except SitemapError as err:
        assert err.field == "lastmod"
        return
    assert normalize_lastmod(text, now=NOW) == text
    assert len(text) in (10, 20)
