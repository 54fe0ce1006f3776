"""One rebuild run, in the order docs/architecture.md prescribes.

lease -> read the change feed from the checkpoint -> patch the published file of every leaf with a
change while time remains (or, in a full rebuild, render every leaf from a spooled parallel Scan)
-> index -> invalidate -> save states and the shard map -> record the publish -> save the
checkpoint -> retire old files -> release the lease.

An incremental run reads from DynamoDB only the stream records since the checkpoint, a constant
number of metadata items and the states of the leaves that have a change; the unchanged pages
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

import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from sitemap_updater.config import RebuildConfig
from sitemap_updater.observability import logger
from sitemap_updater.rebuild.inputs.feed import StreamFeed
from sitemap_updater.rebuild.inputs.source import DynamoShardSource, ShardSource
from sitemap_updater.rebuild.outputs.bucket import Publisher
from sitemap_updater.rebuild.outputs.invalidate import (
    Invalidator,
    caller_reference,
    changes_digest,
)
from sitemap_updater.rebuild.report import RunReport
from sitemap_updater.rebuild.state.checkpoint import CheckpointStore
from sitemap_updater.rebuild.state.lease import Lease
from sitemap_updater.rebuild.state.nodes import NodeState, StateStore
from sitemap_updater.rebuild.state.published import PublishedRecord, PublishedStore, SentBatch
from sitemap_updater.rebuild.state.retire import RetireLedger
from sitemap_updater.rebuild.steps.feed_window import FeedWindow, open_window
from sitemap_updater.rebuild.steps.incremental import rebuild_changed
from sitemap_updater.rebuild.steps.index import publish_index
from sitemap_updater.rebuild.steps.news import load_news, news_desk, publish_news
from sitemap_updater.rebuild.steps.objects import RunObjects
from sitemap_updater.rebuild.steps.run import Run
from sitemap_updater.rebuild.steps.tools import Tools
from sitemap_updater.store.spaces import Layout

if TYPE_CHECKING:
    from mypy_boto3_cloudfront.client import CloudFrontClient
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_dynamodbstreams.client import DynamoDBStreamsClient
    from mypy_boto3_s3.client import S3Client

    from sitemap_updater.rebuild.steps.indexnow import IndexNow


def _indexnow(config: RebuildConfig, layout: Layout, s3: S3Client) -> IndexNow | None:
    """The IndexNow side of the runs, or None when IndexNow is off (no key): then a run, and the
    function's cold start, never load IndexNow's modules."""
    if not config.indexnow_key:
        return None
    from sitemap_updater.rebuild.steps.indexnow import IndexNow

    return IndexNow(config, layout, s3)


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
        self.layout = Layout.of(
            config.site_url,
            config.section_rules,
            config.public_base_url,
            alternates_any_host=config.alternates_any_host,
        )
        self._dynamodb = dynamodb
        self._owner = owner
        self._remaining_seconds = remaining_seconds
        self._clock = clock
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
        self.indexnow = _indexnow(config, self.layout, s3)
        self.tools = Tools(
            config=config,
            layout=self.layout,
            source=self.source,
            store=self.store,
            publisher=self.publisher,
            out_of_time=self._out_of_time,
            spool_root=spool_root,
        )

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

    def _time_left(self) -> float:
        """Seconds the run may still spend: the invocation's, less the margin it keeps."""
        return self._remaining_seconds() - self.config.time_budget_margin_seconds

    def _out_of_time(self) -> bool:
        return self._time_left() < 0

    def _run(self, full: bool) -> RunReport:
        read_before = self.source.items_read
        run, window = self._open(full)
        # The previous run died after writing objects: rewrite rather than trust the hashes.
        recovering = run.published.in_flight is not None
        if window.read is None:
            # a full rebuild is rare (asked for, or a gap in the feed): its Scan and spools are
            # loaded only then, not at every cold start
            from sitemap_updater.rebuild.steps.full import rebuild_all

            rebuild_all(self.tools, run)
        else:
            rebuild_changed(self.tools, run, window.read, force=recovering)
        rewrite = window.full or recovering
        news = publish_news(run, force=rewrite)
        index_record = publish_index(self.tools, run, force=rewrite, news=news)
        published_at = self._clock()  # after the run's last write
        run.note_published(published_at)
        pending = tuple(sorted(run.remaining))
        wrote = run.objects.writing
        record = replace(
            index_record,
            generation=run.objects.generation,
            pending=pending,
            news_sha256=tuple(sorted(run.news.rendered.items())),
            pending_since=tuple(run.held.get(leaf) for leaf in pending),
            published_at=int(published_at) if wrote else run.published.published_at,
            freshness=run.report.freshness if wrote else run.published.freshness,
        )
        run.note_invalidated(self._invalidate(run))
        self._save_states(run)
        if recovering and run.remaining:  # files left unrewritten may still hold stray bytes
            record = replace(record, in_flight=self._owner)
        recovered = window.read if recovering else None
        waiting = self.indexnow.pending(run, recovered) if self.indexnow else None
        if run.objects.writing or recovering or record != run.published:
            self.published.save(record)
        run.objects.forget_listed((*record.files, *(key for key, _ in record.singles)))
        # last: a run that died before this point is read again in full by the next one
        checkpoint = window.next_checkpoint()
        if checkpoint is not None and checkpoint != window.checkpoint:
            self.checkpoints.save(checkpoint)
        if self.indexnow and waiting is not None:
            self.indexnow.submit(waiting, run, self._clock(), self._time_left)
        deleted = run.objects.sweep(
            record.files, int(self._clock()), self.config.retire_grace_seconds
        )
        return run.finish(
            feed_complete=window.complete,
            deleted=deleted,
            items_read=self.source.items_read - read_before,
        )

    def _open(self, full: bool) -> tuple[Run, FeedWindow]:
        """Read what the run starts from: the shard map, the publish record, the change feed
        since the checkpoint, the node states where the record lacks the listing (or in a full
        rebuild, or after a crashed run), the retire ledger and the published news files."""
        loaded_map = self.store.load_map()
        shard_map = loaded_map
        if loaded_map.layout != self.layout.text:
            shard_map = loaded_map.for_layout(self.layout.text)
            if loaded_map.version:  # else the first run, a full rebuild anyway
                logger.warning(
                    "the layout of the sites and sections changed; rebuilding every file in full",
                    old=loaded_map.layout,
                    new=self.layout.text,
                )
                full = True
        published = self.published.load() or PublishedRecord()
        window = open_window(
            self.feed,
            self.checkpoints.load(),
            full=full,
            max_records=self.config.feed_max_records,
            out_of_time=self._out_of_time,
        )
        states: dict[str, NodeState] = {}
        # a run that died after saving the shard map and before its record left leaves the
        # record does not list (a split, a move to another layout): read every state then too
        if window.full or published.listing() is None or published.in_flight is not None:
            states = self.store.load_states(shard_map.nodes)
        entries = self.ledger.load()
        now = self._clock()
        objects = RunObjects(
            self.publisher,
            self.published,
            self.ledger,
            owner=self._owner,
            listed=published.files,
            entries=entries,
            generation=published.generation,
            now=now,
        )
        run = Run(
            window=window,
            loaded_map=loaded_map,
            shard_map=shard_map,
            states=states,
            published=published,
            objects=objects,
            news=news_desk(self.tools, now),
            now=now,
        )
        load_news(run, self.source)
        return run, window

    def _invalidate(self, run: Run) -> list[str]:
        """One invalidation for what the run wrote, noted in the record before it is sent."""
        changes = {"/" + key: sha for key, sha in run.objects.written.items()}
        if not changes or not self.invalidator.enabled:
            return []
        reference = caller_reference(changes, run.objects.generation, run.published.sent)
        self.published.note_sent(SentBatch(reference, changes_digest(changes)))
        return self.invalidator.invalidate(changes, reference)

    def _save_states(self, run: Run) -> None:
        """Leaf states first, then the shard map, then split parents (see module docstring)."""
        for state in run.leaf_states.values():
            self.store.save_state(state)
        if run.shard_map != run.loaded_map:
            self.store.save_map(run.shard_map)
        for state in run.inner_states.values():
            self.store.save_state(state)
