"""Growing the shard map (no AWS)."""

from __future__ import annotations

import pytest

from sitemap_updater.rebuild.state.nodes import ShardMap


def test_a_table_without_a_map_has_the_single_root_leaf() -> None:
    assert ShardMap().leaves == ("r",)
    assert ShardMap().nodes == ("r",)


def test_split_replaces_the_leaf_and_records_every_new_node() -> None:
    m = ShardMap(leaves=("r0", "r1"), nodes=("r", "r0", "r1"), version=3)
    split = m.split("r1", ["r100", "r101", "r11"])
    assert split.leaves == ("r0", "r100", "r101", "r11")
    assert split.nodes == ("r", "r0", "r1", "r10", "r100", "r101", "r11")
    assert split.version == 3


def test_split_into_itself_changes_nothing() -> None:
    m = ShardMap()
    assert m.split("r", ["r"]) is m


@pytest.mark.parametrize(
    ("leaf", "replacement", "message"),
    [("r0", ["r00", "r01"], "is not a leaf"), ("r", ["r", "x"], "does not lie under")],
)
def test_split_rejects_a_bad_replacement(leaf: str, replacement: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ShardMap().split(leaf, replacement)
