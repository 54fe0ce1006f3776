"""The ``<sitemapindex>``: same limits as a urlset (50,000 children, 52,428,800 bytes).

Each host's index is published uncompressed as ``sitemap.xml``. Every child's loc is normalized
and escaped, and its lastmod must be in normalized form.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from sitemap_updater.protocol.errors import EmptySitemapError, SitemapError, SitemapFullError
from sitemap_updater.protocol.escape import escape
from sitemap_updater.protocol.lastmod import NORMALIZED_FORM
from sitemap_updater.protocol.limits import MAX_BYTES, MAX_URLS, SITEMAP_NS
from sitemap_updater.protocol.stylesheet import prologue
from sitemap_updater.protocol.urls import normalize_url

INDEX_ROOT: Final = f'<sitemapindex xmlns="{SITEMAP_NS}">\n'
INDEX_CLOSE: Final = "</sitemapindex>\n"


@dataclass(frozen=True, slots=True)
class IndexStats:
    """What an index lists: its children, its bytes, the newest lastmod of its children."""

    count: int
    uncompressed_bytes: int
    newest_lastmod: str | None


def index_child(loc: str, lastmod: str | None) -> str:
    """The ``<sitemap>`` element of one child file."""
    url = normalize_url(loc)
    text = f"<sitemap><loc>{escape(url)}</loc>"
    if lastmod is not None:
        if NORMALIZED_FORM.fullmatch(lastmod) is None:
            raise SitemapError(
                "lastmod", lastmod, "must be normalized: YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ"
            )
        text += f"<lastmod>{lastmod}</lastmod>"
    return text + "</sitemap>\n"


def render_index(
    children: Iterable[tuple[str, str | None]],
    *,
    max_files: int = MAX_URLS,
    max_bytes: int = MAX_BYTES,
    stylesheet: bool = False,
) -> tuple[bytes, IndexStats]:
    """An index listing ``(loc, lastmod)`` pairs, as plain XML bytes (with the stylesheet's
    instruction when ``stylesheet``); :class:`SitemapFullError` when they do not fit, and
    :class:`EmptySitemapError` for none (siteindex.xsd requires one ``<sitemap>``)."""
    parts = [prologue(stylesheet), INDEX_ROOT]
    size = sum(map(len, parts)) + len(INDEX_CLOSE)
    newest: str | None = None
    count = 0
    for loc, lastmod in children:
        if count >= max_files:
            raise SitemapFullError("urls", f"the index already lists {count} sitemaps")
        text = index_child(loc, lastmod)
        size += len(text.encode("utf-8"))
        if size > max_bytes:
            raise SitemapFullError("bytes", f"{loc} would take the index over {max_bytes} bytes")
        parts.append(text)
        count += 1
        if lastmod is not None and (newest is None or lastmod > newest):
            newest = lastmod
    if not count:
        raise EmptySitemapError("a sitemap index needs at least one <sitemap> (siteindex.xsd)")
    parts.append(INDEX_CLOSE)
    return "".join(parts).encode("utf-8"), IndexStats(count, size, newest)
