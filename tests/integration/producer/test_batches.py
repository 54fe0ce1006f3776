"""``producer.batches.BatchSender`` against moto SQS: the failed entries, and only they, are
sent again, with a growing backoff, a bounded number of times.

Partial failures are injected with botocore's events (``tests/helpers/sqs_faults.py``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from sitemap_updater.producer.batches import MAX_ATTEMPTS, BatchSender, region_of_queue_url
from tests.helpers.sqs_faults import Verdict, drain, inject_failures

if TYPE_CHECKING:
    from mypy_boto3_sqs.client import SQSClient


def _bodies(count: int) -> list[str]:
    return [
        json.dumps({"action": "upsert", "url": f"https://www.example.com/p/{i}"})
        for i in range(count)
    ]


def test_entries_failed_by_the_service_are_retried_until_sent(
    sqs: SQSClient, queue_url: str
) -> None:
    bodies = _bodies(7)

    inject_failures(sqs, lambda body, call: (False, "InternalError", "x") if call <= 2 else None)
    delays: list[float] = []
    with BatchSender(sqs, queue_url, sleep=delays.append) as sender:
        for i, body in enumerate(bodies):
            sender.add(f"line {i + 1}", body)

    assert sender.stats.failures == []
    assert sender.stats.sent == 7
    assert sender.stats.batches == 3
    assert delays == sorted(delays) and len(delays) == 2  # growing backoff between attempts
    assert sorted(drain(sqs, queue_url)) == sorted(bodies)


def test_sender_faults_and_exhausted_retries_are_reported_per_entry(
    sqs: SQSClient, queue_url: str
) -> None:
    bodies = _bodies(12)

    def verdict(body: str, call: int) -> Verdict:
        if body == bodies[2]:  # refused as the sender's fault: never retried
            return True, "InvalidMessageContents", "bad character"
        if body == bodies[4]:  # fails on the service's side at every attempt
            return False, "InternalError", "try again"
        if body == bodies[7] and call == 1:  # fails once, then goes through
            return False, "ServiceUnavailable", "busy"
        return None

    inject_failures(sqs, verdict)
    sent: list[str] = []
    sender = BatchSender(sqs, queue_url, sleep=lambda s: None, on_sent=sent.extend)
    for i, body in enumerate(bodies):
        sender.add(f"events.jsonl:{i + 1}", body)
    sender.flush()

    assert sender.stats.batches == MAX_ATTEMPTS + 1  # 1st batch and its retries, 2nd batch
    assert [str(f) for f in sender.stats.failures] == [
        "events.jsonl:3: not sent: InvalidMessageContents: bad character",
        "events.jsonl:5: not sent: InternalError: try again",
    ]
    assert sorted(sent) == sorted(f"events.jsonl:{i + 1}" for i in range(12) if i not in {2, 4})
    arrived = drain(sqs, queue_url)
    assert sorted(arrived) == sorted(b for i, b in enumerate(bodies) if i not in {2, 4})


@pytest.mark.parametrize(
    ("url", "region"),
    [
        ("https://sqs.eu-west-1.amazonaws.com/123456789012/ingest", "eu-west-1"),
        ("https://sqs-fips.us-gov-west-1.amazonaws.com/123456789012/ingest", "us-gov-west-1"),
        ("https://sqs.cn-north-1.amazonaws.com.cn/123456789012/ingest", "cn-north-1"),
        ("https://ap-southeast-2.queue.amazonaws.com/123456789012/ingest", "ap-southeast-2"),
        ("http://127.0.0.1:5000/123456789012/ingest", None),
        ("https://sqs.eu-west-1.example.com/123456789012/ingest", None),
    ],
)
def test_the_region_is_read_from_the_queue_url(url: str, region: str | None) -> None:
    assert region_of_queue_url(url) == region
