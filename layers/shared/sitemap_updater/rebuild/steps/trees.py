"""What a run reads of one layout's state, and what it saves of it: the host records, the branches
of the indexes its changes fall in, the news files and the held marks.

A run reads no more than it needs (``docs/architecture.md``, "Rebuild run"): the held marks and
the news files (one Query each), the records of the hosts its changes touch, and of each such
host the branches of the indexes the changes fall in, which are the branches it renders that
index from. A full rebuild, a run that recovers from a crash and a move to another layout read
everything. Whatever was read is saved back where it changed, in an order that a crash at any
point leaves readable (``save``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from sitemap_updater.rebuild.state.branches import (
    Branch,
    BranchStore,
    leaves_of,
    listed_file,
    regroup,
    sort_key_of,
)
from sitemap_updater.rebuild.state.held import HeldStore
from sitemap_updater.rebuild.state.hosts import HostRecord, HostStore, NewsFiles
from sitemap_updater.rebuild.state.nodes import NodeState
from sitemap_updater.store.spaces import Layout, prefix_of_shard

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient


@dataclass(frozen=True, slots=True)
class Stores:
    """The stores of the state table's items of a layout's trees."""

    branches: BranchStore
    hosts: HostStore
    held: HeldStore

    @classmethod
    def of(cls, client: DynamoDBClient, table: str) -> Stores:
        return cls(BranchStore(client, table), HostStore(client, table), HeldStore(client, table))

    @property
    def items_read(self) -> int:
        return self.branches.items_read + self.hosts.items_read + self.held.items_read


class Trees:
    """The state of the layout named ``key`` that one run has read (and what it saves)."""

    def __init__(self, stores: Stores, layout: Layout, key: str) -> None:
        self.stores = stores
        self.layout = layout
        self.key = key
        self._forget()

    def _forget(self) -> None:
        """Forget everything read."""
        #: the host records read (a host without one gets an empty record, not saved unless
        #: the run changes it)
        self.records: dict[str, HostRecord] = {}
        self._stored_records: dict[str, HostRecord] = {}
        #: the branches read, by top
        self.branches: dict[str, Branch] = {}
        #: (key prefix, index number) of every index whose branches are all read
        self.loaded: set[tuple[str, int]] = set()
        #: every host record and branch of the layout is read
        self.everything = False
        #: tops of the branches marked as holding leaves back
        self.held_tops: set[str] = set()
        #: each host's news files (read at the start of every run)
        self.news: dict[str, NewsFiles] = {}
        #: the sections each host took (``store.spaces.Placement`` adds to them)
        self.named: dict[str, list[str]] = {}
        #: every key the state read lists: files of the branches read, each read host's
        #: indexes, the files beside them, its empty-site file, every host's news files
        self.listed: set[str] = set()

    # -- reading -------------------------------------------------------------------------------

    def open(self) -> tuple[dict[str, NodeState], dict[str, int | None]]:
        """Read the held marks and the news files, and the branches of the indexes the held
        branches are in; returns the states and held marks read."""
        self.held_tops = set(self.stores.held.load(self.key))
        self.read_news()
        self.read_hosts([*self.news, *(prefix_of_shard(top) for top in self.held_tops)])
        return self.read_points((prefix_of_shard(top), sort_key_of(top)) for top in self.held_tops)

    def read_news(self) -> None:
        self.news = self.stores.hosts.load_news(self.key)
        for news in self.news.values():
            self.listed |= {key for key, _, _, _ in news.files}

    def read_hosts(self, prefixes: Iterable[str]) -> None:
        """Read the records of the hosts under ``prefixes`` not read yet."""
        missing = [p for p in dict.fromkeys(prefixes) if p not in self.records]
        if not missing:
            return
        found = {} if self.everything else self.stores.hosts.load(self.key, missing)
        for prefix in missing:
            self._add_record(prefix, found.get(prefix))
            if self.everything:  # none is stored: its one index has no branch
                self.loaded.add((prefix, 1))

    def _add_record(self, prefix: str, record: HostRecord | None) -> None:
        if record is not None:
            self._stored_records[prefix] = record
        self.records[prefix] = record or HostRecord(prefix)
        self.named.setdefault(prefix, list(self.records[prefix].sections))
        self.listed |= self.records[prefix].listed_keys()

    def read_points(
        self, points: Iterable[tuple[str, str]]
    ) -> tuple[dict[str, NodeState], dict[str, int | None]]:
        """Read every branch of each index that one of ``points`` (key prefix, sort key) falls
        in, unless read already; returns the states and held marks of the branches read."""
        wanted = list(points)
        self.read_hosts(prefix for prefix, _ in wanted)
        parts = {(prefix, self.records[prefix].part_of(point).number) for prefix, point in wanted}
        return self.read_parts(parts)

    def read_parts(
        self, parts: Iterable[tuple[str, int]]
    ) -> tuple[dict[str, NodeState], dict[str, int | None]]:
        """Read every branch of the indexes ``parts`` (key prefix, index number) not read yet;
        returns the states and held marks of the branches read."""
        read: list[Branch] = []
        for prefix, number in sorted(set(parts)):
            if (prefix, number) in self.loaded or self.everything:
                continue
            self.read_hosts([prefix])
            low, high = self.records[prefix].bounds(number)
            read += self._add_branches(self.stores.branches.load(self.key, prefix, low, high))
            self.loaded.add((prefix, number))
        return leaves_of(read)

    def read_all(self) -> tuple[dict[str, NodeState], dict[str, int | None]]:
        """Read every host record and branch of the layout; returns every state and mark."""
        if not self.everything:
            self.held_tops = set(self.stores.held.load(self.key))
            self.read_news()
            stored = self.stores.hosts.load_all(self.key)
            for prefix in [*self.layout.prefixes(), *stored]:
                if prefix not in self.records:
                    self._add_record(prefix, stored.get(prefix))
            for prefix, record in self.records.items():
                done = {number for p, number in self.loaded if p == prefix}
                if len(done) < len(record.indexes):
                    branches = self.stores.branches.load(self.key, prefix)
                    self._add_branches(branches)
                self.loaded |= {(prefix, part.number) for part in record.indexes}
            self.everything = True
        return leaves_of(self.branches.values())

    def _add_branches(self, branches: list[Branch]) -> list[Branch]:
        new = [branch for branch in branches if branch.top not in self.branches]
        self.branches.update((branch.top, branch) for branch in new)
        for branch in new:
            self.listed |= {entry[0] for s in branch.states if (entry := listed_file(s))}
        return new

    def states_read(self) -> dict[str, NodeState]:
        """The states of every leaf of the branches read."""
        return leaves_of(self.branches.values())[0]

    def loaded_parts(self, prefix: str) -> list[int]:
        """The numbers of the host's indexes whose branches are all read."""
        return sorted(number for p, number in self.loaded if p == prefix)

    # -- saving --------------------------------------------------------------------------------

    def wipe(self) -> None:
        """Delete every item of the layout (read first): the trees of a layout a finished move
        left, or what an earlier, abandoned move to a layout left of it."""
        self.read_all()
        for top in sorted(self.branches):
            self.stores.branches.delete(self.key, top)
        for prefix in sorted(self._stored_records):
            self.stores.hosts.delete(self.key, prefix)
        for prefix in sorted(self.news):
            self.stores.hosts.save_news(self.key, NewsFiles(prefix))
        for top in sorted(self.held_tops):
            self.stores.held.clear(self.key, top)
        self._forget()
        self.everything = True
        self.read_hosts(self.layout.prefixes())

    def save(
        self,
        states: dict[str, NodeState],
        held: dict[str, int | None],
        records: dict[str, HostRecord],
        news: dict[str, NewsFiles],
    ) -> None:
        """Save what changed: the run's final ``states`` and ``held`` marks of every leaf of
        the branches it read (and of the spaces it started), its host ``records`` and ``news``
        files. Marks of branches that hold leaves back first, then the branches, the host
        records and news files, the marks of branches that hold none any more last: a crash
        at any point leaves a mark too many (harmless), never a held leaf without one."""
        final, gone = self._regrouped(states, held)
        still = {branch.top for branch in final if branch.held}
        for top in sorted(still - self.held_tops):
            self.stores.held.mark(self.key, top)
        for branch in final:
            if self.branches.get(branch.top) != branch:
                self.stores.branches.save(self.key, branch)
        for top in gone:
            self.stores.branches.delete(self.key, top)
        for prefix, record in sorted(records.items()):
            record = replace(record, sections=tuple(self.named.get(prefix, record.sections)))
            if self._stored_records.get(prefix) != record:
                self.stores.hosts.save(self.key, record)
        for prefix, files in sorted(news.items()):
            if self.news.get(prefix, NewsFiles(prefix)) != files:
                self.stores.hosts.save_news(self.key, files)
        for top in sorted(self.held_tops - still):
            self.stores.held.clear(self.key, top)

    def _regrouped(
        self, states: dict[str, NodeState], held: dict[str, int | None]
    ) -> tuple[list[Branch], list[str]]:
        """The branches that hold ``states`` after the run, and the tops read that no branch
        has any more (split ones)."""
        by_host: dict[str, list[str]] = {}
        for top in self.branches:
            by_host.setdefault(prefix_of_shard(top), []).append(top)
        leaves_by_host: dict[str, dict[str, NodeState]] = {}
        for leaf, state in states.items():
            leaves_by_host.setdefault(prefix_of_shard(leaf), {})[leaf] = state
        final: list[Branch] = []
        gone: list[str] = []
        for prefix in sorted(set(by_host) | set(leaves_by_host)):
            tops = by_host.get(prefix, [])
            branches = regroup(tops, leaves_by_host.get(prefix, {}), held)
            final += branches
            kept = {branch.top for branch in branches}
            gone += [top for top in tops if top not in kept]
        return final, gone
