"""Every limit of the sitemaps.org protocol, in one place (https://www.sitemaps.org/protocol.html)."""

from __future__ import annotations

from typing import Final

#: URLs (or child sitemaps, for an index) per file.
MAX_URLS: Final = 50_000
#: Uncompressed bytes per file: 50 MiB.
MAX_BYTES: Final = 52_428_800
#: Characters of a `loc`, after normalization and escaping (sitemap.xsd: tLoc).
MIN_LOC_LENGTH: Final = 12
MAX_LOC_LENGTH: Final = 2048
#: Images per URL (Google image sitemap extension).
MAX_IMAGES_PER_URL: Final = 1000
#: Valid changefreq values.
CHANGEFREQS: Final = frozenset(
    {"always", "hourly", "daily", "weekly", "monthly", "yearly", "never"}
)

SITEMAP_NS: Final = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML_NS: Final = "http://www.w3.org/1999/xhtml"
IMAGE_NS: Final = "http://www.google.com/schemas/sitemap-image/1.1"
