"""Streaming reader of a CSV of urls and lastmods, its columns told by its header
(``csv_columns``).

The file is read in blocks of whole lines and every line goes through ``csv.reader`` (strict).
A line too long to read (``line_blocks``) is one problem, and the reading goes on after it.
"""

from __future__ import annotations

import codecs
import csv
import io
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import IO, Any, Final

from sitemap_updater_local.inputs.csv_columns import Columns, CsvFormat, read_columns
from sitemap_updater_local.inputs.lastmod_forms import LastmodForms
from sitemap_updater_local.inputs.line_blocks import LineBlocks, Overlong, split_lines
from sitemap_updater_local.inputs.source_records import Listing, Note, Problem, listing

#: Bytes read at a time on the fast path (then cut after the block's last line break).
BLOCK: Final = 1 << 20


class _Recoded(io.RawIOBase):
    """A byte stream in another encoding, read as UTF-8: each read decodes what it got with an
    incremental decoder, so a character cut between two reads is whole."""

    def __init__(self, stream: IO[bytes], encoding: str) -> None:
        self._stream = stream
        # a byte the encoding has no character for comes out as itself: that row is then
        # reported as not valid UTF-8, and the rest of the file is read
        self._decoder = codecs.getincrementaldecoder(encoding)(errors="surrogateescape")
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._pending:
            data = self._stream.read(BLOCK)
            text = self._decoder.decode(data, final=not data)
            self._pending = text.encode("utf-8", errors="surrogateescape")
            if not data:
                break
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size


def recoded(stream: IO[bytes], encoding: str) -> IO[bytes]:
    """``stream`` (in ``encoding``) read as UTF-8, with ``peek`` as an opened source has;
    ``stream`` itself when ``encoding`` names UTF-8 (a BOM is dropped by the readers)."""
    if codecs.lookup(encoding).name in {"utf-8", "utf-8-sig"}:
        return stream
    return io.BufferedReader(_Recoded(stream, encoding), BLOCK)


def _row(
    row: list[str], name: str, line: int, columns: Columns, forms: LastmodForms
) -> Listing | Problem | None:
    """The entry of one data row; ``None`` for a blank row."""
    if not row or not "".join(row).strip():
        return None
    if _has_bad_bytes(row):
        return Problem(
            f"{name}:{line}", "row is not valid UTF-8 (name the file's encoding with --encoding)"
        )
    if columns.url >= len(row):
        return _missing_url(name, line, columns, len(row))
    lastmod = row[columns.lastmod].strip() if 0 <= columns.lastmod < len(row) else ""
    return listing(name, line, row[columns.url].strip(), forms.read(lastmod) or None)


def _missing_url(name: str, line: int, columns: Columns, cells: int) -> Problem:
    return Problem(
        f"{name}:{line}", f"{columns.url_name}: missing: the row has only {cells} column(s)"
    )


def _has_bad_bytes(cells: list[str]) -> bool:
    try:
        "".join(cells).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate left by surrogateescape
        return True
    return False


class _Lines:
    """The lines handed to ``csv.reader``, decoded; a line too long to read becomes a blank
    line there (a blank row, skipped) and a problem here, told before the next row."""

    def __init__(self, lines: Iterable[bytes | Overlong], name: str, offset: int) -> None:
        self._lines = lines
        self._name = name
        self._number = offset
        self.problems: list[Problem] = []

    def __iter__(self) -> Iterator[str]:
        for raw in self._lines:  # one line each, as csv.reader counts them
            self._number += 1
            if isinstance(raw, Overlong):
                self.problems.append(Problem(f"{self._name}:{self._number}", raw.reason))
                yield "\n"
                continue
            # surrogateescape keeps a bad byte visible as a lone surrogate, reported per row
            yield raw.decode("utf-8", errors="surrogateescape")


def csv_reader_rows(
    lines: Iterable[bytes | Overlong],
    name: str,
    columns: Columns,
    offset: int = 0,
    forms: LastmodForms | None = None,
) -> Iterator[Listing | Problem]:
    """Rows of ``lines`` through ``csv.reader``; ``offset`` lines came before them; ``forms``
    reads and counts their lastmods (``lastmod_forms``)."""
    forms = forms if forms is not None else LastmodForms()
    decoded = _Lines(lines, name, offset)
    reader = csv.reader(decoded, delimiter=columns.delimiter, strict=True)
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            yield from _told(decoded)
            yield Problem(f"{name}:{offset + reader.line_num}", f"malformed CSV: {exc}")
            continue
        yield from _told(decoded)
        line = offset + reader.line_num
        if line == columns.header_line:
            continue
        if line == 1 and row:
            row[0] = row[0].removeprefix("\ufeff")
        result = _row(row, name, line, columns, forms)
        if result is not None:
            yield result
    yield from _told(decoded)


def _told(lines: _Lines) -> list[Problem]:
    told, lines.problems = lines.problems, []
    return told


def _first_line(data: bytes, done: int) -> tuple[str, int] | None:
    """The first line of ``data`` that is not blank, decoded, and its number; ``None``: all
    are blank."""
    for offset, raw in enumerate(data.split(b"\n")):
        text = raw.decode("utf-8", errors="replace")
        if text.removeprefix("\ufeff").strip():
            return text, done + offset + 1
    return None


def iter_csv_rows(
    stream: IO[bytes], name: str, fmt: CsvFormat | None = None
) -> Iterator[Listing | Problem | Note]:
    """Rows of a CSV source whose columns its header names (``csv_columns``), each through
    ``csv.reader``; raises ``SourceError`` for a header that names no url column."""
    fmt = fmt if fmt is not None else CsvFormat()
    done = 0  # lines read so far
    blocks = iter(LineBlocks(stream, BLOCK))
    for lines_read in blocks:
        if isinstance(lines_read, Overlong):
            done += 1
            yield Problem(f"{name}:{done}", lines_read.reason)
            continue
        first = _first_line(lines_read, done)
        if first is None:
            done += lines_read.count(b"\n")
            continue
        columns = read_columns(first[0], f"{name}:{first[1]}", first[1], fmt)
        rest = chain(split_lines([lines_read]), split_lines(blocks))
        forms = LastmodForms(fmt.date_order)
        yield from csv_reader_rows(rest, name, columns, done, forms)
        yield from forms.notes(name)
        return
