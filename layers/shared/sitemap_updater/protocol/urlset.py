"""The streaming ``<urlset>`` writer: gzip output, exact byte and URL limits, constant memory.

Every text and attribute is XML-escaped; characters XML 1.0 forbids are rejected; elements are
written in sitemap.xsd's order (loc, lastmod, changefreq, priority, then extensions). The root
element declares the xhtml, image, video and news namespaces up front, since a streamed root
cannot wait to learn whether a later entry uses them.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import batched
from types import TracebackType
from typing import BinaryIO, Final, Self

from sitemap_updater.protocol.entry import HREFLANG, Entry
from sitemap_updater.protocol.errors import (
    EmptySitemapError,
    EntryTooLargeError,
    InvalidChangefreqError,
    InvalidHreflangError,
    InvalidLastmodError,
    InvalidPriorityError,
    SitemapFullError,
)
from sitemap_updater.protocol.escape import check_chars, escape, needs_escape
from sitemap_updater.protocol.extensions.news import news_xml
from sitemap_updater.protocol.extensions.video import videos_xml
from sitemap_updater.protocol.gzipio import (
    DEFAULT_COMPRESSLEVEL,
    ByteSink,
    GzipOutput,
    TextBuffer,
)
from sitemap_updater.protocol.lastmod import NORMALIZED_FORM
from sitemap_updater.protocol.limits import (
    CHANGEFREQS,
    IMAGE_NS,
    MAX_BYTES,
    MAX_LOC_LENGTH,
    MAX_URLS,
    MIN_LOC_LENGTH,
    NEWS_NS,
    SITEMAP_NS,
    VIDEO_NS,
    XHTML_NS,
)
from sitemap_updater.protocol.render.chunk import ChunkRenderer
from sitemap_updater.protocol.urls import Site, check_normalized

XML_DECLARATION: Final = '<?xml version="1.0" encoding="UTF-8"?>\n'
URLSET_OPEN: Final = (
    f'{XML_DECLARATION}<urlset xmlns="{SITEMAP_NS}" xmlns:xhtml="{XHTML_NS}" '
    f'xmlns:image="{IMAGE_NS}" xmlns:video="{VIDEO_NS}" xmlns:news="{NEWS_NS}">\n'
)
#: The root element files written before the video and news extensions started with; a published
#: file that has it is read back like any other (its entries are the same bytes).
LEGACY_URLSET_OPEN: Final = (
    f'{XML_DECLARATION}<urlset xmlns="{SITEMAP_NS}" xmlns:xhtml="{XHTML_NS}" '
    f'xmlns:image="{IMAGE_NS}">\n'
)
URLSET_CLOSE: Final = "</urlset>\n"
_LASTMOD_FORM: Final = NORMALIZED_FORM.fullmatch
#: The text of every valid priority (one decimal place).
PRIORITY_TEXT: Final = {i / 10: f"{i / 10:.1f}" for i in range(11)}
#: Entries :meth:`UrlsetWriter.add_many` renders and checks as one block.
CHUNK_SIZE: Final = 1024


@dataclass(frozen=True, slots=True)
class FileStats:
    """What was written: URLs (or child sitemaps), exact uncompressed bytes, newest lastmod."""

    url_count: int
    uncompressed_bytes: int
    newest_lastmod: str | None


def check_lastmod(lastmod: str, field: str = "lastmod") -> str:
    """``lastmod`` if it has the normalized form; escapes nothing, so it must be exact."""
    if NORMALIZED_FORM.fullmatch(lastmod) is None:
        raise InvalidLastmodError(
            field, lastmod, "must be normalized: YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ"
        )
    return lastmod


def _text(field: str, value: str) -> str:
    check_chars(field, value)
    return escape(value) if needs_escape(value) else value


class UrlsetWriter:
    """Writes one gzipped ``<urlset>`` into ``sink``, one :class:`Entry` at a time.

    ``add`` raises :class:`SitemapFullError` when the entry would exceed ``max_urls`` URLs or
    ``max_bytes`` uncompressed bytes (counting the closing tag); the entry is then not written
    and the file can still be closed. ``close`` raises :class:`EmptySitemapError` if no entry
    was added, because sitemap.xsd requires at least one ``<url>``.
    Entries are trusted to be normalized (see ``make_entry``), but every ``loc`` must be on
    ``site`` (:class:`ForeignHostError`), every value is escaped and checked for characters
    XML 1.0 forbids (:class:`ForbiddenCharacterError`), and lastmod, changefreq and priority
    must have their normalized form.
    """

    def __init__(
        self,
        sink: BinaryIO | ByteSink,
        site: Site,
        *,
        max_urls: int = MAX_URLS,
        max_bytes: int = MAX_BYTES,
        compresslevel: int = DEFAULT_COMPRESSLEVEL,
    ) -> None:
        if not 1 <= max_urls <= MAX_URLS:
            raise ValueError(f"max_urls {max_urls} must be from 1 to {MAX_URLS}")
        if not 0 < max_bytes <= MAX_BYTES:
            raise ValueError(f"max_bytes {max_bytes} must be from 1 to {MAX_BYTES}")
        self._site = site
        self._prefix = site.origin + "/"
        self._max_urls = max_urls
        self._max_bytes = max_bytes
        self._out = GzipOutput(sink, compresslevel)
        self._buffer = TextBuffer(self._out)
        self._count = 0
        self._bytes = len(URLSET_OPEN)
        self._close_bytes = len(URLSET_CLOSE)
        #: most bytes the entries may take so that the closing tag still fits
        self._room = max_bytes - self._close_bytes
        # one C-level check for the common loc: on the site, in normalized form (RFC 3986 path
        # and query characters, % only in %XX, no fragment) and nothing to escape
        self._clean_loc = re.compile(
            re.escape(self._prefix) + r"(?:[A-Za-z0-9\-._~!$()*+,;=:@/?]|%[0-9A-Fa-f]{2})*"
        ).fullmatch
        self._chunks = ChunkRenderer(self._prefix)
        self._newest: str | None = None
        self._closed = False
        self._buffer.append(URLSET_OPEN, self._bytes)

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
        loc = entry.loc
        if not MIN_LOC_LENGTH <= len(loc) <= MAX_LOC_LENGTH or self._clean_loc(loc) is None:
            # not the common case (normalized, on the site, nothing to escape): check all, so
            # that an entry that was never normalized cannot make the file invalid
            self._site.check(loc)
            check_chars("loc", loc)
            check_normalized(loc, self._site.origin)
            loc = escape(loc)
        lastmod = entry.lastmod
        if lastmod is None:
            lastmod_text = ""
        else:
            if _LASTMOD_FORM(lastmod) is None:
                check_lastmod(lastmod)
            lastmod_text = f"<lastmod>{lastmod}</lastmod>"
            if self._newest is None or lastmod > self._newest:
                self._newest = lastmod
        changefreq = entry.changefreq
        if changefreq is None:
            changefreq_text = ""
        elif changefreq in CHANGEFREQS:
            changefreq_text = f"<changefreq>{changefreq}</changefreq>"
        else:
            raise InvalidChangefreqError(
                "changefreq", changefreq, "must be one of the seven changefreq values"
            )
        if entry.priority is None:
            priority_text = ""
        else:
            priority = PRIORITY_TEXT.get(entry.priority)
            if priority is None:
                raise InvalidPriorityError(
                    "priority", entry.priority, "must be one of 0.0, 0.1, ... 1.0"
                )
            priority_text = f"<priority>{priority}</priority>"
        extensions = (
            self._extensions(entry)
            if entry.alternates or entry.images or entry.videos or entry.news is not None
            else ""
        )
        text = (
            f"<url><loc>{loc}</loc>{lastmod_text}{changefreq_text}{priority_text}"
            f"{extensions}</url>\n"
        )
        size = len(text) if text.isascii() else len(text.encode("utf-8"))
        if self._bytes + size > self._room:
            limit = f"{self._max_bytes} uncompressed bytes"
            if self._count == 0:
                raise EntryTooLargeError("bytes", f"{entry.loc} alone needs more than {limit}")
            raise SitemapFullError("bytes", f"{entry.loc} would take the file over {limit}")
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

    def _extensions(self, entry: Entry) -> str:
        parts: list[str] = []
        for i, alternate in enumerate(entry.alternates):
            field = f"alternates[{i}]"
            href = alternate.href
            if not href.startswith(self._prefix):
                self._site.check(href, field=field + ".href")
            check_chars(field + ".href", href)
            check_normalized(href, self._site.origin, field=field + ".href")
            check_chars(field + ".hreflang", alternate.hreflang)
            if HREFLANG.fullmatch(alternate.hreflang) is None:
                raise InvalidHreflangError(
                    field + ".hreflang",
                    alternate.hreflang,
                    "must be a language code such as 'de' or 'en-GB', or 'x-default'",
                )
            hreflang = alternate.hreflang
            parts.append(
                f'<xhtml:link rel="alternate" hreflang="{hreflang}"'
                f' href="{_text(field + ".href", href)}"/>'
            )
        for i, image in enumerate(entry.images):
            parts.append(
                f"<image:image><image:loc>{_text(f'images[{i}].loc', image.loc)}"
                "</image:loc></image:image>"
            )
        if entry.videos:
            parts.append(videos_xml(entry.videos))
        if entry.news is not None:
            parts.append(news_xml(entry.news))
        return "".join(parts)

    def close(self) -> FileStats:
        """Write the closing tag and the gzip trailer; returns what the file holds."""
        if self._closed:
            raise ValueError("the writer is already closed")
        if self._count == 0:
            raise EmptySitemapError("a urlset needs at least one <url> (sitemap.xsd)")
        self._closed = True
        self._buffer.append(URLSET_CLOSE, self._close_bytes)
        self._bytes += self._close_bytes
        self._buffer.flush()
        self._out.close()
        return FileStats(self._count, self._bytes, self._newest)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None and not self._closed:
            self.close()


def render_urlset(
    entries: Iterable[Entry],
    site: Site,
    *,
    max_urls: int = MAX_URLS,
    max_bytes: int = MAX_BYTES,
    compresslevel: int = DEFAULT_COMPRESSLEVEL,
) -> tuple[bytes, FileStats]:
    """All ``entries`` as one gzipped urlset; raises :class:`SitemapFullError` if they do not
    fit."""
    sink = io.BytesIO()
    writer = UrlsetWriter(
        sink, site, max_urls=max_urls, max_bytes=max_bytes, compresslevel=compresslevel
    )
    writer.add_many(entries)
    stats = writer.close()
    return sink.getvalue(), stats
