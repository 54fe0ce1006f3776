"""The branches of the shard trees: each item holds the leaves of one space under one node, with
the state of each (what its file is) and the leaves held back for a later run.

A space's tree is stored as branches, each named by its top node, a shard id: every leaf lies in
the branch whose top is the deepest prefix of it. A branch holds at most
:data:`MAX_BRANCH_LEAVES` leaves; one that would hold more is split by the one split rule
(``store.shards.split``) into branches under its two children, so no item grows with the site.
The branches of one host share a partition (``tree#<layout>#<key prefix>``), sorted by top
without the prefix: one Query reads the branches between two tops, the branches an index of the
host lists (``state.hosts``).

A run that dies while it saves the branches of a split may leave the parent beside one of its
children: when branches overlap, the leaves of the deeper one win (``leaves_of``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from sitemap_updater.rebuild.state.nodes import NodeState
from sitemap_updater.store.keys import ROOT_SHARD, key_attributes, tree_partition
from sitemap_updater.store.shards import low_hash, space_of_shard, split
from sitemap_updater.store.spaces import prefix_of_shard, shard_file_key

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

#: Most leaves a branch holds. A leaf takes about 150 bytes (its bits below the top, its file's
#: sha256, two times, its URL count and bytes), 512 of them about 77 KB, and even leaves 128
#: bits deep stay under 140 KB: a third of DynamoDB's 400 KB item.
MAX_BRANCH_LEAVES: Final = 512

#: (leaf shard id, mark): a leaf held back for a later run, and when its oldest held change was
#: written (epoch ms; None where unknown)
Held = tuple[str, int | None]


@dataclass(frozen=True, slots=True)
class Branch:
    """The leaves under ``top`` (a shard id, host prefix included) and their states, in shard id
    order; ``held`` are the leaves a later run rebuilds from the table."""

    top: str
    states: tuple[NodeState, ...]
    held: tuple[Held, ...] = ()

    @property
    def prefix(self) -> str:
        return prefix_of_shard(self.top)

    @property
    def sort_key(self) -> str:
        """The top without the host prefix: the branch's place among the host's branches."""
        return self.top[len(self.prefix) :]


def sort_key_of(shard_id: str) -> str:
    """A shard id without its host prefix (the order of the host's branches and indexes)."""
    return shard_id[len(prefix_of_shard(shard_id)) :]


def listed_file(state: NodeState) -> tuple[str, str | None, int] | None:
    """What an index lists for a leaf: its file's key, lastmod and URL count (None for a leaf
    without a file or without a URL)."""
    if state.url_count < 1 or state.file_sha256 is None:
        return None
    return (
        shard_file_key(state.shard_id),
        state.file_lastmod or state.file_changed_at,
        state.url_count,
    )


def leaves_of(branches: Iterable[Branch]) -> tuple[dict[str, NodeState], dict[str, int | None]]:
    """The leaves' states and held marks of ``branches``; where two overlap (a split a run died
    saving), the deeper one's leaves win."""
    states: dict[str, NodeState] = {}
    held: dict[str, int | None] = {}
    taken: list[str] = []
    for branch in sorted(branches, key=lambda b: len(b.top), reverse=True):
        for state in branch.states:
            if not any(state.shard_id.startswith(top) for top in taken):
                states[state.shard_id] = state
        for leaf, mark in branch.held:
            if not any(leaf.startswith(top) for top in taken):
                held[leaf] = mark
        taken.append(branch.top)
    return states, held


def regroup(
    tops: Iterable[str], states: Mapping[str, NodeState], held: Mapping[str, int | None]
) -> list[Branch]:
    """The branches holding ``states``: each leaf in the branch of the deepest of ``tops`` (the
    branches it was read from) above it, a leaf of a space none of them is in (a new space) in a
    branch of its space's root; a branch of more than :data:`MAX_BRANCH_LEAVES` leaves split by
    the one split rule until none is."""
    ordered = sorted(set(tops), key=len, reverse=True)
    members: dict[str, list[str]] = {}
    for leaf in sorted(states):
        top = next((t for t in ordered if leaf.startswith(t)), None)
        members.setdefault(top or space_of_shard(leaf) + ROOT_SHARD, []).append(leaf)
    out: list[Branch] = []
    for top, leaves in sorted(members.items()):
        for part, part_leaves in _bounded(top, leaves):
            out.append(
                Branch(
                    part,
                    tuple(states[leaf] for leaf in part_leaves),
                    tuple((leaf, held[leaf]) for leaf in part_leaves if leaf in held),
                )
            )
    return out


def _bounded(top: str, leaves: list[str]) -> Iterator[tuple[str, list[str]]]:
    if len(leaves) <= MAX_BRANCH_LEAVES:
        yield top, leaves
        return
    for child, half in split(top, leaves, low_hash):
        if half:
            yield from _bounded(child, half)


# -- the items -----------------------------------------------------------------------------------


def _text(value: str | None) -> dict[str, Any]:
    return {"NULL": True} if value is None else {"S": value}


def _opt(value: dict[str, Any]) -> str | None:
    return None if "NULL" in value else str(value["S"])


def item_of(layout: str, branch: Branch) -> dict[str, Any]:
    """The state table item of ``branch`` in the layout named ``layout``."""
    depth = len(branch.top)
    item: dict[str, Any] = {
        **key_attributes({"pk": tree_partition(layout, branch.prefix), "sk": branch.sort_key}),
        "leaves": {"L": [{"S": s.shard_id[depth:]} for s in branch.states]},
        "sha": {"L": [_text(s.file_sha256) for s in branch.states]},
        "lastmod": {"L": [_text(s.file_lastmod) for s in branch.states]},
        "changed": {"L": [_text(s.file_changed_at) for s in branch.states]},
        "urls": {"L": [{"N": str(s.url_count)} for s in branch.states]},
        "bytes": {"L": [{"N": str(s.file_bytes)} for s in branch.states]},
    }
    if branch.held:
        item["held"] = {"L": [{"S": leaf[depth:]} for leaf, _ in branch.held]}
        item["marks"] = {
            "L": [{"NULL": True} if mark is None else {"N": str(mark)} for _, mark in branch.held]
        }
    return item


def branch_of(item: Mapping[str, Any]) -> Branch:
    """The branch an item holds."""
    prefix = str(item["pk"]["S"]).split("#", 2)[2]
    top = prefix + str(item["sk"]["S"])
    columns = zip(
        item["leaves"]["L"],
        item["sha"]["L"],
        item["lastmod"]["L"],
        item["changed"]["L"],
        item["urls"]["L"],
        item["bytes"]["L"],
        strict=True,
    )
    states = tuple(
        NodeState(
            shard_id=top + str(leaf["S"]),
            file_sha256=_opt(sha),
            file_lastmod=_opt(lastmod),
            file_changed_at=_opt(changed),
            url_count=int(urls["N"]),
            file_bytes=int(size["N"]),
        )
        for leaf, sha, lastmod, changed, urls, size in columns
    )
    held = tuple(
        (top + str(leaf["S"]), None if "NULL" in mark else int(mark["N"]))
        for leaf, mark in zip(
            item.get("held", {}).get("L", []), item.get("marks", {}).get("L", []), strict=True
        )
    )
    return Branch(top, states, held)


class BranchStore:
    """Reads and writes the branches of one state table."""

    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self._client = client
        self._table = table
        #: items read (each counts in the run's report)
        self.items_read = 0

    def load(
        self, layout: str, prefix: str, low: str = "", high: str | None = None
    ) -> list[Branch]:
        """The branches of the host under ``prefix`` whose sort key is at least ``low`` and
        below ``high`` (None: no bound)."""
        condition = "pk = :pk"
        values: dict[str, Any] = {":pk": {"S": tree_partition(layout, prefix)}}
        if low and high is not None:
            condition += " AND sk BETWEEN :lo AND :hi"
            values |= {":lo": {"S": low}, ":hi": {"S": high}}
        elif low:
            condition += " AND sk >= :lo"
            values[":lo"] = {"S": low}
        elif high is not None:
            condition += " AND sk <= :hi"
            values[":hi"] = {"S": high}
        kwargs: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": condition,
            "ExpressionAttributeValues": values,
            "ConsistentRead": True,
        }
        out: list[Branch] = []
        while True:
            page = self._client.query(**kwargs)
            for item in page.get("Items", []):
                self.items_read += 1
                if high is None or str(item["sk"]["S"]) < high:
                    out.append(branch_of(item))
            last = page.get("LastEvaluatedKey")
            if not last:
                return out
            kwargs["ExclusiveStartKey"] = last

    def load_at(self, layout: str, prefix: str, point: str) -> Branch | None:
        """The branch of the host under ``prefix`` whose leaves cover ``point`` (a sort key, as
        ``store.spaces.point_of`` gives): the deepest whose top is a prefix of it, found by
        reading back from ``point`` (one item, unless a split a run died saving left a child
        beside its parent). None: the point's space has no branch."""
        kwargs: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk AND sk <= :point",
            "ExpressionAttributeValues": {
                ":pk": {"S": tree_partition(layout, prefix)},
                ":point": {"S": point},
            },
            "ScanIndexForward": False,
            "Limit": 2,
            "ConsistentRead": True,
        }
        space = space_of_shard(prefix + point)
        while True:
            page = self._client.query(**kwargs)
            for item in page.get("Items", []):
                self.items_read += 1
                key = str(item["sk"]["S"])
                if point.startswith(key):
                    return branch_of(item)
                if not (prefix + key).startswith(space):
                    return None  # past the point's space: it has no branch
            last = page.get("LastEvaluatedKey")
            if not last:
                return None
            kwargs["ExclusiveStartKey"] = last

    def save(self, layout: str, branch: Branch) -> None:
        self._client.put_item(TableName=self._table, Item=item_of(layout, branch))

    def delete(self, layout: str, top: str) -> None:
        prefix = prefix_of_shard(top)
        key = {"pk": tree_partition(layout, prefix), "sk": top[len(prefix) :]}
        self._client.delete_item(TableName=self._table, Key=key_attributes(key))
