"""After any waves of changes and incremental runs, with crashes and injected faults, the site
publishes exactly what a full rebuild of the same table publishes.

Each example drives the real rebuild handler on moto: random waves of upserts and deletes over a
small pool of URLs, an incremental run after each wave that may crash at a random call or meet
injected faults (throttling and 5xx answers) on up to 30% of its AWS calls, then one clean run.
The published entries (every ``<url>`` element, all its fields, by loc) must equal those of a
full render of the table's live items, and a reconciling full rebuild must find no drift. Some
pages carry videos and a news object; the runs' clock (injected, six hours later each wave)
moves articles out of the news window, and the News files must hold what a render of the table
at the last run's clock holds.
"""

from __future__ import annotations

import gzip
import random
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import pytest
from botocore.exceptions import ClientError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemap_updater.protocol import Entry, Site
from sitemap_updater.protocol.extensions.news import News
from sitemap_updater.protocol.extensions.video import Video
from sitemap_updater.rebuild.news import NewsDesk, is_news_key
from sitemap_updater.rebuild.patch import parse_published
from sitemap_updater.rebuild.render import render_shard
from sitemap_updater.rebuild.service import RebuildService
from sitemap_updater.store.items import is_live
from sitemap_updater.store.keys import LEASE_SK, meta_key
from tests.integration.rebuild.conftest import (
    SITE,
    STATE_TABLE,
    TABLE,
    Aws,
    apply_rebuild_env,
)
from tests.reliability.crash_support import world

CAP = 4
POOL = 24
LEASE = {k: {"S": v} for k, v in meta_key(LEASE_SK).items()}

#: the first run's clock (2024-05-01T12:00:00Z); each wave's run is six hours later
T0 = 1_714_564_800.0
WAVE_HOURS = 6
change = st.tuples(
    st.integers(min_value=0, max_value=POOL - 1),
    st.sampled_from(["upsert", "upsert", "delete"]),
    st.sampled_from([None, "2024-05-01", "2024-06-01"]),
    # hours before T0 the page was published as a news article (None: not an article)
    st.sampled_from([None, None, 1, 20, 40]),
    st.booleans(),  # with a video
)


#: the clock every rebuild of the test reads (the handler builds its service with it)
CLOCK = [T0]
_BUILD = RebuildService.__init__


def _with_clock(self: RebuildService, *args: Any, **kwargs: Any) -> None:
    _BUILD(self, *args, **{**kwargs, "clock": lambda: CLOCK[0]})


def entry(loc: str, lastmod: str | None, news_hours: int | None, video: bool) -> Entry:
    published = datetime.fromtimestamp(T0 - 3600 * (news_hours or 0), UTC)
    return Entry(
        loc=loc,
        lastmod=lastmod,
        videos=(
            (Video("https://cdn.example.net/t.jpg", "A & B", "<clip>", player_loc=loc + "/p"),)
            if video
            else ()
        ),
        news=(
            None
            if news_hours is None
            else News("The Times", "en", published.strftime("%Y-%m-%dT%H:%M:%SZ"), "T's")
        ),
    )


wave = st.tuples(
    st.lists(change, min_size=0, max_size=10),
    # what disturbs the run after the wave: nothing, a crash at the n-th call, or faults
    st.one_of(
        st.just(("none", 0)),
        st.tuples(st.just("crash"), st.integers(min_value=0, max_value=40)),
        st.tuples(st.just("faults"), st.integers(min_value=1, max_value=1000)),
    ),
)


class InjectedCrashError(RuntimeError):
    pass


def _throttled(operation: str) -> ClientError:
    return ClientError(
        {
            "Error": {"Code": "ThrottlingException", "Message": "injected"},
            "ResponseMetadata": {"HTTPStatusCode": 400},
        },
        operation,
    )


@contextmanager
def disturbed(aws: Aws, kind: str, n: int) -> Iterator[None]:
    """Hooks on every client of the handler: crash at the n-th call, or fail 30% of calls."""
    rng = random.Random(n)
    calls = [0]

    def before(model: Any, **_: Any) -> None:
        calls[0] += 1
        if kind == "crash" and calls[0] == n + 1:
            raise InjectedCrashError(f"crash at call {n}")
        if kind == "faults" and rng.random() < 0.3:
            raise _throttled(model.name)

    clients = [aws.handler_module._client(s) for s in ("dynamodb", "dynamodbstreams", "s3")]
    for client in clients:
        client.meta.events.register("before-call", before, unique_id="disturb")
    try:
        yield
    finally:
        for client in clients:
            client.meta.events.unregister("before-call", unique_id="disturb")


def published_fragments(aws: Aws) -> dict[str, bytes]:
    """URL hash -> ``<url>`` fragment of every entry the published index leads to (the news
    files apart)."""
    fragments: dict[str, bytes] = {}
    for key in aws.crawl():
        if not is_news_key(key):
            fragments.update(parse_published(aws.object(key)["Body"].read()))
    return fragments


def live_items(aws: Aws) -> list[Any]:
    pages = aws.dynamodb.get_paginator("scan").paginate(TableName=TABLE, ConsistentRead=True)
    items = sorted(
        (i for page in pages for i in page["Items"] if i["pk"]["S"].startswith("u#")),
        key=lambda i: i["sk"]["S"],
    )
    return [i for i in items if is_live(i)]


def full_render_fragments(aws: Aws) -> dict[str, bytes]:
    """The fragments a full render of the table's live URL items gives."""
    live = live_items(aws)
    if not live:
        return {}
    site = Site.parse(SITE)
    fragments: dict[str, bytes] = {}
    for part in render_shard(
        "r", live, site, max_urls=50_000, max_bytes=50_000_000, stylesheet=True
    ):
        assert part.body is not None
        fragments.update(parse_published(part.body))
    return fragments


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """The rebuild tests' environment, with a cap that splits this small site into files."""
    apply_rebuild_env(monkeypatch)
    monkeypatch.setenv("MAX_URLS_PER_SITEMAP", str(CAP))
    monkeypatch.setenv("POWERTOOLS_LOG_LEVEL", "CRITICAL")
    return monkeypatch


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(waves=st.lists(wave, min_size=1, max_size=5))
def test_incremental_runs_with_crashes_and_faults_publish_what_a_full_rebuild_does(
    env: pytest.MonkeyPatch, waves: list[tuple[list[tuple[int, str, str | None, Any, bool]], Any]]
) -> None:
    clock = CLOCK
    clock[0] = T0
    env.setattr(RebuildService, "__init__", _with_clock)
    with world(env) as aws:
        env.setenv("DISTRIBUTION_ID", "")  # invalidation is opt-in; not what this compares
        for wave_number, (changes, (kind, n)) in enumerate(waves):
            clock[0] = T0 + 3600 * WAVE_HOURS * wave_number
            for index, action, lastmod, news_hours, video in changes:
                loc = f"{SITE}/p/{index}"
                if action == "upsert":
                    aws.upsert(entry(loc, lastmod, news_hours, video))
                else:
                    aws.delete(loc)
            try:
                with disturbed(aws, kind, n):
                    aws.invoke()
            except (InjectedCrashError, ClientError):
                pass  # the run died; the next one repairs
        clean = aws.invoke()
        if clean["status"] == "locked":  # died before releasing its lease: wait out the expiry
            aws.dynamodb.delete_item(TableName=STATE_TABLE, Key=LEASE)
            clean = aws.invoke()
        if not clean["complete"]:  # a run left leaves pending: the next one finishes them
            clean = aws.invoke()
        assert clean["complete"] is True

        expected = full_render_fragments(aws)
        if expected:
            assert published_fragments(aws) == expected
        else:  # no live URL: the empty-site file, which holds only the site root
            assert list(aws.crawl()) == ["sitemap-home.xml.gz"]

        news = NewsDesk(
            Site.parse(SITE),
            window_hours=48,
            now=clock[0],
            max_bytes=47_185_920,
            stylesheet=True,  # the setting's default, which the runs use
        )
        news.replace_shard("r", live_items(aws))
        expected_news = {f.key: f.body for f in news.render()}
        listed = [key for key in aws.crawl() if is_news_key(key)]
        assert {key: aws.object(key)["Body"].read() for key in listed} == expected_news

        reconcile = aws.invoke({"full_rebuild": True})
        assert reconcile["drift_repaired"] == 0
        for key in aws.crawl():
            gzip.decompress(aws.object(key)["Body"].read())  # every listed file is readable
