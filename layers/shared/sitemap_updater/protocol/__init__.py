"""The sitemaps.org protocol core: entries, URL and date rules, streaming writers, gzip.

Pure Python; no AWS. See https://www.sitemaps.org/protocol.html.

The entry model and its normalizers sit here, with ``normalized`` (the one recognizer of values
already in normalized form) and the writers; ``extensions`` holds Google's news and video
elements, ``render`` the one ``<url>`` renderer, the block renderer and the fragment API.
"""

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
