"""How late a run publishes its changes: for each change, the seconds from its ingest (the URL
item's ``wt``) to the publish of the file that holds it.

Which changes a run publishes:

- in an incremental run, every change the feed gave it (upserts and deletes: a tombstone is
  stamped too) in a leaf it rebuilt; the changes of a leaf it left for later count in the run
  that publishes that leaf;
- a leaf left pending is rebuilt from the table later: its changes are then the items (live
  ones and tombstones) written at or after the leaf's mark, the time of the oldest change held
  back;
- in a full rebuild, the items (live ones and tombstones) written after the checkpoint of the
  last feed read was taken (every item on a first run), or after the leaf's mark for a leaf
  left pending before.

A run that fails publishes nothing and saves no checkpoint: the next run reads the same changes
again, so their lag includes the failed run's time. The publish time is one reading of the
run's clock after its last file and the index were put.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from sitemap_updater.store.items import Item, written_at_of


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


#: most buckets the written times are kept in; past it the buckets are made twice as wide
MAX_BUCKETS = 4096


class Lags:
    """The written times (epoch ms) of the changes a run publishes, in at most
    :data:`MAX_BUCKETS` buckets of equal width, so that memory stays bounded whatever the number
    of changes (a first full rebuild counts every item). The width starts at 1 ms and doubles
    whenever the buckets would be too many: the maximum is exact, the median is exact while the
    width is 1 ms and off by at most half a width otherwise (64 ms for changes spread over five
    minutes)."""

    def __init__(self, max_buckets: int = MAX_BUCKETS) -> None:
        self._max_buckets = max_buckets
        self._width = 1
        self._buckets: Counter[int] = Counter()
        self._count = 0
        self._oldest: int | None = None

    def add(self, items: Iterable[Item | None], *, since_ms: int | None = None) -> None:
        """Count the changes among ``items`` (None, a removed item, carries no time): every
        item with a written time, or with ``since_ms`` only those written at or after it."""
        stamped = (written_at_of(item) for item in items if item is not None)
        low = -1 if since_ms is None else since_ms
        self.add_times([t for t in stamped if t is not None and t >= low])

    def add_times(self, times: list[int]) -> None:
        """Count changes written at ``times`` (epoch ms)."""
        if not times:
            return
        self._count += len(times)
        oldest, newest = min(times), max(times)
        self._oldest = oldest if self._oldest is None else min(self._oldest, oldest)
        while newest // self._width - oldest // self._width >= self._max_buckets:
            self._widen()  # before counting, so that a large batch never needs many buckets
        width = self._width
        self._buckets.update(Counter(t // width for t in times))
        while len(self._buckets) > self._max_buckets:
            self._widen()

    def _widen(self) -> None:
        self._width *= 2
        merged: Counter[int] = Counter()
        for key, count in self._buckets.items():
            merged[key // 2] += count
        self._buckets = merged

    def _nth(self, rank: int) -> float:
        """The written time of the ``rank``-th oldest change (0-based): its bucket's middle."""
        seen = 0
        for key in sorted(self._buckets):
            seen += self._buckets[key]
            if seen > rank:
                return key * self._width + (self._width - 1) / 2
        raise IndexError(rank)

    def measure(self, published_at: float) -> Freshness:
        """The lag of every counted change if its file was published at ``published_at``
        (epoch seconds); a change stamped later than that (clock skew) counts as 0."""
        if self._oldest is None:
            return Freshness()

        def lag(written: float) -> float:
            return max(0.0, published_at - written / 1000)

        # the later a change was written, the smaller its lag: the middle times give the median
        middle = (lag(self._nth((self._count - 1) // 2)) + lag(self._nth(self._count // 2))) / 2
        return Freshness(
            changes=self._count,
            max_seconds=round(lag(self._oldest), 3),
            median_seconds=round(middle, 3),
        )
