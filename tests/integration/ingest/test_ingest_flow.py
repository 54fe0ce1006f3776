"""The ingest handler on moto: ordering, idempotency, failures, and what the stream carries."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.integration.ingest.harness import (
    ROOT,
    SENT_MS,
    SITE,
    IngestStack,
    body,
    delete,
    dynamodb_calls,
    sqs_record,
    upsert,
)


def throttle(operation: str, status: int = 400) -> ClientError:
    return ClientError(
        {
            "Error": {"Code": "ProvisionedThroughputExceededException", "Message": "slow down"},
            "ResponseMetadata": {"HTTPStatusCode": status},
        },
        operation,
    )


def state(stack: IngestStack, path: str) -> str:
    return str(stack.url_items()[SITE + path]["st"]["S"])


# -- accepted changes -----------------------------------------------------------------------


def test_upsert_is_stored_and_reaches_the_stream_once(stack: IngestStack) -> None:
    change = upsert("/shoes/42", lastmod="2026-11-19", changefreq="weekly", priority=0.8)

    response = stack.invoke(sqs_record(body(change)))

    assert response == {"batchItemFailures": []}
    item = stack.url_items()[SITE + "/shoes/42"]
    assert item["st"]["S"] == "live"
    assert item["changefreq"]["S"] == "weekly"
    assert item["ev"]["S"].startswith("20261120T100000.000000Z#0#")
    assert stack.stream_records() == [("INSERT", SITE + "/shoes/42")]


def test_delete_leaves_a_tombstone_that_expires(stack: IngestStack) -> None:
    stack.invoke(sqs_record(body(upsert("/gone", occurred_at="2026-11-20T09:00:00Z"))))
    before = int(time.time())

    stack.invoke(sqs_record(body(delete("/gone", occurred_at="2026-11-20T10:00:00Z"))))

    item = stack.url_items()[SITE + "/gone"]
    assert item["st"]["S"] == "gone"
    assert item["ev"]["S"].split("#")[1] == "1"
    week = 7 * 86_400
    assert before + week <= int(item["ttl"]["N"]) <= int(time.time()) + week
    assert stack.stream_records() == [("INSERT", SITE + "/gone"), ("MODIFY", SITE + "/gone")]


def test_eventbridge_body_uses_detail_and_its_time(stack: IngestStack) -> None:
    event = {
        "version": "0",
        "id": "e-1",
        "source": "cms",
        "detail-type": "PageChanged",
        "account": "123456789012",
        "time": "2026-11-20T08:30:00Z",
        "region": "us-east-1",
        "resources": [],
        "detail": {"action": "upsert", "url": SITE + "/news"},
    }
    stack.invoke(sqs_record(body(event)))

    assert stack.url_items()[SITE + "/news"]["ev"]["S"].startswith("20261120T083000.000000Z#0#")


def test_missing_occurred_at_defaults_to_sent_timestamp(stack: IngestStack) -> None:
    newer = sqs_record(body({"action": "delete", "url": SITE + "/d"}), sent_ms=SENT_MS + 1000)
    older = sqs_record(body({"action": "upsert", "url": SITE + "/d"}), sent_ms=SENT_MS)

    stack.invoke(newer)
    stack.invoke(older)

    item = stack.url_items()[SITE + "/d"]
    assert item["st"]["S"] == "gone"
    assert item["ev"]["S"].startswith("20261120T120001.000000Z#1#")


def test_sample_events_run_through_the_handler(stack: IngestStack) -> None:
    outcomes: dict[str, Any] = {}
    names = ["upsert", "delete", "array", "array-partial", "eventbridge", "poison", "mixed-batch"]
    for name in names:
        event = json.loads((ROOT / "events" / f"ingest-{name}.json").read_text())
        outcomes[name] = stack.invoke(*event["Records"])
    assert all(r == {"batchItemFailures": []} for r in outcomes.values())
    items = stack.url_items()
    assert items[SITE + "/shoes/42"]["st"]["S"] == "live"
    assert items[SITE + "/shoes/41"]["st"]["S"] == "gone"
    assert items[SITE + "/news/launch"]["st"]["S"] == "live"
    assert {f"{SITE}/catalogue/item-{i}" for i in range(1, 4)} <= set(items)
    assert items[SITE + "/catalogue/item-7"]["st"]["S"] == "live"
    assert items[SITE + "/catalogue/item-6"]["st"]["S"] == "gone"
    assert SITE + "/catalogue/item-9" not in items
    assert len([loc for loc in items if "/mixed/" in loc]) == 9
    reasons = [m["MessageAttributes"]["reason"]["StringValue"] for m in stack.dlq_messages()]
    assert len(reasons) == 3
    assert any("https://evil.example.org/phish" in r for r in reasons)
    assert any(r.startswith('field priority value "high"') for r in reasons)
    (partial,) = [r for r in reasons if r.startswith("change ")]
    assert partial.startswith(
        'change 1: field url value "https://shop.example.net/catalogue/item-8"'
    )
    assert '; change 2: field priority value "high" rejected: ' in partial


# -- poison, throttling, failures -------------------------------------------------------------


def test_poison_record_in_batch_of_ten(stack: IngestStack) -> None:
    records = [sqs_record(body(upsert(f"/batch/{i}")), message_id=f"m{i}") for i in range(10)]
    records[4] = sqs_record(body(upsert("/batch/4", priority="high")), message_id="m4")

    response = stack.invoke(*records)

    assert response == {"batchItemFailures": []}
    assert set(stack.url_items()) == {f"{SITE}/batch/{i}" for i in range(10) if i != 4}
    (message,) = stack.dlq_messages()
    assert message["MessageAttributes"]["source_message_id"]["StringValue"] == "m4"
    assert 'field priority value "high"' in message["MessageAttributes"]["reason"]["StringValue"]
    assert sorted(loc for _, loc in stack.stream_records()) == sorted(stack.url_items())


def test_throttling_on_one_record_fails_exactly_that_record(stack: IngestStack) -> None:
    target = SITE + "/batch/3"

    def throttle_one(params: dict[str, Any], **_: Any) -> None:
        if params["Item"]["url"]["S"] == target:
            raise throttle("PutItem")

    stack.dynamodb.meta.events.register("before-parameter-build.dynamodb.PutItem", throttle_one)
    records = [sqs_record(body(upsert(f"/batch/{i}")), message_id=f"m{i}") for i in range(6)]

    response = stack.invoke(*records)

    assert stack.failed_ids(response) == ["m3"]
    assert set(stack.url_items()) == {f"{SITE}/batch/{i}" for i in range(6) if i != 3}
    assert stack.dlq_messages() == []

    stack.dynamodb.meta.events.unregister("before-parameter-build.dynamodb.PutItem", throttle_one)
    assert stack.invoke(records[3]) == {"batchItemFailures": []}
    assert target in stack.url_items()


def test_failed_dlq_send_makes_the_record_a_batch_item_failure(stack: IngestStack) -> None:
    def sqs_down(**_: Any) -> None:
        raise ClientError(
            {"Error": {"Code": "ServiceUnavailable"}, "ResponseMetadata": {"HTTPStatusCode": 503}},
            "SendMessage",
        )

    stack.sqs.meta.events.register("before-call.sqs.SendMessage", sqs_down)
    good = sqs_record(body(upsert("/fine")), message_id="good")
    bad = sqs_record("not json", message_id="bad")

    response = stack.invoke(good, bad)

    assert stack.failed_ids(response) == ["bad"]
    assert SITE + "/fine" in stack.url_items()
    stack.sqs.meta.events.unregister("before-call.sqs.SendMessage", sqs_down)
    assert stack.invoke(bad) == {"batchItemFailures": []}
    assert len(stack.dlq_messages()) == 1


def test_unexpected_error_is_a_batch_item_failure_not_a_loss(stack: IngestStack) -> None:
    def explode(params: dict[str, Any], **_: Any) -> None:
        if params["Item"]["url"]["S"].endswith("/boom"):
            raise RuntimeError("unexpected")

    stack.dynamodb.meta.events.register("before-parameter-build.dynamodb.PutItem", explode)

    response = stack.invoke(
        sqs_record(body(upsert("/boom")), message_id="boom"),
        sqs_record(body(upsert("/calm")), message_id="calm"),
    )

    assert stack.failed_ids(response) == ["boom"]
    assert stack.dlq_messages() == []


# -- exactly once in effect -------------------------------------------------------------------


def test_duplicate_delivery_changes_nothing_and_adds_nothing_to_the_stream(
    stack: IngestStack,
) -> None:
    record = sqs_record(body(upsert("/dup", lastmod="2026-11-19")), message_id="dup")
    stack.invoke(record)
    items_before = stack.url_items()
    stream_before = stack.stream_records()

    with dynamodb_calls(stack.dynamodb) as calls:
        response = stack.invoke(record)

    assert response == {"batchItemFailures": []}
    assert stack.url_items() == items_before
    assert stack.stream_records() == stream_before
    assert [name for name, _ in calls] == ["PutItem"]  # refused by its condition


def test_same_content_newer_time_writes_the_newer_order_key(stack: IngestStack) -> None:
    stack.invoke(sqs_record(body(upsert("/same", occurred_at="2026-11-20T10:00:00Z"))))
    stack.invoke(sqs_record(body(upsert("/same", occurred_at="2026-11-20T11:00:00Z"))))

    assert stack.url_items()[SITE + "/same"]["ev"]["S"].startswith("20261120T110000")
    # the stream carries it; the rebuild finds the same entry and rewrites no file
    assert [name for name, _ in stack.stream_records()] == ["INSERT", "MODIFY"]


@pytest.mark.parametrize("deliver_delete_first", [True, False])
def test_late_older_upsert_cannot_resurrect_a_delete(
    stack: IngestStack, deliver_delete_first: bool
) -> None:
    up = sqs_record(body(upsert("/p", occurred_at="2026-11-20T10:00:00Z")))
    rm = sqs_record(body(delete("/p", occurred_at="2026-11-20T10:00:05Z")))

    for record in [rm, up] if deliver_delete_first else [up, rm]:
        stack.invoke(record)

    assert state(stack, "/p") == "gone"


@pytest.mark.parametrize("deliver_delete_first", [True, False])
def test_equal_times_delete_beats_upsert(stack: IngestStack, deliver_delete_first: bool) -> None:
    up = sqs_record(body(upsert("/tie")))
    rm = sqs_record(body(delete("/tie")))

    for record in [rm, up] if deliver_delete_first else [up, rm]:
        stack.invoke(record)

    assert state(stack, "/tie") == "gone"


def test_equal_times_two_upserts_resolve_the_same_in_any_order(stack: IngestStack) -> None:
    a = sqs_record(body(upsert("/two", changefreq="daily")))
    b = sqs_record(body(upsert("/two", changefreq="monthly")))

    def run(*batches: list[dict[str, Any]]) -> dict[str, Any]:
        for batch in batches:
            stack.invoke(*batch)
        item = stack.url_items()[SITE + "/two"]
        stack.dynamodb.delete_item(
            TableName=stack.table_name, Key={"pk": item["pk"], "sk": item["sk"]}
        )
        return item

    digest = {"daily": run([a])["digest"]["S"], "monthly": run([b])["digest"]["S"]}
    larger = max(digest, key=lambda k: digest[k])
    outcomes = [run([a, b]), run([b, a]), run([a], [b]), run([b], [a])]

    assert {o["changefreq"]["S"] for o in outcomes} == {larger}
    assert {o["digest"]["S"] for o in outcomes} == {digest[larger]}
    assert len({o["ev"]["S"] for o in outcomes}) == 1


def test_stale_event_adds_nothing_to_the_stream(stack: IngestStack) -> None:
    stack.invoke(sqs_record(body(upsert("/s", occurred_at="2026-11-20T10:00:00Z", priority=0.5))))
    stack.invoke(sqs_record(body(upsert("/s", occurred_at="2026-11-20T09:00:00Z", priority=0.9))))

    assert stack.url_items()[SITE + "/s"]["priority"]["N"] == "0.5"
    assert stack.stream_records() == [("INSERT", SITE + "/s")]


# -- requests -----------------------------------------------------------------------------------


def test_a_batch_makes_exactly_one_write_per_event_and_nothing_else(stack: IngestStack) -> None:
    changes: list[dict[str, Any]] = [upsert(f"/many/{i}") for i in range(40)]
    changes += [delete(f"/many/{i}", occurred_at="2026-11-20T11:00:00Z") for i in range(5)]
    records = [sqs_record(body(changes[i : i + 9])) for i in range(0, len(changes), 9)]

    with dynamodb_calls(stack.dynamodb) as calls:
        response = stack.invoke(*records)

    assert response == {"batchItemFailures": []}
    assert [name for name, _ in calls] == ["PutItem"] * len(changes)
    assert len(stack.stream_records()) == len(changes)


# -- configuration, bulk bodies, limits -------------------------------------------------------


@pytest.mark.parametrize(("configured", "days"), [(None, 14), ("2", 2), ("30", 30)])
def test_tombstone_retention_comes_from_the_environment(
    stack: IngestStack, configured: str | None, days: int
) -> None:
    stack.env_overrides["TOMBSTONE_TTL_DAYS"] = configured
    before = int(time.time())

    stack.invoke(sqs_record(body(delete("/ttl"))))

    expires = int(stack.url_items()[SITE + "/ttl"]["ttl"]["N"])
    assert before + days * 86_400 <= expires <= int(time.time()) + days * 86_400


def test_an_array_of_500_changes_is_applied_with_one_write_each(stack: IngestStack) -> None:
    changes = [upsert(f"/bulk/{i}", lastmod="2026-11-19") for i in range(500)]

    with dynamodb_calls(stack.dynamodb) as calls:
        response = stack.invoke(sqs_record(body(changes)))

    assert response == {"batchItemFailures": []}
    assert len(stack.url_items()) == 500
    assert [name for name, _ in calls] == ["PutItem"] * 500
    assert stack.dlq_messages() == []


def test_a_change_too_large_for_one_item_is_rejected_not_retried(stack: IngestStack) -> None:
    # Percent-encoding makes each of these characters 9 bytes: the message is under 256 KB,
    # the normalized entry is not under DynamoDB's 400 KB item limit.
    images = [{"loc": f"https://cdn.example.com/{i}/" + "日" * 50} for i in range(1000)]
    huge = body(upsert("/huge", images=images))
    assert len(huge.encode()) < 256 * 1024

    response = stack.invoke(sqs_record(huge, message_id="huge"), sqs_record(body(upsert("/ok"))))

    assert response == {"batchItemFailures": []}
    assert set(stack.url_items()) == {SITE + "/ok"}
    (message,) = stack.dlq_messages()
    reason = message["MessageAttributes"]["reason"]["StringValue"]
    assert reason.startswith("field page value ")
    assert "must fit in one table item of at most 400,000 bytes" in reason


def test_the_largest_accepted_change_is_stored(stack: IngestStack) -> None:
    images = [{"loc": f"https://cdn.example.com/{i}/" + "日" * 40} for i in range(1000)]

    response = stack.invoke(sqs_record(body(upsert("/large", images=images))))

    assert response == {"batchItemFailures": []}
    assert len(stack.url_items()[SITE + "/large"]["images"]["L"]) == 1000


def test_throttling_inside_an_array_body_retries_the_record_without_loss(
    stack: IngestStack,
) -> None:
    target = SITE + "/part/2"
    attempts = [0]

    def throttle_first(params: dict[str, Any], **_: Any) -> None:
        if params["Item"]["url"]["S"] == target and attempts[0] == 0:
            attempts[0] += 1
            raise throttle("PutItem")

    stack.dynamodb.meta.events.register("before-parameter-build.dynamodb.PutItem", throttle_first)
    record = sqs_record(body([upsert(f"/part/{i}") for i in range(4)]), message_id="part")
    other = sqs_record(body(upsert("/other")), message_id="other")

    assert stack.failed_ids(stack.invoke(record, other)) == ["part"]
    assert stack.invoke(record) == {"batchItemFailures": []}

    assert set(stack.url_items()) == {SITE + "/other", *(f"{SITE}/part/{i}" for i in range(4))}
    assert stack.dlq_messages() == []
    # every change reached the stream exactly once: the retry's duplicates wrote nothing
    locs = [loc for _, loc in stack.stream_records()]
    assert sorted(locs) == sorted(set(locs)) == sorted(stack.url_items())


def test_a_mixed_batch_makes_one_write_per_event_and_nothing_else(
    stack: IngestStack,
) -> None:
    seen = sqs_record(body([upsert(f"/mix/{i}") for i in range(8)]), message_id="seen")
    stack.invoke(seen)
    records = [
        seen,  # redelivery: 8 duplicates
        sqs_record(body([upsert(f"/mix/{i}", "2026-11-20T09:00:00Z") for i in range(8)])),
        sqs_record(body([upsert(f"/mix/{i}", "2026-11-20T11:00:00Z") for i in range(4)])),
        sqs_record(body([delete(f"/mix/{i}", "2026-11-20T12:00:00Z") for i in range(4, 8)])),
        sqs_record(body([upsert(f"/new/{i}") for i in range(20)])),
        sqs_record(body({"action": "upsert", "url": "https://evil.example.org/"})),
        sqs_record(body([upsert("/new/x"), {"action": "nope"}])),
    ]
    events = 8 + 8 + 4 + 4 + 20 + 1

    with dynamodb_calls(stack.dynamodb) as calls:
        response = stack.invoke(*records)

    assert response == {"batchItemFailures": []}
    assert [name for name, _ in calls] == ["PutItem"] * events
