"""Emulation of Lambda's SQS event source mapping with ``ReportBatchItemFailures``.

What Lambda does, step by step, and what this module does in the same order:

1. Poll the queue for up to the mapping's batch size of messages, with every system and message
   attribute.
2. Build the Lambda SQS event: one record per message, in Lambda's shape (camel-case keys,
   ``messageAttributes`` with ``stringValue``/``binaryValue``/``dataType``, ``md5OfBody``,
   ``eventSource``, ``eventSourceARN``, ``awsRegion``).
3. Invoke the function. If it returns ``batchItemFailures``, delete every other record; if it
   raises, the whole batch failed and nothing is deleted.
4. A failed record becomes visible again when its visibility timeout runs out; here it is
   visible again at once instead of waiting. After ``maxReceiveCount`` receives, the message goes
   to the dead-letter queue on the next receive, as SQS moves it.

The messages come from two feeds, polled in this order:

- :class:`HandedFeed`, the messages the deployment's own ``send`` hands over in this process.
  moto's SQS walks every message of a queue a few times on each SendMessage and for each message
  a ReceiveMessage returns (it builds the queue's attributes, counts included, to read one
  setting), so a queue deep with a whole wave drains in quadratic time. The feed keeps them
  instead, as SQS would: an id, its MD5, the send time, a receipt handle per receive, the receive
  count; a message received ``maxReceiveCount`` times is sent to the dead-letter queue (moto's)
  on its next receive, its body and attributes as they were. One difference: SQS keeps a moved
  message's ``SentTimestamp``, the dead-letter queue gives this one the time it was moved.
- :class:`QueueFeed`, the SQS queue itself: ReceiveMessage (at most 10 a call, so a batch size
  above 10, which AWS allows with a batching window, is gathered from several calls, the first
  one long-polling when asked to wait), DeleteMessageBatch, ChangeMessageVisibility to 0, and
  moto's own redrive policy. Messages other clients send (``sitemap-updater send`` against
  ``sitemap-updater local``) arrive this way.

Two settings of the mapping are not emulated, because they shape timing, not outcomes:
``MaximumBatchingWindowInSeconds`` (a batch is whatever is visible when it is gathered, never
waited for) and ``ScalingConfig.MaximumConcurrency`` (batches run one after another here; the
concurrency tests run handlers in parallel threads themselves).
"""

from __future__ import annotations

import base64
import hashlib
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from sitemap_updater_local.deployment.stack.template import ACCOUNT_ID, REGION

MAX_RECEIVE_PER_CALL = 10
#: The longest long poll SQS allows (ReceiveMessage ``WaitTimeSeconds``).
MAX_WAIT_SECONDS = 20

Message = dict[str, Any]


def lambda_record(message: Message, queue_arn: str) -> dict[str, Any]:
    """One record of a Lambda SQS event, built from a message in ReceiveMessage's shape."""
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


class Feed(Protocol):
    """Where the mapping's messages come from, in ReceiveMessage's shape."""

    def receive(self, most: int, wait_seconds: int = 0) -> list[Message]: ...

    def delete(self, messages: Sequence[Message]) -> None: ...

    def retry(self, messages: Sequence[Message]) -> None:
        """Make ``messages`` visible again at once."""
        ...


@dataclass
class QueueFeed:
    """The SQS queue at ``queue_url``, through a boto3 client."""

    sqs: Any
    queue_url: str

    def receive(self, most: int, wait_seconds: int = 0) -> list[Message]:
        messages: list[Message] = []
        while len(messages) < most:
            want = min(MAX_RECEIVE_PER_CALL, most - len(messages))
            got: list[Message] = self.sqs.receive_message(
                QueueUrl=self.queue_url,
                MaxNumberOfMessages=want,
                AttributeNames=["All"],
                MessageAttributeNames=["All"],
                WaitTimeSeconds=0 if messages else wait_seconds,
            ).get("Messages", [])
            messages.extend(got)
            if len(got) < want:
                break
        return messages

    def delete(self, messages: Sequence[Message]) -> None:
        for chunk in _tens(messages):
            self.sqs.delete_message_batch(
                QueueUrl=self.queue_url,
                Entries=[
                    {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(chunk)
                ],
            )

    def retry(self, messages: Sequence[Message]) -> None:
        for chunk in _tens(messages):
            self.sqs.change_message_visibility_batch(
                QueueUrl=self.queue_url,
                Entries=[
                    {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"], "VisibilityTimeout": 0}
                    for i, m in enumerate(chunk)
                ],
            )


def _tens(messages: Sequence[Message]) -> Iterable[Sequence[Message]]:
    return (messages[start : start + 10] for start in range(0, len(messages), 10))


@dataclass(slots=True)
class _Kept:
    """A message the :class:`HandedFeed` holds."""

    message_id: str
    body: str
    md5: str
    sent_ms: int
    receives: int = 0
    first_receive_ms: int = 0


@dataclass
class HandedFeed:
    """Messages handed over in this process, kept and delivered as SQS delivers them.

    ``dead_letter(body)`` sends a body to the dead-letter queue; ``max_receive_count`` is the
    queue's redrive policy (None: no policy, a message is retried for ever).
    """

    dead_letter: Callable[[str], None]
    max_receive_count: int | None
    _waiting: deque[_Kept] = field(default_factory=deque)
    _in_flight: dict[str, _Kept] = field(default_factory=dict)

    def hand(self, bodies: Iterable[str]) -> None:
        """Enqueue ``bodies`` (already accepted as SQS accepts a body), in order."""
        sent_ms = int(time.time() * 1000)
        for body in bodies:
            md5 = hashlib.md5(body.encode("utf-8"), usedforsecurity=False).hexdigest()
            self._waiting.append(_Kept(str(uuid.uuid4()), body, md5, sent_ms))

    def __len__(self) -> int:
        """Messages waiting or in flight."""
        return len(self._waiting) + len(self._in_flight)

    def receive(self, most: int, wait_seconds: int = 0) -> list[Message]:
        received: list[Message] = []
        while self._waiting and len(received) < most:
            kept = self._waiting.popleft()
            if self.max_receive_count is not None and kept.receives >= self.max_receive_count:
                self.dead_letter(kept.body)
                continue
            now_ms = int(time.time() * 1000)
            kept.receives += 1
            kept.first_receive_ms = kept.first_receive_ms or now_ms
            handle = uuid.uuid4().hex
            self._in_flight[handle] = kept
            received.append(
                {
                    "MessageId": kept.message_id,
                    "ReceiptHandle": handle,
                    "MD5OfBody": kept.md5,
                    "Body": kept.body,
                    "Attributes": {
                        "SenderId": ACCOUNT_ID,
                        "SentTimestamp": str(kept.sent_ms),
                        "ApproximateReceiveCount": str(kept.receives),
                        "ApproximateFirstReceiveTimestamp": str(kept.first_receive_ms),
                    },
                }
            )
        return received

    def delete(self, messages: Sequence[Message]) -> None:
        for message in messages:
            self._in_flight.pop(message["ReceiptHandle"], None)

    def retry(self, messages: Sequence[Message]) -> None:
        # visible again where they were: ahead of every message sent after them
        for message in reversed(messages):
            kept = self._in_flight.pop(message["ReceiptHandle"], None)
            if kept is not None:
                self._waiting.appendleft(kept)


@dataclass
class Batch:
    """Messages received together from one feed."""

    feed: Feed
    messages: list[Message]

    def delete(self) -> None:
        self.feed.delete(self.messages)


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

    def add(self, batch: BatchResult) -> None:
        self.batches += 1
        self.records += batch.records
        self.retried += len(batch.failed_ids)
        self.deleted += batch.records - len(batch.failed_ids)
        if batch.error is not None:
            self.invocation_errors.append(batch.error)
        for name, value in batch.metrics.items():
            self.metrics[name] = self.metrics.get(name, 0.0) + value


Invoke = Callable[[dict[str, Any]], tuple[Any, BaseException | None, dict[str, float]]]


@dataclass
class EventSourceMapping:
    """The mapping from the ``feeds`` of one queue to a function, with the template's batch
    size."""

    feeds: Sequence[Feed]
    queue_arn: str
    batch_size: int
    invoke: Invoke
    #: a message received more often than this is a runaway (no redrive policy): stop draining
    max_receives_without_redrive: int = 100

    def receive_batch(self, wait_seconds: int = 0) -> Batch | None:
        """The next batch, from the first feed that has messages; a queue feed long-polls up to
        ``wait_seconds`` (at most 20) when no feed had any at once. None: nothing arrived."""
        for wait in (0, min(wait_seconds, MAX_WAIT_SECONDS)) if wait_seconds else (0,):
            for feed in self.feeds:
                messages = feed.receive(self.batch_size, wait)
                if messages:
                    return Batch(feed, messages)
        return None

    def poll_once(self, wait_seconds: int = 0) -> BatchResult | None:
        """One poll and invocation; None when nothing was visible (within ``wait_seconds``)."""
        batch = self.receive_batch(wait_seconds)
        if batch is None:
            return None
        messages = batch.messages
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
        failed_set = set(failed)
        batch.feed.delete([m for mid, m in by_id.items() if mid not in failed_set])
        batch.feed.retry([by_id[mid] for mid in failed])
        return BatchResult(len(messages), failed, error_text, metrics)

    def drain(self, progress: Callable[[int], None] | None = None) -> DrainReport:
        """Poll until nothing is visible: every message deleted or moved to the DLQ."""
        report = DrainReport()
        while (batch := self.poll_once()) is not None:
            report.add(batch)
            if progress is not None:
                progress(batch.records - len(batch.failed_ids))
        return report


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
