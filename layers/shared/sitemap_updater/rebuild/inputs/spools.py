"""URL items spooled to disk one file per leaf, then read back leaf by leaf in hash order.

A full rebuild streams its Scan into the spools, and ``build`` the items its changes make (first
into one tree of hash ranges, to keep the newest change of each page, then into the leaves of the
layout), so memory stays bounded whatever the number of items. A spool holding more than the URL
cap, or more than the byte bound (items may be large: 40,000 valid items of many images each would
fill the function's memory), is split on disk by the one split rule (``store.shards.half_of``),
a record at a time, before it is loaded. Each part is sorted by hash, so the bytes equal those
of the incremental path, which reads the same shard by Query in hash order.

A record is the item's URL hash (32 ASCII bytes), the length of its msgpack form (4 bytes) and that
form. A spool's file is named by a hash of its shard id, so that no host or section makes a name
too long for the file system.
"""

from __future__ import annotations

import hashlib
import math
import struct
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Final

import msgspec

from sitemap_updater.store.items import Item, url_hash_of
from sitemap_updater.store.keys import HASH_HEX_LEN
from sitemap_updater.store.shards import LeafIndex, children, descent

#: How many items pass between two checks of the time budget while spooling.
CHECK_EVERY: Final = 1000
#: Spool files kept open at once (Lambda allows 1,024 file descriptors per process).
MAX_OPEN_SPOOLS: Final = 256
_LENGTH: Final = struct.Struct("<I")
_HEADER: Final = HASH_HEX_LEN + _LENGTH.size
_encode: Final = msgspec.msgpack.Encoder().encode
_decode: Final = msgspec.msgpack.Decoder(dict[str, dict[str, object]]).decode

#: One spooled record: the URL hash and the item's msgpack form.
Record = tuple[str, bytes]


class ScanStoppedError(RuntimeError):
    """The time budget ran out before every item was spooled."""


def record_of(item: Item) -> bytes:
    """The spooled bytes of ``item``."""
    body = _encode(item)
    return url_hash_of(item).encode("ascii") + _LENGTH.pack(len(body)) + body


def _records(data: bytes) -> list[Record]:
    records: list[Record] = []
    at = 0
    while at < len(data):
        (length,) = _LENGTH.unpack_from(data, at + HASH_HEX_LEN)
        start = at + _HEADER
        records.append((data[at : at + HASH_HEX_LEN].decode("ascii"), data[start : start + length]))
        at = start + length
    return records


def item_of(record: Record) -> Item:
    """The item of a spooled record."""
    return _decode(record[1])  # type: ignore[return-value]


class Spools:
    """Per-leaf spool files of URL items inside ``directory`` (a temporary directory, made if
    it is not there)."""

    def __init__(
        self, directory: Path, leaves: Iterable[str], space_of: Callable[[Item], str]
    ) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self._dir = directory
        #: the leaf of each item; it adds the root of a space the leaves do not cover yet
        self.index = LeafIndex(leaves)
        self._space_of = space_of
        self._files: dict[str, IO[bytes]] = {}
        self.counts: dict[str, int] = {}

    def _path(self, shard_id: str) -> Path:
        return self._dir / (hashlib.sha256(shard_id.encode()).hexdigest()[:32] + ".spool")

    def add(self, item: Item) -> None:
        self.add_record(
            self.index.leaf_for(self._space_of(item), url_hash_of(item)), record_of(item)
        )

    def add_record(self, leaf: str, record: bytes) -> None:
        """Append one record (:func:`record_of`) to the spool of ``leaf``."""
        handle = self._files.get(leaf)
        if handle is None:
            if len(self._files) >= MAX_OPEN_SPOOLS:
                self.close()  # reopened in append mode when next needed
            handle = self._files[leaf] = self._path(leaf).open("ab")
        handle.write(record)
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

    def _spooled(self, shard_id: str) -> Iterator[tuple[str, bytes]]:
        """The URL hash and bytes of each record of ``shard_id``'s spool, read one at a time."""
        with self._path(shard_id).open("rb") as spooled:
            while header := spooled.read(_HEADER):
                (length,) = _LENGTH.unpack_from(header, HASH_HEX_LEN)
                yield header[:HASH_HEX_LEN].decode("ascii"), header + spooled.read(length)

    def _split(self, shard_id: str, cap: int, max_bytes: int) -> list[str]:
        """Split the spool of ``shard_id`` on disk into the leaves that splitting it in halves
        (by the one split rule), and each half over ``cap`` records or ``max_bytes`` again,
        would give, down to as many levels as an even spread of the hashes needs (at most
        MAX_OPEN_SPOOLS files open); returns them in hash order. Two passes over the spool,
        one record at a time: one counts the records and bytes under each shard of the lowest
        level, the other moves each record to its leaf. A leaf still over is split again when
        it is loaded."""
        self.close()
        over = max(self.counts.pop(shard_id) / cap, self._path(shard_id).stat().st_size / max_bytes)
        levels = max(1, min(math.ceil(math.log2(over)), MAX_OPEN_SPOOLS.bit_length() - 1))
        bottoms, bottom_for = descent(shard_id, levels)
        position = {bottom: i for i, bottom in enumerate(bottoms)}
        counts, sizes = [0] * len(bottoms), [0] * len(bottoms)
        for uh, record in self._spooled(shard_id):
            at = position[bottom_for(uh)]
            counts[at] += 1
            sizes[at] += len(record)
        leaf_of: list[str] = []

        def place(node: str, lo: int, hi: int) -> None:
            count, size = sum(counts[lo:hi]), sum(sizes[lo:hi])
            if hi - lo == 1 or not (count > cap or (count > 1 and size > max_bytes)):
                leaf_of.extend([node] * (hi - lo))
                return
            zero, one = children(node)
            middle = (lo + hi) // 2
            place(zero, lo, middle)
            place(one, middle, hi)

        place(shard_id, 0, len(bottoms))
        for uh, record in self._spooled(shard_id):
            self.add_record(leaf_of[position[bottom_for(uh)]], record)
        self.close()
        self._path(shard_id).unlink()
        leaves = list(dict.fromkeys(leaf_of))
        for leaf in leaves:
            self.counts.setdefault(leaf, 0)
        return leaves

    def load_records(
        self, leaf: str, cap: int, max_bytes: int
    ) -> Iterator[tuple[str, list[Record]]]:
        """The parts of ``leaf`` (itself, or its split children) with their records in hash
        order (the records of one hash in the order spooled): each of at most ``cap`` records,
        and of at most ``max_bytes`` spooled bytes unless it holds a single one."""
        self.close()
        path = self._path(leaf)
        count = self.counts.get(leaf, 0)
        size = path.stat().st_size if count else 0
        if count > cap or (count > 1 and size > max_bytes):
            for child in self._split(leaf, cap, max_bytes):
                yield from self.load_records(child, cap, max_bytes)
            return
        if not count:
            yield leaf, []
            return
        records = _records(path.read_bytes())
        path.unlink()
        self.counts.pop(leaf, None)
        records.sort(key=lambda record: record[0])
        yield leaf, records

    def load(self, leaf: str, cap: int, max_bytes: int) -> Iterator[tuple[str, list[Item]]]:
        """:meth:`load_records` with the items decoded."""
        for part, records in self.load_records(leaf, cap, max_bytes):
            items: list[Item] = []
            while records:  # each record is let go as it is decoded: never both copies in full
                items.append(item_of(records.pop()))
            items.reverse()
            yield part, items
