"""``sitemap-updater redrive``: move messages from the dead-letter queue back to the queue.

For messages that the redrive policy dead-lettered after a transient failure outlived
``maxReceiveCount`` receives. Each message's body is sent to the destination queue as it is, and
deleted from the dead-letter queue only once the send succeeded, so a message is never lost; at
worst (a crash between the two) it is sent twice, which ingest treats as a duplicate. Rejected
messages moved back are rejected again, with the same reason.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

import boto3

from sitemap_updater.printable import printable
from sitemap_updater.producer.batches import BatchSender, SendFailure
from sitemap_updater_local.errors import CommandError

if TYPE_CHECKING:
    from mypy_boto3_sqs.client import SQSClient


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
    parser.add_argument("--region", metavar="R", help="AWS region (default: from the environment)")
    parser.add_argument("--endpoint-url", metavar="URL", help="SQS endpoint (for emulators)")


def redrive(
    sqs: SQSClient, source: str, destination: str, max_messages: int = 0
) -> tuple[int, int]:
    """Move messages from ``source`` to ``destination``; returns (moved, failed)."""
    moved = failed = 0
    while not max_messages or moved + failed < max_messages:
        want = 10 if not max_messages else min(10, max_messages - moved - failed)
        got = sqs.receive_message(
            QueueUrl=source, MaxNumberOfMessages=want, VisibilityTimeout=60, WaitTimeSeconds=0
        ).get("Messages", [])
        if not got:
            break
        failures: list[SendFailure] = []
        with BatchSender(sqs, destination, on_failure=failures.append) as sender:
            for message in got:
                sender.add(message["MessageId"], message["Body"])
        not_sent = {f.where for f in failures}
        for failure in failures:
            print(f"sitemap-updater redrive: {printable(failure)}", file=sys.stderr)
        done = [m for m in got if m["MessageId"] not in not_sent]
        if done:
            sqs.delete_message_batch(
                QueueUrl=source,
                Entries=[
                    {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(done)
                ],
            )
        moved += len(done)
        failed += len(not_sent)
        if not_sent and not done:
            break
    return moved, failed


def run(args: argparse.Namespace) -> int:
    if args.max_messages < 0:
        raise CommandError(f"--max-messages: {args.max_messages} must be 0 (no limit) or more")
    # an AWS error (no endpoint, no credentials, a refused call) ends the command in one line
    sqs = boto3.client("sqs", region_name=args.region, endpoint_url=args.endpoint_url)
    moved, failed = redrive(sqs, args.from_queue, args.to_queue, args.max_messages)
    print(f"moved {moved} message(s); {failed} not moved")
    return 1 if failed else 0
