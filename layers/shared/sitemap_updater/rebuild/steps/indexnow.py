"""IndexNow: store the run's changed locs durably before the publish record and the checkpoint
are saved, and send what waits once the publish is complete. IndexNow never stops a publish.

Each host has its own key file (under its key prefix), pending set and requests: an endpoint
takes the URLs of one host per request, with a key file on that host."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sitemap_updater.config import RebuildConfig
from sitemap_updater.indexnow import IndexNowClient, IndexNowConfigError
from sitemap_updater.observability import logger
from sitemap_updater.rebuild.inputs.feed import FeedRead
from sitemap_updater.rebuild.outputs.indexnow import IndexNowReport, PendingSet
from sitemap_updater.rebuild.steps.run import Run
from sitemap_updater.store.items import url_of
from sitemap_updater.store.spaces import Layout

if TYPE_CHECKING:
    from mypy_boto3_s3.client import S3Client


class IndexNow:
    """The IndexNow side of runs against one bucket (off without a key)."""

    def __init__(self, config: RebuildConfig, layout: Layout, s3: S3Client) -> None:
        self._s3 = s3
        self._bucket = config.bucket_name
        #: a client per host key prefix
        self.clients: dict[str, IndexNowClient] = {}
        self.error: str | None = None
        if config.indexnow_key:
            try:
                self.clients = {
                    prefix: IndexNowClient(
                        config.indexnow_endpoint,
                        config.indexnow_key,
                        site_url=site.origin,
                        public_base_url=layout.base_url(prefix),
                    )
                    for prefix, site in layout.prefixes().items()
                }
            except IndexNowConfigError as error:  # IndexNow never stops a publish
                logger.error("IndexNow is misconfigured and sends nothing", reason=str(error))
                self.error = str(error)

    def pending(self, run: Run, recovered: FeedRead | None) -> list[PendingSet] | None:
        """Each host's pending set with its changed locs stored durably, before the publish
        record (whose save ends a crashed run's recovery) and the checkpoint are saved.

        A run that recovers from a crashed one patched files the crashed run may already have
        published, so it cannot tell their changes from the bytes: it also adds the locs of
        every change it read (at least once, rather than never)."""
        if not self.clients:
            if self.error is not None:
                run.note_indexnow(IndexNowReport(error=self.error))
            return None
        sets = []
        report = IndexNowReport()
        for prefix, client in self.clients.items():
            pending = PendingSet(self._s3, self._bucket, client, prefix=prefix)
            pending.add(run.report.changed_locs)  # each set keeps its own host's
            if recovered is not None:
                pending.add(url_of(item) for item in recovered.changes.values() if item)
            old_key_file = pending.retired_key_file()
            if old_key_file is not None:  # entered first: a crash cannot leave it behind
                run.objects.retire(old_key_file)
            run.note_state_objects(pending.persist())
            run.objects.forget_listed([pending.key_file])  # the key may come back
            if pending.report.state_reset is not None:
                reason = pending.report.state_reset
                run.note_repaired(pending.pending_key, reason, remedy="a new one is started")
            report.add(pending.report)
            sets.append(pending)
        run.note_indexnow(report)
        return sets

    @staticmethod
    def submit(
        sets: list[PendingSet], run: Run, now: float, time_left: Callable[[], float]
    ) -> None:
        """Send what waits; the publish is complete, and nothing here can fail the run."""
        report = IndexNowReport()
        for pending in sets:
            try:
                run.note_state_objects(pending.submit(now, time_left))
            except Exception as error:  # the URLs stay pending; the next run tries again
                logger.exception("IndexNow submission failed; the URLs stay pending")
                pending.report.error = f"{type(error).__name__}: {error}"
            report.add(pending.report)
        run.note_indexnow(report)
