"""The work of a source, in order: a JSONL file in blocks of whole lines, other sources in
chunks of records, for worker processes to judge (``judging``).

A block or chunk knows the records before it, so that a record's default time depends only on
its position, whatever the number of processes; a local file's block carries only its offset and
length, and the worker reads the bytes itself.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Final

from sitemap_updater_local.inputs.csv_columns import CsvFormat
from sitemap_updater_local.inputs.line_blocks import LineBlocks, Overlong
from sitemap_updater_local.inputs.opening import SourcePolicy, is_url, open_source
from sitemap_updater_local.inputs.source_records import (
    BodyLine,
    Listing,
    Note,
    Problem,
    SourceError,
)
from sitemap_updater_local.inputs.sources import (
    SourceRecord,
    count_bodies,
    iter_records,
    sniff_kind,
)

#: Records per chunk handed to a worker.
CHUNK: Final = 2000
#: Bytes of a JSONL file per block handed to a worker (cut after a line break).
BLOCK_BYTES: Final = 1024 << 10


@dataclass(frozen=True, slots=True)
class Block:
    """Whole lines of a JSONL source, starting at line ``first_line`` (1-based), with ``seq``
    records before them: ``data``, or, for a local file, ``length`` bytes of it from ``offset``
    (so that a worker reads them itself instead of receiving them through a pipe)."""

    name: str
    first_line: int
    seq: int
    data: bytes = b""
    offset: int = 0
    length: int = 0

    def text(self) -> bytes:
        if self.length == 0:
            return self.data
        with open(self.name, "rb") as fh:
            fh.seek(self.offset)
            return fh.read(self.length)


@dataclass(frozen=True, slots=True)
class Chunk:
    """Records of a source, with ``seq`` records before them, and the problems and notes its
    reader met among them, in their place."""

    seq: int
    records: list[Listing | BodyLine | Problem | Note]


Work = Block | Chunk | Problem | Note


def jsonl_blocks(
    stream: IO[bytes], name: str, *, local: bool = False, seq: int = 0
) -> Generator[Block | Problem, None, int]:
    """The stream cut into blocks of whole lines, each knowing its first line and the records
    before it (``seq`` before the stream's first), and a problem in place of each line too long
    to read; ``local``: the stream is the file ``name`` itself, so blocks carry offsets. Returns
    the records counted."""
    line, offset = 1, 0
    for block in LineBlocks(stream, BLOCK_BYTES):
        if isinstance(block, Overlong):
            yield Problem(f"{name}:{line}", block.reason)
            line += 1
            offset += block.length
            continue
        yield _block(name, line, seq, block, offset if local else None)
        seq += count_bodies(block, name, line)
        line += block.count(b"\n")
        offset += len(block)
    return seq


def _block(name: str, line: int, seq: int, data: bytes, offset: int | None) -> Block:
    if offset is None:
        return Block(name, line, seq, data)
    return Block(name, line, seq, offset=offset, length=len(data))


def chunks(
    records: Iterable[SourceRecord | Note], seq: int = 0
) -> Generator[Chunk | Problem | Note, None, int]:
    """Chunks of records to judge, ``seq`` records before the first, each problem and note in
    its place. Returns the records counted (a problem counts as one, a note as none)."""
    chunk: list[Listing | BodyLine | Problem | Note] = []
    for record in records:
        chunk.append(record)
        if len(chunk) >= CHUNK:
            yield Chunk(seq, chunk)
            seq += len(chunk)
            chunk = []
    if chunk:
        yield Chunk(seq, chunk)
        seq += len(chunk)
    return seq


def source_work(
    locations: Sequence[str],
    csv_format: CsvFormat | None = None,
    policy: SourcePolicy | None = None,
    *,
    refuse_empty: bool = False,
) -> Iterator[Work]:
    """The work of every source, in the order given, each record numbered after those of the
    sources before it: JSONL in blocks of lines, other kinds in chunks of records (``csv_format``:
    how to read a CSV source; ``policy``: what the sources may read, in all; ``refuse_empty``:
    an empty source is an error). Raises ``SourceError`` when a source as a whole cannot be
    read."""
    seq = 0
    policy = policy or SourcePolicy()
    for location in locations:
        policy.seen.add(location)
        try:
            with open_source(location, policy, refuse_empty=refuse_empty) as stream:
                if sniff_kind(stream) == "jsonl":
                    local = not is_url(location) and not stream.gzipped
                    seq = yield from jsonl_blocks(stream, location, local=local, seq=seq)
                else:
                    records = iter_records(stream, location, csv_format, policy)
                    seq = yield from chunks(records, seq)
        except (OSError, EOFError) as exc:
            raise SourceError(f"{location}: cannot read: {exc}") from exc
