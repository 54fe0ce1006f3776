"""The ordering key ``ev``: fixed-width UTC time, delete beats upsert, digest breaks ties."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitemap_updater.ingest.ordering import (
    canonical_entry_json,
    content_digest,
    delete_digest,
    event_key,
    format_instant,
)
from sitemap_updater.page.model import Alternate, Image, Page

LOC = "https://www.example.com/a"


def test_format_instant_is_utc_with_microseconds() -> None:
    plus2 = timezone(timedelta(hours=2))
    moment = datetime(2026, 11, 20, 12, 0, 1, 250_000, tzinfo=plus2)
    assert format_instant(moment) == "20261120T100001.250000Z"


def test_format_instant_refuses_naive_time() -> None:
    with pytest.raises(ValueError, match="naive"):
        format_instant(datetime(2026, 11, 20))


instants = st.datetimes(
    min_value=datetime(1970, 1, 1), max_value=datetime(9999, 1, 1), timezones=st.just(UTC)
)


@given(instants, instants)
def test_key_text_order_is_time_order(a: datetime, b: datetime) -> None:
    digest = "0" * 64
    ka, kb = event_key(a, "upsert", digest), event_key(b, "upsert", digest)
    assert (ka < kb) == (a < b)


def test_equal_times_delete_beats_upsert_whatever_the_digests() -> None:
    t = datetime(2026, 11, 20, tzinfo=UTC)
    assert event_key(t, "delete", "0" * 64) > event_key(t, "upsert", "f" * 64)
    assert event_key(t + timedelta(microseconds=1), "upsert", "0" * 64) > event_key(
        t, "delete", "f" * 64
    )


def test_equal_times_two_upserts_larger_digest_wins() -> None:
    t = datetime(2026, 11, 20, tzinfo=UTC)
    assert event_key(t, "upsert", "b" * 64) > event_key(t, "upsert", "a" * 64)


def test_delete_digest_is_sha256_of_the_url() -> None:
    assert delete_digest(LOC) == hashlib.sha256(LOC.encode()).hexdigest()


def test_content_digest_covers_every_published_field() -> None:
    base = Page(url=LOC)
    variants = [
        Page(url=LOC + "b"),
        Page(url=LOC, lastmod="2026-11-20"),
        Page(url=LOC, changefreq="daily"),
        Page(url=LOC, priority=0.5),
        Page(url=LOC, alternates=(Alternate("de", LOC + "/de"),)),
        Page(url=LOC, images=(Image("https://cdn.example.com/1.jpg"),)),
    ]
    digests = {content_digest(e) for e in [base, *variants]}
    assert len(digests) == 1 + len(variants)


def test_content_digest_is_canonical_json() -> None:
    entry = Page(url=LOC, priority=0.8, images=(Image("https://cdn.example.com/é.jpg"),))
    text = canonical_entry_json(entry)
    assert text.isascii()
    assert '"priority":"0.8"' in text
    assert content_digest(entry) == hashlib.sha256(text.encode()).hexdigest()
