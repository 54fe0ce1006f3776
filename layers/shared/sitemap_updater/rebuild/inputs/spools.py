"""Full rebuild input: stream a parallel Scan into one spool file per leaf, then read leaf by leaf.

Memory stays bounded whatever the table size: items go to disk as they arrive, and a spool
holding more than the URL cap, or more than the byte bound (items may be large: 40,000 valid
items of many images each would fill the function's memory), is split on disk by the next hash
bit (the same rule as ``store.shards.split_counts``) before it is loaded. Each loaded part is
sorted by hash, so the bytes equal those of the incremental path, which reads the same shard by
Query in hash order.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO

from sitemap_updater.store.items import Item, url_hash_of
from sitemap_updater.store.keys import HASH_BITS, hash_bits
from sitemap_updater.store.shards import LeafIndex, ShardIdError, children, depth_of

#: How many items pass between two checks of the time budget while scanning.
CHECK_EVERY = 1000
#: Spool files kept open at once (Lambda allows 1,024 file descriptors per process).
MAX_OPEN_SPOOLS = 256


class ScanStoppedError(RuntimeError):
    """The time budget ran out before the Scan had read the whole table."""


def _line(item: Item) -> str:
    return f"{url_hash_of(item)}\t{json.dumps(item, separators=(',', ':'))}\n"


class Spools:
    """Per-leaf spool files of URL items inside ``directory`` (a temporary directory)."""

    def __init__(
        self, directory: Path, leaves: Iterable[str], space_of: Callable[[Item], str]
    ) -> None:
        self._dir = directory
        #: the leaf of each item; it adds the root of a space the leaves do not cover yet
        self.index = LeafIndex(leaves)
        self._space_of = space_of
        self._files: dict[str, IO[str]] = {}
        self.counts: dict[str, int] = {}

    def _path(self, shard_id: str) -> Path:
        return self._dir / f"{shard_id.replace('/', '+')}.spool"

    def add(self, item: Item) -> None:
        leaf = self.index.leaf_for(self._space_of(item), url_hash_of(item))
        handle = self._files.get(leaf)
        if handle is None:
            if len(self._files) >= MAX_OPEN_SPOOLS:
                self.close()  # reopened in append mode when next needed
            handle = self._files[leaf] = self._path(leaf).open("a", encoding="utf-8")
        handle.write(_line(item))
        self.counts[leaf] = self.counts.get(leaf, 0) + 1

    def fill(self, items: Iterable[Item], should_stop: Callable[[], bool]) -> int:
        """Spool every item; raises ``ScanStoppedError`` when ``should_stop`` says so."""
        n = 0
        for n, item in enumerate(items, 1):
            self.add(item)
            if n % CHECK_EVERY == 0 and should_stop():
                raise ScanStoppedError(f"time budget ran out after {n} items")
        self.close()
        return n

    def close(self) -> None:
        for handle in self._files.values():
            handle.close()
        self._files.clear()

    def _split(self, shard_id: str) -> tuple[str, str]:
        depth = depth_of(shard_id)
        if depth >= HASH_BITS:
            raise ShardIdError(f"shard {shard_id} cannot be split further")
        zero, one = children(shard_id)
        counts = {zero: 0, one: 0}
        path = self._path(shard_id)
        with (
            path.open(encoding="utf-8") as src,
            self._path(zero).open("w", encoding="utf-8") as out0,
            self._path(one).open("w", encoding="utf-8") as out1,
        ):
            for line in src:
                bit = hash_bits(line[: (depth + 4) // 4], depth + 1)[-1]
                (out0 if bit == "0" else out1).write(line)
                counts[zero if bit == "0" else one] += 1
        path.unlink()
        self.counts.pop(shard_id, None)
        self.counts.update(counts)
        return zero, one

    def load(self, leaf: str, cap: int, max_bytes: int) -> Iterator[tuple[str, list[Item]]]:
        """The parts of ``leaf`` (itself, or its split children) with their items in hash order:
        each of at most ``cap`` items, and of at most ``max_bytes`` spooled bytes unless it
        holds a single item."""
        path = self._path(leaf)
        count = self.counts.get(leaf, 0)
        size = path.stat().st_size if count else 0
        if count > cap or (count > 1 and size > max_bytes):
            for child in self._split(leaf):
                yield from self.load(child, cap, max_bytes)
            return
        if not path.exists():
            yield leaf, []
            return
        with path.open(encoding="utf-8") as src:
            lines = sorted(src, reverse=True)
        path.unlink()
        items: list[Item] = []
        while lines:  # each line is let go as it is parsed: never both copies in full
            items.append(json.loads(lines.pop().split("\t", 1)[1]))
        yield leaf, items
