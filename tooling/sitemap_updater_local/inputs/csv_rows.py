"""Streaming reader of a CSV of ``url,lastmod`` (an optional header names the columns).

Most exports hold no quote at all, so the file is read in blocks of whole lines: a block that
is valid UTF-8 and holds no ``"``, no lone carriage return and no NUL is cut at commas, which
is what the ``csv`` module makes of such lines. From the first block that holds anything else,
the rest of the file goes through ``csv.reader`` (strict), line by line as before: the rows,
their line numbers and the problems are the same either way.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import IO, Final

from sitemap_updater_local.inputs.line_blocks import LineBlocks
from sitemap_updater_local.inputs.records import Problem, Row, SourceError, quote

_URL_HEADERS: Final = frozenset({"url", "loc", "location"})
_LASTMOD_HEADERS: Final = frozenset({"lastmod", "last_modified", "last-modified", "lastmodified"})
#: Bytes read at a time on the fast path (then cut after the block's last line break).
BLOCK: Final = 1 << 20


class Columns:
    """Which columns hold the url and the lastmod, set by an optional header row."""

    def __init__(self) -> None:
        self.url, self.lastmod = 0, 1
        self.first = True

    def is_header(self, row: list[str], where: str) -> bool:
        """Whether the first row (BOM removed in place) is a header; reads it if so."""
        self.first = False
        if row:
            row[0] = row[0].removeprefix("\ufeff")
        names = [cell.strip().lower() for cell in row]
        if not (names and names[0] in _URL_HEADERS | _LASTMOD_HEADERS):
            return False
        self.url = next((i for i, n in enumerate(names) if n in _URL_HEADERS), -1)
        self.lastmod = next((i for i, n in enumerate(names) if n in _LASTMOD_HEADERS), -1)
        if self.url < 0:
            raise SourceError(f"{where}: the header names no url column: {quote(row)}")
        return True


def _row(row: list[str], name: str, line: int, columns: Columns) -> Row | Problem | None:
    """The entry of one data row; ``None`` for a blank row."""
    if not row or not "".join(row).strip():
        return None
    if _has_bad_bytes(row):
        return Problem(f"{name}:{line}", "row is not valid UTF-8")
    if columns.url >= len(row):
        return Problem(f"{name}:{line}", f"url: missing: the row has only {len(row)} column(s)")
    lastmod = row[columns.lastmod].strip() if 0 <= columns.lastmod < len(row) else ""
    return (name, line, row[columns.url].strip(), lastmod or None, None, None, (), ())


def _has_bad_bytes(cells: list[str]) -> bool:
    try:
        "".join(cells).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate left by surrogateescape
        return True
    return False


def _decoded(lines: Iterable[bytes]) -> Iterator[str]:
    for raw in lines:
        # surrogateescape keeps a bad byte visible as a lone surrogate, reported per row below.
        yield raw.decode("utf-8", errors="surrogateescape")


def careful_rows(
    lines: Iterable[bytes], name: str, columns: Columns, offset: int = 0
) -> Iterator[Row | Problem]:
    """Rows of ``lines`` through ``csv.reader``; ``offset`` lines came before them."""
    reader = csv.reader(_decoded(lines), strict=True)
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            yield Problem(f"{name}:{offset + reader.line_num}", f"malformed CSV: {exc}")
            continue
        line = offset + reader.line_num
        if columns.first and columns.is_header(row, f"{name}:{line}"):
            continue
        result = _row(row, name, line, columns)
        if result is not None:
            yield result


def _plain_text(block: bytes) -> str | None:
    """``block`` decoded, with CRLF line ends as LF, if the fast path may cut it at commas."""
    if b'"' in block or b"\x00" in block:
        return None
    try:
        text = block.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            return None
    return text


def _plain_rows(
    lines: list[str], name: str, line: int, columns: Columns
) -> Iterator[Row | Problem]:
    """Rows of lines without quotes, each under csv's field limit; ``line`` lines came before
    them."""
    for text in lines:
        line += 1
        row = text.split(",")
        if columns.first and columns.is_header(row, f"{name}:{line}"):
            continue
        url_col = columns.url
        if url_col < len(row):
            url = row[url_col].strip()
            if not url and not "".join(row).strip():
                continue
            lastmod_col = columns.lastmod
            lastmod = row[lastmod_col].strip() if 0 <= lastmod_col < len(row) else ""
            yield (name, line, url, lastmod or None, None, None, (), ())
        elif "".join(row).strip():
            yield Problem(f"{name}:{line}", f"url: missing: the row has only {len(row)} column(s)")


def iter_csv_rows(stream: IO[bytes], name: str, *, block: int = BLOCK) -> Iterator[Row | Problem]:
    """Rows of ``url,lastmod``; an optional header row may name the columns in any order.
    ``block``: bytes read at a time on the fast path."""
    columns = Columns()
    done = 0  # lines read so far
    limit = csv.field_size_limit()
    blocks = LineBlocks(stream, block)
    for lines_read in blocks:
        text = _plain_text(lines_read)
        lines = None if text is None else text.split("\n")
        if lines is not None and lines[-1] == "":
            lines.pop()  # the block ends with a line break
        # a line over csv's field limit may hold a field over it: csv's error to report
        if lines is None or max(map(len, lines), default=0) > limit:
            rest = lines_read + blocks.pending + stream.readline()
            yield from careful_rows(chain(io.BytesIO(rest), stream), name, columns, done)
            return
        yield from _plain_rows(lines, name, done, columns)
        done += len(lines)
