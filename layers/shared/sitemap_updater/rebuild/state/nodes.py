"""Shard map and shard node states in the state table: load and save.

The shard map lists the leaves of the shard tree (the published files) and every node ever
created; a node's state holds what the run last published for it (its file's digest, lastmod,
URL count and bytes).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from sitemap_updater.store.keys import (
    SHARD_PK_PREFIX,
    SHARDMAP_SK,
    key_attributes,
    meta_key,
    shard_key,
)

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

#: BatchGetItem reads at most this many keys per call.
BATCH_GET_LIMIT = 100


class ShardMapConflictError(RuntimeError):
    """The shard map changed under a run that held the lease (the lease had expired)."""


@dataclass(frozen=True, slots=True)
class ShardMap:
    """The leaves of the shard trees of every space and every node ever created; ``version``
    counts saves; ``layout`` is the ``Layout.text`` the leaves were made for (None: a map from
    before sections, or none yet)."""

    leaves: tuple[str, ...] = ()
    nodes: tuple[str, ...] = ()
    version: int = 0
    layout: str | None = None

    def with_roots(self, roots: Sequence[str]) -> ShardMap:
        """The map with the roots of new spaces added as leaves."""
        new = [root for root in roots if root not in self.nodes]
        if not new:
            return self
        return replace(
            self,
            leaves=tuple(sorted({*self.leaves, *new})),
            nodes=(*self.nodes, *new),
        )

    def for_layout(self, layout: str) -> ShardMap:
        """An empty map for another layout, saved over this one (its version kept)."""
        return ShardMap(version=self.version, layout=layout)

    def split(self, leaf: str, replacement: Sequence[str]) -> ShardMap:
        """The map with ``leaf`` replaced by ``replacement``; new inner nodes are recorded."""
        if list(replacement) == [leaf]:
            return self
        if leaf not in self.leaves:
            raise ValueError(f"shard {leaf!r} is not a leaf of the shard map")
        for child in replacement:
            if not child.startswith(leaf) or child == leaf:
                raise ValueError(f"shard {child!r} does not lie under the split leaf {leaf!r}")
        new_nodes = list(self.nodes)
        seen = set(new_nodes)
        for child in replacement:
            for depth in range(len(leaf) + 1, len(child) + 1):
                node = child[:depth]
                if node not in seen:
                    seen.add(node)
                    new_nodes.append(node)
        leaves = sorted((set(self.leaves) - {leaf}) | set(replacement))
        return replace(self, leaves=tuple(leaves), nodes=tuple(new_nodes))


@dataclass(frozen=True, slots=True)
class NodeState:
    """The ``shard#<id>/state`` item of one node (attribute names from docs/architecture.md)."""

    shard_id: str
    leaf: bool = True
    file_sha256: str | None = None
    file_lastmod: str | None = None
    file_changed_at: str | None = None
    url_count: int = 0
    file_bytes: int = 0


def _num(item: dict[str, Any], name: str) -> int:
    value = item.get(name)
    return int(value["N"]) if value else 0


def _str(item: dict[str, Any], name: str) -> str | None:
    value = item.get(name)
    return str(value["S"]) if value else None


def state_from_item(item: dict[str, Any]) -> NodeState:
    pk = str(item["pk"]["S"])
    return NodeState(
        shard_id=pk[len(SHARD_PK_PREFIX) :],
        leaf=bool(item.get("leaf", {}).get("BOOL", True)),
        file_sha256=_str(item, "file_sha256"),
        file_lastmod=_str(item, "file_lastmod"),
        file_changed_at=_str(item, "file_changed_at"),
        url_count=_num(item, "url_count"),
        file_bytes=_num(item, "file_bytes"),
    )


class StateStore:
    """Reads and writes the shard map and node states of one table."""

    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self._client = client
        self._table = table

    def load_map(self) -> ShardMap:
        """The shard map; a table without one has the single root leaf ``r``."""
        item = self._client.get_item(
            TableName=self._table, Key=key_attributes(meta_key(SHARDMAP_SK)), ConsistentRead=True
        ).get("Item")
        if not item:
            return ShardMap()
        return ShardMap(
            leaves=tuple(v["S"] for v in item["leaves"]["L"]),
            nodes=tuple(v["S"] for v in item["nodes"]["L"]),
            version=int(item["version"]["N"]),
            layout=item["layout"]["S"] if "layout" in item else None,
        )

    def save_map(self, shard_map: ShardMap) -> ShardMap:
        """Store ``shard_map`` if nobody changed it since it was loaded; returns the saved map."""
        key = meta_key(SHARDMAP_SK)
        saved = replace(shard_map, version=shard_map.version + 1)
        try:
            self._client.put_item(
                TableName=self._table,
                Item={
                    **key_attributes(key),
                    "leaves": {"L": [{"S": s} for s in saved.leaves]},
                    "nodes": {"L": [{"S": s} for s in saved.nodes]},
                    "version": {"N": str(saved.version)},
                    **({"layout": {"S": saved.layout}} if saved.layout is not None else {}),
                },
                ConditionExpression="attribute_not_exists(pk) OR version = :v",
                ExpressionAttributeValues={":v": {"N": str(shard_map.version)}},
            )
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                raise ShardMapConflictError(
                    f"shard map version {shard_map.version} was replaced by another run"
                ) from error
            raise
        return saved

    def load_states(self, node_ids: Iterable[str]) -> dict[str, NodeState]:
        """Node states by id (BatchGetItem, consistent); a node without an item is absent."""
        ids = list(dict.fromkeys(node_ids))
        states: dict[str, NodeState] = {}
        for start in range(0, len(ids), BATCH_GET_LIMIT):
            keys = [key_attributes(shard_key(s)) for s in ids[start : start + BATCH_GET_LIMIT]]
            request: dict[str, Any] = {self._table: {"Keys": keys, "ConsistentRead": True}}
            while request:
                response = self._client.batch_get_item(RequestItems=request)
                for item in response.get("Responses", {}).get(self._table, []):
                    state = state_from_item(item)
                    states[state.shard_id] = state
                request = dict(response.get("UnprocessedKeys") or {})
        return states

    def save_state(self, state: NodeState) -> None:
        """Write the file attributes of a node."""
        sets = ["leaf = :leaf", "url_count = :count", "file_bytes = :bytes"]
        removes = []
        values: dict[str, Any] = {
            ":leaf": {"BOOL": state.leaf},
            ":count": {"N": str(state.url_count)},
            ":bytes": {"N": str(state.file_bytes)},
        }
        for name in ("file_sha256", "file_lastmod", "file_changed_at"):
            value = getattr(state, name)
            if value is None:
                removes.append(name)
            else:
                sets.append(f"{name} = :{name}")
                values[f":{name}"] = {"S": value}
        expression = "SET " + ", ".join(sets)
        if removes:
            expression += " REMOVE " + ", ".join(removes)
        self._client.update_item(
            TableName=self._table,
            Key=key_attributes(shard_key(state.shard_id)),
            UpdateExpression=expression,
            ExpressionAttributeValues=values,
        )
