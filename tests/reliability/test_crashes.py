"""The rebuild killed after each kind of side effect: the next run publishes the correct state,
and at no instant does the bucket show crawlers an index naming a missing file or an invalid file.

The change scenario touches several shards of a multi-shard site at once: lastmod updates in
three shards, a single delete, a shard that grows past the cap and splits, and a shard whose URLs
are all deleted, so its file is retired (grace 0: deleted in the same run). Every crash run is
compared with a crash-free run of the same scenario, byte for byte, in its own moto world.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from sitemap_updater.page.model import Page
from sitemap_updater.store.keys import PUBLISHED_SK, meta_key
from sitemap_updater.store.spaces import shard_file_key
from tests.integration.rebuild.conftest import SITE, STATE_TABLE, Aws, FakeContext
from tests.reliability.crash_support import (
    CrashPoint,
    InjectedCrashError,
    Snapshot,
    Watch,
    bucket,
    index_entries,
    is_checkpoint_save,
    is_index,
    is_published_file_read,
    published_urls,
    world,
)

CAP = 8
BASE_PAGES = 40
ENV = {
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "TABLE_NAME": "sitemap-test",
    "SITE_URL": SITE,
    "BUCKET_NAME": "sitemap-test-bucket",
    "MAX_URLS_PER_SITEMAP": str(CAP),
    "RETIRE_GRACE_SECONDS": "0",
    "TIME_BUDGET_MARGIN_SECONDS": "60",
    "POWERTOOLS_SERVICE_NAME": "sitemap-rebuild",
    "POWERTOOLS_METRICS_NAMESPACE": "SitemapUpdaterTest",
    "POWERTOOLS_TRACE_DISABLED": "true",
    "POWERTOOLS_LOG_LEVEL": "WARNING",
}


def page(n: int | str, lastmod: str) -> Page:
    return Page(url=f"{SITE}/page/{n}", lastmod=lastmod, changefreq="daily", priority=0.5)


def apply_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("PUBLIC_BASE_URL", raising=False)
    monkeypatch.delenv("PUBLISH_ROBOTS_TXT", raising=False)


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    apply_env(monkeypatch)
    return monkeypatch


# -- the scenario --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    """What the change run does to a site of ``BASE_PAGES`` pages (all derived from hashes)."""

    updated: tuple[int, ...]  # lastmod changes, in three different shards
    deleted_one: int  # one delete in a shard that keeps other URLs
    emptied: tuple[int, ...]  # every page of one shard: its file is retired
    grown: tuple[str, ...]  # new pages that push one shard past the cap: a split
    split_leaf: str
    emptied_leaf: str


def baseline(aws: Aws) -> None:
    aws.upsert(*(page(i, "2024-05-01") for i in range(BASE_PAGES)))
    report = aws.invoke()
    assert report["complete"] is True


def plan(aws: Aws) -> Scenario:
    by_leaf: dict[str, list[int]] = {}
    for i in range(BASE_PAGES):
        by_leaf.setdefault(aws.leaf_of(f"{SITE}/page/{i}"), []).append(i)
    leaves = sorted(by_leaf, key=lambda leaf: (len(by_leaf[leaf]), leaf))
    assert len(leaves) >= 5, f"the base site needs 5+ shards, has {leaves}"
    emptied_leaf, split_leaf, *others = leaves
    grown: list[str] = []
    n = 0
    while len(by_leaf[split_leaf]) + len(grown) <= CAP:
        if aws.leaf_of(f"{SITE}/page/new-{n}") == split_leaf:
            grown.append(f"new-{n}")
        n += 1
    return Scenario(
        updated=tuple(by_leaf[leaf][0] for leaf in others[:3]),
        deleted_one=by_leaf[others[-1]][-1],
        emptied=tuple(by_leaf[emptied_leaf]),
        grown=tuple(grown),
        split_leaf=split_leaf,
        emptied_leaf=emptied_leaf,
    )


def change(aws: Aws, scenario: Scenario) -> None:
    aws.upsert(*(page(i, "2024-06-01") for i in scenario.updated))
    aws.upsert(*(page(name, "2024-06-02") for name in scenario.grown))
    aws.delete(
        f"{SITE}/page/{scenario.deleted_one}", *(f"{SITE}/page/{i}" for i in scenario.emptied)
    )


@dataclass(frozen=True)
class Reference:
    """The crash-free run of the scenario: what must be published, and the calls it made."""

    baseline: dict[str, bytes]
    snapshot: Snapshot
    final: dict[str, bytes]
    urls: dict[str, bytes]
    index: list[tuple[str, str | None]]
    puts: tuple[str, ...]
    calls: Counter[str]
    report: dict[str, Any]
    scenario: Scenario


def _count_calls(aws: Aws, calls: Counter[str]) -> None:
    def count(params: dict[str, Any], model: Any, **_: Any) -> None:
        if model.name == "GetRecords":
            calls["feed-read"] += 1
        if model.name == "GetObject" and is_published_file_read(params):
            calls["file-read"] += 1
        if model.name == "PutItem" and is_checkpoint_save(params):
            calls["checkpoint"] += 1

    for service in ("dynamodb", "dynamodbstreams", "s3"):
        aws.handler_module._client(service).meta.events.register(
            f"before-parameter-build.{service}.*", count
        )


@functools.cache
def reference() -> Reference:
    with pytest.MonkeyPatch.context() as monkeypatch:
        apply_env(monkeypatch)
        with world(monkeypatch) as aws:
            baseline(aws)
            before = bucket(aws.s3)
            snapshot = Snapshot.take(aws)
            scenario = plan(aws)
            change(aws, scenario)
            watch = Watch(aws)
            watch.install()
            calls: Counter[str] = Counter()
            _count_calls(aws, calls)
            report = aws.invoke()
            assert watch.violations == []
            return Reference(
                baseline=before,
                snapshot=snapshot,
                final=bucket(aws.s3),
                urls=published_urls(aws.s3),
                index=index_entries(aws.s3),
                puts=tuple(watch.journal.puts()),
                calls=calls,
                report=report,
                scenario=scenario,
            )


def test_the_reference_run_covers_every_kind_of_change(env: pytest.MonkeyPatch) -> None:
    ref = reference()
    report = ref.report
    assert report["complete"] is True
    assert report["shards_split"] == 1
    retired = set(ref.baseline) - set(ref.final)
    assert len(retired) == 2, retired  # the split shard's file and the emptied shard's file
    assert report["objects_deleted"] == sorted(retired)
    assert report["mode"] == "incremental"
    assert ref.calls["feed-read"] >= 1
    assert ref.calls["file-read"] >= 5  # every changed shard's published file
    assert ref.calls["checkpoint"] == 1
    assert len(ref.puts) >= 5 and ref.puts[-1] == "sitemap.xml"
    lastmods = Counter(lastmod for _, lastmod in ref.index)
    assert lastmods["2024-06-01"] == 3 and lastmods["2024-06-02"] >= 1
    s = ref.scenario
    expected = {f"{SITE}/page/{i}" for i in range(BASE_PAGES)} - {
        f"{SITE}/page/{i}" for i in (s.deleted_one, *s.emptied)
    }
    expected |= {f"{SITE}/page/{name}" for name in s.grown}
    assert set(ref.urls) == expected


# -- crash, then repair --------------------------------------------------------------------------


def spread(count: int) -> list[int]:
    """The first, a middle and the last of ``count`` calls (one crash point each)."""
    return sorted({0, count // 2, count - 1})


def crash_points() -> Iterator[CrashPoint]:
    """Every S3 write of the change run is a crash point; of the calls that repeat (feed reads,
    published file reads) the first, a middle and the last one are."""
    ref = reference()
    for n in spread(ref.calls["feed-read"]):
        yield CrashPoint(f"after feed read {n}", "dynamodbstreams", "GetRecords", False, n)
    for n in spread(ref.calls["file-read"]):
        yield CrashPoint(
            f"after published file read {n}", "s3", "GetObject", False, n, is_published_file_read
        )
    for n, key in enumerate(ref.puts):
        yield CrashPoint(f"after S3 write {n} ({key})", "s3", "PutObject", False, n)
    yield CrashPoint("before the index write", "s3", "PutObject", True, 0, is_index)
    yield CrashPoint("after the index write", "s3", "PutObject", False, 0, is_index)
    yield CrashPoint("before the invalidation", "cloudfront", "CreateInvalidation", True)
    yield CrashPoint(
        "before the checkpoint save", "dynamodb", "PutItem", True, 0, is_checkpoint_save
    )
    yield CrashPoint(
        "after the checkpoint save", "dynamodb", "PutItem", False, 0, is_checkpoint_save
    )
    yield CrashPoint("before the first retirement delete", "s3", "DeleteObject", True)
    yield CrashPoint("after the first retirement delete", "s3", "DeleteObject", False)


def assert_invalidated_after_last_write(watch: Watch, changed: set[str]) -> None:
    """Each changed key appears in an invalidation sent after its last successful put."""
    last_put: dict[str, int] = {}
    for i, (kind, keys) in enumerate(watch.journal.events):
        if kind == "put":
            last_put[keys[0]] = i
    for key in sorted(changed):
        later = [
            paths
            for i, (kind, paths) in enumerate(watch.journal.events)
            if kind == "invalidate" and i > last_put[key]
        ]
        assert any("/" + key in paths for paths in later), f"/{key} never invalidated after put"


def run_crash(env: pytest.MonkeyPatch, point: CrashPoint) -> None:
    ref = reference()
    with world(env) as aws:
        ref.snapshot.restore(aws)
        change(aws, ref.scenario)
        watch = Watch(aws)
        watch.install()
        disarm = point.arm(aws)
        with pytest.raises(InjectedCrashError):
            aws.invoke()
        disarm()
        assert point.fired, point.label

        repair = aws.invoke()

        assert watch.violations == [], point.label
        assert repair["complete"] is True, point.label
        assert published_urls(aws.s3) == ref.urls, point.label
        assert index_entries(aws.s3) == ref.index, point.label
        assert bucket(aws.s3) == ref.final, point.label
        changed = {k for k, body in ref.final.items() if ref.baseline.get(k) != body}
        assert_invalidated_after_last_write(watch, changed)
        again = aws.invoke()
        assert again["status"] == "nothing-to-do", point.label
        assert again["objects_written"] == [], point.label
        writes = [kind for kind, _ in watch.journal.events if kind != "invalidate"]
        assert watch.checks == len(writes) > 0  # the invariant was checked after each one


@pytest.mark.parametrize(
    "kind",
    [
        "after feed read",
        "after published file read",
        "after S3 write",
        "index write",
        "invalidation",
        "checkpoint save",
        "retire",
    ],
)
def test_a_crash_at_each_step_is_repaired_by_the_next_run(
    env: pytest.MonkeyPatch, kind: str
) -> None:
    points = [p for p in crash_points() if kind in p.label]
    assert points, kind
    for point in points:
        run_crash(env, point)


# -- a crash, then a change that takes the content back before the next run --------------------


def _crash_after_index_write(aws: Aws) -> None:
    point = CrashPoint("after the index write", "s3", "PutObject", False, 0, is_index)
    disarm = point.arm(aws)
    with pytest.raises(InjectedCrashError):
        aws.invoke()
    disarm()
    assert point.fired


def test_a_crashed_publish_of_a_change_that_is_then_reverted_is_repaired(
    env: pytest.MonkeyPatch,
) -> None:
    """The crashed run's file and index are in the bucket but not recorded; the content goes
    back to what was recorded; the next run must still replace what the bucket holds."""
    ref = reference()
    with world(env) as aws:
        ref.snapshot.restore(aws)
        watch = Watch(aws)
        watch.install()
        updated = ref.scenario.updated[0]
        aws.upsert(page(updated, "2024-06-01"))
        _crash_after_index_write(aws)
        assert bucket(aws.s3) != ref.baseline  # the crashed run's file and index are out
        assert "in_flight" in publish_record(aws)

        aws.upsert(page(updated, "2024-05-01"))  # a newer event restores the old content
        repair = aws.invoke()

        assert "in_flight" not in publish_record(aws)
        assert repair["complete"] is True
        assert watch.violations == []
        assert bucket(aws.s3) == ref.baseline
        changed = {key for key, body in ref.baseline.items() if key in repair["objects_written"]}
        assert changed and "sitemap.xml" in changed
        assert_invalidated_after_last_write(watch, changed)


def test_a_crashed_split_that_is_then_reverted_never_leaves_the_index_naming_a_deleted_file(
    env: pytest.MonkeyPatch,
) -> None:
    ref = reference()
    with world(env) as aws:
        ref.snapshot.restore(aws)
        watch = Watch(aws)
        watch.install()
        grown = [f"{SITE}/page/{name}" for name in ref.scenario.grown]
        aws.upsert(*(page(name, "2024-06-02") for name in ref.scenario.grown))
        _crash_after_index_write(aws)
        assert shard_file_key(ref.scenario.split_leaf) not in published_files_keys(aws)

        aws.delete(*grown)  # the shard is back under the cap: no split any more
        repair = aws.invoke()

        assert repair["complete"] is True
        assert watch.violations == []
        assert bucket(aws.s3) == ref.baseline  # the crashed run's split files are deleted too


def publish_record(aws: Aws) -> dict[str, Any]:
    key = {k: {"S": v} for k, v in meta_key(PUBLISHED_SK).items()}
    item: dict[str, Any] = aws.dynamodb.get_item(TableName=STATE_TABLE, Key=key)["Item"]
    return item


def published_files_keys(aws: Aws) -> set[str]:
    return {loc[len(SITE) + 1 :] for loc, _ in index_entries(aws.s3)}


def test_a_repair_run_out_of_time_leaves_the_rest_of_the_repair_to_the_next_run(
    env: pytest.MonkeyPatch,
) -> None:
    ref = reference()
    with world(env) as aws:
        ref.snapshot.restore(aws)
        watch = Watch(aws)
        watch.install()
        updated = ref.scenario.updated
        aws.upsert(*(page(i, "2024-06-01") for i in updated))
        _crash_after_index_write(aws)
        aws.upsert(*(page(i, "2024-05-01") for i in updated))  # all three changes reverted
        puts = aws.record_puts()
        # time until the first shard file is put, then less than the 60 s margin
        partial = aws.invoke(
            context=FakeContext(
                lambda: 30_000 if any(k != "sitemap.xml" for k in puts) else 120_000
            )
        )
        assert partial["complete"] is False
        assert partial["shards_remaining"] == len(updated) - 1
        assert bucket(aws.s3) != ref.baseline  # two files still hold the crashed run's bytes

        rest = aws.invoke()

        assert rest["complete"] is True
        assert watch.violations == []
        assert bucket(aws.s3) == ref.baseline
