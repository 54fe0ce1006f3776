from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from sitemap_updater.protocol.errors import InvalidLastmodError
from sitemap_updater.protocol.lastmod import normalize_lastmod

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2026-11-20", "2026-11-20"),
        ("2026-11-20T10:00:00Z", "2026-11-20T10:00:00Z"),
        ("2026-11-20T10:00Z", "2026-11-20T10:00:00Z"),
        ("2026-11-20T10:00:00.123+02:00", "2026-11-20T08:00:00Z"),
        ("2026-11-20T01:30:00+05:30", "2026-11-19T20:00:00Z"),
        ("2026-11-19T23:00:00-14:00", "2026-11-20T13:00:00Z"),
        ("1970-01-01", "1970-01-01"),
        ("1970-01-01T00:00:00+00:00", "1970-01-01T00:00:00Z"),
        ("1970-01-01T01:00:00+01:00", "1970-01-01T00:00:00Z"),
        (date(2024, 2, 29), "2024-02-29"),
        (datetime(2024, 1, 1, 1, 0, tzinfo=timezone(timedelta(hours=2))), "2023-12-31T23:00:00Z"),
    ],
)
def test_normalize_lastmod(raw: object, expected: str) -> None:
    assert normalize_lastmod(raw, now=NOW) == expected


@pytest.mark.parametrize(
    ("raw", "rule_part"),
    [
        ("2026-11-20T10:00:00", "time zone"),
        ("2026-11-20T10:00:00+25:00", "-14:00 and +14:00"),
        ("2026-11-20T10:00:00+14:30", "-14:00 and +14:00"),
        ("10000-01-01", "must be YYYY-MM-DD"),
        ("2999-01-01", "future"),
        ("2026-11-22", "future"),
        ("yesterday", "must be YYYY-MM-DD"),
        ("2026-02-30", "not a real date"),
        ("2026-11-20T24:00:00Z", "not a real date"),
        ("0001-01-01T00:30:00+01:00", "not a real date"),
        ("0001-01-01", "before 1970-01-01"),
        ("1969-12-31", "before 1970-01-01"),
        ("1969-12-31T23:59:59Z", "before 1970-01-01"),
        ("1970-01-01T00:30:00+01:00", "before 1970-01-01"),
        ("0999-01-01T00:00:00-00:00", "before 1970-01-01"),
        (date(1969, 7, 20), "before 1970-01-01"),
        (datetime(1969, 7, 20, 20, 17, tzinfo=UTC), "before 1970-01-01"),
        ("2026-11-20 10:00:00Z", "must be YYYY-MM-DD"),
        ("2026-11", "must be YYYY-MM-DD"),
        ("٢٠٢٦-11-20", "must be YYYY-MM-DD"),
        ("2026-01-01</lastmod>", "must be YYYY-MM-DD"),
        (20261120, "must be a string"),
        (True, "must be a string"),
        (datetime(2026, 1, 1), "timezone-aware"),
    ],
)
def test_normalize_lastmod_rejects(raw: object, rule_part: str) -> None:
    with pytest.raises(InvalidLastmodError) as info:
        normalize_lastmod(raw, now=NOW)
    assert info.value.field == "lastmod"
    assert info.value.value == raw
    assert rule_part in info.value.rule


def test_one_day_ahead_is_accepted() -> None:
    assert normalize_lastmod("2026-11-21T12:00:00Z", now=NOW) == "2026-11-21T12:00:00Z"
    with pytest.raises(InvalidLastmodError):
        normalize_lastmod("2026-11-21T12:00:01Z", now=NOW)
