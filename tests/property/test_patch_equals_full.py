"""Patching a published file with changes gives the bytes a full render of the new state gives."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sitemap_updater.protocol import Entry, Site
from sitemap_updater.rebuild.patch import parse_published, patch_shard
from sitemap_updater.rebuild.render import render_shard
from sitemap_updater.store.items import Item, live_item, tombstone_item
from sitemap_updater.store.keys import url_hash

SITE = Site.parse("https://www.example.com")

paths = st.text(alphabet="abcxyz019-_.~&'", min_size=1, max_size=12)
lastmods = st.one_of(
    st.none(),
    st.dates().map(lambda d: d.isoformat()).filter(lambda s: s[:4] >= "1000"),
    st.just("2026-11-01T10:00:00Z"),
)
entries = st.builds(
    lambda path, lastmod, priority: Entry(
        loc=f"https://www.example.com/{path}",
        lastmod=lastmod,
        changefreq=None,
        priority=priority,
        alternates=(),
        images=(),
    ),
    paths.map(lambda p: p.replace("&", "%26").replace("'", "%27")),
    lastmods,
    st.one_of(st.none(), st.sampled_from([0.0, 0.5, 1.0])),
)


def _item(entry: Entry) -> Item:
    return live_item(entry, "e", "d")


def _full(state: dict[str, Item], cap: int, max_bytes: int) -> list[Any]:
    items = [state[uh] for uh in sorted(state)]
    return render_shard("r", items, SITE, max_urls=cap, max_bytes=max_bytes)


@settings(max_examples=150, deadline=None)
@given(
    before=st.lists(entries, max_size=25),
    after=st.lists(st.tuples(entries, st.booleans()), max_size=25),
    cap=st.integers(min_value=1, max_value=30),
    max_bytes=st.sampled_from([2_000, 50_000]),
)
def test_patched_shard_equals_full_render(
    before: list[Entry], after: list[tuple[Entry, bool]], cap: int, max_bytes: int
) -> None:
    old_state = {url_hash(e.loc): _item(e) for e in before}
    old = _full(old_state, 50_000, 50_000)
    assert len(old) == 1
    changes: dict[str, Item | None] = {}
    new_state = dict(old_state)
    for entry, deleted in after:
        uh = url_hash(entry.loc)
        if deleted:
            changes[uh] = tombstone_item(entry.loc, "e", "d", 1) if uh in new_state else None
            new_state.pop(uh, None)
        else:
            changes[uh] = new_state[uh] = _item(entry)
    patched = patch_shard("r", old[0].body, changes, SITE, max_urls=cap, max_bytes=max_bytes)
    full = _full(new_state, cap, max_bytes)
    assert [(r.shard_id, r.body, r.url_count, r.newest_lastmod) for r in patched.rendered] == [
        (r.shard_id, r.body, r.url_count, r.newest_lastmod) for r in full
    ]
    old_locs = {str(i["loc"]["S"]): i for i in old_state.values()}
    new_locs = {str(i["loc"]["S"]): i for i in new_state.values()}
    expected = {
        loc for loc in old_locs.keys() | new_locs.keys() if old_locs.get(loc) != new_locs.get(loc)
    }
    assert set(patched.changed_locs) <= expected
    assert {loc for loc in expected if (loc in old_locs) != (loc in new_locs)} <= set(
        patched.changed_locs
    )
    if old[0].body is not None:
        assert set(parse_published(old[0].body)) == set(old_state)
