"""The judge of a message (``ingest.judge.judge_message``): its shapes, the event time of each
change, its ordering key, and each rejection naming field, value and rule, without AWS."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from sitemap_updater.ingest.judge import (
    Change,
    Judged,
    Judgement,
    is_event,
    judge_message,
    unjudgeable,
)
from sitemap_updater.ingest.rejection import MISSING, Rejection
from sitemap_updater.page.order import event_key
from sitemap_updater.sites import Sites

SITES = Sites.parse("https://www.example.com")
NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
SENT = datetime(2026, 11, 21, 11, 0, tzinfo=UTC)


def judged(obj: object) -> Judgement:
    text = obj if isinstance(obj, str) else json.dumps(obj)
    return judge_message(text, sent_at=SENT, sites=SITES, now=NOW)


def items(obj: object) -> list[Judged]:
    return list(judged(obj).items)


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


def test_one_change_is_normalized_and_keyed_at_the_sent_time() -> None:
    judgement = judged({"action": "upsert", "url": "HTTPS://WWW.Example.com:443/a", "priority": 1})
    assert judgement.kind == "object"
    (change,) = judgement.items
    assert isinstance(change, Change)
    assert change.url == "https://www.example.com/a"
    assert change.page is not None and change.page.priority == 1.0
    assert change.at == SENT
    assert change.key == event_key(SENT, "upsert", change.digest)
    assert change.key.startswith("20261121T110000.000000Z#0#")


def test_a_delete_needs_only_its_url_and_is_ranked_above_an_upsert() -> None:
    (change,) = items({"action": "delete", "url": "https://www.example.com/gone"})
    assert isinstance(change, Change)
    assert (change.action, change.page, change.section) == ("delete", None, None)
    assert change.key == event_key(SENT, "delete", change.digest)


def test_occurred_at_overrides_the_sent_time_and_is_read_in_utc() -> None:
    (change,) = items(
        {
            "action": "upsert",
            "url": "https://www.example.com/a",
            "occurred_at": "2026-11-20T12:00:01.250+02:00",
        }
    )
    assert isinstance(change, Change)
    assert change.at == datetime(2026, 11, 20, 10, 0, 1, 250_000, tzinfo=UTC)
    assert change.key.startswith("20261120T100001.250000Z#0#")


def test_the_eventbridge_time_is_the_default_and_the_detail_s_own_time_beats_it() -> None:
    judgement = judged(eventbridge())
    assert judgement.kind == "eventbridge"
    (change,) = judgement.items
    assert isinstance(change, Change) and change.at == datetime(2026, 11, 20, 8, tzinfo=UTC)
    detail = {**eventbridge()["detail"], "occurred_at": "2026-11-20T07:00:00Z"}  # type: ignore[dict-item]
    (own,) = items(eventbridge(detail=detail))
    assert isinstance(own, Change) and own.at == datetime(2026, 11, 20, 7, tzinfo=UTC)


@pytest.mark.parametrize(
    ("time", "rule"),
    [
        ("2026-11-20T08:00:00", "time zone"),
        ("2999-01-01T00:00:00Z", "future"),
        ("soon", "ISO 8601"),
        (1795176000, "must be a string"),
    ],
)
def test_the_eventbridge_time_is_checked_as_occurred_at_is(time: object, rule: str) -> None:
    (rejection,) = items(eventbridge(time=time))
    assert isinstance(rejection, Rejection)
    assert (rejection.field, rejection.value) == ("time", time)
    assert rule in rejection.rule


def test_a_bad_value_of_an_eventbridge_detail_is_named_with_its_prefix() -> None:
    detail = {"action": "upsert", "url": "https://www.example.com/x", "priority": "high"}
    (rejection,) = items(eventbridge(detail=detail))
    assert isinstance(rejection, Rejection)
    assert (rejection.field, rejection.value) == ("detail.priority", "high")
    assert rejection.raw == eventbridge(detail=detail)


def test_an_eventbridge_event_without_its_change_names_what_is_missing() -> None:
    (rejection,) = items({"detail-type": "PageChanged", "detail": {}})
    assert isinstance(rejection, Rejection)
    assert rejection.value is MISSING and rejection.rule == "is required"


def test_the_changes_of_an_array_are_judged_one_by_one() -> None:
    judgement = judged(
        [
            {"action": "upsert", "url": "https://www.example.com/ok"},
            {"action": "upsert", "url": "https://other.example.com/x"},
            {"url": "https://www.example.com/no-action"},
            {"action": "purge", "url": "https://www.example.com/a"},
        ]
    )
    assert judgement.kind == "array"
    ok, foreign, no_action, purge = judgement.items
    assert isinstance(ok, Change) and ok.index == 0
    assert isinstance(foreign, Rejection)
    assert (foreign.index, foreign.field, foreign.value) == (
        1,
        "url",
        "https://other.example.com/x",
    )
    assert isinstance(no_action, Rejection)
    assert (no_action.index, no_action.field, no_action.value) == (2, "action", MISSING)
    assert no_action.raw == {"url": "https://www.example.com/no-action"}
    assert isinstance(purge, Rejection)
    assert (purge.field, purge.value, purge.rule) == ("action", "purge", "must be upsert or delete")
    assert judgement.changes == [ok]
    assert judgement.rejections == [foreign, no_action, purge]


def test_an_array_of_500_is_judged_change_by_change() -> None:
    judgement = judged(
        [{"action": "delete", "url": f"https://www.example.com/{i}"} for i in range(500)]
    )
    assert [c.index for c in judgement.changes] == list(range(500))


@pytest.mark.parametrize(
    ("body", "value", "rule"),
    [
        ("not json", "not json", "must be JSON (invalid character at line 1 column"),
        ('{\n"a": }', '{\n"a": }', "at line 2 column"),
        ("[]", "[]", "an array message must hold at least 1 change"),
        ('"upsert"', "upsert", "must be a JSON object, an EventBridge event or an array"),
        (
            json.dumps([{"action": "delete", "url": "https://www.example.com/a"}] * 501),
            "array of 501 changes",
            "an array message may hold at most 500 changes",
        ),
    ],
)
def test_a_message_of_no_shape_is_one_rejection_of_the_message(
    body: str, value: str, rule: str
) -> None:
    judgement = judged(body)
    assert judgement.kind == "invalid"
    (rejection,) = judgement.items
    assert isinstance(rejection, Rejection)
    assert (rejection.index, rejection.field, rejection.value) == (None, "message", value)
    assert rejection.rule.startswith(rule) or rule in rejection.rule


def test_a_message_with_an_integer_too_long_to_read_is_refused_with_a_reason() -> None:
    huge = "9" * 5000
    for body in (
        '{"action": "upsert", "url": "https://www.example.com/a", "priority": ' + huge + "}",
        "[" + huge + "]",
    ):
        (rejection,) = items(body)
        assert isinstance(rejection, Rejection)
        assert (rejection.field, rejection.value) == ("message", body)
        assert "integers have at most 4,300 digits" in rejection.rule
    # in a field of the producer's own, it is ignored as the field is
    mine = '{"action": "delete", "url": "https://www.example.com/a", "mine": [' + huge + "]}"
    (change,) = items(mine)
    assert isinstance(change, Change)


def test_unknown_fields_are_ignored() -> None:
    (change,) = items({"action": "delete", "url": "https://www.example.com/a", "x": {"y": [1]}})
    assert isinstance(change, Change)


@pytest.mark.parametrize("own", [{"detail": "my note"}, {"detail-type": "x", "detail": {"a": 1}}])
def test_a_change_with_fields_named_like_eventbridge_ones_is_still_a_change(
    own: dict[str, object],
) -> None:
    body = {"action": "delete", "url": "https://www.example.com/a", **own}
    assert not is_event(body)
    (change,) = items(body)
    assert isinstance(change, Change) and change.url == "https://www.example.com/a"


@pytest.mark.parametrize("fraction", ["", ".000", ".000001"])
@pytest.mark.parametrize("action", ["upsert", "delete"])
def test_an_occurred_at_that_would_pin_a_url_is_refused(fraction: str, action: str) -> None:
    # an hour ahead: every real change of the URL in that hour would come back stale
    sent = f"2026-11-21T13:00:00{fraction}Z"
    (rejection,) = items(
        {"action": action, "url": "https://www.example.com/a", "occurred_at": sent}
    )
    assert isinstance(rejection, Rejection)
    assert (rejection.field, rejection.value) == ("occurred_at", sent)
    assert "5 minutes in the future" in rejection.rule


def test_a_rejection_carries_its_change_as_sent() -> None:
    body: dict[str, Any] = {"action": "upsert", "url": "https://www.example.com/a", "lastmod": "x"}
    (rejection,) = items(body)
    assert isinstance(rejection, Rejection)
    assert rejection.raw == body


def _big_images(count: int, chars: int) -> list[dict[str, str]]:
    # each character is percent-encoded to 9 bytes when normalized
    return [{"loc": f"https://cdn.example.com/{i}/" + "日" * chars} for i in range(count)]


def test_a_page_too_large_for_one_table_item_is_refused_with_its_size() -> None:
    change = {
        "action": "upsert",
        "url": "https://www.example.com/a",
        "images": _big_images(1000, 50),
    }
    assert len(json.dumps(change, ensure_ascii=False).encode()) < 256 * 1024  # SQS takes it
    kept, rejection = items([{"action": "delete", "url": "https://www.example.com/b"}, change])
    assert isinstance(kept, Change)
    assert isinstance(rejection, Rejection)
    assert (rejection.index, rejection.field) == (1, "page")
    assert int(str(rejection.value).split()[0]) > 400_000
    assert "at most 400,000 bytes" in rejection.rule


def test_a_large_page_that_fits_is_taken() -> None:
    body = {"action": "upsert", "url": "https://www.example.com/a", "images": _big_images(1000, 30)}
    (change,) = items(body)
    assert isinstance(change, Change)
    assert change.page is not None and len(change.page.images) == 1000


def test_a_message_the_judge_failed_on_is_one_rejection_naming_the_failure() -> None:
    judgement = unjudgeable("body", RecursionError("too deep"))
    (rejection,) = judgement.items
    assert judgement.kind == "invalid"
    assert isinstance(rejection, Rejection)
    assert (rejection.field, rejection.value) == ("message", "body")
    assert rejection.rule == "could not be judged (RecursionError: too deep)"
