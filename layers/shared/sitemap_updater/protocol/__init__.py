"""The sitemaps.org protocol core: entries, URL and date rules, streaming writers, gzip.

Pure Python; no AWS. See https://www.sitemaps.org/protocol.html.

The entry model and its normalizers sit here, with ``normalized`` (the one recognizer of values
already in normalized form) and the writers; ``extensions`` holds Google's news and video
elements, ``render`` the one ``<url>`` renderer, the block renderer and the fragment API.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sitemap_updater.protocol.entry import (
        Alternate,
        Entry,
        Image,
        make_entry,
        normalize_changefreq,
        normalize_priority,
    )
    from sitemap_updater.protocol.errors import (
        EmptySitemapError,
        EntryTooLargeError,
        ForbiddenCharacterError,
        ForeignHostError,
        InvalidAlternateError,
        InvalidChangefreqError,
        InvalidHreflangError,
        InvalidImageError,
        InvalidLastmodError,
        InvalidPriorityError,
        InvalidUrlError,
        SitemapError,
        SitemapFullError,
        TooManyImagesError,
        UrlLengthError,
    )
    from sitemap_updater.protocol.gzipio import DEFAULT_COMPRESSLEVEL, gzip_bytes, is_gzip
    from sitemap_updater.protocol.index import IndexWriter, render_index
    from sitemap_updater.protocol.lastmod import normalize_lastmod
    from sitemap_updater.protocol.limits import MAX_BYTES, MAX_URLS
    from sitemap_updater.protocol.urls import Site, normalize_url
    from sitemap_updater.protocol.urlset import FileStats, UrlsetWriter, render_urlset

#: Where each name of ``__all__`` is defined; imported on first use (PEP 562), so that code
#: needing only the URL rules or the errors does not import the writers, the renderer or the
#: stylesheet (the ingest function's cold start).
_HOMES: dict[str, str] = {
    "Alternate": "sitemap_updater.protocol.entry",
    "DEFAULT_COMPRESSLEVEL": "sitemap_updater.protocol.gzipio",
    "EmptySitemapError": "sitemap_updater.protocol.errors",
    "Entry": "sitemap_updater.protocol.entry",
    "EntryTooLargeError": "sitemap_updater.protocol.errors",
    "FileStats": "sitemap_updater.protocol.urlset",
    "ForbiddenCharacterError": "sitemap_updater.protocol.errors",
    "ForeignHostError": "sitemap_updater.protocol.errors",
    "Image": "sitemap_updater.protocol.entry",
    "IndexWriter": "sitemap_updater.protocol.index",
    "InvalidAlternateError": "sitemap_updater.protocol.errors",
    "InvalidChangefreqError": "sitemap_updater.protocol.errors",
    "InvalidHreflangError": "sitemap_updater.protocol.errors",
    "InvalidImageError": "sitemap_updater.protocol.errors",
    "InvalidLastmodError": "sitemap_updater.protocol.errors",
    "InvalidPriorityError": "sitemap_updater.protocol.errors",
    "InvalidUrlError": "sitemap_updater.protocol.errors",
    "MAX_BYTES": "sitemap_updater.protocol.limits",
    "MAX_URLS": "sitemap_updater.protocol.limits",
    "Site": "sitemap_updater.protocol.urls",
    "SitemapError": "sitemap_updater.protocol.errors",
    "SitemapFullError": "sitemap_updater.protocol.errors",
    "TooManyImagesError": "sitemap_updater.protocol.errors",
    "UrlLengthError": "sitemap_updater.protocol.errors",
    "UrlsetWriter": "sitemap_updater.protocol.urlset",
    "gzip_bytes": "sitemap_updater.protocol.gzipio",
    "is_gzip": "sitemap_updater.protocol.gzipio",
    "make_entry": "sitemap_updater.protocol.entry",
    "normalize_changefreq": "sitemap_updater.protocol.entry",
    "normalize_lastmod": "sitemap_updater.protocol.lastmod",
    "normalize_priority": "sitemap_updater.protocol.entry",
    "normalize_url": "sitemap_updater.protocol.urls",
    "render_index": "sitemap_updater.protocol.index",
    "render_urlset": "sitemap_updater.protocol.urlset",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_COMPRESSLEVEL",
    "MAX_BYTES",
    "MAX_URLS",
    "Alternate",
    "EmptySitemapError",
    "Entry",
    "EntryTooLargeError",
    "FileStats",
    "ForbiddenCharacterError",
    "ForeignHostError",
    "Image",
    "IndexWriter",
    "InvalidAlternateError",
    "InvalidChangefreqError",
    "InvalidHreflangError",
    "InvalidImageError",
    "InvalidLastmodError",
    "InvalidPriorityError",
    "InvalidUrlError",
    "Site",
    "SitemapError",
    "SitemapFullError",
    "TooManyImagesError",
    "UrlLengthError",
    "UrlsetWriter",
    "gzip_bytes",
    "is_gzip",
    "make_entry",
    "normalize_changefreq",
    "normalize_lastmod",
    "normalize_priority",
    "normalize_url",
    "render_index",
    "render_urlset",
]
