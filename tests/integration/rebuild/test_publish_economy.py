"""What a run leaves alone: the index when no lastmod or file list changed, the index lastmod of a
file whose bytes did not change, and the publish record when there was nothing to publish. And
what a full rebuild reads: every segment of its parallel Scan."""

from __future__ import annotations

import itertools
import os
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest

from sitemap_updater.config import RebuildConfig
from sitemap_updater.page.model import Page
from sitemap_updater.rebuild.runner import RebuildService
from sitemap_updater.store.keys import PUBLISHED_SK, meta_key
from sitemap_updater.store.spaces import shard_file_key
from tests.integration.rebuild.conftest import BUCKET, SITE, STATE_TABLE, TABLE, Aws, page

_owners = itertools.count()


def index_versions(aws: Aws) -> int:
    listing = aws.s3.list_object_versions(Bucket=BUCKET, Prefix="sitemap.xml")
    return sum(1 for v in listing.get("Versions", []) if v["Key"] == "sitemap.xml")


def test_a_change_that_moves_no_lastmod_rewrites_the_file_but_not_the_index(aws: Aws) -> None:
    aws.s3.put_bucket_versioning(Bucket=BUCKET, VersioningConfiguration={"Status": "Enabled"})
    aws.upsert(
        Page(url=f"{SITE}/a", lastmod="2024-05-02"), Page(url=f"{SITE}/b", lastmod="2024-05-01")
    )
    aws.invoke()
    versions_before = index_versions(aws)
    index_before = aws.object("sitemap.xml")["Body"].read()
    file_before = aws.object("sitemap-pages-r.xml.gz")["Body"].read()
    writes = aws.record_puts()
    aws.upsert(Page(url=f"{SITE}/b", lastmod="2024-05-01", priority=0.3))  # a priority only

    report = aws.invoke()

    assert aws.object("sitemap-pages-r.xml.gz")["Body"].read() != file_before
    assert writes == ["sitemap-pages-r.xml.gz"]
    assert index_versions(aws) == versions_before == 1
    assert aws.object("sitemap.xml")["Body"].read() == index_before
    assert report["invalidated_paths"] == ["/sitemap-pages-r.xml.gz"]
    assert aws.index_lastmods() == {"sitemap-pages-r.xml.gz": "2024-05-02"}


# -- index lastmod of files whose entries carry none -------------------------------------------


def service(clock: list[float], **env: str) -> RebuildService:
    config = RebuildConfig.from_env(
        {
            "TABLE_NAME": TABLE,
            "SITE_URL": SITE,
            "BUCKET_NAME": BUCKET,
            "MAX_URLS_PER_SITEMAP": "8",
            "RETIRE_GRACE_SECONDS": "0",
            "TABLE_STREAM_ARN": os.environ["TABLE_STREAM_ARN"],
            "STATE_TABLE_NAME": STATE_TABLE,
            **env,
        }
    )
    return RebuildService(
        config,
        dynamodb=boto3.client("dynamodb", region_name="us-east-1"),
        streams=boto3.client("dynamodbstreams", region_name="us-east-1"),
        s3=boto3.client("s3", region_name="us-east-1"),
        cloudfront=None,
        owner=f"run-{next(_owners)}",
        remaining_seconds=lambda: 900.0,
        clock=lambda: clock[0],
    )


def w3c(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat().replace("+00:00", "Z")


def test_index_lastmod_of_a_file_without_lastmods_is_when_its_bytes_last_changed(
    aws: Aws,
) -> None:
    day = 3_600.0  # an hour: well within the change feed's 24-hour retention
    clock = [1_700_000_000.0]
    aws.upsert(*(page(i) for i in range(20)))  # no entry carries a lastmod
    service(clock).run()
    built = aws.index_lastmods()
    assert len(built) >= 3 and set(built.values()) == {w3c(clock[0])}

    clock[0] += day
    changed = page(3)
    leaf_file = shard_file_key(aws.leaf_of(changed.url))
    aws.upsert(Page(url=changed.url, priority=0.5))
    service(clock).run()
    after_change = aws.index_lastmods()
    assert after_change == {**built, leaf_file: w3c(clock[0])}

    clock[0] += day
    aws.upsert(Page(url=changed.url, priority=0.5))  # a newer event, the same entry
    assert service(clock).run().objects_written == []
    assert aws.index_lastmods() == after_change

    clock[0] += day
    full = service(clock).run(full=True)
    assert full.complete
    assert aws.index_lastmods() == after_change  # rewritten, same bytes, same lastmods


# -- the publish record is not rewritten by a run with nothing to publish ---------------------


def record_writes(aws: Aws) -> list[str]:
    """Operation names of the handler's writes to the ``meta/published`` item."""
    key = meta_key(PUBLISHED_SK)
    ops: list[str] = []

    def before(params: dict[str, Any], model: Any, **_: Any) -> None:
        target = params.get("Item") or params.get("Key") or {}
        if {k: target.get(k, {}).get("S") for k in ("pk", "sk")} == key:
            ops.append(model.name)

    events = aws.handler_module._client("dynamodb").meta.events
    for op in ("PutItem", "UpdateItem", "DeleteItem"):
        events.register(f"before-parameter-build.dynamodb.{op}", before)
    return ops


def published_item(aws: Aws) -> dict[str, Any]:
    key = {k: {"S": v} for k, v in meta_key(PUBLISHED_SK).items()}
    item: dict[str, Any] = aws.dynamodb.get_item(TableName=STATE_TABLE, Key=key)["Item"]
    return item


def test_a_run_with_nothing_to_publish_leaves_the_publish_record_alone(aws: Aws) -> None:
    aws.upsert(*(page(i) for i in range(5)))
    aws.invoke()
    before = published_item(aws)
    writes = record_writes(aws)

    idle = aws.invoke()
    aws.upsert(page(0))  # a newer event with the same entry: the bytes do not change
    unchanged = aws.invoke()

    assert idle["status"] == unchanged["status"] == "nothing-to-do"
    assert unchanged["shards_rebuilt"] == 1
    assert writes == []
    assert published_item(aws) == before

    aws.upsert(page(9))
    aws.invoke()
    # a publish marks the record in flight, then saves it (which removes the mark)
    assert writes == ["UpdateItem", "UpdateItem", "PutItem"]
    assert "in_flight" not in published_item(aws)
    assert int(published_item(aws)["generation"]["N"]) == int(before["generation"]["N"]) + 1


# -- full rebuild: a parallel Scan over every segment ------------------------------------------


def test_a_full_rebuild_scans_every_segment(aws: Aws, env: pytest.MonkeyPatch) -> None:
    segments = 5
    aws.upsert(*(page(i) for i in range(30)))
    aws.invoke()
    env.setenv("FULL_REBUILD_SEGMENTS", str(segments))
    scans: list[tuple[Any, Any]] = []

    def before(params: dict[str, Any], **_: Any) -> None:
        scans.append((params.get("Segment"), params.get("TotalSegments")))

    aws.handler_module._client("dynamodb").meta.events.register(
        "before-parameter-build.dynamodb.Scan", before
    )

    report = aws.invoke({"full_rebuild": True})

    assert report["complete"] is True
    assert {total for _, total in scans} == {segments}
    assert sorted({segment for segment, _ in scans}) == list(range(segments))
    assert sum(len(locs) for locs in aws.crawl().values()) == 30
