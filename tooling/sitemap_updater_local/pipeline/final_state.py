"""The final state of a run's changes: the newest change of each page, resolved on disk.

The changes of a ``build`` or ``backfill`` come as spool records of the URL items ingest would
write (``judging``), in any order, a page any number of times. They go into the rebuild's own
spools (``rebuild.inputs.spools``), one tree of 256 hash ranges, each read back in hash order,
where the changes of one page lie together: of these the one with the greatest ordering key
wins (``page.order``), as ingest's conditional write keeps it, and a tombstone that wins removes
the page. Memory holds one hash range at a time, whatever the input.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import groupby
from pathlib import Path
from typing import Final

from sitemap_updater.rebuild.inputs.spools import Record, Spools, item_of
from sitemap_updater.store.items import Item, is_live
from sitemap_updater.store.keys import ATTR_EVENT_KEY
from sitemap_updater.store.shards import LeafIndex

#: Hash bits of the ranges changes are spooled into.
RANGE_BITS: Final = 8
_RANGES: Final = tuple(f"r{n:0{RANGE_BITS}b}" for n in range(2**RANGE_BITS))
#: Records of one range read at once at most (a larger range is split on disk first).
_MOST_AT_ONCE: Final = 200_000
_MOST_BYTES: Final = 256 << 20


def newest(items: list[Item]) -> Item:
    """The change of a page that wins: the one with the greatest ordering key."""
    return max(items, key=lambda item: str(item[ATTR_EVENT_KEY]["S"]))


class FinalState:
    """The changes of a run, spooled inside ``directory``; :meth:`pages` resolves them."""

    def __init__(self, directory: Path) -> None:
        self._spools = Spools(directory, _RANGES, lambda item: "")
        self._index = LeafIndex(_RANGES)
        #: changes spooled, pages met more than once (each counted once per extra change), and
        #: pages whose newest change is a delete
        self.changes = 0
        self.repeats = 0
        self.deleted = 0

    def add(self, record: bytes) -> None:
        """Spool one change (a spool record of its URL item)."""
        uh = record[:32].decode("ascii")
        self._spools.add_record(self._index.leaf_for("", uh), record)
        self.changes += 1

    def pages(self) -> Iterator[Item]:
        """The URL item of each page's newest change where it is live, in hash order."""
        self._spools.close()
        for leaf in _RANGES:
            for _, records in self._spools.load_records(leaf, _MOST_AT_ONCE, _MOST_BYTES):
                yield from self._resolved(records)

    def _resolved(self, records: list[Record]) -> Iterator[Item]:
        for _, group in groupby(records, key=lambda record: record[0]):
            changes = list(group)
            if len(changes) == 1:
                item = item_of(changes[0])
            else:
                self.repeats += len(changes) - 1
                item = newest([item_of(change) for change in changes])
            if is_live(item):
                yield item
            else:
                self.deleted += 1
