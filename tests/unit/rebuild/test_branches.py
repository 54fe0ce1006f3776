"""The branches of the shard trees and the host records (no AWS): every leaf in one branch, no
branch over its bound, a split a run died saving read back as the deeper branch says."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from sitemap_updater.rebuild.state.branches import (
    MAX_BRANCH_LEAVES,
    Branch,
    branch_of,
    item_of,
    leaves_of,
    listed_file,
    regroup,
)
from sitemap_updater.rebuild.state.hosts import HostRecord, IndexPart
from sitemap_updater.rebuild.state.nodes import NodeState
from sitemap_updater.store.shards import children


def tree(space: str, leaves: int, seed: int) -> list[str]:
    """The leaves of a tree of ``space`` grown by splitting leaves at random."""
    rng = random.Random(seed)
    grown = [space + "r"]
    while len(grown) < leaves:
        leaf = grown.pop(rng.randrange(len(grown)))
        grown += children(leaf)
    return sorted(grown)


def states(leaves: list[str]) -> dict[str, NodeState]:
    return {leaf: NodeState(leaf, "s" * 64, "2024-05-01", None, 3, 300) for leaf in leaves}


@settings(max_examples=25, deadline=None)
@given(
    leaves=st.integers(1, 3 * MAX_BRANCH_LEAVES),
    seed=st.integers(0, 2**16),
    space=st.sampled_from(["pages/", "www.example.de/products/", ""]),
)
def test_every_leaf_is_in_one_bounded_branch_and_regrouping_keeps_them(
    leaves: int, seed: int, space: str
) -> None:
    grown = states(tree(space, leaves, seed))
    held = {leaf: 7 for leaf in list(grown)[::5]}

    branches = regroup((), grown, held)

    placed = [state.shard_id for branch in branches for state in branch.states]
    assert sorted(placed) == sorted(grown)
    for branch in branches:
        assert len(branch.states) <= MAX_BRANCH_LEAVES
        assert all(state.shard_id.startswith(branch.top) for state in branch.states)
        assert dict(branch.held) == {s.shard_id: 7 for s in branch.states if s.shard_id in held}
    tops = [branch.top for branch in branches]
    assert not any(a != b and b.startswith(a) for a in tops for b in tops)
    assert regroup(tops, grown, held) == branches  # a saved grouping is kept as it is
    assert leaves_of(branches) == (grown, held)


def test_a_new_space_starts_in_a_branch_of_its_root() -> None:
    old = regroup((), states(["pages/r0", "pages/r1"]), {})
    grown = states(["pages/r0", "pages/r1", "news/r"])
    assert [b.top for b in regroup([b.top for b in old], grown, {})] == ["news/r", "pages/r"]


def test_where_a_split_left_its_parent_beside_a_child_the_child_wins() -> None:
    parent = Branch("pages/r", tuple(states(["pages/r0", "pages/r10", "pages/r11"]).values()))
    newer = NodeState("pages/r10", "n" * 64, "2024-06-01", None, 4, 400)
    child = Branch("pages/r1", (newer, NodeState("pages/r11")))

    read, _ = leaves_of([parent, child])

    assert read["pages/r10"] == newer
    assert read["pages/r11"] == NodeState("pages/r11")
    assert read["pages/r0"] == parent.states[0]


def test_an_item_holds_its_branch() -> None:
    branch = Branch(
        "www.example.de/products/r01",
        (
            NodeState("www.example.de/products/r01", None, None, None, 0, 0),
            NodeState(
                "www.example.de/products/r010",
                "a" * 64,
                "2024-05-01",
                "2024-05-02T00:00:00Z",
                9,
                900,
            ),
        ),
        (("www.example.de/products/r01", None),),
    )
    item = item_of("layout1", branch)
    assert item["pk"] == {"S": "tree#layout1#www.example.de/"}
    assert item["sk"] == {"S": "products/r01"}
    assert branch_of(item) == branch


def test_only_a_leaf_with_a_file_and_a_url_is_listed() -> None:
    assert listed_file(NodeState("pages/r0")) is None
    assert listed_file(NodeState("pages/r0", "a" * 64, None, "2024-05-02T00:00:00Z", 0)) is None
    assert listed_file(NodeState("pages/r0", "a" * 64, None, "2024-05-02T00:00:00Z", 2)) == (
        "sitemap-pages-r0.xml.gz",
        "2024-05-02T00:00:00Z",
        2,
    )


def test_each_index_lists_the_branches_from_its_start_to_the_next_one() -> None:
    record = HostRecord(
        "",
        (IndexPart(1, ""), IndexPart(3, "pages/r01"), IndexPart(2, "products/r")),
    )
    assert record.part_of("articles/r1").number == 1
    assert record.part_of("pages/r0011").number == 1
    assert record.part_of("pages/r01").number == 3
    assert record.part_of("pages/r1110").number == 3
    assert record.part_of("products/r0").number == 2
    assert record.bounds(1) == ("", "pages/r01")
    assert record.bounds(3) == ("pages/r01", "products/r")
    assert record.bounds(2) == ("products/r", None)
    assert record.index_keys() == ["sitemap.xml", "sitemap-2.xml", "sitemap-3.xml"]
