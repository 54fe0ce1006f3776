"""The rebuild: incremental, sharded sitemaps written to S3 behind CloudFront."""

from sitemap_updater.rebuild.report import RunReport, record_metrics
from sitemap_updater.rebuild.request import RebuildRequestError, wants_full_rebuild
from sitemap_updater.rebuild.service import RebuildService

__all__ = [
    "RebuildRequestError",
    "RebuildService",
    "RunReport",
    "record_metrics",
    "wants_full_rebuild",
]
