"""Planning dirty leaves and growing the shard map (no AWS)."""

from __future__ import annotations

import pytest

from sitemap_updater.rebuild.state.nodes import NodeState, ShardMap, plan_dirty


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


def test_dirty_means_dirty_seq_above_built_seq() -> None:
    assert NodeState("r", dirty_seq=2, built_seq=1).dirty
    assert not NodeState("r", dirty_seq=2, built_seq=2).dirty
    assert not NodeState("r").dirty


def test_plan_maps_a_dirty_inner_node_to_all_leaves_under_it() -> None:
    m = ShardMap(leaves=("r0", "r10", "r11"), nodes=("r", "r0", "r1", "r10", "r11"))
    states = {
        "r0": NodeState("r0", dirty_seq=1, built_seq=1),
        "r1": NodeState("r1", leaf=False, dirty_seq=4, built_seq=3),
        "r11": NodeState("r11", dirty_seq=1),
    }
    plan = plan_dirty(m, states)
    assert plan.dirty_leaves == ("r10", "r11")
    assert plan.dirty_nodes == {"r1": 4, "r11": 1}
    assert plan.covers == {"r1": ("r10", "r11"), "r11": ("r11",)}


def test_a_marked_node_deeper_than_a_leaf_maps_to_that_leaf() -> None:
    m = ShardMap(leaves=("r0", "r1"), nodes=("r", "r0", "r1"))
    # a node id that is not in the map (marked by a writer that knew a deeper tree) is ignored
    plan = plan_dirty(m, {"r01": NodeState("r01", dirty_seq=1)})
    assert plan.dirty_leaves == ()
    m2 = ShardMap(leaves=("r0", "r1"), nodes=("r", "r0", "r1", "r01"))
    plan2 = plan_dirty(m2, {"r01": NodeState("r01", dirty_seq=1)})
    assert plan2.dirty_leaves == ("r0",)


def test_nothing_dirty_plans_nothing() -> None:
    plan = plan_dirty(ShardMap(), {"r": NodeState("r", dirty_seq=5, built_seq=5)})
    assert plan.dirty_leaves == ()
    assert plan.dirty_nodes == {}
