"""Streaming readers for the inputs of ``build`` and ``backfill``.

A source is a local path or an http(s) URL, plain or gzip (detected by the magic bytes, not by
the name). Its kind is detected from its first meaningful byte: ``<`` is sitemap XML (a urlset
or a sitemap index), ``{`` or ``[`` is JSONL (one message body per line); otherwise a first line
holding a URL and no column delimiter is a text sitemap, a line with a delimiter (or a bare
``url`` header) a CSV whose header names its url and lastmod columns (``csv_columns``), and
anything else is refused in one line.

Every reader yields records one at a time and keeps nothing behind it, so memory stays flat
whatever the size of the source. A record that cannot be read becomes a :class:`Problem`
naming where it is and why; the reader then goes on with the next record.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator
from dataclasses import replace
from typing import IO, Final, Literal

from sitemap_updater_local.inputs.csv_columns import CsvFormat
from sitemap_updater_local.inputs.csv_rows import iter_csv_rows, recoded
from sitemap_updater_local.inputs.line_blocks import LineBlocks, Overlong
from sitemap_updater_local.inputs.opening import SourcePolicy, open_source
from sitemap_updater_local.inputs.sitemaps.news_articles import (
    MAX_HELD_ARTICLES,
    is_article,
    is_news_file,
    with_article,
)
from sitemap_updater_local.inputs.sitemaps.sitemap_rows import (
    ChildSitemap,
    iter_sitemap_items,
    read_sitemap_rows,
)
from sitemap_updater_local.inputs.sitemaps.text_sitemap import (
    first_line_kind,
    iter_text_rows,
    plain_text_error,
)
from sitemap_updater_local.inputs.source_records import (
    BodyLine,
    Listing,
    Note,
    Problem,
    SourceError,
)

SourceKind = Literal["sitemap", "jsonl", "csv", "text", "plain"]
#: Bytes of a JSONL source read at a time (then cut after the block's last line break).
JSONL_BLOCK: Final = 1 << 20


def sniff_kind(stream: IO[bytes], csv_format: CsvFormat | None = None) -> SourceKind:
    """The kind of a source from its first byte that is not whitespace or a BOM; a source
    that is neither XML nor JSON is CSV when options name its columns or delimiter."""
    peek = getattr(stream, "peek", None)
    head = peek(4096) if peek is not None else b""
    head = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not head:
        return "text"  # no record of any kind: what an empty source means is the command's call
    if head.startswith(b"<"):
        return "sitemap"
    if head[:1] in {b"{", b"["}:
        return "jsonl"
    if csv_format is not None and (csv_format.delimiter or csv_format.url_column):
        return "csv"
    kind = first_line_kind(head)
    return "text" if kind == "text" else "csv" if kind == "csv" else "plain"


# --- JSONL ---------------------------------------------------------------------------------


def iter_jsonl(stream: IO[bytes], name: str) -> Iterator[BodyLine | Problem]:
    """Each non-blank line as text; a line that is not UTF-8, or too long to read, is a
    problem."""
    line = 1
    for block in LineBlocks(stream, JSONL_BLOCK):
        if isinstance(block, Overlong):
            yield Problem(f"{name}:{line}", block.reason)
            line += 1
            continue
        yield from body_lines(block, name, line)
        line += block.count(b"\n")


def body_lines(data: bytes, name: str, first_line: int) -> Iterator[BodyLine | Problem]:
    """Each non-blank line of ``data`` (whole lines of a JSONL source, the first of which is
    line ``first_line``) as text; a line that is not UTF-8 is a problem."""
    for item in body_texts(data, name, first_line):
        yield item if isinstance(item, Problem) else BodyLine(f"{name}:{item[0]}", *item)


def body_texts(data: bytes, name: str, first_line: int) -> Iterator[tuple[int, str] | Problem]:
    """:func:`body_lines` as ``(line number, text)`` pairs."""
    for offset, raw in enumerate(data.split(b"\n")):
        number = first_line + offset
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield Problem(
                f"{name}:{number}", f"line is not UTF-8 ({exc.reason} at byte {exc.start})"
            )
            continue
        text = text.rstrip("\r")
        if number == 1:
            text = text.removeprefix("\ufeff")
        if text.strip():
            yield number, text


def count_bodies(data: bytes, name: str, first_line: int) -> int:
    """How many lines of ``data`` :func:`body_lines` gives as records (not as problems)."""
    return sum(not isinstance(line, Problem) for line in body_texts(data, name, first_line))


# --- sources of any kind ------------------------------------------------------------------


SourceRecord = Listing | BodyLine | Problem
SourceItem = Listing | BodyLine | Problem | Note


def iter_source_rows(
    location: str, policy: SourcePolicy | None = None, csv_format: CsvFormat | None = None
) -> Generator[SourceItem]:
    """Every record of a source of any kind, opened once and streamed.

    Sitemaps and CSV files give :class:`Listing` records, JSONL files :class:`BodyLine`
    records; both may give :class:`Problem` records and notes. Raises :class:`SourceError`
    when the source as a whole cannot be read. ``csv_format``: how to read a CSV source
    (default: from its header).
    """
    policy = policy or SourcePolicy()
    return _with_children(iter_source_items(location, policy, csv_format), policy)


def _with_children(
    items: Iterable[SourceItem | ChildSitemap], policy: SourcePolicy | None = None
) -> Generator[SourceItem]:
    """``items`` with the records of the children of a sitemap index read after them: the
    index's News files first, their articles held (``news_articles``), then the others, each
    page given its held article; then the articles no page met."""
    children: list[ChildSitemap] = []
    for item in items:
        if isinstance(item, ChildSitemap):
            children.append(item)
        else:
            yield item
    if not children:
        return
    news = [child for child in children if is_news_file(child.location, policy or SourcePolicy())]
    held: dict[object, Listing] = {}
    for child in news:
        for record in read_sitemap_rows(child.location, depth=child.depth, policy=policy):
            if isinstance(record, Listing) and is_article(record) and len(held) < MAX_HELD_ARTICLES:
                held[record.url] = record
            else:
                yield record
    for child in children:
        if child in news:
            continue
        for record in read_sitemap_rows(child.location, depth=child.depth, policy=policy):
            if isinstance(record, Listing) and record.url in held:
                yield with_article(record, held.pop(record.url).fields["news"])
            else:
                yield record
    yield from held.values()


def iter_source_items(
    location: str, policy: SourcePolicy | None = None, csv_format: CsvFormat | None = None
) -> Generator[SourceItem | ChildSitemap]:
    """:func:`iter_source_rows`, but each child of a sitemap index is a :class:`ChildSitemap`
    for the caller to read (``read_sitemap_rows``) before it asks for the next item."""
    policy = policy or SourcePolicy()
    policy.seen.add(location)
    try:
        with open_source(location, policy, refuse_empty=True) as stream:
            yield from _stream_items(stream, location, policy, csv_format)
    except (OSError, EOFError) as exc:
        raise SourceError(f"{location}: cannot read: {exc}") from exc


def _stream_items(
    stream: IO[bytes],
    location: str,
    policy: SourcePolicy | None = None,
    csv_format: CsvFormat | None = None,
) -> Iterator[SourceItem | ChildSitemap]:
    kind = sniff_kind(stream, csv_format)
    if kind not in {"sitemap", "jsonl"} and csv_format is not None:
        # a CSV or text file in the encoding named (XML declares its own; JSON is UTF-8)
        stream = recoded(stream, csv_format.encoding)
        kind = sniff_kind(stream, csv_format)
    if kind == "jsonl":
        yield from iter_jsonl(stream, location)
    elif kind == "csv":
        yield from iter_csv_rows(stream, location, csv_format)
    elif kind == "text":
        yield from iter_text_rows(stream, location)
    elif kind == "plain":
        raise plain_text_error(location, getattr(stream, "peek", lambda n: b"")(4096))
    else:
        yield from iter_sitemap_items(stream, location, policy=policy)


def iter_records(
    stream: IO[bytes],
    location: str,
    csv_format: CsvFormat | None = None,
    policy: SourcePolicy | None = None,
) -> Iterator[SourceRecord | Note]:
    """Every record of an open source, of the kind its first bytes tell (the children of a
    sitemap index are read in turn), and the notes of what its readers dropped."""
    csv_format = csv_format if csv_format is not None else CsvFormat()
    policy = policy or SourcePolicy()
    items = _stream_items(stream, location, policy, csv_format=csv_format)
    for item in _with_children(items, policy):
        yield item if isinstance(item, Note) else _named(item, csv_format)


def _named(record: SourceRecord, csv_format: CsvFormat) -> SourceRecord:
    """A listing of a CSV file with the names its header gives its fields."""
    if isinstance(record, Listing) and csv_format.names:
        return replace(record, names=csv_format.names)
    return record
