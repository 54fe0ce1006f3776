"""Crashes, overlapping runs, time budgets, races with ingest, and retirement after grace."""

from __future__ import annotations

import hashlib
import os
from dataclasses import replace
from typing import Any

import boto3
import pytest

from sitemap_updater.config import RebuildConfig
from sitemap_updater.rebuild.runner import RebuildService
from tests.integration.rebuild.conftest import (
    BUCKET,
    SITE,
    STATE_TABLE,
    TABLE,
    Aws,
    FakeContext,
    page,
)


class InjectedCrashError(RuntimeError):
    pass


def _all_urls(aws: Aws) -> list[str]:
    return sorted(loc for locs in aws.crawl().values() for loc in locs)


def test_a_crash_before_the_index_write_keeps_the_old_index_valid_and_is_repaired(
    aws: Aws,
) -> None:
    aws.upsert(*(page(i) for i in range(6)))
    aws.invoke()
    published_before = aws.crawl()

    def crash(params: dict[str, Any], **_: Any) -> None:
        if params["Key"] == "sitemap.xml":
            raise InjectedCrashError("crash between the shard writes and the index write")

    s3_events = aws.handler_module._client("s3").meta.events
    s3_events.register("before-parameter-build.s3.PutObject", crash, unique_id="crash")
    aws.upsert(*(page(i) for i in range(6, 12)))  # pushes the root past the cap: a split
    checkpoint_before = aws.checkpoint()
    with pytest.raises(InjectedCrashError):
        aws.invoke()

    # crawlers still get the old index, and every file it names exists and is valid
    assert aws.crawl() == published_before
    # the checkpoint is saved last: the next run reads the same changes again
    assert aws.checkpoint() == checkpoint_before

    s3_events.unregister("before-parameter-build.s3.PutObject", unique_id="crash")
    report = aws.invoke()  # the lease was released by the crashed run

    assert report["status"] == "published"
    assert report["complete"] is True
    assert _all_urls(aws) == sorted(f"{SITE}/page/{i}" for i in range(12))
    assert "sitemap-pages-r.xml.gz" not in aws.object_keys()  # retired, grace 0


def test_a_run_that_overlaps_a_running_one_gets_locked_and_nothing_is_published_twice(
    aws: Aws,
) -> None:
    aws.upsert(*(page(i) for i in range(4)))
    puts = aws.record_puts()
    second: list[dict[str, Any]] = []

    def overlap(params: dict[str, Any], **_: Any) -> None:
        if not second and params["Key"].startswith("sitemap-"):
            second.append(aws.invoke())  # a manual invoke while the scheduled run publishes

    aws.handler_module._client("s3").meta.events.register(
        "before-parameter-build.s3.PutObject", overlap
    )
    first = aws.invoke()

    assert second[0]["status"] == "locked"
    assert second[0]["objects_written"] == []
    assert first["status"] == "published"
    assert puts.count("sitemap.xml") == 1
    assert len(aws.invalidations()) == 1
    assert aws.invoke()["status"] == "nothing-to-do"  # the lease is free again


def test_a_run_out_of_time_publishes_what_it_finished_and_the_next_run_continues(
    aws: Aws,
) -> None:
    aws.upsert(*(page(i, "2024-05-01") for i in range(40)))
    aws.invoke()
    changed = [page(i, "2024-06-01") for i in range(40)]
    dirty_leaves = {aws.leaf_of(e.url) for e in changed}
    assert len(dirty_leaves) >= 3
    aws.upsert(*changed)
    puts = aws.record_puts()
    # time until the first shard file is put, then less than the 60 s margin

    report = aws.invoke(context=FakeContext(lambda: 30_000 if puts else 120_000))

    assert report["shards_rebuilt"] == 1
    assert report["complete"] is False
    assert report["shards_remaining"] == len(dirty_leaves) - 1
    lastmods = aws.index_lastmods()
    assert list(lastmods.values()).count("2024-06-01") == 1
    assert len(aws.crawl()) == len(lastmods)  # every listed file exists and validates

    rest = aws.invoke()

    assert rest["complete"] is True
    assert rest["shards_rebuilt"] == len(dirty_leaves) - 1
    assert set(aws.index_lastmods().values()) == {"2024-06-01"}


def test_a_change_that_arrives_during_the_rebuild_is_published_by_the_next_run(
    aws: Aws,
) -> None:
    aws.upsert(page(1))
    late = page(2)

    def ingest_meanwhile(params: dict[str, Any], **_: Any) -> None:
        if not raced and params["Key"].startswith("sitemap-pages-r"):
            raced.append(True)
            aws.upsert(late)  # written after the rebuild read the shard

    raced: list[bool] = []
    aws.handler_module._client("s3").meta.events.register(
        "before-parameter-build.s3.PutObject", ingest_meanwhile
    )
    first = aws.invoke()

    assert first["status"] == "published"
    assert late.url not in _all_urls(aws)
    second = aws.invoke()
    assert second["complete"] is True
    assert second["feed_records"] == 1  # the late change, from the checkpoint the first saved
    assert _all_urls(aws) == [f"{SITE}/page/1", late.url]


def test_full_rebuild_out_of_time_leaves_every_unfinished_shard_pending(aws: Aws) -> None:
    aws.upsert(*(page(i) for i in range(40)))
    aws.invoke()
    leaves = aws.leaves()

    report = aws.invoke({"full_rebuild": True}, FakeContext(lambda: 30_000))

    assert report["mode"] == "full"
    assert report["complete"] is False
    assert report["shards_remaining"] == len(leaves)
    follow_up = aws.invoke()
    assert follow_up["shards_rebuilt"] == len(leaves)
    assert follow_up["complete"] is True
    assert _all_urls(aws) == sorted(f"{SITE}/page/{i}" for i in range(40))


def test_full_rebuild_gives_the_same_bytes_as_the_incremental_runs(aws: Aws) -> None:
    aws.upsert(*(page(i, f"2024-05-{i % 28 + 1:02d}") for i in range(30)))
    aws.invoke()
    aws.upsert(*(page(i, "2024-06-01") for i in range(30, 45)))
    aws.delete(f"{SITE}/page/3", f"{SITE}/page/4")
    aws.invoke()
    incremental = {key: aws.object(key)["Body"].read() for key in aws.object_keys()}

    # a first deploy over an existing table: no state at all, an empty bucket
    for key in list(aws.object_keys()):
        aws.s3.delete_object(Bucket=BUCKET, Key=key)
    for item in aws.dynamodb.scan(TableName=STATE_TABLE)["Items"]:
        aws.dynamodb.delete_item(TableName=STATE_TABLE, Key={"pk": item["pk"], "sk": item["sk"]})

    report = aws.invoke({"full_rebuild": True})

    assert report["complete"] is True
    # every URL item (live and tombstone) by one Scan, the publication and the checkpoint
    assert report["dynamodb_items_read"] == 45 + 2
    full = {key: aws.object(key)["Body"].read() for key in aws.object_keys()}
    assert full == incremental


def _service(aws: Aws, clock: list[float], grace: int) -> RebuildService:
    env = {
        "TABLE_NAME": TABLE,
        "SITE_URL": SITE,
        "BUCKET_NAME": BUCKET,
        "MAX_URLS_PER_SITEMAP": "8",
        "RETIRE_GRACE_SECONDS": str(grace),
        "TABLE_STREAM_ARN": os.environ["TABLE_STREAM_ARN"],
        "STATE_TABLE_NAME": STATE_TABLE,
    }
    return RebuildService(
        RebuildConfig.from_env(env),
        dynamodb=boto3.client("dynamodb", region_name="us-east-1"),
        streams=boto3.client("dynamodbstreams", region_name="us-east-1"),
        s3=boto3.client("s3", region_name="us-east-1"),
        cloudfront=None,
        owner=hashlib.sha256(str(clock).encode()).hexdigest(),
        remaining_seconds=lambda: 900.0,
        clock=lambda: clock[0],
    )


def test_a_retired_file_survives_its_grace_period_and_goes_after_it(aws: Aws) -> None:
    clock = [1_700_000_000.0]
    aws.upsert(*(page(i) for i in range(6)))
    _service(aws, clock, grace=3600).run()
    aws.upsert(*(page(i) for i in range(6, 12)))

    split = _service(aws, clock, grace=3600).run()
    assert split.shards_split == 1
    assert split.objects_deleted == []
    assert (
        "sitemap-pages-r.xml.gz" in aws.object_keys()
    )  # a crawler holding the old index still gets it
    assert "sitemap-pages-r.xml.gz" not in aws.crawl()

    clock[0] += 3599
    assert _service(aws, clock, grace=3600).run().objects_deleted == []
    clock[0] += 1
    later = _service(aws, clock, grace=3600).run()
    assert later.objects_deleted == ["sitemap-pages-r.xml.gz"]
    assert later.status == "nothing-to-do"
    assert "sitemap-pages-r.xml.gz" not in aws.object_keys()


def test_robots_txt_and_a_public_base_url(aws: Aws, env: pytest.MonkeyPatch) -> None:
    env.setenv("PUBLISH_ROBOTS_TXT", "true")
    env.setenv("PUBLIC_BASE_URL", "https://cdn.example.net")
    aws.upsert(page(1))
    report = aws.invoke()
    assert "robots.txt" in report["objects_written"]
    robots = aws.object("robots.txt")
    assert robots["Body"].read() == b"Sitemap: https://cdn.example.net/sitemap.xml\n"
    assert robots["ContentType"] == "text/plain; charset=utf-8"
    index = aws.object("sitemap.xml")["Body"].read()
    assert b"<loc>https://cdn.example.net/sitemap-pages-r.xml.gz</loc>" in index
    assert aws.invoke()["objects_written"] == []


def test_a_feed_backlog_is_read_over_several_runs_without_loss(aws: Aws) -> None:
    clock = [1_700_000_000.0]
    aws.upsert(*(page(i) for i in range(6)))
    _service(aws, clock, grace=0).run()
    taken = int(aws.checkpoint()["saved_at"]["N"])  # type: ignore[index]
    aws.upsert(*(page(i, "2024-07-01") for i in range(6, 16)))

    runs = []
    for _ in range(10):
        clock[0] += 300
        service = _service(aws, clock, grace=0)
        service.config = replace(service.config, feed_max_records=3)
        runs.append(service.run())
        if len(runs) == 1:
            # stopped early: the checkpoint keeps the time of the one it started from, so a
            # backlog that lasts a day still falls back to a full rebuild before records expire
            assert int(aws.checkpoint()["saved_at"]["N"]) == taken  # type: ignore[index]
        if runs[-1].complete:
            break

    assert [r.feed_records for r in runs[:3]] == [3, 3, 3]
    assert runs[0].complete is False and runs[-1].complete is True
    assert all(r.mode == "incremental" for r in runs)
    assert int(aws.checkpoint()["saved_at"]["N"]) > taken  # type: ignore[index]
    assert _all_urls(aws) == sorted(f"{SITE}/page/{i}" for i in range(16))
