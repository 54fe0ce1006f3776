"""Spooling a Scan per leaf: splits agree with split_counts, parts come back in hash order."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemap_updater.rebuild.inputs.spools import ScanStoppedError, Spools
from sitemap_updater.store.items import Item
from sitemap_updater.store.keys import HASH_HEX_LEN, hash_bits
from sitemap_updater.store.shards import LeafIndex, ShardIdError, split_counts

#: a byte bound no spool here reaches
ANY_SIZE = 1 << 30

hashes = st.lists(
    st.text(alphabet="0123456789abcdef", min_size=HASH_HEX_LEN, max_size=HASH_HEX_LEN),
    unique=True,
    max_size=60,
)


def _item(uh: str) -> Item:
    return {"pk": {"S": "u#" + uh[0]}, "sk": {"S": uh}, "url": {"S": f"https://e.com/{uh}"}}


@given(st.text(alphabet="0123456789abcdef", min_size=HASH_HEX_LEN, max_size=HASH_HEX_LEN))
def test_every_hash_has_exactly_one_leaf_in_each_space(uh: str) -> None:
    bits = ["00", "010", "011", "1"]
    leaves = [f"{space}r{b}" for space in ("pages/", "de.example.com/news/") for b in bits]
    index = LeafIndex(leaves)
    for space in ("pages/", "de.example.com/news/"):
        leaf = index.leaf_for(space, uh)
        assert leaf.startswith(space + "r")
        assert hash_bits(uh, len(leaf) - len(space) - 1) == leaf[len(space) + 1 :]


def test_a_space_without_leaves_starts_at_its_root() -> None:
    index = LeafIndex(["pages/r0", "pages/r1"])
    assert index.leaf_for("products/", "f" * HASH_HEX_LEN) == "products/r"
    assert index.new_roots == ["products/r"]


def test_leaf_index_rejects_a_hash_no_leaf_covers() -> None:
    with pytest.raises(ShardIdError, match="covers hash"):
        LeafIndex(["r0"]).leaf_for("", "f" * HASH_HEX_LEN)


def _space(item: Item) -> str:
    return ""


@settings(max_examples=40, deadline=None)
@given(hashes, st.integers(min_value=1, max_value=9))
def test_loaded_parts_equal_split_counts_and_are_in_hash_order(
    tmp_path_factory: pytest.TempPathFactory, uhs: list[str], cap: int
) -> None:
    leaves = ["r0", "r1"]
    spools = Spools(tmp_path_factory.mktemp("spool"), leaves, _space)
    shuffled = list(uhs)
    random.Random(7).shuffle(shuffled)
    spools.fill((_item(u) for u in shuffled), should_stop=lambda: False)
    for leaf in leaves:
        mine = sorted(u for u in uhs if hash_bits(u, 1) == leaf[1:])
        parts = list(spools.load(leaf, cap, ANY_SIZE))
        assert [p for p, _ in parts] == split_counts(mine, leaf, cap)
        flattened = [item["sk"]["S"] for _, items in parts for item in items]
        assert flattened == mine
        for part, items in parts:
            assert len(items) <= cap
            assert all(hash_bits(i["sk"]["S"], len(part) - 1) == part[1:] for i in items)


def test_spooled_items_come_back_unchanged(tmp_path: Path) -> None:
    item = _item("a" * HASH_HEX_LEN)
    item["priority"] = {"N": "0.5"}
    item["alternates"] = {"L": [{"M": {"hreflang": {"S": "de"}, "href": {"S": "https://e.com/"}}}]}
    spools = Spools(tmp_path, ["r"], _space)
    spools.fill([item], should_stop=lambda: False)
    assert list(spools.load("r", 10, ANY_SIZE)) == [("r", [item])]


def test_the_time_budget_stops_the_fill(tmp_path: Path) -> None:
    spools = Spools(tmp_path, ["r"], _space)
    items = (_item(format(i, f"0{HASH_HEX_LEN}x")) for i in range(5000))
    with pytest.raises(ScanStoppedError, match="after 1000 items"):
        spools.fill(items, should_stop=lambda: True)


def test_more_leaves_than_open_files_still_spools_everything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sitemap_updater.rebuild.inputs.spools.MAX_OPEN_SPOOLS", 2)
    leaves = ["r00", "r01", "r10", "r11"]
    uhs = [format(i * 0x0800_0000, "08x") + "0" * 24 for i in range(32)]
    spools = Spools(tmp_path, leaves, _space)
    spools.fill((_item(u) for u in uhs), should_stop=lambda: False)
    loaded = [
        item["sk"]["S"]
        for leaf in leaves
        for _, items in spools.load(leaf, 99, ANY_SIZE)
        for item in items
    ]
    assert loaded == sorted(uhs)


def test_a_split_leaf_is_loaded_one_part_at_a_time(tmp_path: Path) -> None:
    # r splits into r0 and r1 at cap 2: r1's spool is read only when its part is asked for
    uhs = ["0" * HASH_HEX_LEN, "1" * HASH_HEX_LEN, "8" * HASH_HEX_LEN, "9" * HASH_HEX_LEN]
    spools = Spools(tmp_path, ["r"], _space)
    spools.fill((_item(u) for u in uhs), should_stop=lambda: False)
    parts = spools.load("r", 2, ANY_SIZE)
    first, items = next(parts)
    assert (first, [i["sk"]["S"] for i in items]) == ("r0", uhs[:2])
    assert spools.counts == {"r1": 2}
    assert len(list(tmp_path.iterdir())) == 1  # r1's spool, not read yet
    second, items = next(parts)
    assert (second, [i["sk"]["S"] for i in items]) == ("r1", uhs[2:])
    assert list(tmp_path.iterdir()) == []


def test_a_spool_over_the_byte_bound_is_split_before_it_is_loaded(tmp_path: Path) -> None:
    # few URLs (far under the URL cap) but large items: each part loaded stays under the bound
    uhs = [format(i * 0x1000_0000, "08x") + "0" * 24 for i in range(16)]
    big = []
    for uh in uhs:
        item = _item(uh)
        item["images"] = {"L": [{"S": f"https://e.com/{uh}/{n}.jpg"} for n in range(200)]}
        big.append(item)
    spools = Spools(tmp_path, ["r"], _space)
    spools.fill(iter(big), should_stop=lambda: False)
    one_item = len(json.dumps(big[0], separators=(",", ":"))) + HASH_HEX_LEN + 2
    bound = 4 * one_item
    parts = []
    for part, items in spools.load("r", 1000, bound):
        assert (
            sum(len(json.dumps(i, separators=(",", ":"))) + HASH_HEX_LEN + 2 for i in items)
            <= bound
        )
        parts.append((part, [i["sk"]["S"] for i in items]))
    assert len(parts) > 1
    assert [uh for _, part_uhs in parts for uh in part_uhs] == sorted(uhs)
    assert all(hash_bits(uh, len(p) - 1) == p[1:] for p, part_uhs in parts for uh in part_uhs)
