"""The streaming ``<urlset>`` writer: gzip output, exact byte and URL limits, constant memory.

Every text and attribute is XML-escaped; characters XML 1.0 forbids are rejected; elements are
written in sitemap.xsd's order (loc, lastmod, changefreq, priority, then extensions). The root
element declares the xhtml, image, video and news namespaces up front, since a streamed root
cannot wait to learn whether a later entry uses them.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import batched
from typing import BinaryIO, Final, Self

from sitemap_updater.protocol.entry import Entry
from sitemap_updater.protocol.errors import EmptySitemapError, EntryTooLargeError, SitemapFullError
from sitemap_updater.protocol.gzipio import (
    DEFAULT_COMPRESSLEVEL,
    ByteSink,
    GzipOutput,
    PlainOutput,
    TextBuffer,
)
from sitemap_updater.protocol.limits import (
    IMAGE_NS,
    MAX_BYTES,
    MAX_URLS,
    NEWS_NS,
    SITEMAP_NS,
    VIDEO_NS,
    XHTML_NS,
)
from sitemap_updater.protocol.render.chunk import ChunkRenderer
from sitemap_updater.protocol.render.element import EntryRenderer, too_large_reason
from sitemap_updater.protocol.stylesheet import prologue
from sitemap_updater.protocol.urls import Site

URLSET_ROOT: Final = (
    f'<urlset xmlns="{SITEMAP_NS}" xmlns:xhtml="{XHTML_NS}" '
    f'xmlns:image="{IMAGE_NS}" xmlns:video="{VIDEO_NS}" xmlns:news="{NEWS_NS}">\n'
)
#: The root element files written before the video and news extensions started with; a published
#: file that has it is read back like any other (its entries are the same bytes).
LEGACY_URLSET_ROOT: Final = (
    f'<urlset xmlns="{SITEMAP_NS}" xmlns:xhtml="{XHTML_NS}" xmlns:image="{IMAGE_NS}">\n'
)
URLSET_CLOSE: Final = "</urlset>\n"


def urlset_open(stylesheet: bool) -> str:
    """The text of a urlset before its first ``<url>``: the prologue (with the stylesheet's
    instruction when ``stylesheet``) and the root element."""
    return prologue(stylesheet) + URLSET_ROOT


#: Entries :meth:`UrlsetWriter.add_many` renders and checks as one block.
CHUNK_SIZE: Final = 1024


@dataclass(frozen=True, slots=True)
class FileStats:
    """What was written: URLs (or child sitemaps), exact uncompressed bytes, newest lastmod."""

    url_count: int
    uncompressed_bytes: int
    newest_lastmod: str | None


class StreamedDocument:
    """What the urlset and index writers share: the text buffer over the output, the counts,
    the newest lastmod, and ``close``, which writes the closing tag once something was added."""

    #: the root element's closing tag, and the rule an empty document breaks
    closing: str = ""
    empty_rule: str = ""

    def _start(self, out: GzipOutput | PlainOutput, opening: str) -> None:
        self._out = out
        self._buffer = TextBuffer(out)
        self._count = 0
        self._bytes = len(opening)
        self._newest: str | None = None
        self._closed = False
        self._buffer.append(opening, self._bytes)

    def close(self) -> FileStats:
        """Write the closing tag and flush the output; returns what the file holds."""
        if self._closed:
            raise ValueError("the writer is already closed")
        if self._count == 0:
            raise EmptySitemapError(self.empty_rule)
        self._closed = True
        self._buffer.append(self.closing, len(self.closing))
        self._bytes += len(self.closing)
        self._buffer.flush()
        self._out.close()
        return FileStats(self._count, self._bytes, self._newest)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc_rest: object) -> None:
        if exc_type is None and not self._closed:
            self.close()


class UrlsetWriter(StreamedDocument):
    """Writes one gzipped ``<urlset>`` into ``sink``, one :class:`Entry` at a time.

    ``add`` raises :class:`SitemapFullError` when the entry would exceed ``max_urls`` URLs or
    ``max_bytes`` uncompressed bytes (counting the closing tag); the entry is then not written
    and the file can still be closed. ``close`` raises :class:`EmptySitemapError` if no entry
    was added, because sitemap.xsd requires at least one ``<url>``.
    Each entry's text is :class:`~sitemap_updater.protocol.render.element.EntryRenderer`'s,
    with all of its checks (the block path, :meth:`add_many`, gives the same bytes). With
    ``stylesheet`` the file carries the stylesheet's instruction (``protocol.stylesheet``).
    """

    closing = URLSET_CLOSE
    empty_rule = "a urlset needs at least one <url> (sitemap.xsd)"

    def __init__(
        self,
        sink: BinaryIO | ByteSink,
        site: Site,
        *,
        max_urls: int = MAX_URLS,
        max_bytes: int = MAX_BYTES,
        compresslevel: int = DEFAULT_COMPRESSLEVEL,
        stylesheet: bool = False,
    ) -> None:
        if not 1 <= max_urls <= MAX_URLS:
            raise ValueError(f"max_urls {max_urls} must be from 1 to {MAX_URLS}")
        if not 0 < max_bytes <= MAX_BYTES:
            raise ValueError(f"max_bytes {max_bytes} must be from 1 to {MAX_BYTES}")
        self._site = site
        self._prefix = site.origin + "/"
        self._max_urls = max_urls
        self._max_bytes = max_bytes
        #: most bytes the entries may take so that the closing tag still fits
        self._room = max_bytes - len(URLSET_CLOSE)
        self._entries = EntryRenderer(site)
        self._chunks = ChunkRenderer(site)
        self._start(GzipOutput(sink, compresslevel), urlset_open(stylesheet))

    @property
    def url_count(self) -> int:
        return self._count

    @property
    def uncompressed_bytes(self) -> int:
        """Bytes written so far, not counting the closing tag."""
        return self._bytes

    def add(self, entry: Entry) -> None:
        if self._closed:
            raise ValueError("the writer is closed")
        if self._count >= self._max_urls:
            raise SitemapFullError("urls", f"the file already holds {self._count} URLs")
        text = self._entries.text(entry)
        size = len(text) if text.isascii() else len(text.encode("utf-8"))
        if self._bytes + size > self._room:
            if self._count == 0:
                raise EntryTooLargeError("bytes", too_large_reason(entry.loc, self._max_bytes))
            limit = f"{self._max_bytes} uncompressed bytes"
            raise SitemapFullError("bytes", f"{entry.loc} would take the file over {limit}")
        lastmod = entry.lastmod
        if lastmod is not None and (self._newest is None or lastmod > self._newest):
            self._newest = lastmod
        self._buffer.append(text, size)
        self._bytes += size
        self._count += 1

    def add_many(self, entries: Iterable[Entry]) -> None:
        """Add ``entries`` in order; the same bytes, stats and errors as calling :meth:`add`
        for each, only faster.

        Like a loop of :meth:`add`, it stops at the first entry that raises (an input error,
        :class:`SitemapFullError` or :class:`EntryTooLargeError`): every entry before it is
        written, that entry and the rest are not, and the file can still be closed. So
        ``url_count`` after the error minus ``url_count`` before the call is the index of the
        entry that raised.

        Blocks of :data:`CHUNK_SIZE` entries are checked and rendered together; a block that
        breaks a rule, or would not fit in full, is added entry by entry, which raises the
        precise error at the precise entry.
        """
        for chunk in batched(entries, CHUNK_SIZE):
            self._add_chunk(chunk)

    def _add_chunk(self, chunk: tuple[Entry, ...]) -> None:
        rendered = None
        if not self._closed and self._count + len(chunk) <= self._max_urls:
            rendered = self._chunks.render(chunk)
        if rendered is not None:
            text, newest = rendered
            size = len(text) if text.isascii() else len(text.encode("utf-8"))
            if self._bytes + size <= self._room:
                self._buffer.append(text, size)
                self._bytes += size
                self._count += len(chunk)
                if newest is not None and (self._newest is None or newest > self._newest):
                    self._newest = newest
                return
        for entry in chunk:
            self.add(entry)


def render_urlset(
    entries: Iterable[Entry],
    site: Site,
    *,
    max_urls: int = MAX_URLS,
    max_bytes: int = MAX_BYTES,
    compresslevel: int = DEFAULT_COMPRESSLEVEL,
    stylesheet: bool = False,
) -> tuple[bytes, FileStats]:
    """All ``entries`` as one gzipped urlset; raises :class:`SitemapFullError` if they do not
    fit."""
    sink = io.BytesIO()
    writer = UrlsetWriter(
        sink,
        site,
        max_urls=max_urls,
        max_bytes=max_bytes,
        compresslevel=compresslevel,
        stylesheet=stylesheet,
    )
    writer.add_many(entries)
    stats = writer.close()
    return sink.getvalue(), stats
