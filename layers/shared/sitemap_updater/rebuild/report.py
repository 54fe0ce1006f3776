"""The result of one rebuild run, as the handler returns it and as metrics."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from aws_lambda_powertools import Metrics
from aws_lambda_powertools.metrics import MetricUnit

from sitemap_updater.rebuild.freshness import Freshness

if TYPE_CHECKING:
    # IndexNow is off without a key, and a run without it never loads its modules
    from sitemap_updater.rebuild.outputs.indexnow import IndexNowReport

Status = Literal["published", "nothing-to-do", "locked"]


@dataclass(slots=True)
class RunReport:
    status: Status
    mode: Literal["incremental", "full"] = "incremental"
    #: No dirty shard is left: every planned shard was rebuilt and every marker cleared.
    complete: bool = True
    shards_rebuilt: int = 0
    shards_remaining: int = 0
    shards_split: int = 0
    objects_written: list[str] = field(default_factory=list)
    objects_deleted: list[str] = field(default_factory=list)
    invalidated_paths: list[str] = field(default_factory=list)
    #: Live URLs listed by the published files.
    urls_published: int = 0
    #: Files listed in the published index.
    files: int = 0
    #: Items and stream records the run read from DynamoDB: the metadata items, the change
    #: feed's records, the states of the changed leaves, and URL items (Query or Scan
    #: ``ScannedCount``) where a leaf is rebuilt from the table.
    dynamodb_items_read: int = 0
    #: Stream records read from the change feed (part of ``dynamodb_items_read``).
    feed_records: int = 0
    #: Published objects read back from S3 (the state of the files that have a change).
    s3_objects_read: list[str] = field(default_factory=list)
    #: Private state objects written (the design keeps none: the published files are the state).
    state_objects_written: list[str] = field(default_factory=list)
    #: Why the change feed could not be trusted, when that made the run a full rebuild.
    feed_gap: str | None = None
    #: URLs whose fragment differed from the table (added, changed or removed), all
    #: repaired by the run: in a full rebuild, and in an incremental run for a published file
    #: that is not the bytes its record holds. An incremental design that loses nothing, in a
    #: bucket nobody else writes, keeps it 0.
    drift_repaired: int = 0
    #: Published objects the run could not use as they were (unreadable, over the read-back
    #: bound, or not the bytes the record holds: written behind the rebuild's back), each
    #: rebuilt from the table in the same run.
    objects_repaired: list[str] = field(default_factory=list)
    #: The news files the index lists after the run, and the articles they hold.
    news_files: list[str] = field(default_factory=list)
    news_urls: int = 0
    #: URLs left out because one page alone is larger than the byte cap.
    urls_skipped: list[str] = field(default_factory=list)
    #: The sections (``<key prefix><section>``) changes named past the most a host has
    #: (``MAX_SECTIONS_PER_HOST``): their pages are published as if they named none.
    sections_over_cap: list[str] = field(default_factory=list)
    seconds: float = 0.0
    #: the lag from ingest to publish of the changes the run published (see ``freshness``)
    freshness: Freshness = field(default_factory=Freshness)
    #: What the run sent to IndexNow (None while IndexNow is off).
    indexnow: IndexNowReport | None = None
    #: The locs whose fragment was added, changed or removed by this run's publish
    #: (incremental runs; in a full rebuild, the repaired drift once a publish existed; what an
    #: IndexNow submission sends). Not part of :meth:`to_dict`.
    changed_locs: list[str] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("changed_locs")
        data["urls_changed"] = len(self.changed_locs)
        return data


def record_metrics(metrics: Metrics, report: RunReport) -> None:
    """The per-run metrics: ShardsRebuilt, FilesWritten, FilesDeleted, UrlsPublished, RunSeconds,
    FeedRecords, UrlsChanged, FeedGapFullRebuilds, ObjectsRepaired, when the run published
    changes FreshnessMaxSeconds and FreshnessMedianSeconds, for a full rebuild (or a run that
    repaired drift) DriftRepaired and, while
    IndexNow is on, IndexNowSubmitted, IndexNowRequests, IndexNowRejected, IndexNowRetryLater,
    IndexNowDropped, IndexNowPending and IndexNowErrors."""
    metrics.add_metric(name="ShardsRebuilt", unit=MetricUnit.Count, value=report.shards_rebuilt)
    metrics.add_metric(
        name="FilesWritten", unit=MetricUnit.Count, value=len(report.objects_written)
    )
    metrics.add_metric(
        name="FilesDeleted", unit=MetricUnit.Count, value=len(report.objects_deleted)
    )
    metrics.add_metric(name="UrlsPublished", unit=MetricUnit.Count, value=report.urls_published)
    metrics.add_metric(name="RunSeconds", unit=MetricUnit.Seconds, value=report.seconds)
    metrics.add_metric(name="FeedRecords", unit=MetricUnit.Count, value=report.feed_records)
    metrics.add_metric(name="UrlsChanged", unit=MetricUnit.Count, value=len(report.changed_locs))
    metrics.add_metric(
        name="FeedGapFullRebuilds", unit=MetricUnit.Count, value=int(report.feed_gap is not None)
    )
    metrics.add_metric(
        name="ObjectsRepaired", unit=MetricUnit.Count, value=len(report.objects_repaired)
    )
    if report.freshness.changes:
        metrics.add_metric(
            name="FreshnessMaxSeconds", unit=MetricUnit.Seconds, value=report.freshness.max_seconds
        )
        metrics.add_metric(
            name="FreshnessMedianSeconds",
            unit=MetricUnit.Seconds,
            value=report.freshness.median_seconds,
        )
    if report.mode == "full" or report.drift_repaired:
        metrics.add_metric(name="DriftRepaired", unit=MetricUnit.Count, value=report.drift_repaired)
    if report.indexnow is not None:
        sent = report.indexnow
        for name, value in (
            ("IndexNowSubmitted", sent.urls_submitted),
            ("IndexNowRequests", sent.requests),
            ("IndexNowRejected", sent.urls_rejected),
            ("IndexNowRetryLater", sent.requests_failed),
            ("IndexNowDropped", sent.urls_dropped),
            ("IndexNowPending", sent.pending),
            ("IndexNowErrors", int(sent.error is not None)),
        ):
            metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)
