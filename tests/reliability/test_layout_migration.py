"""Updating a running stack from hash-named files to sections: one run moves every URL into its
section's files. After every S3 write and delete of the handler the index validates and names
only files that exist (``Watch``), crash points included; the next run repairs a crashed move,
and the old hash-named files are deleted once their grace period has passed."""

from __future__ import annotations

import functools
from collections.abc import Iterator

import pytest
from lxml import etree

from sitemap_updater.protocol.index import render_index
from sitemap_updater.protocol.urls import Site
from sitemap_updater.rebuild.outputs.bucket import Publisher
from sitemap_updater.rebuild.render import render_shard
from sitemap_updater.rebuild.state.nodes import NodeState, ShardMap, StateStore
from sitemap_updater.rebuild.state.published import PublishedRecord, PublishedStore
from sitemap_updater.rebuild.steps.objects import sha256_hex
from sitemap_updater.store.items import url_hash_of
from sitemap_updater.store.spaces import shard_file_key
from tests.integration.rebuild.conftest import BUCKET, SITE, STATE_TABLE, TABLE, Aws, FakeContext
from tests.reliability.crash_support import (
    CrashPoint,
    InjectedCrashError,
    Snapshot,
    Watch,
    bucket,
    is_index,
    published_files,
    published_urls,
    world,
)
from tests.reliability.test_crashes import apply_env, page

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
PAGES = 30
RULES = "/page/1=ones,/page/2=twos"
#: a file of the layout from before sections (``sitemap-r01.xml.gz``)
LEGACY = "sitemap-r"


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    apply_env(monkeypatch)
    monkeypatch.delenv("SECTION_RULES", raising=False)
    return monkeypatch


def publish_as_before_sections(aws: Aws) -> None:
    """What a stack of the version before sections holds: its URL items, hash-named files, an
    index listing them, node states, a shard map without a layout and its publish record."""
    aws.upsert(*(page(i, "2024-05-01") for i in range(PAGES)))
    items = sorted(
        aws.dynamodb.scan(TableName=TABLE, ConsistentRead=True)["Items"], key=url_hash_of
    )
    site = Site.parse(SITE)
    parts = render_shard("r", items, site, max_urls=8, max_bytes=1 << 20, stylesheet=False)
    publisher = Publisher(aws.s3, BUCKET)
    store = StateStore(aws.dynamodb, STATE_TABLE)
    listed = []
    for part in parts:
        assert part.body is not None
        key = shard_file_key(part.shard_id)
        publisher.put(key, part.body)
        store.save_state(
            NodeState(part.shard_id, True, part.sha256, part.newest_lastmod, None, part.url_count)
        )
        listed.append((key, part.newest_lastmod, part.url_count))
    index, _ = render_index([(f"{SITE}/{key}", lastmod) for key, lastmod, _ in listed])  # no xsl
    publisher.put("sitemap.xml", index)
    leaves = tuple(part.shard_id for part in parts)
    store.save_map(ShardMap(leaves=leaves, nodes=("r", *leaves)))
    PublishedStore(aws.dynamodb, STATE_TABLE).save(
        PublishedRecord(
            files=tuple(key for key, _, _ in listed),
            singles=(("sitemap.xml", sha256_hex(index)),),
            lastmods=tuple(lastmod for _, lastmod, _ in listed),
            counts=tuple(count for _, _, count in listed),
        )
    )


@functools.cache
def before_sections() -> Snapshot:
    with pytest.MonkeyPatch.context() as mp:
        apply_env(mp)
        with world(mp) as aws:
            publish_as_before_sections(aws)
            return Snapshot.take(aws)


def expected_urls() -> set[str]:
    return {f"{SITE}/page/{i}" for i in range(PAGES)}


def keys_of(aws: Aws) -> set[str]:
    return set(bucket(aws.s3))


def sections_of(keys: set[str]) -> set[str]:
    return {k.removeprefix("sitemap-").rsplit("-r", 1)[0] for k in keys if "-r" in k}


def migrate(aws: Aws, env: pytest.MonkeyPatch) -> dict[str, object]:
    env.setenv("SECTION_RULES", RULES)
    return aws.invoke()


def test_one_run_moves_every_url_into_its_sections_files(env: pytest.MonkeyPatch) -> None:
    snapshot = before_sections()
    with world(env) as aws:
        snapshot.restore(aws)
        assert set(published_urls(aws.s3)) == expected_urls()
        watch = Watch(aws)
        watch.install()

        report = migrate(aws, env)

        assert watch.violations == []
        assert report["mode"] == "full" and report["complete"] is True
        assert report["drift_repaired"] == 0 and report["urls_changed"] == 0  # no entry changed
        assert set(published_urls(aws.s3)) == expected_urls()
        keys = keys_of(aws)
        assert not any(k.startswith(LEGACY) for k in keys)  # grace 0: retired at once
        assert sections_of(keys) == {"ones", "twos", "pages"}
        assert aws.invoke()["mode"] == "incremental"  # the new layout is recorded


def test_the_old_files_stay_until_their_grace_period_has_passed(
    env: pytest.MonkeyPatch,
) -> None:
    env.setenv("RETIRE_GRACE_SECONDS", "3600")
    snapshot = before_sections()
    with world(env) as aws:
        snapshot.restore(aws)
        old = {k for k in keys_of(aws) if k.startswith(LEGACY)}
        now = [2_000_000_000.0]
        aws.handler_module.clock = lambda: now[0]

        migrate(aws, env)
        assert old <= keys_of(aws)  # a crawler holding the old index still gets them
        now[0] += 3601
        later = aws.invoke()

        assert sorted(later["objects_deleted"]) == sorted(old)
        assert not old & keys_of(aws)


def test_a_move_out_of_time_keeps_the_old_files_listed_until_it_is_done(
    env: pytest.MonkeyPatch,
) -> None:
    snapshot = before_sections()
    with world(env) as aws:
        snapshot.restore(aws)
        puts = aws.record_puts()
        watch = Watch(aws)
        watch.install()

        env.setenv("SECTION_RULES", RULES)
        first = aws.invoke(context=FakeContext(lambda: 30_000 if puts else 120_000))

        assert first["complete"] is False
        assert watch.violations == []
        assert set(published_urls_allowing_twice(aws)) == expected_urls()
        rest = aws.invoke()
        assert rest["complete"] is True
        assert set(published_urls(aws.s3)) == expected_urls()
        assert not any(k.startswith(LEGACY) for k in keys_of(aws))


def published_urls_allowing_twice(aws: Aws) -> set[str]:
    """Every URL the index reaches; while a move is under way an old file and a new one may
    both hold a URL (a crawler sees it twice, never not at all)."""
    urls: set[str] = set()
    for xml in published_files(aws.s3).values():
        urls |= {loc.text or "" for loc in etree.fromstring(xml).iter(f"{{{SITEMAP_NS}}}loc")}
    return urls


def crash_points() -> Iterator[CrashPoint]:
    yield CrashPoint("after the first file write", "s3", "PutObject", False, 0)
    yield CrashPoint("before the index write", "s3", "PutObject", True, 0, is_index)
    yield CrashPoint("after the index write", "s3", "PutObject", False, 0, is_index)
    yield CrashPoint("before the shard map save", "dynamodb", "PutItem", True, 0, _is_map_save)
    yield CrashPoint(
        "before the publish record save", "dynamodb", "PutItem", True, 0, _is_record_save
    )
    yield CrashPoint("after the first old file is deleted", "s3", "DeleteObject", False)


def _is_map_save(params: dict[str, object]) -> bool:
    item = params.get("Item", {})
    return isinstance(item, dict) and item.get("sk", {}).get("S") == "shardmap"


def _is_record_save(params: dict[str, object]) -> bool:
    item = params.get("Item", {})
    return isinstance(item, dict) and item.get("sk", {}).get("S") == "published"


@pytest.mark.parametrize("point", list(crash_points()), ids=lambda p: p.label)
def test_a_crash_during_the_move_is_repaired_and_never_breaks_the_index(
    env: pytest.MonkeyPatch, point: CrashPoint
) -> None:
    snapshot = before_sections()
    with world(env) as aws:
        snapshot.restore(aws)
        watch = Watch(aws)
        watch.install()
        env.setenv("SECTION_RULES", RULES)
        disarm = point.arm(aws)
        with pytest.raises(InjectedCrashError):
            aws.invoke()
        disarm()
        assert point.fired

        repair = aws.invoke()

        assert watch.violations == []
        assert repair["complete"] is True
        assert set(published_urls(aws.s3)) == expected_urls()
        keys = keys_of(aws)
        assert not any(k.startswith(LEGACY) for k in keys)
        assert sections_of(keys) == {"ones", "twos", "pages"}
        assert aws.invoke()["objects_written"] == []
