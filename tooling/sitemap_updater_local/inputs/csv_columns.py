"""Which columns of a CSV file hold the url and the lastmod, and what separates them.

The first line that is not blank is read before any row. It is a header when it names a url
column (:data:`URL_NAMES`, or the name given by ``--url-column``), cut at the delimiter given
(``--delimiter``) or, when none is given, at the first of ``,`` ``;`` tab ``|`` that makes it
name one: so ``url;lastmod`` is cut at ``;`` and ``id,url,lastmod`` takes the column ``url``.
A first line with a cell that is an absolute URL (it holds ``://``) is a row of a file without
a header: its first column is the url and its second the lastmod, cut at ``,`` unless a
delimiter is given. Any other first line is a header that names no url column, and the whole
file is refused with the columns it has, since reading it as data would only give one error
per row (or, worse, publish the header as a URL).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from sitemap_updater_local.inputs.lastmod_forms import DateOrder
from sitemap_updater_local.inputs.source_records import SourceError, quote

#: Header names of the url column and of the lastmod column (compared in lower case).
URL_NAMES: Final = ("url", "loc", "location")
LASTMOD_NAMES: Final = (
    "lastmod",
    "updated_at",
    "modified",
    "last_modified",
    "last-modified",
    "lastmodified",
)
#: Columns a refusal lists at most.
MOST_LISTED: Final = 20
#: The delimiters tried, in order, when none is given.
DELIMITERS: Final = (",", ";", "\t", "|")


@dataclass(slots=True)
class CsvFormat:
    """How to read a CSV source: the options a command was given (``None``: find it out), and,
    once the source's first line is read, the header's own names of the two columns."""

    url_column: str | None = None
    lastmod_column: str | None = None
    delimiter: str | None = None
    #: the order of a day-first or month-first lastmod (``lastmod_forms``); ``None``:
    #: such a date is not read
    date_order: DateOrder | None = None
    #: the file's text encoding (a name Python's codecs know); UTF-8 takes a BOM too
    encoding: str = "utf-8"
    #: ``(field, column name as the header writes it)`` for the entry's ``loc`` and ``lastmod``
    names: tuple[tuple[str, str], ...] = field(default=())


@dataclass(frozen=True, slots=True)
class Columns:
    """The layout of one CSV file: delimiter, the url and lastmod column indexes (lastmod -1:
    none), the line of the header (0: none), and the header's name of the url column."""

    delimiter: str
    url: int
    lastmod: int
    header_line: int
    url_name: str


def _cells(line: str, delimiter: str) -> list[str]:
    return [cell.strip().strip('"').strip() for cell in line.split(delimiter)]


def _find(cells: list[str], wanted: str | None, names: tuple[str, ...]) -> int:
    """The index of the column named ``wanted`` (else of the first of ``names``); -1: none."""
    lowered = [cell.lower() for cell in cells]
    for name in (wanted.strip().lower(),) if wanted is not None else names:
        if name in lowered:
            return lowered.index(name)
    return -1


def read_columns(first: str, where: str, line: int, fmt: CsvFormat) -> Columns:
    """The layout told by ``first``, the first line that is not blank (line ``line``, at
    ``where``); fills ``fmt.names``. Raises :class:`SourceError` for a header that names no url
    column, or not the columns ``fmt`` names."""
    first = first.removeprefix("\ufeff").rstrip("\r\n")
    tried = (fmt.delimiter,) if fmt.delimiter is not None else DELIMITERS
    for delimiter in tried:
        cells = _cells(first, delimiter)
        url = _find(cells, fmt.url_column, URL_NAMES)
        if url >= 0:
            lastmod = _find(cells, fmt.lastmod_column, LASTMOD_NAMES)
            if lastmod < 0 and fmt.lastmod_column is not None:
                raise SourceError(
                    f"{where}: the header has no column {fmt.lastmod_column!r} "
                    f"(--lastmod-column); its columns are {_listed(cells)}"
                )
            fmt.names = (("url", cells[url]),) + (("lastmod", cells[lastmod]),) * (lastmod >= 0)
            return Columns(delimiter, url, lastmod, line, cells[url])
    delimiter = fmt.delimiter or DELIMITERS[0]
    if fmt.url_column is None and any("://" in cell for cell in _cells(first, delimiter)):
        fmt.names = ()
        return Columns(delimiter, 0, 1, 0, "url")
    found = max((_cells(first, d) for d in tried), key=len)
    wanted = (
        f"a column named {fmt.url_column!r} (--url-column)"
        if fmt.url_column is not None
        else "a url column (" + " or ".join(URL_NAMES[:2]) + ", or one named by --url-column)"
    )
    raise SourceError(
        f"{where}: the header names no url column: its columns are {_listed(found)}; "
        f"it needs {wanted}"
    )


def _listed(cells: list[str]) -> str:
    return ", ".join(quote(cell) for cell in cells[:MOST_LISTED]) + (
        f" and {len(cells) - MOST_LISTED} more" if len(cells) > MOST_LISTED else ""
    )
