"""Upgrading a stack from the version before 0.1.0 loses nothing.

``data/before-0.1.0.json`` holds what that version (commit 90309cc) left after ingesting the
messages it also holds and publishing them: its URL table (items in its own shape: the URL under
``loc``, images as their URLs, a News article's publication flattened into it, digests of its
own), its state table and its published sitemaps, on two hosts with sections, videos, News
articles, alternates and deletes. This version starts from there, with its own ingest and
rebuild: every page stays published with the very same ``<url>`` element, a full rebuild finds
nothing to repair, a redelivery of every old message changes nothing, and new changes of the old
items are applied as on any other.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import boto3
import pytest

from sitemap_updater.protocol.urlset import fragment_loc, fragments_of
from sitemap_updater.rebuild.news import is_news_key
from tests.integration.ingest.harness import IngestStack, sqs_record
from tests.integration.rebuild.conftest import BUCKET, TABLE, Aws
from tests.reliability.crash_support import Snapshot, world
from tests.reliability.test_crashes import apply_env

DATA = json.loads((Path(__file__).parent / "data" / "before-0.1.0.json").read_text("utf-8"))
COM = "https://www.example.com"
#: the clock of the runs: the old messages' SentTimestamp is 2026-11-20T12:00:00Z
LATER = "2026-11-21T09:00:00Z"


def _snapshot() -> Snapshot:
    objects = tuple(
        (o["key"], base64.b64decode(o["body"]), o["content_type"], o["cache_control"])
        for o in DATA["objects"]
    )
    return Snapshot(tuple(DATA["items"]), tuple(DATA["state_items"]), objects)


def _urls(files: dict[str, bytes]) -> dict[str, bytes]:
    """Each URL of the regular files (the News files aside) -> its ``<url>`` element."""
    urls: dict[str, bytes] = {}
    for key, body in files.items():
        if key.endswith(".xml.gz") and not is_news_key(key):
            for fragment in fragments_of(body):
                loc = fragment_loc(fragment)
                assert loc not in urls, f"{loc} is published twice"
                urls[loc] = fragment
    return urls


def _published(aws: Aws) -> dict[str, bytes]:
    listed = aws.s3.list_objects_v2(Bucket=BUCKET).get("Contents", [])
    return {o["Key"]: aws.s3.get_object(Bucket=BUCKET, Key=o["Key"])["Body"].read() for o in listed}


BEFORE = _urls({o["key"]: base64.b64decode(o["body"]) for o in DATA["objects"]})


@contextmanager
def _upgraded(env: pytest.MonkeyPatch) -> Iterator[tuple[Aws, IngestStack]]:
    apply_env(env)
    for name, value in DATA["env"].items():
        env.setenv(name, value)
    with world(env) as aws:
        _snapshot().restore(aws)
        sqs = boto3.client("sqs", region_name="us-east-1")
        dlq = sqs.create_queue(QueueName="sitemap-dlq")["QueueUrl"]
        stack = IngestStack(
            TABLE, dlq, aws.dynamodb, sqs, env_overrides={"SITE_URL": DATA["env"]["SITE_URL"]}
        )
        yield aws, stack


def _send(stack: IngestStack, *changes: dict[str, Any], sent_ms: int) -> None:
    for n, change in enumerate(changes):
        response = stack.invoke(sqs_record(json.dumps(change), sent_ms=sent_ms + n))
        assert response["batchItemFailures"] == []
    assert stack.dlq_messages() == []


def test_every_page_stays_published_as_it_was_and_a_full_rebuild_repairs_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert len(BEFORE) > 40  # the two hosts' pages, the deleted ones aside
    with _upgraded(monkeypatch) as (aws, _):
        assert aws.invoke()["complete"] is True
        assert _urls(_published(aws)) == BEFORE

        full = aws.invoke({"full_rebuild": True})

        assert full["complete"] is True and full["drift_repaired"] == 0
        assert _urls(_published(aws)) == BEFORE


def test_a_redelivery_of_every_old_message_changes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The digest of a page changed in 0.1.0; a message ingested before the upgrade and
    delivered again after it is ordered by its event time first, so it never undoes a later
    change, and where it rewrites its own item, it writes the same page."""
    with _upgraded(monkeypatch) as (aws, stack):
        for n, message in enumerate(DATA["messages"]):
            record = sqs_record(
                message["body"], message_id=f"again-{n}", sent_ms=message["sent_ms"]
            )
            assert stack.invoke(record)["batchItemFailures"] == []
        assert stack.dlq_messages() == []

        assert aws.invoke()["complete"] is True
        assert _urls(_published(aws)) == BEFORE


def test_new_changes_of_old_items_are_applied(monkeypatch: pytest.MonkeyPatch) -> None:
    with _upgraded(monkeypatch) as (aws, stack):
        blog = f"{COM}/blog/3"  # an item with a News article in the old shape
        video = f"{COM}/p/6"  # one with a video and an image list in the old shape
        assert {blog, video, f"{COM}/p/7"} <= BEFORE.keys()
        _send(
            stack,
            {"action": "upsert", "url": blog, "lastmod": "2026-11-21", "occurred_at": LATER},
            {"action": "delete", "url": f"{COM}/p/7", "occurred_at": LATER},
            sent_ms=1_795_250_000_000,
        )

        assert aws.invoke()["complete"] is True
        after = _urls(_published(aws))

        assert f"{COM}/p/7" not in after
        assert b"<lastmod>2026-11-21</lastmod>" in after[blog]
        assert after[video] == BEFORE[video]
        untouched = BEFORE.keys() - {blog, f"{COM}/p/7"}
        assert {url: after[url] for url in untouched} == {url: BEFORE[url] for url in untouched}
