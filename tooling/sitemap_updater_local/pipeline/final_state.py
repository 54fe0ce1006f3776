"""The final state of a stream of changes, resolved on disk with bounded memory.

Changes are spooled into one temporary file per hash prefix (:data:`PREFIX_BITS` bits, so
2**PREFIX_BITS buckets). Resolving reads one bucket at a time, keeps per URL the change with
the largest ordering key ``ev`` (the same last-writer-wins rule as ingest's conditional
write), drops deleted URLs and writes the live items back: one frame per space, sorted by
hash, and where in the file each frame lies. Memory therefore holds one bucket, never the whole
input, and reading a shard reads only its own space's frames.

Each change names the space its URL is published in (``sitemap_updater.store.spaces``: its
host's key prefix and its section; ``""`` where the caller has none), so the winner of a URL
also decides its space, and a shard id (space, ``r`` and hash bits) selects the live items of
one space.

What a change carries for its URL (its payload) is the caller's: ``backfill`` spools the
low-level DynamoDB URL items of ``sitemap_updater.store.items``, ``build`` the URL's rendered
``<url>`` fragment. A ``None`` payload is a delete. Buckets are independent, so
:meth:`ChangeSpool.resolve` can resolve them on several processes (``map_buckets``).
"""

from __future__ import annotations

import marshal
import os
import struct
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter
from typing import IO, Any, Final, Self

from sitemap_updater.store.keys import ROOT_SHARD, hash_bits
from sitemap_updater.store.shards import bits_of, children, space_of_shard, split_counts

#: Hash bits that choose a spool bucket.
PREFIX_BITS: Final = 8
BUCKETS: Final = 2**PREFIX_BITS
#: Bytes a bucket buffers in memory before they are appended to its file (so at most
#: BUCKETS * FLUSH_BYTES bytes are held).
FLUSH_BYTES: Final = 32 * 1024
#: Spooled records come in frames: a list of records in marshal bytes behind a 4-byte
#: little-endian length.
_LENGTH: Final = struct.Struct("<I")


@dataclass(frozen=True, slots=True)
class Change:
    """One valid change: the URL's identity hash, its ordering key, its payload (an item, or a
    rendered fragment; None: delete), and the space its URL is published in."""

    uh: str
    ev: str
    item: Any
    space: str = ""


#: Where one space's live URLs of a bucket lie in the bucket's live file: (URL count, offset of
#: their frame, its length).
Span = tuple[int, int, int]
#: The spans of one bucket's live file, by space.
SpaceSpans = dict[str, Span]
#: Resolves the buckets it is given (``resolve_bucket`` over their files), in order.
BucketMap = Callable[
    [Callable[[list[str], str], SpaceSpans], list[list[str]], list[str]], Iterable[SpaceSpans]
]


def bucket_of(uh: str) -> int:
    """The spool bucket of an identity hash."""
    return int(uh[: PREFIX_BITS // 4], 16)


def _frame(records: list[Any]) -> bytes:
    data = marshal.dumps(records)
    return _LENGTH.pack(len(data)) + data


def frame_change(change: Change) -> bytes:
    """A change as spool bytes (see :meth:`ChangeSpool.add_framed`)."""
    return _frame([(change.uh, change.ev, change.space, change.item)])


def frame_changes(changes: list[tuple[str, str, str, Any]]) -> bytes:
    """``(hash, ordering key, space, payload)`` changes of one bucket as spool bytes, in one
    frame."""
    return _frame(changes)


def _in_path(directory: str, bucket: int) -> str:
    return os.path.join(directory, f"in-{bucket:03d}")


def _live_path(directory: str, bucket: int) -> str:
    return os.path.join(directory, f"live-{bucket:03d}")


#: Spool files a worker process keeps open to append to (unbuffered, so what it wrote is in
#: the file as soon as ``append_frames`` returns), by path.
_APPENDING: dict[str, IO[bytes]] = {}


def append_frames(directory: str, bucket: int, data: bytes) -> None:
    """Append framed changes (see :func:`frame_changes`) to ``bucket`` of the spool in
    ``directory``, in a file of this process's own: workers append side by side."""
    path = f"{_in_path(directory, bucket)}-{os.getpid()}"
    fh = _APPENDING.get(path)
    if fh is None:
        fh = _APPENDING[path] = open(path, "ab", buffering=0)  # noqa: SIM115 (kept open)
    fh.write(data)


def resolve_bucket(paths: list[str], live_path: str) -> SpaceSpans:
    """Last-writer-wins over one bucket's spooled changes (in ``paths``, in any order: the
    largest ordering key wins, and changes with equal keys are the same change); writes the
    live ``(hash, payload)`` pairs of each space, sorted by hash, as one frame to ``live_path``
    and returns each space's span."""
    winners: dict[str, tuple[str, str, Any]] = {}
    for path in paths:
        for uh, ev, space, payload in _load_all(path):
            held = winners.get(uh)
            if held is None or held[0] < ev:
                winners[uh] = (ev, space, payload)
    live = sorted(
        (space, uh, payload) for uh, (_, space, payload) in winners.items() if payload is not None
    )
    spans: SpaceSpans = {}
    if live:
        with open(live_path, "wb") as fh:
            for space, group in groupby(live, key=itemgetter(0)):
                pairs = [(uh, payload) for _, uh, payload in group]
                data = marshal.dumps(pairs)
                spans[space] = (len(pairs), fh.tell(), len(data))
                fh.write(data)
    for path in paths:
        os.remove(path)
    return spans


def _serial_map(
    resolve: Callable[[list[str], str], SpaceSpans],
    paths: list[list[str]],
    live_paths: list[str],
) -> Iterable[SpaceSpans]:
    return map(resolve, paths, live_paths)


def _load_all(path: str) -> Iterator[Any]:
    """Every record of a spool file (read whole: a file holds one bucket)."""
    if not os.path.exists(path):
        return
    with open(path, "rb") as fh:
        data = memoryview(fh.read())
    pos, end, size = 0, len(data), _LENGTH.size
    while pos < end:
        (length,) = _LENGTH.unpack_from(data, pos)
        pos += size
        yield from marshal.loads(data[pos : pos + length])
        pos += length


class ChangeSpool:
    """Collects changes in per-prefix temporary files; :meth:`resolve` gives the final state.

    Use as a context manager: the temporary directory is removed on exit.
    """

    def __init__(self, directory: str | None = None) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="sitemap-spool-", dir=directory)
        self._dir = self._tmp.name
        self._buffers: dict[int, bytearray] = {}
        self._files: dict[int, IO[bytes]] = {}
        self.changes = 0

    def __enter__(self) -> Self:
        return self

    @property
    def directory(self) -> str:
        """Where the spool's files are (workers append to them, see :func:`append_frames`)."""
        return self._dir

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._close_files()
        self._buffers.clear()
        self._tmp.cleanup()

    def _close_files(self) -> None:
        for fh in self._files.values():
            fh.close()
        self._files.clear()

    def _flush(self, bucket: int, buffer: bytearray) -> None:
        fh = self._files.get(bucket)
        if fh is None:
            fh = self._files[bucket] = open(_in_path(self._dir, bucket), "ab", buffering=0)  # noqa: SIM115
        fh.write(buffer)
        buffer.clear()

    def add(self, change: Change) -> None:
        self.add_framed(bucket_of(change.uh), frame_change(change))
        self.changes += 1

    def add_framed(self, bucket: int, data: bytes | bytearray) -> None:
        """Append changes of ``bucket`` already framed by :func:`frame_change`."""
        buffer = self._buffers.get(bucket)
        if buffer is None:
            buffer = self._buffers[bucket] = bytearray()
        buffer += data
        if len(buffer) >= FLUSH_BYTES:
            self._flush(bucket, buffer)

    def resolve(self, map_buckets: BucketMap = _serial_map) -> FinalState:
        """Apply last-writer-wins per URL, bucket by bucket (``map_buckets`` may resolve them on
        several processes); the live payloads, sorted by hash."""
        for bucket, buffer in self._buffers.items():
            if buffer:
                self._flush(bucket, buffer)
        self._buffers.clear()
        self._close_files()
        inputs: list[list[str]] = [[] for _ in range(BUCKETS)]
        for name in sorted(os.listdir(self._dir)):
            if name.startswith("in-"):
                inputs[int(name[3:6])].append(os.path.join(self._dir, name))
        live = [_live_path(self._dir, bucket) for bucket in range(BUCKETS)]
        spans: dict[str, dict[int, Span]] = {}
        for bucket, found in enumerate(map_buckets(resolve_bucket, inputs, live)):
            for space, span in found.items():
                spans.setdefault(space, {})[bucket] = span
        return FinalState(self._dir, spans)


class FinalState:
    """The live items of a resolved spool, readable by shard (of a space) in hash order.

    ``spans``: by space, where the live URLs of each bucket that holds some lie."""

    def __init__(self, directory: str, spans: dict[str, dict[int, Span]]) -> None:
        self._dir = directory
        self.spans = spans
        self._cached: tuple[str, int, list[tuple[str, Any]]] | None = None

    @property
    def directory(self) -> str:
        return self._dir

    def spaces(self) -> list[str]:
        """The spaces that hold a live URL, sorted."""
        return sorted(self.spans)

    def _space_pairs(self, space: str, bucket: int, span: Span) -> list[tuple[str, Any]]:
        """The live ``(hash, payload)`` pairs of one space in one bucket (the last read kept)."""
        cached = self._cached
        if cached is None or cached[0] != space or cached[1] != bucket:
            with open(_live_path(self._dir, bucket), "rb") as fh:
                fh.seek(span[1])
                cached = self._cached = (space, bucket, marshal.loads(fh.read(span[2])))
        return cached[2]

    def _bucket_range(self, bits: str) -> range:
        free = PREFIX_BITS - len(bits)
        start = int(bits, 2) << free if bits else 0
        return range(start, start + (1 << free))

    def pairs(self, shard_id: str) -> Iterator[tuple[str, Any]]:
        """The ``(hash, payload)`` of each live URL of a shard (of its space), in hash order."""
        space = space_of_shard(shard_id)
        bits = bits_of(shard_id)
        spans = self.spans.get(space, {})
        for bucket in self._bucket_range(bits[:PREFIX_BITS]):
            span = spans.get(bucket)
            if span is None:
                continue
            pairs = self._space_pairs(space, bucket, span)
            if len(bits) <= PREFIX_BITS:
                yield from pairs
            else:
                yield from (pair for pair in pairs if hash_bits(pair[0], len(bits)) == bits)

    def items(self, shard_id: str) -> Iterator[Any]:
        """The live payloads of a shard, in hash order."""
        return (payload for _, payload in self.pairs(shard_id))

    def iter_all(self) -> Iterator[Any]:
        """Every live item of the spool's one space ``""``, in hash order."""
        return self.items(ROOT_SHARD)

    def leaves(self, max_urls: int) -> list[str]:
        """The shard leaves a fresh tree gets for this state: in each space (sorted),
        ``split_counts`` from the space's root."""
        return [
            leaf for space in self.spaces() for leaf in self._split(space + ROOT_SHARD, max_urls)
        ]

    def size(self, shard_id: str) -> int:
        """About how many live URLs a shard holds: exact down to :data:`PREFIX_BITS` hash
        bits, an even share of its bucket's below."""
        bits = bits_of(shard_id)
        spans = self.spans.get(space_of_shard(shard_id), {})
        count = sum(spans[b][0] for b in self._bucket_range(bits[:PREFIX_BITS]) if b in spans)
        return count >> max(0, len(bits) - PREFIX_BITS)

    def _split(self, shard_id: str, cap: int) -> list[str]:
        bits = bits_of(shard_id)
        if len(bits) >= PREFIX_BITS:
            hashes = [uh for uh, _ in self.pairs(shard_id)]
            return split_counts(hashes, shard_id, cap)
        if self.size(shard_id) <= cap:
            return [shard_id]
        left, right = children(shard_id)
        return self._split(left, cap) + self._split(right, cap)
