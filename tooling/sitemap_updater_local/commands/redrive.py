"""``sitemap-updater redrive``: move messages from the dead-letter queue back to the queue.

For messages that the redrive policy dead-lettered after a transient failure outlived
``maxReceiveCount`` receives. Each message's body is sent to the destination queue as it is,
with its attributes and the time it was first sent (:data:`FIRST_SENT_ATTRIBUTE`), by which
ingest orders a change without ``occurred_at``: a replayed change keeps its place among the
changes of its URL, so it never wins over a newer upsert or delete. A message is deleted from the
dead-letter queue only once the send succeeded, so none is lost; at worst (a crash between the
two) it is sent twice, which ingest treats as a duplicate.

Two kinds of message stay in the dead-letter queue, counted: a rejection (it carries a
``reason``; moved back it would be rejected again) unless ``--include-rejected`` asks for it, and
a message first sent longer ago than the delete tombstones live (``--tombstone-ttl-days``): the
tombstone of a later delete of its URL may be gone, and the old change would bring the page back.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import boto3

from sitemap_updater.ingest.dlq import FIRST_SENT_ATTRIBUTE, REASON_ATTRIBUTE
from sitemap_updater.producer.batches import Attributes, BatchSender, SendFailure
from sitemap_updater_local.console import command_line
from sitemap_updater_local.errors import EXIT_SKIPPED, CommandError, NothingKept

if TYPE_CHECKING:
    from mypy_boto3_sqs.client import SQSClient
    from mypy_boto3_sqs.type_defs import MessageTypeDef

#: template.yaml's default TombstoneTtlDays, which outlives the dead-letter queue's 14 days.
DEFAULT_TOMBSTONE_TTL_DAYS: Final = 14
#: How long a message received here stays hidden from other readers; the messages kept in the
#: dead-letter queue are made visible again at the end.
VISIBILITY_SECONDS: Final = 300
#: Attributes of a rejection, left behind when one is moved back.
_REJECTION_ATTRIBUTES: Final = frozenset({REASON_ATTRIBUTE, "source_message_id"})


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--from-queue", required=True, metavar="DLQ_URL", help="the dead-letter queue to empty"
    )
    parser.add_argument(
        "--to-queue", required=True, metavar="QUEUE_URL", help="the queue to send the messages to"
    )
    parser.add_argument(
        "--max-messages",
        type=int,
        default=0,
        metavar="N",
        help="stop after N messages (default: until the DLQ is empty)",
    )
    parser.add_argument(
        "--include-rejected",
        action="store_true",
        help="also move messages that carry a reason (ingest rejected them; default: keep them)",
    )
    parser.add_argument(
        "--tombstone-ttl-days",
        type=int,
        default=DEFAULT_TOMBSTONE_TTL_DAYS,
        metavar="D",
        help="the stack's TombstoneTtlDays: messages first sent longer ago stay in the DLQ "
        f"(default: {DEFAULT_TOMBSTONE_TTL_DAYS})",
    )
    parser.add_argument("--region", metavar="R", help="AWS region (default: from the environment)")
    parser.add_argument("--endpoint-url", metavar="URL", help="SQS endpoint (for emulators)")


@dataclass(slots=True)
class Redriven:
    """What one redrive did."""

    moved: int = 0
    failed: int = 0
    #: kept in the dead-letter queue: rejections
    rejected: int = 0
    #: kept in the dead-letter queue: first sent before the oldest tombstone that may remain
    too_old: int = 0


def first_sent_ms(message: MessageTypeDef) -> int:
    """When the message was first sent (epoch ms): the time an earlier redrive kept, or the
    SentTimestamp the dead-letter queue keeps from the original send."""
    sent = int(message.get("Attributes", {}).get("SentTimestamp", "0"))
    attributes = message.get("MessageAttributes", {})
    kept = (
        attributes[FIRST_SENT_ATTRIBUTE].get("StringValue")
        if FIRST_SENT_ATTRIBUTE in attributes
        else None
    )
    return min(sent, int(kept)) if kept is not None and kept.isdigit() else sent


def attributes_to_send(message: MessageTypeDef) -> Attributes:
    """The message's string attributes as sent again, with the time it was first sent, and
    without the reason of a rejection."""
    attributes = {
        name: value["StringValue"]
        for name, value in message.get("MessageAttributes", {}).items()
        if name not in _REJECTION_ATTRIBUTES and "StringValue" in value
    }
    attributes[FIRST_SENT_ATTRIBUTE] = str(first_sent_ms(message))
    return attributes


def check_queues(sqs: SQSClient, source: str, destination: str) -> None:
    """Refuse the same queue on both sides (it would be read for ever), however it is named."""
    arns = [
        sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"][
            "QueueArn"
        ]
        for url in (source, destination)
    ]
    if arns[0] == arns[1]:
        raise CommandError(
            f"--from-queue and --to-queue: both name the queue {arns[0]}; "
            "the messages must go to another queue"
        )


def redrive(
    sqs: SQSClient,
    source: str,
    destination: str,
    max_messages: int = 0,
    *,
    include_rejected: bool = False,
    tombstone_ttl_days: int = DEFAULT_TOMBSTONE_TTL_DAYS,
    now_ms: int | None = None,
) -> Redriven:
    """Move messages from ``source`` to ``destination``; the others stay, counted."""
    check_queues(sqs, source, destination)
    oldest_ms = (now_ms or int(time.time() * 1000)) - tombstone_ttl_days * 86_400_000
    result = Redriven()
    kept: dict[str, str] = {}  # message id -> receipt handle of the messages left in the DLQ
    while not max_messages or result.moved + result.failed < max_messages:
        want = 10 if not max_messages else min(10, max_messages - result.moved - result.failed)
        got = sqs.receive_message(
            QueueUrl=source,
            MaxNumberOfMessages=want,
            VisibilityTimeout=VISIBILITY_SECONDS,
            WaitTimeSeconds=0,
            MessageAttributeNames=["All"],
            MessageSystemAttributeNames=["SentTimestamp"],
        ).get("Messages", [])
        fresh = [m for m in got if m["MessageId"] not in kept]
        if not fresh:
            break
        to_move = []
        for message in fresh:
            if REASON_ATTRIBUTE in message.get("MessageAttributes", {}) and not include_rejected:
                result.rejected += 1
            elif first_sent_ms(message) < oldest_ms:
                result.too_old += 1
            else:
                to_move.append(message)
                continue
            kept[message["MessageId"]] = message["ReceiptHandle"]
        moved, failed = _move(sqs, source, destination, to_move)
        result.moved += moved
        result.failed += failed
        if failed and not moved and len(to_move) == len(fresh):
            break
    _show_again(sqs, source, list(kept.values()))
    return result


def _move(
    sqs: SQSClient, source: str, destination: str, messages: list[MessageTypeDef]
) -> tuple[int, int]:
    """Send ``messages`` to ``destination`` and delete the sent ones from ``source``."""
    failures: list[SendFailure] = []
    with BatchSender(sqs, destination, on_failure=failures.append) as sender:
        for message in messages:
            sender.add(message["MessageId"], message["Body"], attributes_to_send(message))
    not_sent = {f.where for f in failures}
    for failure in failures:
        print(command_line("redrive", str(failure)), file=sys.stderr)
    done = [m for m in messages if m["MessageId"] not in not_sent]
    if done:
        sqs.delete_message_batch(
            QueueUrl=source,
            Entries=[
                {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(done)
            ],
        )
    return len(done), len(not_sent)


def _show_again(sqs: SQSClient, source: str, handles: list[str]) -> None:
    """Make the messages left in the dead-letter queue visible again at once."""
    for start in range(0, len(handles), 10):
        sqs.change_message_visibility_batch(
            QueueUrl=source,
            Entries=[
                {"Id": str(i), "ReceiptHandle": h, "VisibilityTimeout": 0}
                for i, h in enumerate(handles[start : start + 10])
            ],
        )


def run(args: argparse.Namespace) -> int:
    if args.max_messages < 0:
        raise CommandError(f"--max-messages: {args.max_messages} must be 0 (no limit) or more")
    if args.tombstone_ttl_days < 1:
        raise CommandError(f"--tombstone-ttl-days: {args.tombstone_ttl_days} must be 1 or more")
    # an AWS error (no endpoint, no credentials, a refused call) ends the command in one line
    sqs = boto3.client("sqs", region_name=args.region, endpoint_url=args.endpoint_url)
    done = redrive(
        sqs,
        args.from_queue,
        args.to_queue,
        args.max_messages,
        include_rejected=args.include_rejected,
        tombstone_ttl_days=args.tombstone_ttl_days,
    )
    print(
        f"moved {done.moved} message(s); {done.failed} not moved; kept in the dead-letter "
        f"queue: {done.rejected} rejected (--include-rejected moves them), {done.too_old} first "
        f"sent more than {args.tombstone_ttl_days} days ago (older than the tombstones)"
    )
    if not done.moved + done.failed + done.rejected + done.too_old:
        raise NothingKept(f"{args.from_queue} holds no message: nothing to move")
    return EXIT_SKIPPED if done.failed else 0
