"""Emulation of Lambda's SQS event source mapping with ``ReportBatchItemFailures``.

What Lambda does, step by step, and what this module does in the same order:

1. Poll the queue: ``ReceiveMessage`` with every system and message attribute, up to the
   mapping's batch size (ReceiveMessage returns at most 10 per call, so a batch size above 10,
   which AWS allows with a batching window, is gathered from several calls).
2. Build the Lambda SQS event: one record per message, in Lambda's shape (camel-case keys,
   ``messageAttributes`` with ``stringValue``/``binaryValue``/``dataType``, ``md5OfBody``,
   ``eventSource``, ``eventSourceARN``, ``awsRegion``).
3. Invoke the function. If it returns ``batchItemFailures``, delete every other record; if it
   raises, the whole batch failed and nothing is deleted.
4. A failed record becomes visible again when its visibility timeout runs out; here its
   visibility is set to 0 at once (``ChangeMessageVisibility``) instead of waiting. SQS itself
   moves a message to the dead-letter queue on the receive after its ``maxReceiveCount``-th.

Two settings of the mapping are not emulated, because they shape timing, not outcomes:
``MaximumBatchingWindowInSeconds`` (a batch is whatever is visible when it is gathered, never
waited for) and ``ScalingConfig.MaximumConcurrency`` (batches run one after another here; the
concurrency tests run handlers in parallel threads themselves).
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sitemap_updater_local.deployment.stack.template import REGION

MAX_RECEIVE_PER_CALL = 10


def lambda_record(message: dict[str, Any], queue_arn: str) -> dict[str, Any]:
    """One record of a Lambda SQS event, built from a ReceiveMessage result."""
    attributes = dict(message.get("Attributes", {}))
    record: dict[str, Any] = {
        "messageId": message["MessageId"],
        "receiptHandle": message["ReceiptHandle"],
        "body": message["Body"],
        "attributes": attributes,
        "messageAttributes": {
            name: _message_attribute(value)
            for name, value in message.get("MessageAttributes", {}).items()
        },
        "md5OfBody": message["MD5OfBody"],
        "eventSource": "aws:sqs",
        "eventSourceARN": queue_arn,
        "awsRegion": REGION,
    }
    if "MD5OfMessageAttributes" in message:
        record["md5OfMessageAttributes"] = message["MD5OfMessageAttributes"]
    return record


def _message_attribute(value: dict[str, Any]) -> dict[str, Any]:
    binary = value.get("BinaryValue")
    return {
        "stringValue": value.get("StringValue"),
        "binaryValue": base64.b64encode(binary).decode() if binary is not None else None,
        "stringListValues": list(value.get("StringListValues", [])),
        "binaryListValues": [
            base64.b64encode(b).decode() for b in value.get("BinaryListValues", [])
        ],
        "dataType": value["DataType"],
    }


@dataclass
class BatchResult:
    """One invocation of the ingest function by the emulated mapping."""

    records: int
    failed_ids: list[str]
    error: str | None
    metrics: dict[str, float]


@dataclass
class DrainReport:
    """Everything one :meth:`EventSourceMapping.drain` did."""

    batches: int = 0
    records: int = 0
    deleted: int = 0
    retried: int = 0
    invocation_errors: list[str] = field(default_factory=list)
    metrics: dict[str, float] = field(default_factory=dict)

    def count(self, metric: str) -> int:
        return int(self.metrics.get(metric, 0))


Invoke = Callable[[dict[str, Any]], tuple[Any, BaseException | None, dict[str, float]]]


@dataclass
class EventSourceMapping:
    """The mapping from ``queue_url`` to a function, with the template's batch size."""

    sqs: Any
    queue_url: str
    queue_arn: str
    batch_size: int
    invoke: Invoke
    #: a message received more often than this is a runaway (no redrive policy): stop draining
    max_receives_without_redrive: int = 100

    def receive_batch(self) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        while len(messages) < self.batch_size:
            want = min(MAX_RECEIVE_PER_CALL, self.batch_size - len(messages))
            got = self.sqs.receive_message(
                QueueUrl=self.queue_url,
                MaxNumberOfMessages=want,
                AttributeNames=["All"],
                MessageAttributeNames=["All"],
                WaitTimeSeconds=0,
            ).get("Messages", [])
            messages.extend(got)
            if len(got) < want:
                break
        return messages

    def poll_once(self) -> BatchResult | None:
        """One poll and invocation; None when the queue had nothing visible."""
        messages = self.receive_batch()
        if not messages:
            return None
        for m in messages:
            receives = int(m.get("Attributes", {}).get("ApproximateReceiveCount", "1"))
            if receives > self.max_receives_without_redrive:
                raise RuntimeError(
                    f"message {m['MessageId']} was received {receives} times and never reached a "
                    "dead-letter queue: the queue has no redrive policy"
                )
        event = {"Records": [lambda_record(m, self.queue_arn) for m in messages]}
        result, error, metrics = self.invoke(event)
        by_id = {m["MessageId"]: m for m in messages}
        if error is not None:
            failed = list(by_id)
            error_text = f"{type(error).__name__}: {error}"
        else:
            failed = _failed_ids(result, by_id)
            error_text = None
        done = [m for mid, m in by_id.items() if mid not in set(failed)]
        for start in range(0, len(done), 10):
            chunk = done[start : start + 10]
            self.sqs.delete_message_batch(
                QueueUrl=self.queue_url,
                Entries=[
                    {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(chunk)
                ],
            )
        retry = [by_id[mid] for mid in failed]
        for start in range(0, len(retry), 10):
            chunk = retry[start : start + 10]
            self.sqs.change_message_visibility_batch(
                QueueUrl=self.queue_url,
                Entries=[
                    {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"], "VisibilityTimeout": 0}
                    for i, m in enumerate(chunk)
                ],
            )
        return BatchResult(len(messages), failed, error_text, metrics)

    def drain(self, progress: Callable[[int], None] | None = None) -> DrainReport:
        """Poll until nothing is visible: every message deleted or moved to the DLQ."""
        report = DrainReport()
        while True:
            batch = self.poll_once()
            if batch is None:
                return report
            report.batches += 1
            report.records += batch.records
            report.retried += len(batch.failed_ids)
            report.deleted += batch.records - len(batch.failed_ids)
            if batch.error is not None:
                report.invocation_errors.append(batch.error)
            for name, value in batch.metrics.items():
                report.metrics[name] = report.metrics.get(name, 0.0) + value
            if progress is not None:
                progress(batch.records - len(batch.failed_ids))


def _failed_ids(result: Any, by_id: dict[str, Any]) -> list[str]:
    """Item ids of a partial batch response. Lambda treats a malformed one as a total failure."""
    if result is None:
        return []
    if not isinstance(result, dict):
        return list(by_id)
    failures = result.get("batchItemFailures", [])
    if not isinstance(failures, list):
        return list(by_id)
    ids: list[str] = []
    for item in failures:
        mid = item.get("itemIdentifier") if isinstance(item, dict) else None
        if not isinstance(mid, str) or mid not in by_id:
            return list(by_id)  # an empty or unknown identifier fails the whole batch
        ids.append(mid)
    return ids
