"""``sitemap-updater status``: how a deployed stack is doing, from its outputs and its state.

Usage::

    sitemap-updater status --stack-name NAME [--region REGION] [--endpoint-url URL] [--json]

Finds the stack with CloudFormation ``DescribeStacks`` and reads what its outputs name: the
state table (the publish record and the feed checkpoint, through the rebuild's own stores), the
queues (their depth; the dead-letter queue's messages are peeked with a visibility timeout of
0, so none is consumed or hidden) and the bucket (the IndexNow pending sets). It prints, per site
(each host of ``SiteUrl``):

- the URLs and files its published index lists, and the news articles; per section, its files,
  URLs and the oldest and newest lastmod its index gives them (a section whose newest lastmod
  is old is one that has not changed since);
- the URLs waiting for IndexNow;

and for the deployment:

- the last publish: when, and the lag from ingest to publish of the changes it published;
- the current freshness lag: the age of the oldest change that may still wait for its publish
  (the checkpoint's age, or a pending leaf's oldest held-back change if older);
- the pending leaves and the checkpoint's age;
- the dead-letter queue's depth and its three most common rejection reasons (of the messages
  peeked), the ingest queue's depth, and whether the primary host's IndexNow pending set can be
  read (``indexnow_problem``).

``--json`` prints the same as one JSON object. ``--endpoint-url`` sends every call to another
endpoint (an emulator); boto3 also honours ``AWS_ENDPOINT_URL``. The IAM actions it needs are
listed in docs/operations.md. Exit status: 0; 1 when an AWS call fails (the line names the call
and the error); 2 when the stack does not exist or lacks an output the command needs.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

import boto3
from botocore.exceptions import BotoCoreError, ClientError

from sitemap_updater.ingest.dlq import REASON_ATTRIBUTE, REJECTIONS_ATTRIBUTE, rejection_kinds
from sitemap_updater.printable import printable
from sitemap_updater.protocol.errors import InvalidUrlError
from sitemap_updater.rebuild.news import is_news_key
from sitemap_updater.rebuild.outputs.indexnow import PENDING_KEY, waiting_urls
from sitemap_updater.rebuild.state.checkpoint import CheckpointStore
from sitemap_updater.rebuild.state.published import PublishedRecord, PublishedStore
from sitemap_updater.sites import Sites
from sitemap_updater.store.spaces import key_prefix_of, section_of_file
from sitemap_updater_local.errors import CommandError

#: the outputs the command reads
NEEDED = ("StateTableName", "QueueUrl", "DeadLetterQueueUrl", "BucketName")
#: most DLQ messages peeked for the reasons (ReceiveMessage returns at most 10 a call)
PEEK_CALLS = 10
TOP_REASONS = 3


class StackUnusable(Exception):
    """The stack does not exist or lacks an output the command needs."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--stack-name",
        required=True,
        metavar="NAME",
        help="the CloudFormation stack (the local deployment registers its own)",
    )
    parser.add_argument(
        "--region", default=None, metavar="R", help="AWS region (default: from the environment)"
    )
    parser.add_argument(
        "--endpoint-url",
        default=None,
        metavar="URL",
        help="one endpoint for every AWS service (for emulators such as moto's server)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def stack_outputs(
    cloudformation: Any, stack_name: str, needed: tuple[str, ...] = NEEDED
) -> dict[str, str]:
    """The outputs of ``stack_name``, by output key; :class:`StackUnusable` when it lacks one
    of ``needed``."""
    try:
        (stack,) = cloudformation.describe_stacks(StackName=stack_name)["Stacks"]
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") == "ValidationError":
            raise StackUnusable(f"stack {stack_name!r} does not exist") from error
        raise
    outputs = {o["OutputKey"]: o["OutputValue"] for o in stack.get("Outputs", [])}
    missing = [key for key in needed if key not in outputs]
    if missing:
        raise StackUnusable(
            f"stack {stack_name!r} has no output {', '.join(missing)} "
            "(deploy the current template.yaml)"
        )
    return outputs


def collect(
    clients: Callable[[str], Any], stack_name: str, now: float | None = None
) -> dict[str, Any]:
    """The status of ``stack_name`` as one JSON-ready object; ``clients(name)`` gives a boto3
    client, ``now`` is epoch seconds (the system clock by default)."""
    now = time.time() if now is None else now
    outputs = stack_outputs(clients("cloudformation"), stack_name)
    dynamodb = clients("dynamodb")
    record = PublishedStore(dynamodb, outputs["StateTableName"]).load() or PublishedRecord()
    checkpoint = CheckpointStore(dynamodb, outputs["StateTableName"]).load()
    sqs = clients("sqs")
    checkpoint_age = None if checkpoint is None else max(0.0, now - checkpoint.saved_at)
    marks = [mark / 1000 for mark in record.pending_since if mark is not None]
    held_age = max(0.0, now - min(marks)) if marks else None
    ages = [age for age in (checkpoint_age, held_age) if age is not None]
    return {
        "stack": stack_name,
        "sites": _sites(outputs.get("SiteUrl"), record, clients("s3"), outputs["BucketName"]),
        "last_publish": _publish(record, now),
        "current_lag_seconds": round(max(ages), 3) if ages else None,
        "pending_leaves": list(record.pending),
        "checkpoint_age_seconds": None if checkpoint_age is None else round(checkpoint_age, 3),
        "queue_messages": queue_depth(sqs, outputs["QueueUrl"]),
        "dead_letter_queue": {
            "messages": queue_depth(sqs, outputs["DeadLetterQueueUrl"]),
            "top_reasons": _top_reasons(sqs, outputs["DeadLetterQueueUrl"]),
        },
        **_indexnow(clients("s3"), outputs["BucketName"]),
    }


def _indexnow(s3: Any, bucket: str) -> dict[str, Any]:
    """The URLs waiting in the IndexNow pending set, or why the set cannot be read."""
    try:
        return {"indexnow_waiting_urls": waiting_urls(s3, bucket), "indexnow_problem": None}
    except (OSError, EOFError, ValueError, TypeError, AttributeError) as error:
        problem = f"{PENDING_KEY} cannot be read: {type(error).__name__}: {error}"
        return {"indexnow_waiting_urls": None, "indexnow_problem": problem}


def _sites(
    site_url: str | None, record: PublishedRecord, s3: Any, bucket: str
) -> list[dict[str, Any]]:
    """Each listed host's files, by section (one unknown site when the output is missing)."""
    try:
        sites = Sites.parse(site_url or "")
    except InvalidUrlError:
        return [_site(None, "", record, s3, bucket)]
    return [_site(site.origin, sites.key_prefix(site), record, s3, bucket) for site in sites]


def _site(
    url: str | None, prefix: str, record: PublishedRecord, s3: Any, bucket: str
) -> dict[str, Any]:
    listing = record.listing() or {key: (None, 0) for key in record.files}
    own = {key: entry for key, entry in listing.items() if key_prefix_of(key) == prefix}
    news = {key: n for key, (_, n) in own.items() if is_news_key(key)}
    sections: dict[str, list[tuple[str | None, int]]] = {}
    for key, entry in own.items():
        section = section_of_file(key)
        if section is not None:
            sections.setdefault(section, []).append(entry)
    try:
        waiting = waiting_urls(s3, bucket, prefix)
    except (OSError, EOFError, ValueError, TypeError, AttributeError):
        waiting = None  # named once, in the deployment's ``indexnow_problem``
    return {
        "url": url,
        "sections": [_section(name, entries) for name, entries in sorted(sections.items())],
        "urls": sum(n for _, n in own.values()) - sum(news.values()),
        "files": len(own) - len(news),
        "news_articles": sum(news.values()),
        "news_files": len(news),
        "indexnow_waiting_urls": waiting,
    }


def _section(name: str, entries: list[tuple[str | None, int]]) -> dict[str, Any]:
    lastmods = sorted(lastmod for lastmod, _ in entries if lastmod is not None)
    return {
        "name": name,
        "files": len(entries),
        "urls": sum(n for _, n in entries),
        "oldest_lastmod": lastmods[0] if lastmods else None,
        "newest_lastmod": lastmods[-1] if lastmods else None,
    }


def _publish(record: PublishedRecord, now: float) -> dict[str, Any] | None:
    if record.published_at is None:
        return None
    fresh = record.freshness
    return {
        "at": datetime.fromtimestamp(record.published_at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "age_seconds": round(max(0.0, now - record.published_at), 3),
        "changes": fresh.changes if fresh else 0,
        "lag_max_seconds": fresh.max_seconds if fresh else None,
        "lag_median_seconds": fresh.median_seconds if fresh else None,
    }


def queue_depth(sqs: Any, queue_url: str) -> int:
    attributes = sqs.get_queue_attributes(
        QueueUrl=queue_url,
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    )["Attributes"]
    return int(attributes["ApproximateNumberOfMessages"]) + int(
        attributes["ApproximateNumberOfMessagesNotVisible"]
    )


def peek_dead_letters(sqs: Any, queue_url: str) -> Iterator[dict[str, Any]]:
    """Each message of the dead-letter queue that :data:`PEEK_CALLS` receives return, once,
    left visible (a visibility timeout of 0: none is consumed or hidden), with its reason
    attributes and its ``SentTimestamp``; ReceiveMessage samples the queue, so a deep queue
    gives only part of its messages."""
    seen: set[str] = set()
    for _ in range(PEEK_CALLS):
        got = sqs.receive_message(
            QueueUrl=queue_url,
            MaxNumberOfMessages=10,
            AttributeNames=["SentTimestamp"],
            MessageAttributeNames=[REASON_ATTRIBUTE, REJECTIONS_ATTRIBUTE],
            VisibilityTimeout=0,
            WaitTimeSeconds=0,
        ).get("Messages", [])
        fresh = [m for m in got if m["MessageId"] not in seen]
        if not fresh:
            return
        for message in fresh:
            seen.add(message["MessageId"])
            yield message


def text_attributes(message: Mapping[str, Any]) -> dict[str, str]:
    """A received message's string attributes, by name."""
    attributes = message.get("MessageAttributes", {})
    return {name: str(value.get("StringValue", "")) for name, value in attributes.items()}


def _top_reasons(sqs: Any, queue_url: str) -> list[dict[str, Any]]:
    """The most common kinds of rejection among the messages peeked (left visible), by the
    field and rule the ingest function wrote (``ingest.dlq.rejection_kinds``)."""
    seen = {m["MessageId"]: text_attributes(m) for m in peek_dead_letters(sqs, queue_url)}
    kinds: Counter[str] = Counter()
    for attributes in seen.values():
        found = rejection_kinds(attributes)
        kinds.update(found or ["(no reason: moved here after failed receives)"])
    return [{"reason": kind, "count": n} for kind, n in kinds.most_common(TOP_REASONS)]


def render(status: Mapping[str, Any]) -> list[str]:
    """The status as lines of text, each one line: what AWS answered, DLQ reasons included,
    is printed with its control and format characters escaped (``sitemap_updater.printable``)."""
    lines = [f"stack {status['stack']}"]
    for site in status["sites"]:
        lines.append(
            f"site {site['url'] or '(unknown)'}: {site['urls']} URLs in {site['files']} files, "
            f"{site['news_articles']} news articles in {site['news_files']} files"
        )
        lines += [
            f"  section {s['name']}: {s['urls']} URLs in {s['files']} files, lastmod "
            f"{s['oldest_lastmod'] or '-'} to {s['newest_lastmod'] or '-'}"
            for s in site["sections"]
        ]
    publish = status["last_publish"]
    if publish is None:
        lines.append("last publish: none yet")
    else:
        lag = (
            f"lag max {publish['lag_max_seconds']} s, median {publish['lag_median_seconds']} s"
            if publish["changes"]
            else "no change"
        )
        lines.append(
            f"last publish: {publish['at']} ({publish['age_seconds']:.0f} s ago), "
            f"{publish['changes']} changes, {lag}"
        )
    lines.append(f"current freshness lag: {_seconds(status['current_lag_seconds'])}")
    pending = status["pending_leaves"]
    lines.append(f"pending leaves: {', '.join(pending) if pending else 'none'}")
    lines.append(f"checkpoint age: {_seconds(status['checkpoint_age_seconds'])}")
    lines.append(f"queue: {status['queue_messages']} messages")
    dlq = status["dead_letter_queue"]
    lines.append(f"dead-letter queue: {dlq['messages']} messages")
    lines += [f"  {r['count']} x {r['reason']}" for r in dlq["top_reasons"]]
    waiting = status["indexnow_waiting_urls"]
    if status["indexnow_problem"] is not None:
        lines.append(f"IndexNow: {status['indexnow_problem']}")
    else:
        lines.append(
            "IndexNow: " + ("no pending set" if waiting is None else f"{waiting} URLs waiting")
        )
    return [printable(line) for line in lines]


def _seconds(value: float | None) -> str:
    return "unknown (no run has saved a checkpoint)" if value is None else f"{value:.0f} s"


def show(
    args: argparse.Namespace,
    collect: Callable[[Callable[[str], Any], str], Mapping[str, Any]],
    render: Callable[[Mapping[str, Any]], list[str]],
    exit_status: Callable[[Mapping[str, Any]], int] = lambda shown: 0,
) -> int:
    """Collect what a command shows of the stack ``args.stack_name`` (through clients of
    ``args.region`` and ``args.endpoint_url``) and print it, as text or with ``--json``, then
    return its ``exit_status``; an unusable stack or a failed AWS call ends with one line and
    its exit status."""
    session = boto3.Session(region_name=args.region)

    def clients(name: str) -> Any:
        return session.client(name, endpoint_url=args.endpoint_url)  # type: ignore[call-overload]

    try:
        shown = collect(clients, args.stack_name)
    except StackUnusable as error:
        raise CommandError(str(error)) from error
    except ClientError as error:
        info = error.response.get("Error", {})
        line = f"{error.operation_name} failed: {info.get('Code')}: {info.get('Message')}"
        raise CommandError(line) from error
    except BotoCoreError as error:
        raise CommandError(f"AWS call failed: {error}") from error
    if args.json:
        print(json.dumps(shown, indent=2))
    else:
        print("\n".join(render(shown)))
    return exit_status(shown)


def run(args: argparse.Namespace) -> int:
    return show(args, collect, render)
