"""A full rebuild's identities: whatever order the Scan reads a table's items in, each page
counts once, with its newest change, and a newer delete under any spelling removes it."""

from __future__ import annotations

from pathlib import Path
from tempfile import TemporaryDirectory

from hypothesis import given
from hypothesis import strategies as st

from sitemap_updater.protocol.entry import Entry
from sitemap_updater.protocol.urls import normalize_url
from sitemap_updater.rebuild.inputs.identities import Identities
from sitemap_updater.store.items import Item, is_live, live_item, loc_of, tombstone_item
from sitemap_updater.store.keys import url_hash
from tests.property.strategies import SETTINGS

SITE = "https://www.example.com"
#: spellings the previous version stored as they came, of three pages
SPELLINGS = [
    "/~user",
    "/%7euser",
    "/%7Euser",
    "/a/c",
    "/a/b/../c",
    "/a/./c",
    "/plain",
]


@st.composite
def tables(draw: st.DrawFn) -> list[Item]:
    """URL items, at most one per spelling (its key), each with a distinct ordering key."""
    chosen = draw(st.lists(st.sampled_from(SPELLINGS), unique=True, min_size=1))
    stamps = draw(
        st.lists(st.integers(0, 999), min_size=len(chosen), max_size=len(chosen), unique=True)
    )
    items = []
    for path, stamp in zip(chosen, stamps, strict=True):
        ev = f"2024{stamp:04d}T000000.000000Z#"
        loc = SITE + path
        if draw(st.booleans()):
            items.append(
                live_item(Entry(loc, lastmod=f"2024-01-{stamp % 28 + 1:02d}"), ev + "0#d", "d")
            )
        else:
            items.append(tombstone_item(loc, ev + "1#d", "d", 2_000_000_000))
    return draw(st.permutations(items))


def expected(items: list[Item]) -> dict[str, str]:
    """Identity -> ordering key of the item that stays published: the newest of its page."""
    newest: dict[str, Item] = {}
    for item in items:
        identity = normalize_url(loc_of(item))
        if identity not in newest or item["ev"]["S"] > newest[identity]["ev"]["S"]:
            newest[identity] = item
    return {loc: item["ev"]["S"] for loc, item in newest.items() if is_live(item)}


def scan(items: list[Item]) -> dict[str, str]:
    with TemporaryDirectory() as tmp:
        identities = Identities(Path(tmp), {})
        spooled = []
        for item in items:
            if is_live(item):
                spooled.append(identities.live(item))
            else:
                identities.removed(item)
        identities.close()
        kept = identities.newest(spooled)
    for item in kept:
        assert item["sk"]["S"] == url_hash(loc_of(item))  # spooled under its identity
    assert len({loc_of(item) for item in kept}) == len(kept)
    return {loc_of(item): item["ev"]["S"] for item in kept}


@SETTINGS
@given(tables())
def test_each_page_counts_once_with_its_newest_change(items: list[Item]) -> None:
    assert scan(items) == expected(items)


def test_a_table_of_one_spelling_a_page_is_read_as_it_is() -> None:
    items = [live_item(Entry(SITE + f"/p/{n}"), f"2024{n:04d}#0#d", "d") for n in range(5)]
    with TemporaryDirectory() as tmp:
        identities = Identities(Path(tmp), {})
        assert [identities.live(item) for item in items] == items
        identities.close()
        assert identities.respelled == set()
        assert identities.newest(items) == items
