"""What the change feed gives a run: the changes since the saved checkpoint, or the reason it
cannot prove it holds them all (the run is then a full rebuild), and the checkpoint to save last.

A full rebuild covers every change up to the moment its Scan starts: its checkpoint is the feed's
tip taken before the Scan. An incremental run that stopped before the end of the feed keeps the
previous checkpoint's time on the new position: the records it did not reach are that old, so a
run that stays behind for a day falls back to a full rebuild in time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from sitemap_updater.observability import logger
from sitemap_updater.rebuild.inputs.feed import FeedGapError, FeedRead, StreamFeed
from sitemap_updater.rebuild.state.checkpoint import Checkpoint


@dataclass(frozen=True, slots=True)
class FeedWindow:
    #: the checkpoint the previous run saved
    checkpoint: Checkpoint | None
    #: the changes since it; None in a full rebuild
    read: FeedRead | None = None
    #: in a full rebuild, the end of every stream shard before the Scan
    tip: Checkpoint | None = None
    #: why the feed could not be trusted, when that made the run a full rebuild
    gap: str | None = None

    @property
    def full(self) -> bool:
        return self.read is None

    @property
    def complete(self) -> bool:
        """Whether the run read every change the feed holds."""
        return self.read is None or self.read.complete

    def next_checkpoint(self) -> Checkpoint | None:
        """The checkpoint to save once everything the run read is published."""
        if self.read is not None and not self.read.complete and self.checkpoint is not None:
            return replace(self.read.checkpoint, saved_at=self.checkpoint.saved_at)
        if self.tip is not None:
            return self.tip
        return self.read.checkpoint if self.read is not None else None


def open_window(
    feed: StreamFeed,
    checkpoint: Checkpoint | None,
    *,
    full: bool,
    max_records: int,
    out_of_time: Callable[[], bool],
) -> FeedWindow:
    """Read the feed from ``checkpoint`` (unless ``full``); where it cannot prove it holds every
    change since, log why and take its tip for a full rebuild instead."""
    gap = None
    if not full:
        try:
            read = feed.read(checkpoint, max_records=max_records, out_of_time=out_of_time)
        except FeedGapError as error:
            logger.warning(
                "the change feed cannot prove it holds every change since the checkpoint; "
                "running a full rebuild instead",
                reason=error.reason,
            )
            gap = error.reason
        else:
            return FeedWindow(checkpoint, read=read)
    return FeedWindow(checkpoint, tip=feed.tip(checkpoint), gap=gap)
