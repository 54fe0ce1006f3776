"""The upgrade from 0.1.0's state: one ``meta/shardmap`` item with every space's tree, one
``meta/published`` item with every listed file, a ``shard#<id>`` item per node.

``data/state-0.1.0.json.gz`` holds three state tables, each with its URL table and bucket, as
0.1.0's own rebuild wrote them (captured with that release's stores, before this layout
replaced them) for a site of two hosts (``www.example.com`` and ``www.example.de``), path rules
(``/products/`` is its own section), a section the changes of the second host name, three news
articles, robots.txt, and enough growth to split its trees:

- ``published``: two runs, the second an incremental one with updates, deletes and splits;
- ``pending``: then a full rebuild that ran out of time, its leaves held back;
- ``in_flight``: then a run that died after its index write (its changes are in ``feed``, the
  stream records written after the checkpoint, which the restore writes again).

After every S3 write and delete of each run the indexes of both hosts validate and name only
files that exist (``Watch``), crash points in the conversion included; every run ends with what
a full rebuild of the same URL table publishes in a table that never knew 0.1.0.
"""

from __future__ import annotations

import base64
import functools
import gzip
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import boto3
import pytest
from lxml import etree

from sitemap_updater.protocol.stylesheet import STYLESHEET_NAME
from sitemap_updater.rebuild.inputs.feed import StreamFeed
from sitemap_updater.rebuild.state.checkpoint import CheckpointStore
from sitemap_updater.rebuild.state.publication import PublicationStore
from sitemap_updater.store.keys import LEGACY_SHARDMAP_SK, PUBLISHED_SK, meta_key
from sitemap_updater.view import view_files
from tests.helpers.state import tree_states
from tests.integration.rebuild.conftest import BUCKET, STATE_TABLE, TABLE, Aws
from tests.reliability.crash_support import (
    CrashPoint,
    InjectedCrashError,
    Watch,
    world,
)
from tests.reliability.test_crashes import apply_env

FIXTURE = json.loads(
    gzip.decompress((Path(__file__).parent / "data/state-0.1.0.json.gz").read_bytes())
)
PRIMARY = "https://www.example.com"
SECOND = "https://www.example.de"
HOSTS = ((SECOND, "www.example.de/"),)
#: the runs' clock: half an hour after 0.1.0's last run (the news articles are still recent)
CLOCK = FIXTURE["clock"] + 1_800
NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}
#: the names of the files put beside each index for the view (``sitemap_updater.view``)
VIEW_NAMES = {name for name, _ in view_files()} | {STYLESHEET_NAME}


def table(name: str) -> dict[str, Any]:
    return next(t for t in FIXTURE["tables"] if t["name"] == name)


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    apply_env(monkeypatch)
    for key, value in FIXTURE["environment"].items():
        monkeypatch.setenv(key, value)
    return monkeypatch


def _put_items(aws: Aws, name: str, items: list[dict[str, Any]]) -> None:
    for start in range(0, len(items), 25):
        aws.dynamodb.batch_write_item(
            RequestItems={name: [{"PutRequest": {"Item": i}} for i in items[start : start + 25]]}
        )


@contextmanager
def old_world(env: pytest.MonkeyPatch, name: str) -> Iterator[Aws]:
    """A fresh world holding the table ``name`` of the fixture, its feed written after the
    checkpoint, and the rebuild handler's clock at ``CLOCK``."""
    captured = table(name)
    with world(env) as aws:
        _put_items(aws, TABLE, captured["items"])
        _put_items(aws, STATE_TABLE, captured["state_items"])
        arn = aws.dynamodb.describe_table(TableName=TABLE)["Table"]["LatestStreamArn"]
        feed = StreamFeed(boto3.client("dynamodbstreams", region_name="us-east-1"), arn)
        CheckpointStore(aws.dynamodb, STATE_TABLE).save(feed.tip(None))
        for item in captured.get("feed", []):
            aws.dynamodb.put_item(TableName=TABLE, Item=item)
        for obj in captured["objects"]:
            aws.s3.put_object(
                Bucket=BUCKET,
                Key=obj["key"],
                Body=base64.b64decode(FIXTURE["blobs"][obj["sha256"]]),
                ContentType=obj["content_type"],
                CacheControl=obj["cache_control"],
            )
        aws.handler_module.clock = lambda: CLOCK
        yield aws


def urls(watch: Watch) -> dict[str, bytes]:
    """Every published URL of both hosts -> its canonical ``<url>`` element (each URL once)."""
    published: dict[str, bytes] = {}
    for key, xml in watch.reader.published().items():
        if "sitemap-news-" in key:
            continue
        for node in etree.fromstring(xml).findall("sm:url", NS):
            loc = node.findtext("sm:loc", namespaces=NS) or ""
            assert loc not in published, f"{loc} is published twice"
            published[loc] = etree.tostring(node, method="c14n")
    return published


@functools.cache
def reference(name: str) -> dict[str, bytes]:
    """What a full rebuild of the table's URL items publishes, in a world without 0.1.0."""
    captured = table(name)
    with pytest.MonkeyPatch.context() as mp:
        apply_env(mp)
        for key, value in FIXTURE["environment"].items():
            mp.setenv(key, value)
        with world(mp) as aws:
            _put_items(aws, TABLE, captured["items"])
            for item in captured.get("feed", []):
                aws.dynamodb.put_item(TableName=TABLE, Item=item)
            aws.handler_module.clock = lambda: CLOCK
            assert aws.invoke({"full_rebuild": True})["complete"] is True
            return urls(Watch(aws, HOSTS))


def converted(aws: Aws) -> bool:
    """Whether the state table is in this version's layout (0.1.0's map gone)."""
    key = {name: {"S": value} for name, value in meta_key(LEGACY_SHARDMAP_SK).items()}
    shardmap = aws.dynamodb.get_item(TableName=STATE_TABLE, Key=key).get("Item")
    publication = PublicationStore(aws.dynamodb, STATE_TABLE).load()
    return shardmap is None and publication.legacy is None and publication.publication is not None


def test_the_upgrade_converts_the_state_and_rewrites_no_file(env: pytest.MonkeyPatch) -> None:
    expected = reference("published")
    with old_world(env, "published") as aws:
        before = {o["Key"] for o in aws.s3.list_objects_v2(Bucket=BUCKET)["Contents"]}
        watch = Watch(aws, HOSTS)
        watch.install()
        leaves = [
            v["S"]
            for i in table("published")["state_items"]
            if i["sk"]["S"] == "shardmap"
            for v in i["leaves"]["L"]
        ]

        report = aws.invoke()

        assert watch.violations == []
        assert converted(aws)
        assert report["mode"] == "incremental" and report["complete"] is True
        # the same layout: every index and file keeps its bytes, so no crawler sees a change;
        # only the view's files are put again, where this version's view differs from 0.1.0's
        written = report["objects_written"]
        assert report["objects_deleted"] == []
        assert {key.rsplit("/", 1)[-1] for key in written} <= VIEW_NAMES
        old = {o["key"]: FIXTURE["blobs"][o["sha256"]] for o in table("published")["objects"]}
        for key in written:
            body = aws.s3.get_object(Bucket=BUCKET, Key=key)["Body"].read()
            assert base64.b64decode(old[key]) != body, f"{key} put again with its own bytes"
        assert sorted(tree_states(aws.dynamodb, STATE_TABLE)) == sorted(leaves)
        assert urls(watch) == expected
        after = {o["Key"] for o in aws.s3.list_objects_v2(Bucket=BUCKET)["Contents"]}
        assert after == before


@pytest.mark.parametrize("name", ["pending", "in_flight"])
def test_held_leaves_and_a_crashed_run_of_0_1_0_are_finished(
    env: pytest.MonkeyPatch, name: str
) -> None:
    expected = reference(name)
    with old_world(env, name) as aws:
        watch = Watch(aws, HOSTS)
        watch.install()

        report = aws.invoke()

        assert watch.violations == []
        assert converted(aws)
        assert report["complete"] is True
        assert urls(watch) == expected
        assert aws.invoke()["objects_written"] == []


def _is_new_item(params: dict[str, Any]) -> bool:
    """A write of an item of this version's layout (a branch, host record, mark or news)."""
    pk = str(params.get("Item", {}).get("pk", {}).get("S", ""))
    return pk.startswith(("tree#", "hosts#", "held#", "news#"))


def _is_map_delete(params: dict[str, Any]) -> bool:
    return params.get("Key", {}).get("sk", {}).get("S") == LEGACY_SHARDMAP_SK


@pytest.mark.parametrize(
    "point",
    [
        CrashPoint(
            "after the first item of the new layout", "dynamodb", "PutItem", False, 0, _is_new_item
        ),
        CrashPoint("after four of them", "dynamodb", "PutItem", False, 3, _is_new_item),
        CrashPoint(
            "before the publication replaces 0.1.0's",
            "dynamodb",
            "PutItem",
            True,
            0,
            lambda p: p.get("Item", {}).get("sk", {}).get("S") == PUBLISHED_SK,
        ),
        CrashPoint(
            "before 0.1.0's map is deleted", "dynamodb", "DeleteItem", True, 0, _is_map_delete
        ),
    ],
    ids=lambda p: p.label,
)
def test_an_upgrade_that_dies_is_done_again_by_the_next_run(
    env: pytest.MonkeyPatch, point: CrashPoint
) -> None:
    expected = reference("in_flight")
    with old_world(env, "in_flight") as aws:
        watch = Watch(aws, HOSTS)
        watch.install()
        disarm = point.arm(aws)
        with pytest.raises(InjectedCrashError):
            aws.invoke()
        disarm()
        assert point.fired

        report = aws.invoke()

        assert watch.violations == []
        assert converted(aws)
        assert report["complete"] is True
        assert urls(watch) == expected


def test_a_host_with_more_sections_than_the_cap_moves_every_url(env: pytest.MonkeyPatch) -> None:
    expected = reference("published")
    env.setenv("MAX_SECTIONS_PER_HOST", "2")  # pages and products: no room for a named one
    with old_world(env, "published") as aws:
        watch = Watch(aws, HOSTS)
        watch.install()

        report = aws.invoke()
        rest = aws.invoke()

        assert watch.violations == []
        assert converted(aws)
        assert report["mode"] == "full" and rest["complete"] is True
        published = urls(watch)
        assert set(published) == set(expected)
        assert not any("angebote" in key for key in watch.reader.published())
