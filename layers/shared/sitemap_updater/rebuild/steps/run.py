"""The state of one run: the leaves and states it reads and builds, the files it defers, and its
report, which only this class writes.

The run knows the leaves of the branches it has read (``trees``): every leaf of each index its
changes fall in, or of everything in a full rebuild. Splits replace a leaf by its children and
new spaces add their roots; ``trees.save`` stores the result.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from sitemap_updater.observability import logger
from sitemap_updater.protocol.lastmod import format_w3c_epoch
from sitemap_updater.rebuild.freshness import Lags
from sitemap_updater.rebuild.news import NewsDesk
from sitemap_updater.rebuild.render import RenderedShard
from sitemap_updater.rebuild.report import RunReport
from sitemap_updater.rebuild.state.nodes import NodeState
from sitemap_updater.rebuild.state.publication import Publication
from sitemap_updater.rebuild.steps.feed_window import FeedWindow
from sitemap_updater.rebuild.steps.objects import RunObjects
from sitemap_updater.rebuild.steps.trees import Trees
from sitemap_updater.store.spaces import Placement, shard_file_key

if TYPE_CHECKING:
    from sitemap_updater.rebuild.outputs.indexnow import IndexNowReport

#: the meta items every run reads: the publication and the checkpoint
METADATA_ITEMS = 2


class Run:
    """One run's state. ``states`` are the leaf states read from the table; the states the run
    builds are kept apart until ``service`` saves them."""

    def __init__(
        self,
        *,
        window: FeedWindow,
        trees: Trees,
        leaving: Trees | None,
        moving: bool,
        publication: Publication,
        stored: bool,
        placement: Placement,
        objects: RunObjects,
        news: NewsDesk,
        now: float,
    ) -> None:
        #: the trees of the layout the run publishes, and, while a move is under way, of the
        #: layout it leaves (read in full: their files stay listed until the move is done)
        self.trees = trees
        self.leaving = leaving
        #: whether this run starts a move to another layout (every file gets a new key)
        self.moving = moving
        self.publication = publication
        #: whether the table holds the publication (else this is the first run)
        self.stored = stored
        self.placement = placement
        self.objects = objects
        #: the news files' articles
        self.news = news
        self.now = now
        #: the leaves of the branches read, after the run's splits and new roots
        self.leaves: set[str] = set()
        #: leaf states read from the table, and the leaves they held back (and their marks)
        self.states: dict[str, NodeState] = {}
        #: every leaf read (a leaf the run split stays split when its branch is read again)
        self._read: set[str] = set()
        self.held_read: dict[str, int | None] = {}
        self.leaf_states: dict[str, NodeState] = {}
        self.rebuilt: set[str] = set()
        #: leaves left for a later run (out of time), and the mark of each (see ``freshness``)
        self.remaining: list[str] = []
        self.held: dict[str, int | None] = {}
        #: the changes the run publishes, for its freshness figures
        self.lags = Lags()
        #: a full rebuild whose Scan ran out of time (every leaf it knows is deferred)
        self.scan_stopped = False
        #: in a full rebuild, items written after this (epoch ms) are the run's changes: the
        #: last feed read began then (every item counts on a first run)
        self._full_since_ms = 0 if window.checkpoint is None else window.checkpoint.saved_at * 1000
        self.report = RunReport(
            status="nothing-to-do",
            mode="full" if window.full else "incremental",
            feed_gap=window.gap,
            feed_records=window.read.records if window.read is not None else 0,
        )

    @property
    def now_w3c(self) -> str:
        return format_w3c_epoch(self.now)

    def state_of(self, shard_id: str) -> NodeState | None:
        return self.leaf_states.get(shard_id) or self.states.get(shard_id)

    def final_states(self) -> dict[str, NodeState]:
        """The state of every leaf the run knows, after the run (a leaf never rendered: empty)."""
        return {leaf: self.state_of(leaf) or NodeState(leaf) for leaf in self.leaves}

    # -- what the run read -------------------------------------------------------------------

    def add_read(self, read: tuple[dict[str, NodeState], dict[str, int | None]]) -> None:
        """Leaf states (and held marks) read from the table."""
        states, held = read
        for leaf, state in states.items():
            if leaf not in self._read:
                self._read.add(leaf)
                self.states[leaf] = state
                self.leaves.add(leaf)
                if leaf in held:
                    self.held_read[leaf] = held[leaf]

    def read_points(self, points: Iterable[tuple[str, str]]) -> None:
        """Read the branches of the indexes ``points`` (key prefix, sort key) fall in."""
        self.add_read(self.trees.read_points(points))

    def read_object(self, key: str) -> bytes | None:
        """A published object read back from the bucket (counted in the report)."""
        body = self.objects.get(key)
        self.report.s3_objects_read.append(key)
        return body

    def note_repaired(
        self, key: str, reason: str, *, remedy: str = "it is rebuilt from the table"
    ) -> None:
        """An object the run cannot use as it is and replaces (by default: rebuilds from the
        table), counted in the metric ``ObjectsRepaired`` and logged as a warning."""
        logger.warning(
            f"an object in the bucket cannot be used as it is; {remedy}",
            key=key,
            reason=reason,
        )
        if key not in self.report.objects_repaired:
            self.report.objects_repaired.append(key)

    # -- leaves ------------------------------------------------------------------------------

    def add_roots(self, roots: Iterable[str]) -> None:
        """The roots of spaces new to the trees, as leaves."""
        self.leaves.update(roots)

    def defer(self, leaves: Iterable[str], *, since_ms: int | None) -> None:
        """Leave ``leaves`` to a later run, marked with the time their oldest change held back
        was written (None where unknown)."""
        for leaf in leaves:
            self.remaining.append(leaf)
            self.held[leaf] = since_ms

    def full_since_ms(self, leaf: str) -> int:
        """In a full rebuild: the items of ``leaf`` written at or after this are its changes."""
        mark = self.held_read.get(leaf)
        return self._full_since_ms if mark is None else min(mark, self._full_since_ms)

    def apply(self, leaf: str, rendered: Sequence[RenderedShard], *, force: bool) -> None:
        """Put the changed files of a rebuilt leaf and record its new state(s)."""
        self.put_leaves(rendered, force=force)
        self.record_split(leaf, [part.shard_id for part in rendered])

    def put_leaves(self, rendered: Sequence[RenderedShard], *, force: bool) -> None:
        """Put the changed files of rendered leaves and record their new states."""
        now_iso = self.now_w3c
        for part in rendered:
            old = self.state_of(part.shard_id) or NodeState(part.shard_id)
            sha = part.sha256
            changed = sha != old.file_sha256
            if part.body is not None and (changed or force):
                self.objects.put(shard_file_key(part.shard_id), part.body)
            self.leaf_states[part.shard_id] = replace(
                old,
                file_sha256=sha,
                file_lastmod=part.newest_lastmod,
                file_changed_at=(
                    None
                    if part.body is None
                    else (now_iso if changed else old.file_changed_at or now_iso)
                ),
                url_count=part.url_count,
                file_bytes=part.uncompressed_bytes,
            )
            self.report.urls_skipped.extend(part.skipped)

    def record_split(self, leaf: str, ids: list[str]) -> None:
        """Record that ``leaf`` was rebuilt as the leaves ``ids`` (a split when not just itself)."""
        if ids != [leaf]:
            if leaf not in self.leaves:
                raise ValueError(f"shard {leaf!r} is not a leaf of the trees")
            for child in ids:
                if not child.startswith(leaf) or child == leaf:
                    raise ValueError(f"shard {child!r} does not lie under the split leaf {leaf!r}")
            self.leaves.discard(leaf)
            self.leaves.update(ids)
            self.leaf_states.pop(leaf, None)
            self.states.pop(leaf, None)
            self.report.shards_split += 1
        self.rebuilt.add(leaf)
        self.report.shards_rebuilt += 1

    # -- what the run found and published ----------------------------------------------------

    def note_changed(self, locs: Iterable[str]) -> None:
        """Locs whose fragment this run adds, changes or removes."""
        self.report.changed_locs.extend(locs)

    def note_skipped(self, urls: Iterable[str]) -> None:
        """URLs left out because one page alone is larger than the byte cap."""
        self.report.urls_skipped.extend(urls)

    def note_drift(self, repaired: int, locs: Iterable[str]) -> None:
        """URLs whose fragment a full rebuild found different from the table."""
        self.report.drift_repaired += repaired
        self.report.changed_locs.extend(locs)

    def note_news(self, files: Sequence[tuple[str, str | None, int]]) -> None:
        """The news files the indexes list: (key, index lastmod, URL count)."""
        self.report.news_files = [key for key, _, _ in files]
        self.report.news_urls = sum(count for _, _, count in files)
        self.report.urls_skipped.extend(self.news.skipped)

    def note_index(self, *, files: int, urls: int) -> None:
        self.report.files = files
        self.report.urls_published = urls

    def note_published(self, at: float) -> None:
        """The run's files and index are put (at ``at``, epoch seconds): measure the lag of the
        changes it published."""
        self.report.freshness = self.lags.measure(at)

    def note_invalidated(self, paths: list[str]) -> None:
        self.report.invalidated_paths = paths

    def note_state_objects(self, keys: Iterable[str]) -> None:
        """Private state objects written (each named once)."""
        written = self.report.state_objects_written
        written.extend(key for key in keys if key not in written)

    def note_indexnow(self, sent: IndexNowReport) -> None:
        self.report.indexnow = sent

    def finish(
        self, *, feed_complete: bool, deleted: list[str], items_read: int, state_items: int
    ) -> RunReport:
        """The report, once the run is done; ``items_read`` are the URL items read from the
        table, ``state_items`` the state table's items (the meta items and stream records are
        added here)."""
        report = self.report
        report.complete = not self.remaining and feed_complete
        report.shards_remaining = len(self.remaining)
        report.objects_deleted = deleted
        report.objects_written = sorted(self.objects.written)
        report.sections_over_cap = sorted(
            f"{prefix}{section}" for prefix, section in self.placement.refused
        )
        report.dynamodb_items_read = (
            items_read + METADATA_ITEMS + state_items + self.objects.entries_read
        )
        report.dynamodb_items_read += report.feed_records
        if self.objects.written:
            report.status = "published"
        return report
