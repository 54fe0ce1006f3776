"""The work of a build's source, in order: a JSONL file in blocks of whole lines, other sources
in chunks of records, for worker processes to judge (``fragment_spooling``).

A block knows its first line and the records before it, so that a record's default time
depends only on its position (``change_reader``), whatever the number of processes; a local
file's block carries only its offset and length, and the worker reads the bytes itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Final

from sitemap_updater_local.inputs.csv_columns import CsvFormat
from sitemap_updater_local.inputs.line_blocks import LineBlocks, Overlong
from sitemap_updater_local.inputs.opening import is_url, open_source
from sitemap_updater_local.inputs.records import BodyLine, Problem, RawEntry, SourceError
from sitemap_updater_local.inputs.sources import Record, count_bodies, iter_records, sniff_kind

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


Work = Block | list[RawEntry | BodyLine] | Problem


def jsonl_blocks(stream: IO[bytes], name: str, *, local: bool = False) -> Iterator[Block | Problem]:
    """The stream cut into blocks of whole lines, each knowing its first line and the records
    before it, and a problem in place of each line too long to read; ``local``: the stream is
    the file ``name`` itself, so blocks carry offsets."""
    line, seq, offset = 1, 0, 0
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


def _block(name: str, line: int, seq: int, data: bytes, offset: int | None) -> Block:
    if offset is None:
        return Block(name, line, seq, data)
    return Block(name, line, seq, offset=offset, length=len(data))


def _chunks(records: Iterable[Record]) -> Iterator[list[RawEntry | BodyLine] | Problem]:
    """Chunks of records to judge; problems of the source itself pass through alone."""
    chunk: list[RawEntry | BodyLine] = []
    for record in records:
        if isinstance(record, Problem):
            yield record
            continue
        chunk.append(record)
        if len(chunk) >= CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def source_work(location: str, csv_format: CsvFormat | None = None) -> Iterator[Work]:
    """The work of a source, in order: JSONL in blocks of lines, other kinds in chunks of
    records (``csv_format``: how to read a CSV source). Raises ``SourceError`` when the source
    as a whole cannot be read."""
    try:
        with open_source(location) as stream:
            if sniff_kind(stream) == "jsonl":
                local = not is_url(location) and not stream.gzipped
                yield from jsonl_blocks(stream, location, local=local)
            else:
                yield from _chunks(iter_records(stream, location, csv_format))
    except (OSError, EOFError) as exc:
        raise SourceError(f"{location}: cannot read: {exc}") from exc
