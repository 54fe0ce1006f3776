"""One rebuild run, in the order docs/architecture.md prescribes.

lease -> read the change feed from the checkpoint -> read the state of the indexes the changes
fall in -> patch the published file of every leaf with a change while time remains (or, in a
full rebuild, render every leaf from a spooled parallel Scan) -> indexes -> invalidate -> save
the branches and host records -> record the publication -> save the checkpoint -> retire old
files -> release the lease.

An incremental run reads from DynamoDB only the stream records since the checkpoint, a few meta
items, the records of the hosts its changes touch and the branches of the indexes they fall in;
the unchanged entries of a changed file come from the published file itself (``patch``). The
checkpoint is saved last, so a run that dies anywhere leaves it where the next run reads every
change again; applying a change twice gives the same file. A feed that cannot prove it still
holds every change since the checkpoint (``FeedGapError``) makes the run a full rebuild, with a
metric and a log line.

Before its first S3 write a run marks the publication ``in_flight`` and takes the next publish
generation; saving the publication (after the branches and host records) removes the mark. A run
that wrote nothing and repairs nothing leaves it alone. A run that finds the mark knows its
predecessor died with objects written that no state describes, so it reads every branch and
puts every file it rebuilds and every index even where the recorded hashes say nothing changed
(a change reverted meanwhile would otherwise leave the crashed run's bytes, or an index naming
its files, in place). Such a run always saves the publication, which is what removes the mark.

Files are put before the index that names them, markers are cleared last, and an object is
deleted only after its grace period and only when no published index lists it, so a crash at
any point leaves a state that the next run repairs and crawlers never see a dangling index
entry.
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
from sitemap_updater.rebuild.state.publication import Publication, PublicationStore, SentBatch
from sitemap_updater.rebuild.state.retire import RetireLedger
from sitemap_updater.rebuild.steps.feed_window import FeedWindow, open_window
from sitemap_updater.rebuild.steps.incremental import rebuild_changed
from sitemap_updater.rebuild.steps.index import Indexes, is_listed, publish_index
from sitemap_updater.rebuild.steps.news import load_news, news_desk, publish_news
from sitemap_updater.rebuild.steps.objects import RunObjects
from sitemap_updater.rebuild.steps.run import Run
from sitemap_updater.rebuild.steps.tools import Tools
from sitemap_updater.rebuild.steps.trees import Stores, Trees
from sitemap_updater.rebuild.steps.upgrade import forget_legacy_map, upgrade
from sitemap_updater.store.keys import layout_key
from sitemap_updater.store.spaces import Layout, Placement

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
            config.max_sections_per_host,
            alternates_any_host=config.alternates_any_host,
        )
        self._dynamodb = dynamodb
        self._owner = owner
        self._remaining_seconds = remaining_seconds
        self._clock = clock
        self.source: ShardSource = source or DynamoShardSource(dynamodb, config.table_name)
        state_table = config.state_table_name or config.table_name
        self._state_table = state_table
        self.stores = Stores.of(dynamodb, state_table)
        self.publications = PublicationStore(dynamodb, state_table)
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

    @property
    def _indexes_for(self) -> str:
        """What every index's bytes depend on besides the files it lists."""
        return f"base={self.layout.public_base_url};stylesheet={self.config.stylesheet}"

    def _run(self, full: bool) -> RunReport:
        read_before = self.source.items_read
        state_before = self.stores.items_read
        run, window = self._open(full)
        # The previous run died after writing objects: rewrite rather than trust the hashes.
        recovering = run.publication.in_flight is not None
        if window.read is None:
            # a full rebuild is rare (asked for, or a gap in the feed): its Scan and spools are
            # loaded only then, not at every cold start
            from sitemap_updater.rebuild.steps.full import rebuild_all

            rebuild_all(self.tools, run)
        else:
            rebuild_changed(self.tools, run, window.read, force=recovering)
        rewrite = window.full or recovering
        news = publish_news(run, force=rewrite)
        every = run.publication.indexes_for != self._indexes_for
        indexes = publish_index(self.tools, run, force=rewrite, every=every, news=news)
        published_at = self._clock()  # after the run's last write
        run.note_published(published_at)
        wrote = run.objects.writing
        publication = self._publication(run, indexes, wrote=wrote, at=published_at)
        run.note_invalidated(self._invalidate(run))
        self._save_state(run, indexes)
        if recovering and run.remaining:  # files left unrewritten may still hold stray bytes
            publication = replace(publication, in_flight=self._owner)
        recovered = window.read if recovering else None
        waiting = self.indexnow.pending(run, recovered) if self.indexnow else None
        if wrote or recovering or publication != run.publication:
            held = run.objects.generation if wrote or run.stored else None
            self.publications.save(publication, held=held)
        if run.leaving is not None and publication.moving_from is None:
            run.leaving.wipe()  # the move is done: the layout it left is read no more
        run.objects.forget_listed(indexes.after)
        # last: a run that died before this point is read again in full by the next one
        checkpoint = window.next_checkpoint()
        if checkpoint is not None and checkpoint != window.checkpoint:
            self.checkpoints.save(checkpoint)
        if self.indexnow and waiting is not None:
            self.indexnow.submit(waiting, run, self._clock(), self._time_left)
        deleted = run.objects.sweep(
            lambda key: is_listed(run, indexes, key),
            int(self._clock()),
            self.config.retire_grace_seconds,
        )
        if run.placement.refused:
            logger.warning(
                "changes named more sections than a host may have; their pages are published "
                "as if they named none",
                max_sections_per_host=self.layout.max_sections,
                sections=sorted(f"{p}{s}" for p, s in run.placement.refused)[:20],
            )
        return run.finish(
            feed_complete=window.complete,
            deleted=deleted,
            items_read=self.source.items_read - read_before,
            state_items=self.stores.items_read - state_before,
        )

    def _publication(self, run: Run, indexes: Indexes, *, wrote: bool, at: float) -> Publication:
        """The publication the run saves: its layout (the new one once a move has a leaf),
        the move it leaves while held leaves remain, the totals, the run's generation."""
        moving_from = run.publication.moving_from
        layout = run.publication.layout
        if run.moving and run.leaves:
            moving_from = layout_key(run.publication.layout)
            layout = self.layout.text
        elif run.publication.layout is None and (run.leaves or not run.scan_stopped):
            layout = self.layout.text
        if not run.remaining:
            moving_from = None
        return Publication(
            layout=layout,
            moving_from=moving_from if layout == self.layout.text else None,
            indexes_for=self._indexes_for,
            files=indexes.files,
            urls=indexes.urls,
            robots_sha256=indexes.robots_sha256,
            generation=run.objects.generation,
            published_at=int(at) if wrote else run.publication.published_at,
            freshness=run.report.freshness if wrote else run.publication.freshness,
        )

    def _open(self, full: bool) -> tuple[Run, FeedWindow]:
        """Read what the run starts from: the publication (after converting 0.1.0's state, if
        that is what the table holds), the change feed since the checkpoint, the held branches
        and news files (or, in a full rebuild, a move, or after a crashed run, everything), the
        retire ledger and the published news files."""
        loaded = self.publications.load()
        found: Publication | None
        if loaded.legacy is not None:
            found = upgrade(self._dynamodb, self._state_table, loaded.legacy, self.layout)
        else:
            found = loaded.publication
        publication = found or Publication()
        if publication.legacy_map:
            forget_legacy_map(self._dynamodb, self._state_table)
        moving = publication.layout is not None and publication.layout != self.layout.text
        if moving:
            logger.warning(
                "the layout of the sites and sections changed; rebuilding every file in full",
                old=publication.layout,
                new=self.layout.text,
            )
            full = True
        window = open_window(
            self.feed,
            self.checkpoints.load(),
            full=full,
            max_records=self.config.feed_max_records,
            out_of_time=self._out_of_time,
        )
        trees = Trees(self.stores, self.layout, layout_key(self.layout.text))
        leaving = None
        if moving:
            trees.wipe()  # what an earlier move to this layout may have left
            leaving = Trees(self.stores, self.layout, layout_key(publication.layout))
            leaving.read_all()
        elif publication.moving_from is not None:
            leaving = Trees(self.stores, self.layout, publication.moving_from)
            leaving.read_all()
        if window.full or publication.in_flight is not None or leaving is not None:
            read = trees.read_all()
        else:
            read = trees.open()
        now = self._clock()
        objects = RunObjects(
            self.publisher,
            self.publications,
            self.ledger,
            owner=self._owner,
            listed=lambda key: (
                key in trees.listed or (leaving is not None and key in leaving.listed)
            ),
            entries=self.ledger.load(),
            generation=publication.generation,
            now=now,
        )
        run = Run(
            window=window,
            trees=trees,
            leaving=leaving,
            moving=moving,
            publication=publication,
            stored=found is not None,
            placement=Placement(self.layout, trees.named),
            objects=objects,
            news=news_desk(self.tools, now),
            now=now,
        )
        run.add_read(read)
        load_news(run, self.source)
        return run, window

    def _invalidate(self, run: Run) -> list[str]:
        """One invalidation for what the run wrote, noted in the publication before it is sent."""
        changes = {"/" + key: sha for key, sha in run.objects.written.items()}
        if not changes or not self.invalidator.enabled:
            return []
        reference = caller_reference(changes, run.objects.generation, run.publication.sent)
        self.publications.note_sent(SentBatch(reference, changes_digest(changes)))
        return self.invalidator.invalidate(changes, reference)

    def _save_state(self, run: Run, indexes: Indexes) -> None:
        """The branches, host records and news files of what the run read (``Trees.save``)."""
        records = {**run.trees.records, **indexes.records}
        run.trees.save(run.final_states(), dict(run.held), records, indexes.news)
