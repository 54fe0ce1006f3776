"""The upgrade from 0.1.0's state: one ``meta/shardmap`` item with every space's leaves and nodes,
one ``meta/published`` item with every listed file, and a ``shard#<id>`` item per node.

The first run of this version finds the ``meta/published`` item without a ``format`` and converts
it before anything else, writing no object: each host's leaves, with the states their node items
hold, become branches (``state.branches``); each host's index, stylesheet, view, empty-site file
and named sections its record (``state.hosts``); its news files their item; the leaves 0.1.0 held
back keep their marks. The layout becomes this version's (the same sites and rules, with the
cap on sections a host has) when every host's sections fit under the cap, so the run that
follows is an ordinary incremental one and every index keeps its bytes; else the next run moves
every URL as for any change of layout. The files a move of 0.1.0 still listed from the layout it
left stay listed, as the trees of that layout, until the move is done.

The new items are put first and ``meta/published`` last, in one write that replaces 0.1.0's
item: a run that dies before it leaves 0.1.0's state whole, and the next run converts it again.
That publication says 0.1.0's ``meta/shardmap`` may be left (``legacy_map``): the run deletes
it, and its save of the publication drops the mark. The node items are no longer read.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final

from sitemap_updater.observability import logger
from sitemap_updater.rebuild.state.branches import Branch, BranchStore, regroup
from sitemap_updater.rebuild.state.held import HeldStore
from sitemap_updater.rebuild.state.hosts import (
    HostRecord,
    HostStore,
    IndexPart,
    NewsFiles,
)
from sitemap_updater.rebuild.state.nodes import NodeState
from sitemap_updater.rebuild.state.publication import (
    Publication,
    PublicationStore,
    SentBatch,
    freshness_of,
)
from sitemap_updater.store.keys import (
    BATCH_GET_LIMIT,
    EMPTY_SITE_KEY,
    INDEX_KEY,
    LEGACY_SHARD_PK_PREFIX,
    LEGACY_SHARDMAP_SK,
    key_attributes,
    layout_key,
    legacy_shard_key,
    meta_key,
)
from sitemap_updater.store.shards import space_of_shard
from sitemap_updater.store.spaces import (
    Layout,
    key_prefix_of,
    prefix_of_shard,
    shard_of_file,
    split_space,
)

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

#: the layout of a 0.1.0 tree from before sections (its map recorded none)
BEFORE_SECTIONS: Final = "before sections"
#: the layout key of the files a move of 0.1.0 still listed from the layout it left
LEFT_BY_010: Final = "left-by-0.1.0"


def upgrade(
    client: DynamoDBClient, table: str, published: dict[str, Any], layout: Layout
) -> Publication:
    """Convert 0.1.0's state (``published`` is its ``meta/published`` item) and return the
    publication it becomes, saved."""
    shardmap = client.get_item(
        TableName=table,
        Key=key_attributes(meta_key(LEGACY_SHARDMAP_SK)),
        ConsistentRead=True,
    ).get("Item", {})
    leaves = [str(v["S"]) for v in shardmap.get("leaves", {}).get("L", [])]
    old_text = str(shardmap["layout"]["S"]) if "layout" in shardmap else None
    states = _states(client, table, leaves)
    record = _Legacy(published)
    named = _named(leaves, layout)
    fits = all(
        len(layout.fixed_sections) + len(names) <= layout.max_sections for names in named.values()
    )
    text: str | None = layout.text
    if old_text != layout.text_before_caps or not fits:
        text = old_text if old_text is not None else (BEFORE_SECTIONS if leaves else None)
    key = layout_key(text)
    held = dict(zip(record.pending, record.pending_since, strict=False))
    branches = BranchStore(client, table)
    marks = HeldStore(client, table)
    hosts = HostStore(client, table)
    prefixes = sorted({*(prefix_of_shard(leaf) for leaf in leaves), *record.prefixes()})
    for prefix in prefixes:
        own = {leaf: states[leaf] for leaf in leaves if prefix_of_shard(leaf) == prefix}
        _save_branches(branches, marks, key, regroup((), own, held))
        hosts.save(key, record.host(prefix, named.get(prefix, [])))
        news = record.news(prefix)
        if news.files:
            hosts.save_news(key, news)
    left = record.left_over(set(leaves))
    if left:
        _save_branches(branches, marks, LEFT_BY_010, regroup((), left, {}))
    publication = Publication(
        legacy_map=True,
        layout=text,
        moving_from=LEFT_BY_010 if left else None,
        files=len(record.files),
        urls=sum(
            count
            for file, count in zip(record.files, record.counts, strict=False)
            if shard_of_file(file) is not None
        ),
        robots_sha256=record.text("robots_sha256"),
        in_flight=record.text("in_flight"),
        generation=record.number("generation") or 0,
        sent=record.sent(),
        published_at=record.number("published_at"),
        freshness=freshness_of(published.get("freshness")),
    )
    PublicationStore(client, table).replace_legacy(publication)
    logger.info(
        "the state of 0.1.0 is converted",
        leaves=len(leaves),
        hosts=len(prefixes),
        layout=text,
        moving=publication.moving_from is not None,
    )
    return publication


def forget_legacy_map(client: DynamoDBClient, table: str) -> None:
    """Delete 0.1.0's ``meta/shardmap`` (the publication that says it may be left is saved
    without the mark by the run)."""
    client.delete_item(TableName=table, Key=key_attributes(meta_key(LEGACY_SHARDMAP_SK)))


def _save_branches(
    branches: BranchStore, marks: HeldStore, key: str, grouped: Iterable[Branch]
) -> None:
    for branch in grouped:
        if branch.held:
            marks.mark(key, branch.top)
        branches.save(key, branch)


def _states(client: DynamoDBClient, table: str, leaves: list[str]) -> dict[str, NodeState]:
    """The state of each leaf, from its 0.1.0 node item (none: a leaf without a file yet)."""
    states = {leaf: NodeState(leaf) for leaf in leaves}
    for start in range(0, len(leaves), BATCH_GET_LIMIT):
        keys = [
            key_attributes(legacy_shard_key(leaf))
            for leaf in leaves[start : start + BATCH_GET_LIMIT]
        ]
        request: dict[str, Any] = {table: {"Keys": keys, "ConsistentRead": True}}
        while request:
            response = client.batch_get_item(RequestItems=request)
            for item in response.get("Responses", {}).get(table, []):
                leaf = str(item["pk"]["S"])[len(LEGACY_SHARD_PK_PREFIX) :]
                states[leaf] = NodeState(
                    shard_id=leaf,
                    file_sha256=_text(item, "file_sha256"),
                    file_lastmod=_text(item, "file_lastmod"),
                    file_changed_at=_text(item, "file_changed_at"),
                    url_count=int(item["url_count"]["N"]) if "url_count" in item else 0,
                    file_bytes=int(item["file_bytes"]["N"]) if "file_bytes" in item else 0,
                )
            request = dict(response.get("UnprocessedKeys") or {})
    return states


def _named(leaves: Iterable[str], layout: Layout) -> dict[str, list[str]]:
    """The sections each host's leaves are in besides the ones every host has, by name."""
    named: dict[str, set[str]] = {}
    for leaf in leaves:
        prefix, section = split_space(space_of_shard(leaf))
        if section and section not in layout.fixed_sections:
            named.setdefault(prefix, set()).add(section)
    return {prefix: sorted(names) for prefix, names in named.items()}


def _text(item: dict[str, Any], name: str) -> str | None:
    value = item.get(name)
    return str(value["S"]) if value and "S" in value else None


class _Legacy:
    """0.1.0's ``meta/published`` item, read."""

    def __init__(self, item: dict[str, Any]) -> None:
        self.item = item
        self.files = [str(v["S"]) for v in item.get("files", {}).get("L", [])]
        lastmods = item.get("lastmods", {}).get("L")
        counts = item.get("counts", {}).get("L")
        self.lastmods: list[str | None] = (
            [v.get("S") for v in lastmods] if lastmods is not None else [None] * len(self.files)
        )
        self.counts = [int(v["N"]) for v in counts] if counts is not None else [0] * len(self.files)
        self.singles = {k: str(v["S"]) for k, v in item.get("singles", {}).get("M", {}).items()}
        self.news_sha256 = {
            k: str(v["S"]) for k, v in item.get("news_sha256", {}).get("M", {}).items()
        }
        self.pending = [str(v["S"]) for v in item.get("pending", {}).get("L", [])]
        self.pending_since = [
            int(v["N"]) if "N" in v else None for v in item.get("pending_since", {}).get("L", [])
        ]

    def text(self, name: str) -> str | None:
        return _text(self.item, name)

    def number(self, name: str) -> int | None:
        value = self.item.get(name)
        return int(value["N"]) if value else None

    def sent(self) -> SentBatch | None:
        reference, changes = self.text("sent_reference"), self.text("sent_changes")
        return SentBatch(reference, changes) if reference and changes else None

    def prefixes(self) -> set[str]:
        return {key_prefix_of(key) for key in (*self.files, *self.singles)}

    def _listing(self, prefix: str) -> list[tuple[str, str | None, int]]:
        return [
            (key, lastmod, count)
            for key, lastmod, count in zip(self.files, self.lastmods, self.counts, strict=False)
            if key_prefix_of(key) == prefix
        ]

    def host(self, prefix: str, named: list[str]) -> HostRecord:
        """The record of the host under ``prefix``: its one index as 0.1.0 put it."""
        index_key = prefix + INDEX_KEY
        home_key = prefix + EMPTY_SITE_KEY
        listing = self._listing(prefix)
        lastmods = {key: lastmod for key, lastmod, _ in listing}
        home = (self.singles[home_key], lastmods.get(home_key)) if home_key in lastmods else None
        part = IndexPart(
            number=1,
            sha256=self.singles.get(index_key),
            files=len(listing),
            urls=sum(count for key, _, count in listing if shard_of_file(key) is not None),
            home=home is not None,
        )
        beside = tuple(
            sorted(
                (key, sha)
                for key, sha in self.singles.items()
                if key_prefix_of(key) == prefix and key not in (index_key, home_key)
            )
        )
        return HostRecord(prefix, (part,), beside, home, tuple(named))

    def news(self, prefix: str) -> NewsFiles:
        return NewsFiles(
            prefix,
            tuple(
                (key, self.news_sha256.get(key, ""), lastmod, count)
                for key, lastmod, count in self._listing(prefix)
                if key in self.news_sha256
            ),
        )

    def left_over(self, leaves: set[str]) -> dict[str, NodeState]:
        """The files the record lists of no leaf of the map (a move of 0.1.0's still lists
        them), as leaves whose state is what the record says of them."""
        left: dict[str, NodeState] = {}
        for key, lastmod, count in zip(self.files, self.lastmods, self.counts, strict=False):
            shard = shard_of_file(key)
            if shard is not None and shard not in leaves and count > 0:
                left[shard] = NodeState(
                    shard, file_sha256="listed by 0.1.0", file_lastmod=lastmod, url_count=count
                )
        return left
