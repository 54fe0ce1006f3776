"""How late a run publishes its changes: for each change, the seconds from its ingest (the URL
item's ``wt``) to the publish of the file that holds it.

Which changes a run publishes:

- in an incremental run, every change the feed gave it (upserts and deletes: a tombstone is
  stamped too) in a leaf it rebuilt; the changes of a leaf it left for later count in the run
  that publishes that leaf;
- a leaf left pending is rebuilt from the table later: its changes are then the live items
  written at or after the leaf's mark, the time of the oldest change held back (a delete held
  back there is not seen, because the table read skips tombstones);
- in a full rebuild, the live items written after the checkpoint of the last feed read was
  taken (every item on a first run), or after the leaf's mark for a leaf left pending before.

A run that fails publishes nothing and saves no checkpoint: the next run reads the same changes
again, so their lag includes the failed run's time. The publish time is one reading of the
run's clock after its last file and the index were put.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass

from sitemap_updater.store.items import Item, url_hash_of, written_at_of


@dataclass(frozen=True, slots=True)
class Freshness:
    """The lag of the changes one run published (zeros when it published none)."""

    changes: int = 0
    max_seconds: float = 0.0
    median_seconds: float = 0.0


def oldest_written(items: Iterable[Item | None]) -> int | None:
    """The earliest written time among ``items`` (epoch ms; the mark of a leaf held back)."""
    times = [written_at_of(item) for item in items if item is not None]
    known = [t for t in times if t is not None]
    return min(known) if known else None


class Lags:
    """The changes a run publishes, by URL hash: the time each was written (epoch ms)."""

    def __init__(self) -> None:
        self._written: dict[str, int] = {}

    def add(self, items: Iterable[Item | None], *, since_ms: int | None = None) -> None:
        """Count the changes among ``items`` (None, a removed item, carries no time): every
        item with a written time, or with ``since_ms`` only those written at or after it."""
        for item in items:
            if item is None:
                continue
            written = written_at_of(item)
            if written is not None and (since_ms is None or written >= since_ms):
                uh = url_hash_of(item)
                self._written[uh] = max(written, self._written.get(uh, written))

    def measure(self, published_at: float) -> Freshness:
        """The lag of every counted change if its file was published at ``published_at``
        (epoch seconds); a change stamped later than that (clock skew) counts as 0."""
        if not self._written:
            return Freshness()
        lags = [max(0.0, published_at - written / 1000) for written in self._written.values()]
        return Freshness(
            changes=len(lags),
            max_seconds=round(max(lags), 3),
            median_seconds=round(statistics.median(lags), 3),
        )
