"""Patching a published file with changes gives the bytes a full render of the new state gives,
whether the published file named the stylesheet or not (the patched file follows the current
setting)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sitemap_updater.page.model import Page
from sitemap_updater.protocol.urls import Site
from sitemap_updater.protocol.urlset import URLSET_FRAME_BYTES
from sitemap_updater.rebuild.news import NewsDesk
from sitemap_updater.rebuild.patch import Recorded, parse_published, patch_shard
from sitemap_updater.rebuild.render import render_shard
from sitemap_updater.sites import Sites
from sitemap_updater.store.items import Item, live_item, tombstone_item
from sitemap_updater.store.keys import url_hash
from tests.helpers.pages import make_page
from tests.helpers.xsd import assert_valid_urlset

SITE = Site.parse("https://www.example.com")
#: the runs' clock: publication dates below lie around it, some inside the news window, some out
NOW = 1_800_000_000.0  # 2027-01-15T08:00:00Z
JUDGED_AT = datetime.fromtimestamp(NOW, UTC)

paths = st.text(alphabet="abcxyz019-_.~&'", min_size=1, max_size=12)
lastmods = st.one_of(
    st.none(),
    st.dates(min_value=datetime(1970, 1, 1).date(), max_value=JUDGED_AT.date()).map(
        lambda d: d.isoformat()
    ),
    st.just("2026-11-01T10:00:00Z"),
)
#: text of news and video fields: XML-special characters, spaces and a non-ASCII letter
texts = st.text(alphabet="ab <>&'\"é", min_size=1, max_size=8).filter(lambda t: t.strip() != "")
videos = st.fixed_dictionaries(
    {
        "thumbnail_loc": st.just("https://cdn.example.net/t.jpg"),
        "title": texts,
        "description": texts,
        "player_loc": st.just("https://cdn.example.net/player"),
    },
    optional={
        "content_loc": st.just("https://cdn.example.net/v.mp4?a=1&b=2"),
        "duration": st.integers(1, 28_800),
        "publication_date": st.just("2026-11-01T10:00:00Z"),
        "tag": st.lists(texts, max_size=3),
        "family_friendly": st.booleans(),
        "restriction": st.just({"relationship": "deny", "countries": ["GB", "IE"]}),
        "uploader": texts.map(lambda name: {"name": name}),
        "live": st.booleans(),
    },
)
news_dates = st.sampled_from(
    [
        "2027-01-15T07:00:00Z",
        "2027-01-13T09:00:00Z",
        "2027-01-13T07:00:00Z",
        "2027-01-14",
        "2020-01-01",
    ]
)
news = st.fixed_dictionaries(
    {
        "publication": st.fixed_dictionaries(
            {"name": texts, "language": st.sampled_from(["en", "zh-tw"])}
        ),
        "title": texts,
        "publication_date": news_dates,
    }
)
pages = st.builds(
    lambda path, lastmod, priority, videos, news: make_page(
        SITE,
        now=JUDGED_AT,
        url=f"https://www.example.com/{path}",
        lastmod=lastmod,
        priority=priority,
        videos=videos,
        news=news,
    ),
    paths.map(lambda p: p.replace("&", "%26").replace("'", "%27")),
    lastmods,
    st.one_of(st.none(), st.sampled_from([0.0, 0.5, 1.0])),
    st.lists(videos, max_size=2),
    st.none() | news,
)


def _item(page: Page) -> Item:
    return live_item(page, "e", "d")


def _full(state: dict[str, Item], cap: int, max_bytes: int, stylesheet: bool) -> list[Any]:
    items = [state[uh] for uh in sorted(state)]
    return render_shard("r", items, SITE, max_urls=cap, max_bytes=max_bytes, stylesheet=stylesheet)


def _apply(
    old_state: dict[str, Item], after: list[tuple[Page, bool]]
) -> tuple[dict[str, Item | None], dict[str, Item]]:
    """The changes a wave of upserts and deletes makes (URL hash -> new item, or None for a
    URL the table never held), and the table state after it."""
    changes: dict[str, Item | None] = {}
    new_state = dict(old_state)
    for page, deleted in after:
        uh = url_hash(page.url)
        if deleted:
            changes[uh] = tombstone_item(page.url, "e", "d", 1) if uh in new_state else None
            new_state.pop(uh, None)
        else:
            changes[uh] = new_state[uh] = _item(page)
    return changes, new_state


@settings(max_examples=150, deadline=None)
@given(
    before=st.lists(pages, max_size=25),
    after=st.lists(st.tuples(pages, st.booleans()), max_size=25),
    cap=st.integers(min_value=1, max_value=30),
    max_bytes=st.sampled_from([2_000, 50_000]),
    with_record=st.booleans(),
    published_with=st.booleans(),
    stylesheet=st.booleans(),
    edge=st.none() | st.integers(min_value=-8, max_value=80),
)
def test_patched_shard_equals_full_render(
    before: list[Page],
    after: list[tuple[Page, bool]],
    cap: int,
    max_bytes: int,
    with_record: bool,
    published_with: bool,
    stylesheet: bool,
    edge: int | None,
) -> None:
    """With and without the record of the published file (its URL count and newest lastmod,
    which spare the patch from reading the whole file for them); the published file named the
    stylesheet or not (``published_with``), the run's setting is ``stylesheet``. With ``edge``
    the byte cap is ``edge`` bytes over what the new state needs in a file without the
    stylesheet, around the room the stylesheet's instruction takes."""
    old_state = {url_hash(e.url): _item(e) for e in before}
    old = _full(old_state, 50_000, 50_000, published_with)
    assert len(old) == 1
    changes, new_state = _apply(old_state, after)
    if edge is not None and new_state:
        [needed] = _full(new_state, 50_000, 50_000, False)
        assert needed.body is not None
        largest = max(map(len, parse_published(needed.body).values()))
        # a cap no single page is over (one published under a larger cap is another case)
        max_bytes = max(needed.uncompressed_bytes + edge, largest + URLSET_FRAME_BYTES)
    recorded = Recorded(old[0].url_count, old[0].newest_lastmod) if with_record else None
    patched = patch_shard(
        "r",
        old[0].body,
        changes,
        SITE,
        max_urls=cap,
        max_bytes=max_bytes,
        stylesheet=stylesheet,
        recorded=recorded,
    )
    full = _full(new_state, cap, max_bytes, stylesheet)
    assert [(r.shard_id, r.body, r.url_count, r.newest_lastmod) for r in patched.rendered] == [
        (r.shard_id, r.body, r.url_count, r.newest_lastmod) for r in full
    ]
    old_locs = {str(i["url"]["S"]): i for i in old_state.values()}
    new_locs = {str(i["url"]["S"]): i for i in new_state.values()}
    expected = {
        loc for loc in old_locs.keys() | new_locs.keys() if old_locs.get(loc) != new_locs.get(loc)
    }
    assert set(patched.changed_locs) <= expected
    # a page alone over the byte cap is in no file, so its coming or going changes none
    left_out = {reason.partition(": ")[0] for r in full for reason in r.skipped}
    assert {loc for loc in expected - left_out if (loc in old_locs) != (loc in new_locs)} <= set(
        patched.changed_locs
    )
    if old[0].body is not None:
        assert set(parse_published(old[0].body)) == set(old_state)


def _news_files(desk: NewsDesk) -> list[tuple[str, bytes, int]]:
    return [(f.key, f.body, f.url_count) for f in desk.render()]


@settings(max_examples=100, deadline=None)
@given(
    before=st.lists(pages, max_size=25),
    after=st.lists(st.tuples(pages, st.booleans()), max_size=25),
    hours_later=st.sampled_from([0.0, 1.0, 24.0, 47.5]),
    max_bytes=st.sampled_from([1_500, 50_000]),
    published_with=st.booleans(),
    stylesheet=st.booleans(),
)
def test_patched_news_files_equal_a_full_render(
    before: list[Page],
    after: list[tuple[Page, bool]],
    hours_later: float,
    max_bytes: int,
    published_with: bool,
    stylesheet: bool,
) -> None:
    """The news files read back, expired by a later clock and patched with the changes hold
    what a render of the new table state at that clock holds (the files read back named the
    stylesheet or not, the run's setting is ``stylesheet``)."""
    old_state = {url_hash(e.url): _item(e) for e in before}
    first = NewsDesk(
        Sites((SITE,)),
        window_hours=48,
        now=NOW - 3600 * 47.5,
        max_bytes=max_bytes,
        stylesheet=published_with,
    )
    first.replace_shard("r", old_state.values())
    published = {f.key: f.body for f in first.render()}
    changes, new_state = _apply(old_state, after)
    now = NOW - 3600 * 47.5 + 3600 * hours_later
    patched = NewsDesk(
        Sites((SITE,)), window_hours=48, now=now, max_bytes=max_bytes, stylesheet=stylesheet
    )
    for key, body in published.items():
        patched.load(key, body)
    patched.apply(changes)
    full = NewsDesk(
        Sites((SITE,)), window_hours=48, now=now, max_bytes=max_bytes, stylesheet=stylesheet
    )
    full.replace_shard("r", new_state.values())
    files = _news_files(patched)
    assert files == _news_files(full)
    for _, body, _ in files:
        assert_valid_urlset(body)
