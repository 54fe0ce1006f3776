"""The one ordering rule (``page.order``): the ordering key compares as its event time, then a
delete before an upsert, then the larger digest; a listing's time is its lastmod's; stamped times
always move on."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta, timezone

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitemap_updater.page.model import Page
from sitemap_updater.page.order import (
    EARLIEST,
    MAX_FUTURE_SKEW,
    TICK,
    Stamps,
    delete_digest,
    event_key,
    format_instant,
    instant_text,
    key_time,
    listing_time,
    page_digest,
    parse_instant,
)
from sitemap_updater.protocol.urls import Site
from tests.helpers.pages import make_page

SITE = Site.parse("https://www.example.com")
URL = "https://www.example.com/a"
T = datetime(2026, 11, 20, tzinfo=UTC)
NOW = datetime(2026, 11, 21, 12, tzinfo=UTC)
digests = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)
instants = st.datetimes(
    min_value=datetime(1970, 1, 1), max_value=datetime(9999, 1, 1), timezones=st.just(UTC)
)
actions = st.sampled_from(["upsert", "delete"])


def test_an_instant_is_written_in_utc_to_the_microsecond() -> None:
    plus2 = timezone(timedelta(hours=2))
    moment = datetime(2026, 11, 20, 12, 0, 1, 250_000, tzinfo=plus2)
    assert format_instant(moment) == "20261120T100001.250000Z"
    assert key_time(event_key(moment, "upsert", "0" * 64)) == moment


def test_a_naive_time_has_no_key() -> None:
    with pytest.raises(ValueError, match="naive"):
        format_instant(datetime(2026, 11, 20))


@given(instants, actions, digests, instants, actions, digests)
def test_keys_compare_as_time_then_delete_then_digest(
    a: datetime, action_a: str, digest_a: str, b: datetime, action_b: str, digest_b: str
) -> None:
    ka = event_key(a, action_a, digest_a)  # type: ignore[arg-type]
    kb = event_key(b, action_b, digest_b)  # type: ignore[arg-type]
    rank_a, rank_b = action_a == "delete", action_b == "delete"
    assert (ka < kb) == ((a, rank_a, digest_a) < (b, rank_b, digest_b))
    assert (ka == kb) == ((a, action_a, digest_a) == (b, action_b, digest_b))


def test_at_equal_times_a_delete_beats_an_upsert_whatever_the_digests() -> None:
    assert event_key(T, "delete", "0" * 64) > event_key(T, "upsert", "f" * 64)
    assert event_key(T + TICK, "upsert", "0" * 64) > event_key(T, "delete", "f" * 64)


def test_at_equal_times_the_larger_digest_wins() -> None:
    assert event_key(T, "upsert", "b" * 64) > event_key(T, "upsert", "a" * 64)


def test_a_change_delivered_again_has_the_same_key() -> None:
    # the same page, spelled another way
    page = make_page(SITE, url=URL, lastmod="2026-11-19T09:00:00Z")
    again = make_page(SITE, url="HTTPS://WWW.EXAMPLE.COM:443/a#x", lastmod="2026-11-19T10:00+01:00")
    assert event_key(T, "upsert", page_digest(page, None)) == event_key(
        T, "upsert", page_digest(again, None)
    )


def test_a_delete_s_digest_is_sha256_of_its_url() -> None:
    assert delete_digest(URL) == hashlib.sha256(URL.encode()).hexdigest()


def test_the_digest_covers_every_published_field_and_the_section() -> None:
    base = make_page(SITE, url=URL)
    variants = [
        make_page(SITE, url=URL + "b"),
        make_page(SITE, url=URL, lastmod="2026-11-20"),
        make_page(SITE, url=URL, changefreq="daily"),
        make_page(SITE, url=URL, priority=0.5),
        make_page(SITE, url=URL, alternates=[{"hreflang": "de", "href": URL + "/de"}]),
        make_page(SITE, url=URL, images=[{"loc": "https://cdn.example.com/1.jpg"}]),
        make_page(
            SITE,
            url=URL,
            videos=[
                {
                    "thumbnail_loc": URL + ".jpg",
                    "title": "t",
                    "description": "d",
                    "player_loc": URL + "/p",
                }
            ],
        ),
        make_page(
            SITE,
            url=URL,
            news={
                "publication": {"name": "N", "language": "en"},
                "publication_date": "2026-11-20",
                "title": "t",
            },
        ),
    ]
    digests = {page_digest(p, None) for p in [base, *variants]}
    assert len(digests) == 1 + len(variants)
    sections = {page_digest(base, s) for s in (None, "pages", "products")}
    assert len(sections) == 3


def test_the_digest_is_of_the_canonical_json_keys_sorted_absent_fields_left_out() -> None:
    page = make_page(SITE, url=URL, priority=0.8, images=[{"loc": "https://cdn.example.com/é"}])
    fields = msgspec.to_builtins(page)
    assert set(fields) == {"url", "priority", "images"}
    canonical = json.dumps([fields, "pages"], sort_keys=True, separators=(",", ":"))
    assert page_digest(page, "pages") == hashlib.sha256(canonical.encode()).hexdigest()
    # a page built in another field order, of the same values, has the same digest
    assert page_digest(Page(url=URL, images=page.images, priority=0.8), "pages") == page_digest(
        page, "pages"
    )


@pytest.mark.parametrize(
    ("lastmod", "expected"),
    [
        (None, EARLIEST),
        ("2026-11-19", datetime(2026, 11, 19, tzinfo=UTC)),
        ("2026-11-19T10:30:00Z", datetime(2026, 11, 19, 10, 30, tzinfo=UTC)),
        ("2026-11-22", NOW),  # never after the clock
        ("2026-11-21T12:00:01Z", NOW),
    ],
)
def test_a_listing_s_time_is_its_lastmod_s_never_after_the_clock(
    lastmod: str | None, expected: datetime
) -> None:
    assert listing_time(lastmod, NOW) == expected


def test_of_two_listings_of_a_page_the_newest_lastmod_wins_and_none_loses() -> None:
    older, newer = "2024-01-01", "2025-01-02T00:00:00Z"
    keys = {
        lastmod: event_key(listing_time(lastmod, NOW), "upsert", "0" * 64)
        for lastmod in (None, older, newer)
    }
    assert keys[None] < keys[older] < keys[newer]


@pytest.mark.parametrize(
    ("raw", "rule"),
    [
        ("2026-11-20T10:00:00", "time zone"),
        ("2026-11-20", "time zone"),
        ("last tuesday", "ISO 8601"),
        ("1969-12-31T23:59:59Z", "1970"),
        ("2026-11-21T12:05:01Z", "5 minutes in the future"),
    ],
)
def test_an_event_time_out_of_bounds_is_refused_with_its_rule(raw: str, rule: str) -> None:
    with pytest.raises(ValueError, match=rule):
        parse_instant(raw, NOW)


def test_an_event_time_may_be_a_little_ahead_of_the_clock() -> None:
    assert parse_instant(instant_text(NOW + MAX_FUTURE_SKEW), NOW) == NOW + MAX_FUTURE_SKEW
    assert parse_instant("2026-11-21T14:00:00+02:00", NOW) == NOW


def test_each_stamp_is_later_than_the_one_before() -> None:
    stamps = Stamps()
    first = stamps.next(T)
    assert first == T
    assert stamps.next(T) == T + TICK  # the same clock reading twice
    assert stamps.next(T - timedelta(seconds=1)) == T + 2 * TICK  # a clock that stepped back
    assert stamps.next(T + timedelta(seconds=1)) == T + timedelta(seconds=1)
