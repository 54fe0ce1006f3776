"""IndexNow: store the run's changed locs durably before the publish record and the checkpoint
are saved, and send what waits once the publish is complete. IndexNow never stops a publish."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sitemap_updater.config import RebuildConfig
from sitemap_updater.indexnow import IndexNowClient, IndexNowConfigError, key_file_name
from sitemap_updater.observability import logger
from sitemap_updater.rebuild.inputs.feed import FeedRead
from sitemap_updater.rebuild.outputs.indexnow_queue import (
    PENDING_KEY,
    IndexNowQueue,
    IndexNowReport,
)
from sitemap_updater.rebuild.steps.run import Run
from sitemap_updater.store.items import loc_of

if TYPE_CHECKING:
    from mypy_boto3_s3.client import S3Client


class IndexNow:
    """The IndexNow side of runs against one bucket (off without a key)."""

    def __init__(self, config: RebuildConfig, s3: S3Client) -> None:
        self._s3 = s3
        self._bucket = config.bucket_name
        self.client: IndexNowClient | None = None
        self.error: str | None = None
        if config.indexnow_key:
            try:
                self.client = IndexNowClient(
                    config.indexnow_endpoint,
                    config.indexnow_key,
                    site_url=config.site_url,
                    public_base_url=config.public_base_url,
                )
            except IndexNowConfigError as error:  # IndexNow never stops a publish
                logger.error("IndexNow is misconfigured and sends nothing", reason=str(error))
                self.error = str(error)

    def queue(self, run: Run, recovered: FeedRead | None) -> IndexNowQueue | None:
        """The run's IndexNow queue with its changed locs stored durably, before the publish
        record (whose save ends a crashed run's recovery) and the checkpoint are saved.

        A run that recovers from a crashed one patched files the crashed run may already have
        published, so it cannot tell their changes from the bytes: it also adds the locs of
        every change it read (at least once, rather than never)."""
        if self.client is None:
            if self.error is not None:
                run.note_indexnow(IndexNowReport(error=self.error))
            return None
        queue = IndexNowQueue(self._s3, self._bucket, self.client)
        queue.add(run.report.changed_locs)
        if recovered is not None:
            queue.add(loc_of(item) for item in recovered.changes.values() if item)
        old_key_file = queue.retired_key_file()
        if old_key_file is not None:  # entered first: a crash cannot leave it behind
            run.objects.retire(old_key_file)
        run.note_state_objects(queue.persist())
        run.objects.forget_listed([key_file_name(self.client.key)])  # the key may come back
        if queue.report.state_reset is not None:
            run.note_repaired(PENDING_KEY, queue.report.state_reset, remedy="a new one is started")
        run.note_indexnow(queue.report)
        return queue

    @staticmethod
    def submit(queue: IndexNowQueue, run: Run, now: float, out_of_time: Callable[[], bool]) -> None:
        """Send what waits; the publish is complete, and nothing here can fail the run."""
        try:
            run.note_state_objects(queue.submit(now, out_of_time))
        except Exception as error:  # the URLs stay pending; the next run tries again
            logger.exception("IndexNow submission failed; the URLs stay pending")
            queue.report.error = f"{type(error).__name__}: {error}"
