"""The rebuild handler end to end on moto: first build, one change, split, empty site."""

from __future__ import annotations

import gzip
from typing import Any

from sitemap_updater.store.shards import query_ranges
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


def test_first_build_publishes_every_url_in_valid_files(aws: Aws) -> None:
    aws.upsert(*(page(i, "2024-05-01") for i in range(5)))
    report = aws.invoke()
    assert report["status"] == "published"
    assert report["complete"] is True
    assert report["shards_rebuilt"] == 1
    assert sorted(report["objects_written"]) == ["sitemap-r.xml.gz", "sitemap.xml"]
    assert report["urls_published"] == 5
    assert report["files"] == 1
    assert report["dynamodb_items_read"] == 5
    files = aws.crawl()
    assert sorted(files["sitemap-r.xml.gz"]) == sorted(f"{SITE}/page/{i}" for i in range(5))
    assert aws.invalidations() == [["/sitemap-r.xml.gz", "/sitemap.xml"]]
    index = aws.object("sitemap.xml")
    assert index["ContentType"] == "application/xml; charset=utf-8"
    assert index["CacheControl"] == "public, max-age=300"
    shard = aws.object("sitemap-r.xml.gz")
    assert shard["ContentType"] == "application/gzip"
    assert shard["CacheControl"] == "public, max-age=3600"
    assert "ContentEncoding" not in shard
    assert aws.index_lastmods() == {"sitemap-r.xml.gz": "2024-05-01"}
    state = aws.shard_state("r")
    assert state["built_seq"] == state["dirty_seq"]


def test_a_second_run_without_changes_does_nothing(aws: Aws) -> None:
    aws.upsert(page(1))
    aws.invoke()
    before = aws.invalidations()
    report = aws.invoke()
    assert report["status"] == "nothing-to-do"
    assert report["objects_written"] == []
    assert report["dynamodb_items_read"] == 0
    assert report["invalidated_paths"] == []
    assert aws.invalidations() == before


def test_one_changed_url_rewrites_one_shard_file_and_the_index(aws: Aws) -> None:
    aws.upsert(*(page(i, "2024-05-01") for i in range(40)))
    first = aws.invoke()
    leaves = aws.leaves()
    assert len(leaves) >= 5, leaves  # cap 8: the root split into a multi-shard site
    assert first["files"] == len(aws.crawl())
    changed = page(7, "2024-06-01")
    leaf = aws.leaf_of(changed.loc)
    leaf_size = len(aws.crawl()[f"sitemap-{leaf}.xml.gz"])
    reads = _reads(aws)
    puts = aws.record_puts()
    aws.upsert(changed)

    report = aws.invoke()

    assert report["shards_rebuilt"] == 1
    assert sorted(puts) == sorted([f"sitemap-{leaf}.xml.gz", "sitemap.xml"])
    assert sorted(report["objects_written"]) == sorted(puts)
    assert report["invalidated_paths"] == sorted([f"/sitemap-{leaf}.xml.gz", "/sitemap.xml"])
    assert aws.invalidations()[-1] == report["invalidated_paths"]
    # the only URL items read are the changed shard's, by Query (never a Scan)
    assert {name for name, _, _ in reads} == {"Query"}
    url_queries = [(pk, count) for _, pk, count in reads if pk.startswith("u#")]
    assert [pk for pk, _ in url_queries] == [r.pk for r in query_ranges(leaf)]
    url_reads = sum(count for _, count in url_queries)
    assert url_reads == leaf_size == report["dynamodb_items_read"]
    assert aws.index_lastmods()[f"sitemap-{leaf}.xml.gz"] == "2024-06-01"
    others = {k: v for k, v in aws.index_lastmods().items() if k != f"sitemap-{leaf}.xml.gz"}
    assert set(others.values()) == {"2024-05-01"}


def test_a_shard_past_its_cap_is_split_and_its_old_file_retired(aws: Aws) -> None:
    aws.upsert(*(page(i) for i in range(6)))
    aws.invoke()
    assert aws.leaves() == ["r"]
    aws.upsert(*(page(i) for i in range(6, 12)))

    report = aws.invoke()

    assert report["shards_split"] == 1
    leaves = aws.leaves()
    assert len(leaves) >= 2 and "r" not in leaves
    files = aws.crawl()
    assert "sitemap-r.xml.gz" not in files
    assert all(len(locs) <= 8 for locs in files.values())
    assert sorted(loc for locs in files.values() for loc in locs) == sorted(
        f"{SITE}/page/{i}" for i in range(12)
    )
    # grace 0: the old file goes in the same run, after the new index stopped listing it
    assert report["objects_deleted"] == ["sitemap-r.xml.gz"]
    assert "sitemap-r.xml.gz" not in aws.object_keys()
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
    assert aws.object_keys() == {"sitemap.xml", "sitemap-home.xml.gz"}
    home_lastmod = aws.index_lastmods()["sitemap-home.xml.gz"]
    assert home_lastmod is not None

    aws.upsert(page(1))
    back = aws.invoke()
    assert aws.crawl() == {f"sitemap-{aws.leaf_of(page(1).loc)}.xml.gz": [f"{SITE}/page/1"]}
    assert "sitemap-home.xml.gz" in back["objects_deleted"]


def test_an_empty_table_publishes_the_empty_site_on_the_first_run(aws: Aws) -> None:
    report = aws.invoke()
    assert report["status"] == "published"
    assert aws.crawl() == {"sitemap-home.xml.gz": [f"{SITE}/"]}
    raw = aws.object("sitemap-home.xml.gz")["Body"].read()
    assert gzip.decompress(raw).startswith(b"<?xml")
