"""Streaming readers for the inputs of ``build`` and ``backfill``.

A source is a local path or an http(s) URL, plain or gzip (detected by the magic bytes, not by
the name). Its kind is detected from its first meaningful byte: ``<`` is sitemap XML (a urlset
or a sitemap index), ``{`` or ``[`` is JSONL (one message body per line), anything else is a
CSV of ``url,lastmod``.

Every reader yields records one at a time and keeps nothing behind it, so memory stays flat
whatever the size of the source. A record that cannot be read becomes a :class:`Problem`
naming where it is and why; the reader then goes on with the next record.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import posixpath
import re
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Any, Final, Literal, cast
from urllib.parse import urljoin, urlsplit

from lxml import etree

from sitemap_updater.protocol.limits import IMAGE_NS, XHTML_NS

SourceKind = Literal["sitemap", "jsonl", "csv"]

GZIP_MAGIC: Final = b"\x1f\x8b"
#: Seconds to wait for a remote source before giving up.
HTTP_TIMEOUT: Final = 60.0
USER_AGENT: Final = "sitemap-updater-backfill/0.1"
#: Sitemap indexes must not list indexes (sitemaps.org); one level of children is followed.
MAX_INDEX_DEPTH: Final = 1
#: Characters of an offending value quoted in a problem line.
QUOTE_LIMIT: Final = 200


class SourceError(Exception):
    """A source cannot be opened or read at all (missing file, HTTP error, unknown format)."""


@dataclass(frozen=True, slots=True)
class Problem:
    """A record of a source that was skipped: ``where`` (``path:line``) and why."""

    where: str
    reason: str

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}"


@dataclass(frozen=True, slots=True)
class RawEntry:
    """An entry as found in a sitemap or CSV: raw text, not yet checked against the protocol."""

    where: str
    loc: str
    lastmod: str | None = None
    changefreq: str | None = None
    priority: str | None = None
    alternates: tuple[tuple[str, str], ...] = ()
    images: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class BodyLine:
    """One non-blank line of a JSONL file (a raw SQS message body)."""

    where: str
    line: int
    text: str


def quote(value: object) -> str:
    """``repr`` of ``value``, cut to :data:`QUOTE_LIMIT` characters."""
    text = repr(value)
    return text if len(text) <= QUOTE_LIMIT else text[: QUOTE_LIMIT - 3] + "..."


def is_url(location: str) -> bool:
    return urlsplit(location).scheme.lower() in {"http", "https"}


@contextmanager
def open_source(location: str) -> Iterator[IO[bytes]]:
    """The decompressed bytes of a file or URL, gzip detected by its magic bytes."""
    raw: IO[bytes]
    try:
        if is_url(location):
            request = urllib.request.Request(location, headers={"User-Agent": USER_AGENT})
            raw = urllib.request.urlopen(request, timeout=HTTP_TIMEOUT)
        else:
            raw = open(location, "rb")  # noqa: SIM115 (closed below)
    except OSError as exc:  # urllib's URLError and HTTPError are OSErrors
        raise SourceError(f"{location}: cannot open: {exc}") from exc
    try:
        buffered = raw if isinstance(raw, io.BufferedReader) else io.BufferedReader(cast(Any, raw))
        if buffered.peek(2)[:2] == GZIP_MAGIC:
            with gzip.GzipFile(fileobj=buffered, mode="rb") as unzipped:
                yield cast(IO[bytes], unzipped)
        else:
            yield cast(IO[bytes], buffered)
    finally:
        raw.close()


def sniff_kind(stream: IO[bytes]) -> SourceKind:
    """The kind of a source from its first byte that is not whitespace or a BOM."""
    peek = getattr(stream, "peek", None)
    head = peek(512) if peek is not None else b""
    head = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if head.startswith(b"<"):
        return "sitemap"
    if head[:1] in {b"{", b"["}:
        return "jsonl"
    return "csv"


# --- JSONL ---------------------------------------------------------------------------------


def iter_jsonl(stream: IO[bytes], name: str) -> Iterator[BodyLine | Problem]:
    """Each non-blank line as text; a line that is not UTF-8 is a problem."""
    for number, raw in enumerate(stream, start=1):
        yield from body_lines(raw, name, number)


def body_lines(data: bytes, name: str, first_line: int) -> Iterator[BodyLine | Problem]:
    """Each non-blank line of ``data`` (whole lines of a JSONL source, the first of which is
    line ``first_line``) as text; a line that is not UTF-8 is a problem."""
    for item in body_texts(data, name, first_line):
        yield item if isinstance(item, Problem) else BodyLine(f"{name}:{item[0]}", *item)


def body_texts(data: bytes, name: str, first_line: int) -> Iterator[tuple[int, str] | Problem]:
    """:func:`body_lines` as ``(line number, text)`` pairs."""
    text = _plain_text(data, first_line)
    if text is None:
        for record in _careful_lines(data, name, first_line):
            yield record if isinstance(record, Problem) else (record.line, record.text)
        return
    for offset, line in enumerate(text.split("\n")):
        if line and not line.isspace():
            yield first_line + offset, line


def count_bodies(data: bytes, name: str, first_line: int) -> int:
    """How many records :func:`body_lines` finds in ``data``, counted without making them."""
    if data.endswith(b"\n") and data.isascii() and b"\r" not in data:
        # ASCII is UTF-8 without a byte order mark; lines that start a JSON value are not
        # blank, and when every line does, that is the count
        lines = data.count(b"\n")
        opened = data.count(b"\n{") + (data[:1] in {b"{", b"["})
        if opened < lines:
            opened += data.count(b"\n[")
        if opened == lines:
            return opened
    text = _plain_text(data, first_line)
    if text is None:
        return sum(isinstance(line, BodyLine) for line in _careful_lines(data, name, first_line))
    lines = text.count("\n") + 1
    # lines that start a JSON value are not blank: when every line but the empty one after the
    # last line break does, that is the count, without looking for blank lines one by one
    opened = text.count("\n{") + text.count("\n[") + (text[:1] in {"{", "["})
    if text.endswith("\n") and opened == lines - 1:
        return opened
    return lines - len(_BLANK_LINE.findall(text))


#: A line (between line breaks) of whitespace only, or empty: ``str.isspace`` and ``\s`` agree.
_BLANK_LINE: Final = re.compile(r"^[^\S\n]*$", re.MULTILINE)


def _plain_text(data: bytes, first_line: int) -> str | None:
    """``data`` as text when it is UTF-8 with no carriage return and no byte order mark to
    drop (so its lines are its text cut at each line break), else ``None``."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "\r" in text or (first_line == 1 and text.startswith("\ufeff")):
        return None
    return text


def _careful_lines(data: bytes, name: str, first_line: int) -> Iterator[BodyLine | Problem]:
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
            yield BodyLine(f"{name}:{number}", number, text)


# --- CSV -----------------------------------------------------------------------------------

_URL_HEADERS: Final = frozenset({"url", "loc", "location"})
_LASTMOD_HEADERS: Final = frozenset({"lastmod", "last_modified", "last-modified", "lastmodified"})


def _lines(stream: IO[bytes]) -> Iterator[str]:
    for raw in stream:
        # surrogateescape keeps a bad byte visible as a lone surrogate, reported per row below.
        yield raw.decode("utf-8", errors="surrogateescape")


def _has_bad_bytes(cells: list[str]) -> bool:
    try:
        "".join(cells).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate left by surrogateescape
        return True
    return False


def iter_csv(stream: IO[bytes], name: str) -> Iterator[RawEntry | Problem]:
    """Rows of ``url,lastmod``; an optional header row may name the columns in any order."""
    reader = csv.reader(_lines(stream), strict=True)
    url_col, lastmod_col = 0, 1
    first = True
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            yield Problem(f"{name}:{reader.line_num}", f"malformed CSV: {exc}")
            continue
        where = f"{name}:{reader.line_num}"
        if first:
            first = False
            if row:
                row[0] = row[0].removeprefix("\ufeff")
            names = [cell.strip().lower() for cell in row]
            if names and names[0] in _URL_HEADERS | _LASTMOD_HEADERS:
                url_col = next((i for i, n in enumerate(names) if n in _URL_HEADERS), -1)
                lastmod_col = next((i for i, n in enumerate(names) if n in _LASTMOD_HEADERS), -1)
                if url_col < 0:
                    raise SourceError(f"{where}: the header names no url column: {quote(row)}")
                continue
        if not row or not "".join(row).strip():
            continue
        if _has_bad_bytes(row):
            yield Problem(where, "row is not valid UTF-8")
            continue
        if url_col >= len(row):
            yield Problem(where, f"url: missing: the row has only {len(row)} column(s)")
            continue
        lastmod = row[lastmod_col].strip() if 0 <= lastmod_col < len(row) else ""
        yield RawEntry(where, row[url_col].strip(), lastmod or None)


# --- sitemap XML ---------------------------------------------------------------------------


def _local(tag: object) -> tuple[str, str]:
    """(namespace, local name) of an element tag."""
    if not isinstance(tag, str):
        return "", ""
    if tag.startswith("{"):
        ns, _, local = tag[1:].partition("}")
        return ns, local
    return "", tag


def _text(element: etree._Element) -> str | None:
    text = (element.text or "").strip()
    return text or None


def _url_entry(element: etree._Element, where: str) -> RawEntry | Problem:
    loc = lastmod = changefreq = priority = None
    alternates: list[tuple[str, str]] = []
    images: list[str] = []
    for child in element:
        ns, name = _local(child.tag)
        if name == "loc" and ns not in {IMAGE_NS, XHTML_NS}:
            loc = _text(child)
        elif name == "lastmod":
            lastmod = _text(child)
        elif name == "changefreq":
            changefreq = _text(child)
        elif name == "priority":
            priority = _text(child)
        elif name == "link" and ns == XHTML_NS and child.get("rel") == "alternate":
            alternates.append((child.get("hreflang") or "", child.get("href") or ""))
        elif name == "image" and ns == IMAGE_NS:
            for part in child:
                if _local(part.tag)[1] == "loc":
                    images.append(_text(part) or "")
    if loc is None:
        return Problem(where, "loc: missing: every <url> needs a <loc>")
    return RawEntry(where, loc, lastmod, changefreq, priority, tuple(alternates), tuple(images))


def child_location(index_location: str, child_loc: str) -> str:
    """Where to read a child sitemap listed by an index.

    Relative to the index URL when the index was fetched; for a local index, the file with the
    child's last path segment in the index file's directory.
    """
    if is_url(index_location):
        return urljoin(index_location, child_loc)
    segment = posixpath.basename(urlsplit(child_loc).path)
    return os.path.join(os.path.dirname(index_location), segment)


def _release(element: etree._Element) -> None:
    """Free a finished element and the siblings before it (constant memory)."""
    element.clear()
    parent = element.getparent()
    if parent is not None:
        while element.getprevious() is not None:
            del parent[0]


def iter_sitemap(
    stream: IO[bytes], location: str, *, depth: int = 0
) -> Iterator[RawEntry | Problem]:
    """Entries of a urlset, or of every child of a sitemap index (followed in order)."""
    parser = etree.iterparse(
        stream,
        events=("start", "end"),
        resolve_entities=False,
        no_network=True,
        remove_comments=True,
        remove_pis=True,
        load_dtd=False,
    )
    root_kind = ""
    try:
        for event, element in parser:
            name = _local(element.tag)[1]
            if event == "start":
                if not root_kind:
                    root_kind = name
                    if name not in {"urlset", "sitemapindex"}:
                        yield Problem(
                            f"{location}:{element.sourceline}",
                            f"root element: {name!r} is invalid: "
                            "must be <urlset> or <sitemapindex>",
                        )
                        return
                continue
            where = f"{location}:{element.sourceline}"
            if root_kind == "urlset" and name == "url":
                yield _url_entry(element, where)
                _release(element)
            elif root_kind == "sitemapindex" and name == "sitemap":
                child = next((c for c in element if _local(c.tag)[1] == "loc"), None)
                child_loc = None if child is None else _text(child)
                _release(element)
                if child_loc is None:
                    yield Problem(where, "loc: missing: every <sitemap> needs a <loc>")
                elif depth >= MAX_INDEX_DEPTH:
                    yield Problem(
                        where,
                        f"loc: {quote(child_loc)} is not followed: "
                        "a sitemap index must not list another index",
                    )
                else:
                    yield from read_sitemap(child_location(location, child_loc), depth=depth + 1)
    except etree.XMLSyntaxError as exc:
        yield Problem(f"{location}:{exc.lineno}", f"not well-formed XML, rest skipped: {exc.msg}")


def read_sitemap(location: str, *, depth: int = 0) -> Iterator[RawEntry | Problem]:
    """:func:`iter_sitemap` on a location; a child that cannot be opened is one problem."""
    try:
        with open_source(location) as stream:
            yield from iter_sitemap(stream, location, depth=depth)
    except (SourceError, OSError, EOFError) as exc:
        if depth == 0:
            raise SourceError(str(exc)) from exc
        yield Problem(location, f"child sitemap skipped: {exc}")


Record = RawEntry | BodyLine | Problem


def iter_source(location: str) -> Iterator[Record]:
    """Every record of a source of any kind, opened once and streamed.

    Sitemaps and CSV files give :class:`RawEntry` records, JSONL files :class:`BodyLine`
    records; both may give :class:`Problem` records. Raises :class:`SourceError` when the
    source as a whole cannot be read.
    """
    try:
        with open_source(location) as stream:
            yield from iter_records(stream, location)
    except (OSError, EOFError) as exc:
        raise SourceError(f"{location}: cannot read: {exc}") from exc


def iter_records(stream: IO[bytes], location: str) -> Iterator[Record]:
    """Every record of an open source, of the kind its first bytes tell."""
    kind = sniff_kind(stream)
    if kind == "jsonl":
        yield from iter_jsonl(stream, location)
    elif kind == "csv":
        yield from iter_csv(stream, location)
    else:
        yield from iter_sitemap(stream, location)
