"""`sitemap-updater redrive` on moto: a moved change keeps its place in the order of its URL's
changes, rejections and changes older than the tombstones stay in the dead-letter queue, and the
same queue on both sides is refused."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from sitemap_updater.ingest.dlq import FIRST_SENT_ATTRIBUTE
from sitemap_updater_local.cli import main
from sitemap_updater_local.commands.redrive import redrive
from sitemap_updater_local.errors import CommandError
from tests.integration.ingest.harness import SITE, IngestStack, delete, sqs_record

DAY_MS = 86_400_000


def queues(stack: IngestStack) -> tuple[str, str]:
    """(dead-letter queue, queue) of a producer's changes, as the template pairs them."""
    dlq = stack.sqs.create_queue(QueueName="changes-dlq")["QueueUrl"]
    queue = stack.sqs.create_queue(QueueName="changes")["QueueUrl"]
    return dlq, queue


def receive_all(stack: IngestStack, url: str) -> list[dict[str, Any]]:
    got = stack.sqs.receive_message(
        QueueUrl=url,
        MaxNumberOfMessages=10,
        MessageAttributeNames=["All"],
        MessageSystemAttributeNames=["SentTimestamp"],
        VisibilityTimeout=0,
    ).get("Messages", [])
    return list(got)


def as_record(message: dict[str, Any]) -> dict[str, Any]:
    """A received message as Lambda's SQS event source hands it to ingest."""
    record = sqs_record(message["Body"], sent_ms=int(message["Attributes"]["SentTimestamp"]))
    record["messageAttributes"] = {
        name: {"stringValue": value["StringValue"], "dataType": value["DataType"]}
        for name, value in message.get("MessageAttributes", {}).items()
    }
    return record


def instant(ms: int) -> str:
    moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=ms)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def test_a_redriven_upsert_never_wins_over_a_newer_delete(stack: IngestStack) -> None:
    dlq, queue = queues(stack)
    # An upsert without occurred_at, dead-lettered after transient failures: the dead-letter
    # queue keeps the SentTimestamp of its first send.
    body = json.dumps({"action": "upsert", "url": SITE + "/gone"})
    stack.sqs.send_message(QueueUrl=dlq, MessageBody=body)
    (waiting,) = receive_all(stack, dlq)
    first_sent = int(waiting["Attributes"]["SentTimestamp"])
    # The page is deleted afterwards.
    deleted = delete("/gone", occurred_at=instant(first_sent + 1))
    assert stack.invoke(sqs_record(json.dumps(deleted)))["batchItemFailures"] == []

    # Moved back later, the upsert arrives with a later SentTimestamp of its own ...
    done = redrive(stack.sqs, dlq, queue, now_ms=first_sent + DAY_MS)
    assert (done.moved, done.failed) == (1, 0)
    (moved,) = receive_all(stack, queue)
    assert moved["Body"] == body
    assert moved["MessageAttributes"][FIRST_SENT_ATTRIBUTE]["StringValue"] == str(first_sent)
    # ... and ingest orders it by its first send: the newer delete stays.
    assert stack.invoke(as_record(moved))["batchItemFailures"] == []
    (item,) = stack.url_items().values()
    assert item["st"]["S"] == "gone"


def test_a_second_redrive_keeps_the_first_send_time(stack: IngestStack) -> None:
    dlq, queue = queues(stack)
    stack.sqs.send_message(
        QueueUrl=dlq,
        MessageBody="{}",
        MessageAttributes={
            FIRST_SENT_ATTRIBUTE: {"DataType": "String", "StringValue": "1795176000000"},
            "producer": {"DataType": "String", "StringValue": "cms"},
        },
    )
    redrive(stack.sqs, dlq, queue, now_ms=1795176000000 + DAY_MS)
    (moved,) = receive_all(stack, queue)
    attributes = {k: v["StringValue"] for k, v in moved["MessageAttributes"].items()}
    assert attributes == {FIRST_SENT_ATTRIBUTE: "1795176000000", "producer": "cms"}


def test_rejections_stay_unless_asked_for_and_are_counted(stack: IngestStack) -> None:
    dlq, queue = queues(stack)
    reason = {"reason": {"DataType": "String", "StringValue": "field url value 1 rejected: x"}}
    for n in range(3):
        stack.sqs.send_message(QueueUrl=dlq, MessageBody=f"bad {n}", MessageAttributes=reason)
    stack.sqs.send_message(QueueUrl=dlq, MessageBody="transient")

    done = redrive(stack.sqs, dlq, queue)
    assert (done.moved, done.rejected, done.too_old, done.failed) == (1, 3, 0, 0)
    assert [m["Body"] for m in receive_all(stack, queue)] == ["transient"]
    # the rejections are visible in the dead-letter queue again at once
    assert sorted(m["Body"] for m in receive_all(stack, dlq)) == ["bad 0", "bad 1", "bad 2"]

    done = redrive(stack.sqs, dlq, queue, include_rejected=True)
    assert (done.moved, done.rejected) == (3, 0)
    moved = receive_all(stack, queue)
    assert all("reason" not in m.get("MessageAttributes", {}) for m in moved)


def test_changes_older_than_the_tombstones_stay(stack: IngestStack) -> None:
    dlq, queue = queues(stack)
    stack.sqs.send_message(QueueUrl=dlq, MessageBody="old")
    (message,) = receive_all(stack, dlq)
    sent = int(message["Attributes"]["SentTimestamp"])

    done = redrive(stack.sqs, dlq, queue, tombstone_ttl_days=7, now_ms=sent + 8 * DAY_MS)
    assert (done.moved, done.too_old) == (0, 1)
    assert [m["Body"] for m in receive_all(stack, dlq)] == ["old"]
    done = redrive(stack.sqs, dlq, queue, tombstone_ttl_days=14, now_ms=sent + 8 * DAY_MS)
    assert (done.moved, done.too_old) == (1, 0)


def test_the_same_queue_on_both_sides_is_refused_at_once(
    stack: IngestStack, capsys: pytest.CaptureFixture[str]
) -> None:
    dlq, _ = queues(stack)
    stack.sqs.send_message(QueueUrl=dlq, MessageBody="stays")
    with pytest.raises(CommandError, match="both name the queue"):
        redrive(stack.sqs, dlq, dlq)
    code = main(["redrive", "--from-queue", dlq, "--to-queue", dlq])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--from-queue and --to-queue" in err[0]
    assert [m["Body"] for m in receive_all(stack, dlq)] == ["stays"]


def test_a_first_send_time_never_moves_a_change_later(stack: IngestStack) -> None:
    # Set by hand to a later time than the message's own send, it counts as that send.
    body = json.dumps({"action": "upsert", "url": SITE + "/late"})
    sent = 1_795_176_000_000
    late = sqs_record(body, sent_ms=sent)
    late["messageAttributes"] = {
        FIRST_SENT_ATTRIBUTE: {"stringValue": str(sent + DAY_MS), "dataType": "String"}
    }
    deleted = delete("/late", occurred_at=instant(sent + 1))
    assert stack.invoke(sqs_record(json.dumps(deleted)))["batchItemFailures"] == []
    assert stack.invoke(late)["batchItemFailures"] == []
    (item,) = stack.url_items().values()
    assert item["st"]["S"] == "gone"
