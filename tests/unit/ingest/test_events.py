"""decode_body: shapes, defaults and rejections, without AWS."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from sitemap_updater.ingest.events import decode_body
from sitemap_updater.ingest.judged import MISSING, ChangeEvent, Rejection, parse_occurred_at
from sitemap_updater.protocol.urls import Site

SITE = Site.parse("https://www.example.com")
NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
SENT = datetime(2026, 11, 21, 11, 0, tzinfo=UTC)


def decode(obj: object) -> list[ChangeEvent | Rejection]:
    text = obj if isinstance(obj, str) else json.dumps(obj)
    return list(decode_body(text, sent_at=SENT, site=SITE, now=NOW).items)


def test_single_object_is_normalized_and_keyed() -> None:
    (event,) = decode({"action": "upsert", "url": "HTTPS://WWW.Example.com:443/a", "priority": 1})
    assert isinstance(event, ChangeEvent)
    assert event.loc == "https://www.example.com/a"
    assert event.entry is not None and event.entry.priority == 1.0
    assert event.occurred_at == SENT
    assert event.event_key == f"20261121T110000.000000Z#0#{event.digest}"


def test_delete_needs_only_url_and_is_ranked_1() -> None:
    (event,) = decode({"action": "delete", "url": "https://www.example.com/gone"})
    assert isinstance(event, ChangeEvent)
    assert event.entry is None
    assert event.event_key.split("#")[1] == "1"


def test_occurred_at_overrides_sent_time_and_is_converted_to_utc() -> None:
    (event,) = decode(
        {
            "action": "upsert",
            "url": "https://www.example.com/a",
            "occurred_at": "2026-11-20T12:00:01.250+02:00",
        }
    )
    assert isinstance(event, ChangeEvent)
    assert event.event_key.startswith("20261120T100001.250000Z#0#")


def test_eventbridge_time_is_the_default() -> None:
    (event,) = decode(
        {
            "version": "0",
            "id": "1",
            "source": "cms",
            "detail-type": "PageChanged",
            "account": "1",
            "time": "2026-11-20T08:00:00Z",
            "region": "eu-west-1",
            "resources": [],
            "detail": {"action": "delete", "url": "https://www.example.com/x"},
        }
    )
    assert isinstance(event, ChangeEvent)
    assert event.occurred_at == datetime(2026, 11, 20, 8, tzinfo=UTC)


def test_array_entries_are_judged_one_by_one() -> None:
    items = decode(
        [
            {"action": "upsert", "url": "https://www.example.com/ok"},
            {"action": "upsert", "url": "https://other.example.com/x"},
            {"url": "https://www.example.com/no-action"},
        ]
    )
    assert isinstance(items[0], ChangeEvent)
    assert isinstance(items[1], Rejection) and (items[1].index, items[1].field) == (1, "url")
    assert items[1].value == "https://other.example.com/x"
    assert isinstance(items[2], Rejection) and items[2].field == "action"
    assert items[2].value is MISSING
    assert items[2].raw == {"url": "https://www.example.com/no-action"}


def test_unknown_fields_are_ignored() -> None:
    (event,) = decode({"action": "delete", "url": "https://www.example.com/a", "x": {"y": [1]}})
    assert isinstance(event, ChangeEvent)


@pytest.mark.parametrize(
    ("raw", "rule"),
    [
        ("2026-11-20T10:00:00", "time zone"),
        ("2026-11-20", "time zone"),
        ("last tuesday", "ISO 8601"),
        ("1969-12-31T23:59:59Z", "1970"),
        ("2026-11-21T12:05:01Z", "5 minutes in the future"),
        ("2026-11-22T11:59:59Z", "5 minutes in the future"),
    ],
)
def test_bad_occurred_at(raw: str, rule: str) -> None:
    with pytest.raises(ValueError, match=rule):
        parse_occurred_at(raw, NOW)


def test_occurred_at_may_be_a_little_ahead_of_the_clock() -> None:
    assert parse_occurred_at("2026-11-21T12:05:00Z", NOW) > NOW


@pytest.mark.parametrize("fraction", ["", ".000", ".000001"])
def test_an_occurred_at_that_would_pin_a_url_is_rejected_on_both_paths(fraction: str) -> None:
    # an hour ahead: every real change of the URL in that hour would come back stale
    for action in ("upsert", "delete"):
        (rejection,) = decode(
            {
                "action": action,
                "url": "https://www.example.com/a",
                "occurred_at": f"2026-11-21T13:00:00{fraction}Z",
            }
        )
        assert isinstance(rejection, Rejection)
        assert rejection.field == "occurred_at"
        assert rejection.value == f"2026-11-21T13:00:00{fraction}Z"
        assert "5 minutes in the future" in rejection.rule


def test_a_body_with_an_integer_too_long_to_read_is_rejected_with_a_reason() -> None:
    huge = "9" * 5000
    for body in (
        '{"action": "upsert", "url": "https://www.example.com/a", "priority": ' + huge + "}",
        '{"action": "delete", "url": "https://www.example.com/a", "mine": [' + huge + "]}",
        "[" + huge + "]",
    ):
        (rejection,) = decode(body)
        assert isinstance(rejection, Rejection)
        assert rejection.field == "body"
        assert "digits" in rejection.rule


def eventbridge(**overrides: object) -> dict[str, object]:
    event: dict[str, object] = {
        "version": "0",
        "id": "1",
        "source": "cms",
        "detail-type": "PageChanged",
        "account": "1",
        "time": "2026-11-20T08:00:00Z",
        "region": "eu-west-1",
        "resources": [],
        "detail": {"action": "upsert", "url": "https://www.example.com/x"},
    }
    return {**event, **overrides}


def test_eventbridge_detail_occurred_at_beats_the_event_time() -> None:
    detail = {
        "action": "upsert",
        "url": "https://www.example.com/x",
        "occurred_at": "2026-11-20T07:00:00Z",
    }
    (event,) = decode(eventbridge(detail=detail))
    assert isinstance(event, ChangeEvent)
    assert event.occurred_at == datetime(2026, 11, 20, 7, tzinfo=UTC)


@pytest.mark.parametrize(
    ("time", "rule"),
    [
        ("2026-11-20T08:00:00", "time zone"),
        ("2999-01-01T00:00:00Z", "future"),
        (1795176000, "string"),
    ],
)
def test_eventbridge_time_is_checked_like_occurred_at(time: object, rule: str) -> None:
    (rejection,) = decode(eventbridge(time=time))
    assert isinstance(rejection, Rejection)
    assert (rejection.field, rejection.value) == ("time", time)
    assert rule in rejection.rule


@pytest.mark.parametrize("own", [{"detail": "my note"}, {"detail-type": "x", "detail": {"a": 1}}])
def test_a_change_with_fields_named_like_eventbridge_ones_is_still_a_change(
    own: dict[str, object],
) -> None:
    (event,) = decode({"action": "delete", "url": "https://www.example.com/a", **own})
    assert isinstance(event, ChangeEvent)
    assert event.loc == "https://www.example.com/a"


def test_eventbridge_errors_are_reported_as_eventbridge_errors() -> None:
    (rejection,) = decode({"detail-type": "PageChanged", "detail": {}})
    assert isinstance(rejection, Rejection)
    assert rejection.value is MISSING and rejection.rule == "is required"


def test_an_array_of_500_is_applied_entry_by_entry() -> None:
    items = decode(
        [{"action": "delete", "url": f"https://www.example.com/{i}"} for i in range(500)]
    )
    assert len(items) == 500
    assert all(isinstance(e, ChangeEvent) and e.index == i for i, e in enumerate(items))


def big_images(count: int, chars: int) -> list[dict[str, str]]:
    # each non-ASCII character is percent-encoded to 9 bytes when normalized
    return [{"loc": f"https://cdn.example.com/{i}/" + "日" * chars} for i in range(count)]


def test_an_entry_too_large_for_one_table_item_is_rejected_with_its_size() -> None:
    change = {
        "action": "upsert",
        "url": "https://www.example.com/a",
        "images": big_images(1000, 50),
    }
    too_big = json.dumps(change, ensure_ascii=False)
    assert len(too_big.encode()) < 256 * 1024  # a message SQS accepts with default settings
    items = decode([{"action": "delete", "url": "https://www.example.com/b"}, change])
    assert isinstance(items[0], ChangeEvent)
    rejection = items[1]
    assert isinstance(rejection, Rejection)
    assert (rejection.index, rejection.field) == (1, "entry")
    size = int(str(rejection.value).split()[0])
    assert size > 400_000
    assert "at most 400,000 bytes" in rejection.rule


def test_a_large_entry_that_fits_is_accepted() -> None:
    change = {
        "action": "upsert",
        "url": "https://www.example.com/a",
        "images": big_images(1000, 30),
    }
    (event,) = decode(change)
    assert isinstance(event, ChangeEvent)
    assert event.entry is not None and len(event.entry.images) == 1000
