"""The per-run metrics the handler emits (CloudWatch EMF on stdout, captured the way the
Powertools documentation tests metrics), checked against what the run did to the table and
the bucket, counted independently of the run's own report."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from sitemap_updater.page.model import Page
from sitemap_updater.store.spaces import shard_file_key
from tests.helpers.files import urlset_file
from tests.integration.rebuild.conftest import BUCKET, SITE, STATE_TABLE, Aws, page

NAMESPACE = "SitemapUpdaterTest"


def emf_documents(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith('{"_aws"')]


def metric_values(document: dict[str, Any]) -> dict[str, tuple[str, float]]:
    """name -> (unit, value) of one EMF document (one value per metric)."""
    (directive,) = document["_aws"]["CloudWatchMetrics"]
    assert directive["Namespace"] == NAMESPACE
    values = {}
    for metric in directive["Metrics"]:
        raw = document[metric["Name"]]
        (value,) = raw if isinstance(raw, list) else [raw]
        values[metric["Name"]] = (metric["Unit"], float(value))
    return values


def versions(aws: Aws) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """(object versions, delete markers) of the versioned bucket, as (key, version id)."""
    found: tuple[set[tuple[str, str]], set[tuple[str, str]]] = (set(), set())
    for listing in aws.s3.get_paginator("list_object_versions").paginate(Bucket=BUCKET):
        for version in listing.get("Versions", []):
            found[0].add((version["Key"], version["VersionId"]))
        for marker in listing.get("DeleteMarkers", []):
            found[1].add((marker["Key"], marker["VersionId"]))
    return found


def test_each_run_metric_matches_what_the_run_did(
    aws: Aws, capsys: pytest.CaptureFixture[str]
) -> None:
    aws.upsert(*(page(i, "2024-05-01") for i in range(40)))
    aws.invoke()
    aws.s3.put_bucket_versioning(Bucket=BUCKET, VersioningConfiguration={"Status": "Enabled"})
    by_leaf: dict[str, list[int]] = {}
    for i in range(40):
        by_leaf.setdefault(aws.leaf_of(f"{SITE}/page/{i}"), []).append(i)
    updated = [pages[0] for pages in list(by_leaf.values())[:3]]
    aws.upsert(*(page(i, "2024-06-01") for i in updated))
    # pages for the smallest shard until it passes the cap of 8: it splits, its file is retired
    smallest = min(by_leaf, key=lambda leaf: len(by_leaf[leaf]))
    grown = [n for n in range(1000, 1400) if aws.leaf_of(f"{SITE}/page/{n}") == smallest]
    aws.upsert(*(page(n, "2024-06-02") for n in grown[: 9 - len(by_leaf[smallest])]))
    planned = {aws.leaf_of(f"{SITE}/page/{i}") for i in updated} | {smallest}
    puts_before, deletes_before = versions(aws)
    capsys.readouterr()

    started = time.monotonic()
    aws.invoke()
    elapsed = time.monotonic() - started

    (document,) = emf_documents(capsys.readouterr().out)
    metrics = metric_values(document)
    puts_after, deletes_after = versions(aws)
    written = puts_after - puts_before
    deleted = deletes_after - deletes_before
    assert len(planned) >= 3 and len(written) >= 4 and len(deleted) >= 1  # a run worth measuring
    assert {key for key, _ in deleted} == {shard_file_key(smallest)}
    assert aws.invoke()["objects_written"] == []  # nothing was left for a later run
    published = sum(len(locs) for locs in aws.crawl().values())

    assert metrics["ShardsRebuilt"] == ("Count", len(planned))
    assert metrics["FilesWritten"] == ("Count", len(written))
    assert metrics["FilesDeleted"] == ("Count", len(deleted))
    assert metrics["UrlsPublished"] == ("Count", published)
    changed = len(updated) + len(grown[: 9 - len(by_leaf[smallest])])
    assert metrics["UrlsChanged"] == ("Count", changed)
    assert metrics["FeedRecords"] == ("Count", changed)
    assert metrics["FeedGapFullRebuilds"] == ("Count", 0)
    assert metrics["ObjectsRepaired"] == ("Count", 0)
    unit, seconds = metrics["RunSeconds"]
    assert unit == "Seconds"
    assert 0 < seconds <= elapsed
    assert set(metrics) == {
        "ShardsRebuilt",
        "FilesWritten",
        "FilesDeleted",
        "UrlsPublished",
        "RunSeconds",
        "FeedRecords",
        "UrlsChanged",
        "FeedGapFullRebuilds",
        "ObjectsRepaired",
    }


def test_a_run_with_nothing_to_do_reports_zeros_but_the_published_urls(
    aws: Aws, capsys: pytest.CaptureFixture[str]
) -> None:
    aws.upsert(*(page(i) for i in range(5)))
    aws.invoke()
    capsys.readouterr()

    aws.invoke()

    (document,) = emf_documents(capsys.readouterr().out)
    metrics = metric_values(document)
    assert metrics["ShardsRebuilt"][1] == 0
    assert metrics["FilesWritten"][1] == 0
    assert metrics["FilesDeleted"][1] == 0
    assert metrics["UrlsPublished"][1] == sum(len(locs) for locs in aws.crawl().values()) == 5


def test_a_checkpoint_older_than_the_stream_keeps_records_means_a_full_rebuild_said_aloud(
    aws: Aws, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    aws.upsert(*(page(i) for i in range(5)))
    aws.invoke()
    item = aws.checkpoint()
    assert item is not None
    day_old = int(item["saved_at"]["N"]) - 24 * 3600  # the rebuild was down for a day
    aws.dynamodb.update_item(
        TableName=STATE_TABLE,
        Key={"pk": item["pk"], "sk": item["sk"]},
        UpdateExpression="SET saved_at = :t",
        ExpressionAttributeValues={":t": {"N": str(day_old)}},
    )
    aws.upsert(page(7))
    capsys.readouterr()

    with caplog.at_level("WARNING"):
        report = aws.invoke()

    assert report["mode"] == "full"
    assert "checkpoint too old" in report["feed_gap"]
    assert any("cannot prove" in r.getMessage() for r in caplog.records)
    (document,) = emf_documents(capsys.readouterr().out)
    metrics = metric_values(document)
    assert metrics["FeedGapFullRebuilds"] == ("Count", 1)
    assert metrics["DriftRepaired"] == ("Count", 1)  # page 7, which no run had published yet
    assert sorted(loc for locs in aws.crawl().values() for loc in locs) == sorted(
        f"{SITE}/page/{i}" for i in [0, 1, 2, 3, 4, 7]
    )
    assert int(aws.checkpoint()["saved_at"]["N"]) > day_old  # type: ignore[index]


def test_the_reconciling_full_rebuild_repairs_and_counts_drift(
    aws: Aws, capsys: pytest.CaptureFixture[str]
) -> None:
    aws.upsert(*(page(i) for i in range(20)))
    aws.invoke()
    files = aws.crawl()
    key = max(files, key=lambda k: len(files[k]))
    # a file that lost two of its entries behind the rebuild's back (a hand edit, a bad restore)
    kept = sorted(files[key])[2:]
    body = urlset_file([Page(url=loc) for loc in kept])
    aws.s3.put_object(Bucket=BUCKET, Key=key, Body=body)
    capsys.readouterr()

    report = aws.invoke({"full_rebuild": True})

    assert report["drift_repaired"] == 2
    (document,) = emf_documents(capsys.readouterr().out)
    assert metric_values(document)["DriftRepaired"] == ("Count", 2)
    assert sorted(aws.crawl()[key]) == sorted(files[key])
    assert aws.invoke({"full_rebuild": True})["drift_repaired"] == 0
