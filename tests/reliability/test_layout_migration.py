"""Changing the section rules of a running stack: one run moves every URL into its section's
files. After every S3 write and delete of the handler the index validates and names only files
that exist (``Watch``), crash points included; the next run repairs a crashed move, and the old
layout's files are deleted once their grace period has passed."""

from __future__ import annotations

import functools
from collections.abc import Iterator

import pytest
from lxml import etree

from sitemap_updater.store.spaces import section_of_file
from tests.integration.rebuild.conftest import SITE, Aws, FakeContext
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


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    apply_env(monkeypatch)
    monkeypatch.delenv("SECTION_RULES", raising=False)
    return monkeypatch


@functools.cache
def before_rules() -> Snapshot:
    """A stack published without section rules: every URL in the files of section ``pages``."""
    with pytest.MonkeyPatch.context() as mp:
        apply_env(mp)
        mp.delenv("SECTION_RULES", raising=False)
        with world(mp) as aws:
            aws.upsert(*(page(i, "2024-05-01") for i in range(PAGES)))
            assert aws.invoke()["complete"] is True
            return Snapshot.take(aws)


def files_of(aws: Aws) -> set[str]:
    """The keys of the section files in the bucket."""
    return {key for key in bucket(aws.s3) if section_of_file(key) is not None}


def stale(aws: Aws) -> set[str]:
    """The section files in the bucket that no index lists."""
    return files_of(aws) - set(published_files(aws.s3))


def expected_urls() -> set[str]:
    return {f"{SITE}/page/{i}" for i in range(PAGES)}


def sections_of(keys: set[str]) -> set[str]:
    return {section for key in keys if (section := section_of_file(key)) is not None}


def migrate(aws: Aws, env: pytest.MonkeyPatch) -> dict[str, object]:
    env.setenv("SECTION_RULES", RULES)
    return aws.invoke()


def test_one_run_moves_every_url_into_its_sections_files(env: pytest.MonkeyPatch) -> None:
    snapshot = before_rules()
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
        assert stale(aws) == set()  # grace 0: retired at once
        assert sections_of(files_of(aws)) == {"ones", "twos", "pages"}
        assert aws.invoke()["mode"] == "incremental"  # the new layout is recorded


def test_the_old_files_stay_until_their_grace_period_has_passed(
    env: pytest.MonkeyPatch,
) -> None:
    env.setenv("RETIRE_GRACE_SECONDS", "3600")
    snapshot = before_rules()
    with world(env) as aws:
        snapshot.restore(aws)
        old = files_of(aws)
        now = [2_000_000_000.0]
        aws.handler_module.clock = lambda: now[0]

        migrate(aws, env)
        retired = old - set(published_files(aws.s3))
        assert retired and old <= files_of(aws)  # a crawler holding the old index gets them
        now[0] += 3601
        later = aws.invoke()

        assert sorted(later["objects_deleted"]) == sorted(retired)
        assert stale(aws) == set()


def test_a_move_out_of_time_keeps_the_old_files_listed_until_it_is_done(
    env: pytest.MonkeyPatch,
) -> None:
    snapshot = before_rules()
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
        assert stale(aws) == set()


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
    yield CrashPoint(
        "before the first branch save", "dynamodb", "PutItem", True, 0, _is_branch_save
    )
    yield CrashPoint(
        "before the publish record save", "dynamodb", "PutItem", True, 0, _is_record_save
    )
    yield CrashPoint("after the first old file is deleted", "s3", "DeleteObject", False)


def _is_branch_save(params: dict[str, object]) -> bool:
    item = params.get("Item", {})
    return isinstance(item, dict) and str(item.get("pk", {}).get("S")).startswith("tree#")


def _is_record_save(params: dict[str, object]) -> bool:
    item = params.get("Item", {})
    return isinstance(item, dict) and item.get("sk", {}).get("S") == "published"


@pytest.mark.parametrize("point", list(crash_points()), ids=lambda p: p.label)
def test_a_crash_during_the_move_is_repaired_and_never_breaks_the_index(
    env: pytest.MonkeyPatch, point: CrashPoint
) -> None:
    snapshot = before_rules()
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
        assert stale(aws) == set()
        assert sections_of(files_of(aws)) == {"ones", "twos", "pages"}
        assert aws.invoke()["objects_written"] == []
