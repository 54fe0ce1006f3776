"""One rebuild run, in the order docs/architecture.md prescribes.

lease -> read the change feed from the checkpoint -> patch the published file of every leaf with a
change while time remains (or, in a full rebuild, render every leaf from a spooled parallel Scan)
-> index -> invalidate -> save states and the shard map -> record the publish -> save the
checkpoint -> retire old files -> release the lease.

An incremental run reads from DynamoDB only the stream records since the checkpoint, a constant
number of metadata items and the states of the leaves that have a change; the unchanged entries
of a changed file come from the published file itself (``patch``). The checkpoint is saved last,
so a run that dies anywhere leaves it where the next run reads every change again; applying a
change twice gives the same file. A feed that cannot prove it still holds every change since the
checkpoint (``FeedGapError``) makes the run a full rebuild, with a metric and a log line.

Before its first S3 write a run marks the publish record ``in_flight`` and takes the next publish
generation; saving the record (after the states) removes the mark. A run that wrote nothing and
repairs nothing leaves the record alone. A run that finds the mark knows its predecessor died
with objects written that no state or record describes, so it puts every file it rebuilds and the
index even where the recorded hashes say nothing changed (a change reverted meanwhile would
otherwise leave the crashed run's bytes, or an index naming its files, in place). Such a run
always saves the record, which is what removes the mark.

Files are put before the index that names them, markers are cleared last, and an object is
deleted only after its grace period and only when the published index no longer lists it, so a
crash at any point leaves a state that the next run repairs and crawlers never see a dangling
index entry.
"""

from __future__ import annotations

import hashlib
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from sitemap_updater.config import RebuildConfig
from sitemap_updater.indexnow import IndexNowClient, IndexNowConfigError
from sitemap_updater.observability import logger
from sitemap_updater.protocol import Site, render_index
from sitemap_updater.protocol.render.fragments import PublishedFormatError
from sitemap_updater.rebuild.feed import (
    Checkpoint,
    CheckpointStore,
    FeedGapError,
    FeedRead,
    StreamFeed,
)
from sitemap_updater.rebuild.full import ScanStoppedError, Spools
from sitemap_updater.rebuild.indexnow_queue import IndexNowQueue, IndexNowReport
from sitemap_updater.rebuild.invalidate import (
    Invalidator,
    SentBatch,
    caller_reference,
    changes_digest,
)
from sitemap_updater.rebuild.lease import Lease
from sitemap_updater.rebuild.news import NewsDesk, is_news_key
from sitemap_updater.rebuild.patch import changed_between, parse_published, patch_shard
from sitemap_updater.rebuild.publish import Publisher, robots_txt
from sitemap_updater.rebuild.published import PublishedRecord, PublishedStore
from sitemap_updater.rebuild.render import RenderedShard, render_home, render_shard
from sitemap_updater.rebuild.report import RunReport
from sitemap_updater.rebuild.retire import RetireLedger, sweep
from sitemap_updater.rebuild.source import DynamoShardSource, ShardSource
from sitemap_updater.rebuild.state import NodeState, ShardMap, StateStore
from sitemap_updater.store.items import Item
from sitemap_updater.store.keys import EMPTY_SITE_KEY, INDEX_KEY, ROBOTS_KEY, shard_file_key
from sitemap_updater.store.shards import leaf_for

if TYPE_CHECKING:
    from mypy_boto3_cloudfront.client import CloudFrontClient
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_dynamodbstreams.client import DynamoDBStreamsClient
    from mypy_boto3_s3.client import S3Client


def _sha(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def _w3c(epoch_seconds: float) -> str:
    return datetime.fromtimestamp(int(epoch_seconds), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True, slots=True)
class IndexPlan:
    """What the index will list: file keys with their lastmod, and the live URLs they hold."""

    entries: tuple[tuple[str, str | None], ...]
    urls: int
    empty_site: bool
    #: the URL count of each of ``entries``
    counts: tuple[int, ...] = ()


@dataclass(slots=True)
class _RunState:
    shard_map: ShardMap
    states: dict[str, NodeState]
    published: PublishedRecord
    ledger: dict[str, int]
    now: float
    loaded_map: ShardMap
    leaf_states: dict[str, NodeState] = field(default_factory=dict)
    inner_states: dict[str, NodeState] = field(default_factory=dict)
    written: dict[str, str] = field(default_factory=dict)
    rebuilt: set[str] = field(default_factory=set)
    remaining: list[str] = field(default_factory=list)
    writing: bool = False
    #: the publish generation: the record's, or the one ``begin`` gave this run's writes
    generation: int = 0
    #: file key -> (index lastmod, URL count) of the last publish (None: read every state)
    listing: dict[str, tuple[str | None, int]] | None = None
    #: the news files' articles (rebuild/news.py)
    news: NewsDesk | None = None

    def state_of(self, shard_id: str) -> NodeState | None:
        return self.leaf_states.get(shard_id) or self.states.get(shard_id)


class RebuildService:
    """Runs rebuilds against one table, bucket and distribution (clients are injected)."""

    def __init__(
        self,
        config: RebuildConfig,
        *,
        dynamodb: DynamoDBClient,
        s3: S3Client,
        cloudfront: CloudFrontClient | None,
        owner: str,
        remaining_seconds: Callable[[], float],
        clock: Callable[[], float] = time.time,
        source: ShardSource | None = None,
        spool_root: str | None = None,
        streams: DynamoDBStreamsClient | None = None,
        feed: StreamFeed | None = None,
    ) -> None:
        self.config = config
        self.site = Site.parse(config.site_url)
        self._dynamodb = dynamodb
        self._table = config.table_name
        self._owner = owner
        self._remaining_seconds = remaining_seconds
        self._clock = clock
        self._spool_root = spool_root
        self.source: ShardSource = source or DynamoShardSource(dynamodb, config.table_name)
        state_table = config.state_table_name or config.table_name
        self._state_table = state_table
        self.store = StateStore(dynamodb, state_table)
        self.published = PublishedStore(dynamodb, state_table)
        self.ledger = RetireLedger(dynamodb, state_table)
        self.checkpoints = CheckpointStore(dynamodb, state_table)
        if feed is None:
            if streams is None:
                raise ValueError("a DynamoDB Streams client or a feed is required")
            feed = StreamFeed(streams, config.stream_arn, clock=clock)
        self.feed = feed
        self.publisher = Publisher(s3, config.bucket_name)
        self.invalidator = Invalidator(
            cloudfront, config.distribution_id, config.invalidation_max_paths
        )
        self._s3 = s3
        self.indexnow: IndexNowClient | None = None
        self._indexnow_error: str | None = None
        if config.indexnow_key:
            try:
                self.indexnow = IndexNowClient(
                    config.indexnow_endpoint,
                    config.indexnow_key,
                    site_url=config.site_url,
                    public_base_url=config.public_base_url,
                )
            except IndexNowConfigError as error:  # IndexNow never stops a publish
                logger.error("IndexNow is misconfigured and sends nothing", reason=str(error))
                self._indexnow_error = str(error)

    # -- run ---------------------------------------------------------------------------------

    def run(self, *, full: bool = False) -> RunReport:
        started = time.monotonic()
        lease = Lease(self._dynamodb, self._state_table, self._owner, self.config.lease_seconds)
        if not lease.acquire(self._clock()):
            return RunReport(
                status="locked", mode="full" if full else "incremental", complete=False
            )
        try:
            report = self._run(full)
        finally:
            lease.release()
        report.seconds = round(time.monotonic() - started, 3)
        return report

    def _out_of_time(self) -> bool:
        return self._remaining_seconds() < self.config.time_budget_margin_seconds

    def _read_feed(self, checkpoint: Checkpoint | None, report: RunReport) -> FeedRead | None:
        """The changes since ``checkpoint``; None (and the reason in the report and the log)
        when the feed cannot prove it still holds all of them."""
        try:
            feed = self.feed.read(
                checkpoint,
                max_records=self.config.feed_max_records,
                out_of_time=self._out_of_time,
            )
        except FeedGapError as gap:
            logger.warning(
                "the change feed cannot prove it holds every change since the checkpoint; "
                "running a full rebuild instead",
                reason=gap.reason,
            )
            report.feed_gap = gap.reason
            return None
        report.feed_records = feed.records
        return feed

    def _run(self, full: bool) -> RunReport:
        read_before = self.source.items_read
        report = RunReport(status="nothing-to-do", mode="full" if full else "incremental")
        shard_map = self.store.load_map()
        published = self.published.load() or PublishedRecord()
        checkpoint = self.checkpoints.load()
        metadata_items = 3
        feed = None if full else self._read_feed(checkpoint, report)
        if feed is None:
            full = True
            report.mode = "full"
        # a full rebuild covers every change up to the moment its Scan starts
        tip = self.feed.tip(checkpoint) if full else None
        listing = published.listing()
        states: dict[str, NodeState] = {}
        if full or listing is None:
            states = self.store.load_states(shard_map.nodes)
            metadata_items += len(states)
        run = _RunState(
            shard_map=shard_map,
            states=states,
            published=published,
            ledger=self.ledger.load(),
            now=self._clock(),
            loaded_map=shard_map,
            listing=listing,
        )
        run.generation = run.published.generation
        run.news = self._load_news(run, report)
        metadata_items += len(run.ledger)
        # The previous run died after writing objects: rewrite rather than trust the hashes.
        recovering = run.published.in_flight is not None
        if full:
            self._rebuild_all(run, report)
        else:
            assert feed is not None
            metadata_items += self._rebuild_changed(run, report, feed, force=recovering)
        news = self._publish_news(run, report, force=full or recovering)
        published_record = self._publish(run, report, force=full or recovering, news=news)
        record = replace(
            published_record, generation=run.generation, pending=tuple(sorted(run.remaining))
        )  # after the run's last write
        report.invalidated_paths = self._invalidate(run)
        self._save_states(run)
        if recovering and run.remaining:  # files left unrewritten may still hold stray bytes
            record = replace(record, in_flight=self._owner)
        queue = self._indexnow_queue(report, feed if recovering else None)
        if run.writing or recovering or record != run.published:
            self.published.save(record)
        for key in record.files:
            if key in run.ledger:
                self.ledger.forget(key)
                del run.ledger[key]
        # last: a run that died before this point is read again in full by the next one
        new_checkpoint = tip if tip is not None else feed.checkpoint if feed else None
        if feed is not None and not feed.complete and checkpoint is not None:
            # records the run did not reach are as old as the previous checkpoint: keep its time,
            # so that a run that stays behind for a day falls back to a full rebuild in time
            new_checkpoint = replace(feed.checkpoint, saved_at=checkpoint.saved_at)
        if new_checkpoint is not None and new_checkpoint != checkpoint:
            self.checkpoints.save(new_checkpoint)
        if queue is not None:
            self._indexnow_submit(queue, report)
        report.complete = not run.remaining and (feed is None or feed.complete)
        report.shards_remaining = len(run.remaining)
        report.objects_deleted = list(
            sweep(
                self.ledger,
                run.ledger,
                set(record.files),
                int(self._clock()),
                self.config.retire_grace_seconds,
                self.publisher.delete,
            )
        )
        report.objects_written = sorted(run.written)
        report.dynamodb_items_read = (
            self.source.items_read - read_before + metadata_items + report.feed_records
        )
        if run.written:
            report.status = "published"
        return report

    # -- IndexNow ------------------------------------------------------------------------------

    def _indexnow_queue(
        self, report: RunReport, recovered: FeedRead | None
    ) -> IndexNowQueue | None:
        """The run's IndexNow queue with its changed locs stored durably, before the publish
        record (whose save ends a crashed run's recovery) and the checkpoint are saved.

        A run that recovers from a crashed one patched files the crashed run may already have
        published, so it cannot tell their changes from the bytes: it also adds the locs of
        every change it read (at least once, rather than never)."""
        if self.indexnow is None:
            if self._indexnow_error is not None:
                report.indexnow = IndexNowReport(error=self._indexnow_error)
            return None
        queue = IndexNowQueue(self._s3, self.config.bucket_name, self.indexnow)
        queue.add(report.changed_locs)
        if recovered is not None:
            queue.add(str(item["loc"]["S"]) for item in recovered.changes.values() if item)
        report.state_objects_written.extend(queue.persist())
        report.indexnow = queue.report
        return queue

    def _indexnow_submit(self, queue: IndexNowQueue, report: RunReport) -> None:
        """Send what waits; the publish is complete, and nothing here can fail the run."""
        try:
            written = queue.submit(self._clock(), self._out_of_time)
            report.state_objects_written.extend(
                key for key in written if key not in report.state_objects_written
            )
        except Exception as error:  # the URLs stay pending; the next run tries again
            logger.exception("IndexNow submission failed; the URLs stay pending")
            queue.report.error = f"{type(error).__name__}: {error}"

    def _rebuild_changed(
        self, run: _RunState, report: RunReport, feed: FeedRead, *, force: bool
    ) -> int:
        """Patch every leaf with a change (and rebuild the leaves a full rebuild left pending
        from the table); returns how many leaf states it read."""
        groups: dict[str, dict[str, Item | None]] = {}
        for uh, item in feed.changes.items():
            groups.setdefault(leaf_for(uh, run.shard_map.leaves), {})[uh] = item
        pending = [leaf for leaf in run.published.pending if leaf in run.shard_map.leaves]
        wanted = sorted(set(groups) | set(pending))
        # first, so that a leaf read from the table below replaces its articles with the newest
        self._news_desk(run).apply(feed.changes)
        loaded = self.store.load_states(leaf for leaf in wanted if leaf not in run.states)
        run.states.update(loaded)
        for leaf in wanted:
            if self._out_of_time():
                # its changes are behind the checkpoint this run saves: rebuild it in full later
                run.remaining.append(leaf)
                continue
            if leaf in pending:
                items = list(self.source.iter_shard(leaf))
                self._news_desk(run).replace_shard(leaf, items)
                self._apply(run, report, leaf, self._render(leaf, items), force=force)
                continue
            self._patch(run, report, leaf, groups[leaf], force=force)
        return len(loaded)

    def _patch(
        self,
        run: _RunState,
        report: RunReport,
        leaf: str,
        changes: dict[str, Item | None],
        *,
        force: bool,
    ) -> None:
        state = run.states.get(leaf)
        key = shard_file_key(leaf)
        body = None
        if state is not None and state.file_sha256 is not None:
            body = self.publisher.get(key)
            report.s3_objects_read.append(key)
        try:
            if state is not None and state.file_sha256 is not None and body is None:
                raise PublishedFormatError(f"{key} is missing from the bucket")
            patched = patch_shard(
                leaf,
                body,
                changes,
                self.site,
                max_urls=self.config.max_urls_per_sitemap,
                max_bytes=self.config.max_bytes_per_sitemap,
            )
        except PublishedFormatError as error:
            logger.warning(
                "published file cannot be patched; rebuilding its shard from the table",
                shard=leaf,
                reason=str(error),
            )
            items = list(self.source.iter_shard(leaf))
            self._apply(run, report, leaf, self._render(leaf, items), force=True)
            report.changed_locs.extend(str(i["loc"]["S"]) for i in changes.values() if i)
            return
        if body is not None and state is not None:
            # compare with the bytes in the bucket, which a crashed run may have replaced
            run.states[leaf] = replace(state, file_sha256=_sha(body))
        self._apply(run, report, leaf, patched.rendered, force=force)
        report.changed_locs.extend(patched.changed_locs)
        report.urls_skipped.extend(patched.skipped)

    def _invalidate(self, run: _RunState) -> list[str]:
        """One invalidation for what the run wrote, noted in the record before it is sent."""
        changes = {"/" + key: sha for key, sha in run.written.items()}
        if not changes or not self.invalidator.enabled:
            return []
        reference = caller_reference(changes, run.generation, run.published.sent)
        self.published.note_sent(SentBatch(reference, changes_digest(changes)))
        return self.invalidator.invalidate(changes, reference)

    # -- rebuilding shards ---------------------------------------------------------------------

    def _render(self, shard_id: str, items: Sequence[Item]) -> list[RenderedShard]:
        return render_shard(
            shard_id,
            items,
            self.site,
            max_urls=self.config.max_urls_per_sitemap,
            max_bytes=self.config.max_bytes_per_sitemap,
        )

    def _rebuild_all(self, run: _RunState, report: RunReport) -> None:
        leaves = sorted(run.shard_map.leaves)
        with tempfile.TemporaryDirectory(prefix="sitemap-spool-", dir=self._spool_root) as tmp:
            spools = Spools(Path(tmp), leaves)
            try:
                spools.fill(
                    self.source.scan_all(self.config.full_rebuild_segments), self._out_of_time
                )
            except ScanStoppedError:
                spools.close()
                run.remaining.extend(leaves)
                return
            for leaf in leaves:
                if self._out_of_time():
                    run.remaining.append(leaf)
                    continue
                # Each part is rendered and put before the next is loaded, so a leaf that splits
                # into many files holds one file's items and bytes at a time, not all of them.
                ids: list[str] = []
                for part, items in spools.load(leaf, self.config.max_urls_per_sitemap):
                    self._news_desk(run).replace_shard(part, items)
                    rendered = self._render(part, items)
                    del items
                    for shard in rendered:
                        # repairs of a site published before are changes to announce; the
                        # first publish of a site is not
                        repaired, locs = self._drift(shard, want_locs=bool(run.published.files))
                        report.drift_repaired += repaired
                        report.changed_locs.extend(locs)
                    self._apply_parts(run, report, rendered, force=True)
                    ids.extend(r.shard_id for r in rendered)
                    del rendered
                self._record_split(run, report, leaf, ids)

    def _drift(self, shard: RenderedShard, *, want_locs: bool) -> tuple[int, list[str]]:
        """How many URLs' entries in the published file of ``shard`` differ from its new
        rendering, and (with ``want_locs``) their locs. A file never published counts all of its
        URLs; equal bytes count none; only differing files are parsed."""
        old = self.publisher.get(shard_file_key(shard.shard_id))
        if old == shard.body:
            return 0, []
        if old is None and not want_locs:
            return shard.url_count, []
        try:
            before = parse_published(old) if old is not None else {}
        except PublishedFormatError:
            before = {}
        del old
        after = parse_published(shard.body) if shard.body is not None else {}
        locs = changed_between(before, after)
        return len(locs), locs if want_locs else []

    def _apply(
        self,
        run: _RunState,
        report: RunReport,
        leaf: str,
        rendered: Sequence[RenderedShard],
        *,
        force: bool,
    ) -> None:
        """Put the changed files of a rebuilt leaf and record its new state(s)."""
        self._apply_parts(run, report, rendered, force=force)
        self._record_split(run, report, leaf, [part.shard_id for part in rendered])

    def _apply_parts(
        self, run: _RunState, report: RunReport, rendered: Sequence[RenderedShard], *, force: bool
    ) -> None:
        """Put the changed files of rendered leaves and record their new states."""
        now_iso = _w3c(run.now)
        for part in rendered:
            old = run.state_of(part.shard_id) or NodeState(part.shard_id)
            sha = part.sha256
            changed = sha != old.file_sha256
            if part.body is not None and (changed or force):
                self._put(run, shard_file_key(part.shard_id), part.body)
            run.leaf_states[part.shard_id] = replace(
                old,
                leaf=True,
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
            report.urls_skipped.extend(part.skipped)

    def _record_split(self, run: _RunState, report: RunReport, leaf: str, ids: list[str]) -> None:
        """Record that ``leaf`` was rebuilt as the leaves ``ids`` (a split when not just itself)."""
        if ids != [leaf]:
            run.shard_map = run.shard_map.split(leaf, ids)
            run.leaf_states.pop(leaf, None)
            run.inner_states[leaf] = replace(
                run.states.get(leaf) or NodeState(leaf),
                leaf=False,
                file_sha256=None,
                file_lastmod=None,
                file_changed_at=None,
                url_count=0,
                file_bytes=0,
            )
            report.shards_split += 1
        run.rebuilt.add(leaf)
        report.shards_rebuilt += 1

    def _put(self, run: _RunState, key: str, body: bytes) -> None:
        """Put an object; a key the published index does not list yet is entered in the retire
        ledger first, so that a crash before the index names it cannot leave it behind forever."""
        if key not in run.published.files and key not in run.ledger:
            stamp = int(run.now)
            self.ledger.retire(key, stamp)
            run.ledger[key] = stamp
        self._write(run, key, body)

    def _write(self, run: _RunState, key: str, body: bytes) -> None:
        """Put an object; the run's first put is preceded by the ``in_flight`` mark."""
        if not run.writing:
            run.generation = self.published.begin(self._owner)
            run.writing = True
        self.publisher.put(key, body)
        run.written[key] = _sha(body)

    # -- news files ----------------------------------------------------------------------------

    def _load_news(self, run: _RunState, report: RunReport) -> NewsDesk:
        """The articles of the published news files; reads them only when the record lists
        some, so a site without news reads nothing."""
        desk = NewsDesk(
            self.site,
            window_hours=self.config.news_window_hours,
            now=run.now,
            max_bytes=self.config.max_bytes_per_sitemap,
        )
        bodies = {}
        for key in run.published.files:
            if is_news_key(key):
                report.s3_objects_read.append(key)
                body = self.publisher.get(key)
                if body is not None:
                    bodies[key] = body
        try:
            desk.load(bodies)
        except PublishedFormatError as error:
            logger.warning(
                "a published news file cannot be read back; its articles return with their "
                "next change or the next full rebuild",
                reason=str(error),
            )
        return desk

    def _news_desk(self, run: _RunState) -> NewsDesk:
        assert run.news is not None
        return run.news

    def _publish_news(
        self, run: _RunState, report: RunReport, *, force: bool
    ) -> list[tuple[str, str | None, int]]:
        """Put the news files whose bytes changed; returns (key, index lastmod, URL count) of
        each, for the index."""
        desk = self._news_desk(run)
        listed: list[tuple[str, str | None, int]] = []
        for news_file in desk.render():
            changed = desk.published.get(news_file.key) != news_file.sha256
            if changed or force:
                self._put(run, news_file.key, news_file.body)
            previous = (run.listing or {}).get(news_file.key, (None, 0))[0]
            lastmod = _w3c(run.now) if changed or previous is None else previous
            listed.append((news_file.key, lastmod, news_file.url_count))
        report.news_files = [key for key, _, _ in listed]
        report.news_urls = sum(count for _, _, count in listed)
        report.urls_skipped.extend(desk.skipped)
        return listed

    # -- index and publish record --------------------------------------------------------------

    def index_plan(self, run: _RunState) -> IndexPlan:
        entries: list[tuple[str, str | None]] = []
        counts: list[int] = []
        for leaf in sorted(run.shard_map.leaves):
            key = shard_file_key(leaf)
            state = run.state_of(leaf)
            if state is not None:
                if state.url_count < 1 or state.file_sha256 is None:
                    continue
                entries.append((key, state.file_lastmod or state.file_changed_at))
                counts.append(state.url_count)
            elif run.listing is not None and key in run.listing:
                lastmod, count = run.listing[key]
                entries.append((key, lastmod))
                counts.append(count)
        return IndexPlan(
            entries=tuple(entries), urls=sum(counts), empty_site=not entries, counts=tuple(counts)
        )

    def _publish(
        self,
        run: _RunState,
        report: RunReport,
        *,
        force: bool,
        news: Sequence[tuple[str, str | None, int]] = (),
    ) -> PublishedRecord:
        """Write the empty-site file if needed, the index (which lists the ``news`` files after
        the regular ones) and robots.txt; returns the new record."""
        old = run.published
        plan = self.index_plan(run)
        home_sha, home_changed_at = old.home_sha256, old.home_changed_at
        entries = list(plan.entries)
        if plan.empty_site:
            home = render_home(
                self.site,
                max_urls=self.config.max_urls_per_sitemap,
                max_bytes=self.config.max_bytes_per_sitemap,
            )
            sha = _sha(home)
            if sha != home_sha or EMPTY_SITE_KEY not in old.files or force:
                self._put(run, EMPTY_SITE_KEY, home)
                if sha != home_sha or home_changed_at is None:
                    home_changed_at = _w3c(run.now)
                home_sha = sha
            entries = [(EMPTY_SITE_KEY, home_changed_at)]
        entries += [(key, lastmod) for key, lastmod, _ in news]
        files = tuple(key for key, _ in entries)
        counts = ((0,) if plan.empty_site else plan.counts) + tuple(n for _, _, n in news)
        for key in old.files:
            if key not in files and key not in run.ledger:
                self.ledger.retire(key, int(run.now))
                run.ledger[key] = int(run.now)
        base = self.config.public_base_url.rstrip("/")
        index, _ = render_index([(f"{base}/{key}", lastmod) for key, lastmod in entries])
        index_sha = _sha(index)
        if index_sha != old.index_sha256 or force:
            self._write(run, INDEX_KEY, index)
        robots_sha = None
        if self.config.publish_robots_txt:
            robots = robots_txt(f"{base}/{INDEX_KEY}")
            robots_sha = _sha(robots)
            if robots_sha != old.robots_sha256 or force:
                self._write(run, ROBOTS_KEY, robots)
        report.files = len(files)
        report.urls_published = plan.urls
        return PublishedRecord(
            index_sha256=index_sha,
            files=files,
            robots_sha256=robots_sha,
            home_sha256=home_sha,
            home_changed_at=home_changed_at,
            lastmods=tuple(lastmod for _, lastmod in entries),
            counts=counts,
        )

    # -- state ---------------------------------------------------------------------------------

    def _save_states(self, run: _RunState) -> None:
        """Leaf states first, then the shard map, then split parents (see module docstring)."""
        for state in run.leaf_states.values():
            self.store.save_state(state)
        if run.shard_map != run.loaded_map:
            run.shard_map = self.store.save_map(run.shard_map)
        for state in run.inner_states.values():
            self.store.save_state(state)
