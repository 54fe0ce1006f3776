"""After any waves of changes and incremental runs, with crashes and injected faults, the site
publishes exactly what a full rebuild of the same table publishes.

Each example drives the real rebuild handler on moto, for two hosts and path rules: random waves
of upserts (each naming a section or not, so pages move between sections) and deletes over a
small pool of URLs on both hosts, an incremental run after each wave that may crash at a random
call or meet injected faults (throttling and 5xx answers) on up to 30% of its AWS calls, then one
clean run.
The published entries (every ``<url>`` element, all its fields, by host, section and loc) must
equal those of a full render of the table's live items, each in its own host's and section's
files, and a reconciling full rebuild must find no drift. Some
pages carry videos and a news object; the runs' clock (injected, six hours later each wave)
moves articles out of the news window, and the News files must hold what a render of the table
at the last run's clock holds.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import pytest
from botocore.exceptions import ClientError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemap_updater.page.model import News, Page, Publication, Video
from sitemap_updater.rebuild.news import NewsDesk, is_news_key
from sitemap_updater.rebuild.patch import parse_published
from sitemap_updater.rebuild.render import render_shard
from sitemap_updater.rebuild.runner import RebuildService
from sitemap_updater.sections import SectionRules
from sitemap_updater.sites import Sites
from sitemap_updater.store.items import is_live, url_hash_of
from sitemap_updater.store.keys import EMPTY_SITE_KEY, LEASE_SK, meta_key
from sitemap_updater.store.spaces import Layout, key_prefix_of
from tests.integration.rebuild.conftest import (
    SITE,
    STATE_TABLE,
    TABLE,
    Aws,
    apply_rebuild_env,
)
from tests.integration.rebuild.test_sections_and_hosts import OTHER, both_hosts
from tests.reliability.crash_support import world

CAP = 4
POOL = 24
RULES = "/p/=products"
SITES = f"{SITE},{OTHER}"
LAYOUT = Layout(Sites.parse(SITES), SectionRules.parse(RULES))
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
    st.sampled_from([None, None, "sale"]),  # the section the change names
)


def loc_of_index(index: int) -> str:
    """Pool URL ``index``: on either host, under a path a rule places or not."""
    site = (SITE, OTHER)[index % 2]
    return f"{site}/{('p', 'q')[index // 2 % 2]}/{index}"


#: the clock every rebuild of the test reads (the handler builds its service with it)
CLOCK = [T0]
_BUILD = RebuildService.__init__


def _with_clock(self: RebuildService, *args: Any, **kwargs: Any) -> None:
    _BUILD(self, *args, **{**kwargs, "clock": lambda: CLOCK[0]})


def entry(loc: str, lastmod: str | None, news_hours: int | None, video: bool) -> Page:
    published = datetime.fromtimestamp(T0 - 3600 * (news_hours or 0), UTC)
    return Page(
        url=loc,
        lastmod=lastmod,
        videos=(
            (Video("https://cdn.example.net/t.jpg", "A & B", "<clip>", player_loc=loc + "/p"),)
            if video
            else ()
        ),
        news=(
            None
            if news_hours is None
            else News(
                Publication("The Times", "en"), published.strftime("%Y-%m-%dT%H:%M:%SZ"), "T's"
            )
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


def space_of_key(key: str) -> str:
    """The space of a published file's key (``www.example.de/sitemap-sale-r0.xml.gz``)."""
    name = key[len(key_prefix_of(key)) :].removeprefix("sitemap-").rsplit("-r", 1)[0]
    return f"{key_prefix_of(key)}{name}/"


def published_fragments(aws: Aws) -> dict[tuple[str, str], bytes]:
    """(space, URL hash) -> ``<url>`` fragment of every entry the published indexes lead to
    (the news files apart)."""
    fragments: dict[tuple[str, str], bytes] = {}
    for key in both_hosts(aws):
        if not is_news_key(key) and not key.endswith(EMPTY_SITE_KEY):
            got = parse_published(aws.object(key)["Body"].read())
            fragments.update({(space_of_key(key), uh): f for uh, f in got.items()})
    return fragments


def live_items(aws: Aws) -> list[Any]:
    pages = aws.dynamodb.get_paginator("scan").paginate(TableName=TABLE, ConsistentRead=True)
    items = sorted(
        (i for page in pages for i in page["Items"] if i["pk"]["S"].startswith("u#")),
        key=lambda i: i["sk"]["S"],
    )
    return [i for i in items if is_live(i)]


def full_render_fragments(aws: Aws) -> dict[tuple[str, str], bytes]:
    """The fragments a full render of the table's live URL items gives, each in its space."""
    spaces: dict[str, list[Any]] = {}
    for item in live_items(aws):
        spaces.setdefault(LAYOUT.space_of(item), []).append(item)
    fragments: dict[tuple[str, str], bytes] = {}
    for space, items in spaces.items():
        site = LAYOUT.site_of_shard(space + "r")
        for part in render_shard(
            "r", items, site, max_urls=50_000, max_bytes=50_000_000, stylesheet=True
        ):
            assert part.body is not None
            fragments.update({(space, uh): f for uh, f in parse_published(part.body).items()})
    return fragments


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """The rebuild tests' environment, with a cap that splits this small site into files."""
    apply_rebuild_env(monkeypatch)
    monkeypatch.setenv("SITE_URL", SITES)
    monkeypatch.setenv("SECTION_RULES", RULES)
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
    env: pytest.MonkeyPatch,
    waves: list[tuple[list[tuple[int, str, str | None, Any, bool, str | None]], Any]],
) -> None:
    clock = CLOCK
    clock[0] = T0
    env.setattr(RebuildService, "__init__", _with_clock)
    with world(env) as aws:
        env.setenv("DISTRIBUTION_ID", "")  # invalidation is opt-in; not what this compares
        for wave_number, (changes, (kind, n)) in enumerate(waves):
            clock[0] = T0 + 3600 * WAVE_HOURS * wave_number
            for index, action, lastmod, news_hours, video, section in changes:
                loc = loc_of_index(index)
                if action == "upsert":
                    aws.upsert(entry(loc, lastmod, news_hours, video), section=section)
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
        published = published_fragments(aws)
        assert published == expected
        hosts_with_urls = {space.split("/")[0] for space, _ in expected if space.count("/") > 1}
        if "www.example.de" not in hosts_with_urls:  # no live URL there: its empty-site file
            assert "www.example.de/sitemap-home.xml.gz" in both_hosts(aws)

        news = NewsDesk(
            Sites.parse(SITES),
            window_hours=48,
            now=clock[0],
            max_bytes=47_185_920,
            stylesheet=True,  # the setting's default, which the runs use
        )
        news.replace_shard("r", live_items(aws))
        expected_news = {f.key: f.body for f in news.render()}
        listed = [key for key in both_hosts(aws) if is_news_key(key)]
        assert {key: aws.object(key)["Body"].read() for key in listed} == expected_news

        reconcile = aws.invoke({"full_rebuild": True})
        assert reconcile["drift_repaired"] == 0
        assert published_fragments(aws) == expected
        assert {url_hash_of(i) for i in live_items(aws)} == {uh for _, uh in expected}
