"""The result of one rebuild run, as the handler returns it and as metrics."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from aws_lambda_powertools import Metrics
from aws_lambda_powertools.metrics import MetricUnit

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
    #: URL items DynamoDB read for this run (Query or Scan ``ScannedCount``).
    dynamodb_items_read: int = 0
    #: URLs left out because one entry alone is larger than the byte cap.
    urls_skipped: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def record_metrics(metrics: Metrics, report: RunReport) -> None:
    """The per-run metrics: ShardsRebuilt, FilesWritten, FilesDeleted, UrlsPublished, RunSeconds."""
    metrics.add_metric(name="ShardsRebuilt", unit=MetricUnit.Count, value=report.shards_rebuilt)
    metrics.add_metric(
        name="FilesWritten", unit=MetricUnit.Count, value=len(report.objects_written)
    )
    metrics.add_metric(
        name="FilesDeleted", unit=MetricUnit.Count, value=len(report.objects_deleted)
    )
    metrics.add_metric(name="UrlsPublished", unit=MetricUnit.Count, value=report.urls_published)
    metrics.add_metric(name="RunSeconds", unit=MetricUnit.Seconds, value=report.seconds)
