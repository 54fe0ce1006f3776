"""The branch that covers one URL, read back from the URL's point (``BranchStore.load_at``, what
``where`` reads): always the branch whose leaves hold the URL's leaf, the deeper one where a
split a run died saving left a parent beside its child, none for a space without a tree."""

from __future__ import annotations

import random

from sitemap_updater.rebuild.state.branches import BranchStore, regroup
from sitemap_updater.rebuild.state.nodes import NodeState
from sitemap_updater.store.keys import url_hash
from sitemap_updater.store.shards import LeafIndex, children
from sitemap_updater.store.spaces import point_of
from tests.integration.rebuild.conftest import STATE_TABLE, Aws

PREFIX = "www.example.de/"
LAYOUT = "0123456789abcdef"


def _tree(space: str, leaves: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    grown = [space + "r"]
    while len(grown) < leaves:
        leaf = grown.pop(rng.randrange(len(grown)))
        grown += children(leaf)
    return sorted(grown)


def test_the_branch_read_back_from_a_point_holds_its_leaf(aws: Aws) -> None:
    store = BranchStore(aws.dynamodb, STATE_TABLE)
    trees = {
        space: _tree(space, n, 7)
        for space, n in ((f"{PREFIX}products/", 1_200), (f"{PREFIX}pages/", 40))
    }
    for leaves in trees.values():
        states = {leaf: NodeState(leaf, "0" * 64, "2026-05-01", None, 1, 100) for leaf in leaves}
        for branch in regroup([], states, {}):
            store.save(LAYOUT, branch)
    rng = random.Random(3)
    for space, leaves in trees.items():
        index = LeafIndex(leaves)
        for n in range(25):
            uh = url_hash(f"https://www.example.de/{space}{n}-{rng.random()}")
            prefix, point = point_of(space, uh)
            branch = store.load_at(LAYOUT, prefix, point)
            assert branch is not None
            assert index.leaf_for(space, uh) in {state.shard_id for state in branch.states}
    assert store.load_at(LAYOUT, PREFIX, point_of(f"{PREFIX}zzz/", url_hash("x"))[1]) is None
    assert store.load_at(LAYOUT, PREFIX, point_of(f"{PREFIX}aaa/", url_hash("x"))[1]) is None


def test_where_a_split_left_its_parent_the_child_covers_its_points(aws: Aws) -> None:
    store = BranchStore(aws.dynamodb, STATE_TABLE)
    space = f"{PREFIX}products/"
    parent = {leaf: NodeState(leaf) for leaf in (space + "r0", space + "r1")}
    child = {leaf: NodeState(leaf) for leaf in (space + "r10", space + "r11")}
    (whole,) = regroup([space + "r"], parent, {})
    (split,) = regroup([space + "r1"], child, {})
    store.save(LAYOUT, whole)
    store.save(LAYOUT, split)
    assert store.load_at(LAYOUT, PREFIX, "products/r1011") == split
    assert store.load_at(LAYOUT, PREFIX, "products/r0111") == whole
