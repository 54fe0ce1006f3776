"""The ``<sitemapindex>`` writer: same limits as a urlset (50,000 children, 52,428,800 bytes).

The index is published uncompressed (``gzip=False``, the default) as ``/sitemap.xml``.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import BinaryIO, Final

from sitemap_updater.protocol.errors import (
    EntryTooLargeError,
    SitemapFullError,
)
from sitemap_updater.protocol.escape import check_chars, escape, needs_escape
from sitemap_updater.protocol.gzipio import (
    DEFAULT_COMPRESSLEVEL,
    ByteSink,
    GzipOutput,
    PlainOutput,
    utf8_len,
)
from sitemap_updater.protocol.limits import MAX_BYTES, MAX_URLS, SITEMAP_NS
from sitemap_updater.protocol.render.element import check_lastmod
from sitemap_updater.protocol.stylesheet import prologue
from sitemap_updater.protocol.urls import normalize_url
from sitemap_updater.protocol.urlset import FileStats, StreamedDocument

INDEX_ROOT: Final = f'<sitemapindex xmlns="{SITEMAP_NS}">\n'
INDEX_CLOSE: Final = "</sitemapindex>\n"


class IndexWriter(StreamedDocument):
    """Writes one ``<sitemapindex>`` into ``sink``: plain XML, or gzip if ``gzip=True``.

    ``add(loc, lastmod)`` normalizes ``loc`` (an absolute http(s) URL) and requires ``lastmod``
    in normalized form; it raises :class:`SitemapFullError` (child not written) when the index
    would exceed ``max_entries`` or ``max_bytes``. ``close`` raises :class:`EmptySitemapError`
    if nothing was added, because siteindex.xsd requires at least one ``<sitemap>``. With
    ``stylesheet`` the index carries the stylesheet's instruction (``protocol.stylesheet``).
    """

    closing = INDEX_CLOSE
    empty_rule = "a sitemap index needs at least one <sitemap> (siteindex.xsd)"

    def __init__(
        self,
        sink: BinaryIO | ByteSink,
        *,
        max_entries: int = MAX_URLS,
        max_bytes: int = MAX_BYTES,
        gzip: bool = False,
        compresslevel: int = DEFAULT_COMPRESSLEVEL,
        stylesheet: bool = False,
    ) -> None:
        if not 1 <= max_entries <= MAX_URLS:
            raise ValueError(f"max_entries {max_entries} must be from 1 to {MAX_URLS}")
        if not 0 < max_bytes <= MAX_BYTES:
            raise ValueError(f"max_bytes {max_bytes} must be from 1 to {MAX_BYTES}")
        self._max_entries = max_entries
        self._max_bytes = max_bytes
        output = GzipOutput(sink, compresslevel) if gzip else PlainOutput(sink)
        self._start(output, prologue(stylesheet) + INDEX_ROOT)

    def add(self, loc: str, lastmod: str | None) -> None:
        if self._closed:
            raise ValueError("the writer is closed")
        if self._count >= self._max_entries:
            raise SitemapFullError("urls", f"the index already lists {self._count} sitemaps")
        url = normalize_url(loc)
        check_chars("loc", url)
        text = f"<sitemap><loc>{escape(url) if needs_escape(url) else url}</loc>"
        if lastmod is not None:
            text += f"<lastmod>{check_lastmod(lastmod)}</lastmod>"
        text += "</sitemap>\n"
        size = utf8_len(text)
        if self._bytes + size + len(INDEX_CLOSE) > self._max_bytes:
            limit = f"{self._max_bytes} uncompressed bytes"
            if self._count == 0:
                raise EntryTooLargeError("bytes", f"{url} alone needs more than {limit}")
            raise SitemapFullError("bytes", f"{url} would take the index over {limit}")
        if lastmod is not None and (self._newest is None or lastmod > self._newest):
            self._newest = lastmod
        self._buffer.append(text, size)
        self._bytes += size
        self._count += 1


def render_index(
    items: Iterable[tuple[str, str | None]],
    *,
    max_entries: int = MAX_URLS,
    max_bytes: int = MAX_BYTES,
    gzip: bool = False,
    stylesheet: bool = False,
) -> tuple[bytes, FileStats]:
    """An index listing ``(loc, lastmod)`` pairs; plain XML bytes unless ``gzip``; with the
    stylesheet's instruction when ``stylesheet``."""
    sink = io.BytesIO()
    writer = IndexWriter(
        sink, max_entries=max_entries, max_bytes=max_bytes, gzip=gzip, stylesheet=stylesheet
    )
    for loc, lastmod in items:
        writer.add(loc, lastmod)
    stats = writer.close()
    return sink.getvalue(), stats
