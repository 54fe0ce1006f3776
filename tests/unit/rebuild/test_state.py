"""Growing the shard map (no AWS)."""

from __future__ import annotations

import pytest

from sitemap_updater.rebuild.state.nodes import ShardMap


def test_a_table_without_a_map_has_no_leaf_and_no_layout() -> None:
    assert (ShardMap().leaves, ShardMap().nodes, ShardMap().layout) == ((), (), None)


def test_a_new_space_adds_its_root_once() -> None:
    m = ShardMap(leaves=("pages/r",), nodes=("pages/r",), layout="x")
    grown = m.with_roots(["products/r"])
    assert grown.leaves == ("pages/r", "products/r")
    assert grown.with_roots(["products/r"]) is grown


def test_another_layout_starts_empty_and_keeps_the_version() -> None:
    m = ShardMap(leaves=("r0", "r1"), nodes=("r", "r0", "r1"), version=4)
    assert m.for_layout("sites=a") == ShardMap(version=4, layout="sites=a")


def test_split_replaces_the_leaf_and_records_every_new_node() -> None:
    m = ShardMap(leaves=("r0", "r1"), nodes=("r", "r0", "r1"), version=3)
    split = m.split("r1", ["r100", "r101", "r11"])
    assert split.leaves == ("r0", "r100", "r101", "r11")
    assert split.nodes == ("r", "r0", "r1", "r10", "r100", "r101", "r11")
    assert split.version == 3


def test_split_into_itself_changes_nothing() -> None:
    m = ShardMap(leaves=("r",), nodes=("r",))
    assert m.split("r", ["r"]) is m


@pytest.mark.parametrize(
    ("leaf", "replacement", "message"),
    [("r0", ["r00", "r01"], "is not a leaf"), ("r", ["r", "x"], "does not lie under")],
)
def test_split_rejects_a_bad_replacement(leaf: str, replacement: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ShardMap(leaves=("r",), nodes=("r",)).split(leaf, replacement)
