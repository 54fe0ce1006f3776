"""The rebuild handler end to end on moto: first build, one change, split, empty site."""

from __future__ import annotations

import gzip
from typing import Any

from sitemap_updater.store.spaces import shard_file_key
from sitemap_updater.view import VIEW_NAMES
from tests.integration.rebuild.conftest import SITE, Aws, page


def _reads(aws: Aws) -> list[tuple[str, str, int]]:
    """Every DynamoDB Query/Scan the handler's client makes: (operation, pk, ScannedCount)."""
    seen: list[tuple[str, str, int]] = []
    pks: list[str] = []

    def before(params: dict[str, Any], model: Any, **_: Any) -> None:
        pk = params.get("ExpressionAttributeValues", {}).get(":pk", {}).get("S", "")
        pks.append(pk)

    def after(parsed: dict[str, Any], model: Any, **_: Any) -> None:
        seen.append((model.name, pks.pop(0), int(parsed.get("ScannedCount", 0))))

    events = aws.handler_module._client("dynamodb").meta.events
    for op in ("Query", "Scan"):
        events.register(f"before-parameter-build.dynamodb.{op}", before)
        events.register(f"after-call.dynamodb.{op}", after)
    return seen


def _url_reads(reads: list[tuple[str, str, int]]) -> list[tuple[str, str, int]]:
    """The Scans and the Queries of the URL table's partitions among ``reads``."""
    return [read for read in reads if read[0] == "Scan" or read[1].startswith("u#")]


def test_first_build_publishes_every_url_in_valid_files(aws: Aws) -> None:
    aws.upsert(*(page(i, "2024-05-01") for i in range(5)))
    reads = _reads(aws)
    report = aws.invoke()
    assert report["status"] == "published"
    # no checkpoint yet: the first run publishes from a Scan of the table
    assert report["mode"] == "full"
    assert "no checkpoint" in report["feed_gap"]
    assert report["complete"] is True
    assert report["shards_rebuilt"] == 1
    assert sorted(report["objects_written"]) == sorted(
        ["sitemap-pages-r.xml.gz", "sitemap.xml", "sitemap.xsl", *VIEW_NAMES]
    )
    assert report["urls_published"] == 5
    assert report["files"] == 1
    scanned = sum(count for name, _, count in reads if name == "Scan")
    assert scanned == 5
    # the URL items plus the publication and the checkpoint (no state of a tree yet)
    assert report["dynamodb_items_read"] == scanned + 2
    files = aws.crawl()
    assert sorted(files["sitemap-pages-r.xml.gz"]) == sorted(f"{SITE}/page/{i}" for i in range(5))
    written = ["sitemap-pages-r.xml.gz", "sitemap.xml", "sitemap.xsl", *VIEW_NAMES]
    assert aws.invalidations() == [sorted("/" + key for key in written)]
    index = aws.object("sitemap.xml")
    assert index["ContentType"] == "application/xml; charset=utf-8"
    assert index["CacheControl"] == "public, max-age=10"
    shard = aws.object("sitemap-pages-r.xml.gz")
    assert shard["ContentType"] == "application/gzip"
    assert shard["CacheControl"] == "public, max-age=10"
    assert "ContentEncoding" not in shard
    assert aws.index_lastmods() == {"sitemap-pages-r.xml.gz": "2024-05-01"}
    assert aws.checkpoint() is not None


def test_a_second_run_without_changes_does_nothing(aws: Aws) -> None:
    aws.upsert(page(1))
    aws.invoke()
    before = aws.invalidations()
    reads = _reads(aws)
    report = aws.invoke()
    assert report["status"] == "nothing-to-do"
    assert report["mode"] == "incremental"
    assert report["objects_written"] == []
    assert report["feed_records"] == 0
    assert _url_reads(reads) == []  # no URL Query, no Scan
    assert report["s3_objects_read"] == []
    # only the publication and the checkpoint (no branch holds a leaf back, no host has news
    # files, no file awaits retirement)
    assert report["dynamodb_items_read"] == 2
    assert report["invalidated_paths"] == []
    assert aws.invalidations() == before


def test_one_changed_url_rewrites_one_shard_file_and_the_index(aws: Aws) -> None:
    aws.upsert(*(page(i, "2024-05-01") for i in range(40)))
    first = aws.invoke()
    leaves = aws.leaves()
    assert len(leaves) >= 5, leaves  # cap 8: the root split into a multi-shard site
    assert first["files"] == len(aws.crawl())
    changed = page(7, "2024-06-01")
    leaf = aws.leaf_of(changed.url)
    leaf_size = len(aws.crawl()[shard_file_key(leaf)])
    reads = _reads(aws)
    puts = aws.record_puts()
    aws.upsert(changed)

    report = aws.invoke()

    assert report["shards_rebuilt"] == 1
    assert sorted(puts) == sorted([shard_file_key(leaf), "sitemap.xml"])
    assert sorted(report["objects_written"]) == sorted(puts)
    assert report["invalidated_paths"] == sorted(["/" + shard_file_key(leaf), "/sitemap.xml"])
    assert aws.invalidations()[-1] == report["invalidated_paths"]
    # no URL item of the table is read: the change comes from the stream, the unchanged
    # entries from the published file
    assert _url_reads(reads) == []
    assert report["feed_records"] == 1
    assert report["s3_objects_read"] == [shard_file_key(leaf)]
    assert report["urls_changed"] == 1
    # one stream record, the publication and the checkpoint, the host's record and the one
    # branch of the index the change falls in (40 URLs, 8 a file: far fewer than 512 leaves)
    assert report["dynamodb_items_read"] == 5
    assert len(aws.crawl()[shard_file_key(leaf)]) == leaf_size
    assert aws.index_lastmods()[shard_file_key(leaf)] == "2024-06-01"
    others = {k: v for k, v in aws.index_lastmods().items() if k != shard_file_key(leaf)}
    assert set(others.values()) == {"2024-05-01"}


def test_a_shard_past_its_cap_is_split_and_its_old_file_retired(aws: Aws) -> None:
    aws.upsert(*(page(i) for i in range(6)))
    aws.invoke()
    assert aws.leaves() == ["pages/r"]
    aws.upsert(*(page(i) for i in range(6, 12)))

    report = aws.invoke()

    assert report["shards_split"] == 1
    leaves = aws.leaves()
    assert len(leaves) >= 2 and "r" not in leaves
    files = aws.crawl()
    assert "sitemap-pages-r.xml.gz" not in files
    assert all(len(locs) <= 8 for locs in files.values())
    assert sorted(loc for locs in files.values() for loc in locs) == sorted(
        f"{SITE}/page/{i}" for i in range(12)
    )
    # grace 0: the old file goes in the same run, after the new index stopped listing it
    assert report["objects_deleted"] == ["sitemap-pages-r.xml.gz"]
    assert "sitemap-pages-r.xml.gz" not in aws.object_keys()
    # without lastmods, the index stamps the time each file's bytes changed
    assert all(v is not None for v in aws.index_lastmods().values())


def test_deleting_every_url_publishes_the_documented_empty_site(aws: Aws) -> None:
    aws.upsert(*(page(i) for i in range(12)))
    aws.invoke()
    aws.delete(*(f"{SITE}/page/{i}" for i in range(12)))

    report = aws.invoke()

    assert report["urls_published"] == 0
    assert report["files"] == 1
    assert aws.crawl() == {"sitemap-home.xml.gz": [f"{SITE}/"]}
    assert aws.object_keys() == {"sitemap.xml", "sitemap-home.xml.gz", "sitemap.xsl", *VIEW_NAMES}
    home_lastmod = aws.index_lastmods()["sitemap-home.xml.gz"]
    assert home_lastmod is not None

    aws.upsert(page(1))
    back = aws.invoke()
    assert aws.crawl() == {shard_file_key(aws.leaf_of(page(1).url)): [f"{SITE}/page/1"]}
    assert "sitemap-home.xml.gz" in back["objects_deleted"]


def test_an_empty_table_publishes_the_empty_site_on_the_first_run(aws: Aws) -> None:
    report = aws.invoke()
    assert report["status"] == "published"
    assert aws.crawl() == {"sitemap-home.xml.gz": [f"{SITE}/"]}
    raw = aws.object("sitemap-home.xml.gz")["Body"].read()
    assert gzip.decompress(raw).startswith(b"<?xml")
