"""From the producer client through a moto queue into the real ingest handler and its table.

Every change the client takes is applied, in the order of the calls; a change the client
refuses is one the handler dead-letters with the same reason.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from moto import mock_aws

from sitemap_updater.producer.checks import ChangeRejected
from sitemap_updater.producer.client import ChangeSender
from tests.integration.ingest.harness import BASE_ENV, SITE, IngestStack, make_stack, sqs_record


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[IngestStack]:
    for name, value in BASE_ENV.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        yield make_stack()


def _deliver(stack: IngestStack, queue_url: str) -> int:
    """Receive every message as the event source mapping would and hand each batch of 10 to
    the handler; returns the number of messages."""
    delivered = 0
    while True:
        got = stack.sqs.receive_message(
            QueueUrl=queue_url, MaxNumberOfMessages=10, AttributeNames=["SentTimestamp"]
        ).get("Messages", [])
        if not got:
            return delivered
        records = [
            sqs_record(
                m["Body"], message_id=m["MessageId"], sent_ms=int(m["Attributes"]["SentTimestamp"])
            )
            for m in got
        ]
        assert stack.invoke(*records) == {"batchItemFailures": []}
        for m in got:
            stack.sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=m["ReceiptHandle"])
        delivered += len(got)


def test_every_change_the_client_takes_is_applied_in_call_order(stack: IngestStack) -> None:
    queue_url = stack.sqs.create_queue(QueueName="sitemap-ingest")["QueueUrl"]
    expected: dict[str, dict[str, Any] | None] = {}
    with ChangeSender(queue_url, site=SITE, sqs=stack.sqs, max_age_seconds=3600) as sender:
        for i in range(1200):
            sender.upsert(f"{SITE}/p/{i}", lastmod="2026-11-19", priority=0.5)
            expected[f"{SITE}/p/{i}"] = {"lastmod": "2026-11-19"}
        for i in range(0, 1200, 7):  # later in the same messages: a delete wins
            sender.delete(f"{SITE}/p/{i}")
            expected[f"{SITE}/p/{i}"] = None
        for i in range(20):  # two upserts of one page, one call after the other: the second wins
            sender.upsert(f"{SITE}/twice/{i}", lastmod="2026-11-01")
            sender.upsert(f"{SITE}/twice/{i}", lastmod="2026-11-02")
            expected[f"{SITE}/twice/{i}"] = {"lastmod": "2026-11-02"}
        sender.upsert("HTTPS://WWW.EXAMPLE.COM/Not Normalized", lastmod="2026-11-03")
        expected[f"{SITE}/Not%20Normalized"] = {"lastmod": "2026-11-03"}

    messages = _deliver(stack, queue_url)

    assert messages == sender.stats.messages < 10
    assert stack.dlq_messages() == []
    items = stack.url_items()
    assert set(items) == set(expected)
    for loc, want in expected.items():
        if want is None:
            assert items[loc]["st"]["S"] == "gone", loc
        else:
            assert items[loc]["st"]["S"] == "live", loc
            assert items[loc]["lastmod"]["S"] == want["lastmod"], loc


@pytest.mark.parametrize(
    "change",
    [
        {"action": "upsert", "url": "https://elsewhere.example.org/a"},
        {"action": "upsert", "url": f"{SITE}/a", "priority": 1.5},
        {"action": "upsert", "url": f"{SITE}/a", "changefreq": "sometimes"},
        {"action": "upsert", "url": f"{SITE}/a", "lastmod": "20 Nov 2026"},
        {"action": "upsert", "url": f"{SITE}/a", "alternates": [{"hreflang": "de"}]},
        {"action": "upsert", "url": f"{SITE}/a\tb"},
        {"action": "remove", "url": f"{SITE}/a"},
        {"action": "delete"},
        {"action": "upsert", "url": f"{SITE}/a", "occurred_at": "2026-11-20T10:00:00"},
    ],
)
def test_the_client_refuses_what_ingest_dead_letters_with_the_same_reason(
    stack: IngestStack, change: dict[str, Any]
) -> None:
    queue_url = stack.sqs.create_queue(QueueName="sitemap-ingest")["QueueUrl"]
    sender = ChangeSender(queue_url, site=SITE, sqs=stack.sqs)
    with pytest.raises(ChangeRejected) as caught:
        sender.add(change)
    sender.close()

    assert stack.invoke(sqs_record(json.dumps(change))) == {"batchItemFailures": []}
    (dead,) = stack.dlq_messages()
    assert dead["MessageAttributes"]["reason"]["StringValue"] == str(caught.value)
