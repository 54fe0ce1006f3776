"""Every limit of the sitemaps.org protocol, in one place (https://www.sitemaps.org/protocol.html)."""

from __future__ import annotations

from typing import Final

#: URLs (or child sitemaps, for an index) per file.
MAX_URLS: Final = 50_000
#: Uncompressed bytes per file: 50 MiB.
MAX_BYTES: Final = 52_428_800
#: This project's bound on reading back a file it published, compressed or inflated: the writer
#: never writes more than :data:`MAX_BYTES` of text, and gzip adds a few bytes per 64 KiB, so a
#: larger object is not one of its files. Far below the rebuild function's memory.
MAX_READ_BACK_BYTES: Final = MAX_BYTES + (1 << 20)
#: Characters of a `loc`, after normalization and escaping (sitemap.xsd: tLoc).
MIN_LOC_LENGTH: Final = 12
MAX_LOC_LENGTH: Final = 2048
#: Characters of a URL as given, checked before anything else reads it (this project's bound):
#: normalization only lengthens a URL but for the fragment it drops, so no URL a producer means
#: is refused by it, and a URL of megabytes never reaches the parser, whose cost grows with it.
MAX_URL_TEXT_LENGTH: Final = 4 * MAX_LOC_LENGTH
#: Images per URL (Google image sitemap extension).
MAX_IMAGES_PER_URL: Final = 1000

SITEMAP_NS: Final = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML_NS: Final = "http://www.w3.org/1999/xhtml"
IMAGE_NS: Final = "http://www.google.com/schemas/sitemap-image/1.1"
NEWS_NS: Final = "http://www.google.com/schemas/sitemap-news/0.9"
VIDEO_NS: Final = "http://www.google.com/schemas/sitemap-video/1.1"

# Google News extension (https://developers.google.com/search/docs/crawling-indexing/sitemaps/
# news-sitemap): a news sitemap holds at most 1,000 <url> elements, and only articles published
# in the last two days.
MAX_NEWS_URLS_PER_FILE: Final = 1000
MAX_NEWS_WINDOW_HOURS: Final = 48
#: Google sets no length for these; the bounds are this project's, so that 1,000 articles stay
#: far under the byte cap of a file and one value cannot fill a table item.
MAX_NEWS_NAME_LENGTH: Final = 256
MAX_NEWS_TITLE_LENGTH: Final = 1024

# Google video extension (https://developers.google.com/search/docs/crawling-indexing/sitemaps/
# video-sitemaps).
MAX_VIDEO_DESCRIPTION_LENGTH: Final = 2048
MIN_VIDEO_DURATION: Final = 1
MAX_VIDEO_DURATION: Final = 28_800
MAX_VIDEO_TAGS: Final = 32
MAX_VIDEO_UPLOADER_LENGTH: Final = 255
#: This project's bounds (Google sets none): a video title, one tag, and videos per URL.
MAX_VIDEO_TITLE_LENGTH: Final = 1024
MAX_VIDEO_TAG_LENGTH: Final = 256
MAX_VIDEOS_PER_URL: Final = 100
VIDEO_PLATFORMS: Final = frozenset({"web", "mobile", "tv"})
RELATIONSHIPS: Final = frozenset({"allow", "deny"})
