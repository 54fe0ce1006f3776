"""The Google News files: the recent articles, read back, patched and expired without a Scan.

Google asks a News sitemap to list only articles published in the last two days, at most 1,000
``<url>`` per file, and to be updated in place rather than replaced by new files
(https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap). The
published news files are their own state, like the regular files (``patch.py``): a run reads
them back (their keys are in the publish record, so a site without news reads nothing), drops
the articles whose ``publication_date`` is older than the run's clock minus the window, applies
the changed URL items of the feed (an article in the window is added or replaced; one that lost
its ``news`` object, was deleted or fell out of the window is dropped), and renders them again in
URL-hash order into ``sitemap-news-1.xml.gz``, ``sitemap-news-2.xml.gz``, ... of at most 1,000
URLs each, per host (under the host's key prefix). A key that is no longer needed leaves the
index and is deleted after the grace period, like every unlisted file. A full rebuild replaces
every article with what its Scan read; a leaf rebuilt from the table, those of its hash range.

Known limit: a run that dies after putting the news files and before saving its record, on a site
with more than 1,000 recent articles, may leave some articles only in a news file the record does
not list (the hash-order fill moves articles between files); the next run does not read that file,
so those articles come back with their next change or the next full rebuild (the daily reconcile).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final

from sitemap_updater.page.model import News
from sitemap_updater.page.render import news_element
from sitemap_updater.protocol.gzipio import gzip_bytes
from sitemap_updater.protocol.limits import MAX_NEWS_URLS_PER_FILE
from sitemap_updater.protocol.urlset import URLSET_FRAME_BYTES, PublishedFormatError, urlset_of
from sitemap_updater.rebuild.patch import parse_published
from sitemap_updater.sites import Sites
from sitemap_updater.store.items import Item, has_news, is_live, page_of_item, url_hash_of
from sitemap_updater.store.shards import covers

NEWS_KEY_PREFIX: Final = "sitemap-news-"
_NEWS_NAME: Final = re.compile(r"sitemap-news-[0-9]+\.xml\.gz")
_PUBLICATION_DATE: Final = re.compile(rb"<news:publication_date>([^<]+)</news:publication_date>")


def news_file_key(number: int, prefix: str = "") -> str:
    """S3 key of a host's ``number``-th news file (from 1), under its key ``prefix``."""
    return f"{prefix}{NEWS_KEY_PREFIX}{number}.xml.gz"


def is_news_key(key: str) -> bool:
    return _NEWS_NAME.fullmatch(key[key.rfind("/") + 1 :]) is not None


def _moment(publication_date: str) -> datetime:
    """The instant a normalized W3C date denotes (a date alone: its midnight UTC)."""
    if len(publication_date) == 10:
        return datetime.fromisoformat(publication_date).replace(tzinfo=UTC)
    return datetime.fromisoformat(publication_date)


@dataclass(frozen=True, slots=True)
class NewsFile:
    """One rendered news file."""

    key: str
    body: bytes
    url_count: int

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.body).hexdigest()


class NewsDesk:
    """The articles of the news files during one run, as ``<url>`` fragments by URL hash, each
    with the key prefix of its host (``sites`` gives a loc's site and a site's prefix)."""

    def __init__(
        self, sites: Sites, *, window_hours: int, now: float, max_bytes: int, stylesheet: bool
    ) -> None:
        self._sites = sites
        self._prefix: dict[str, str] = {}
        #: whether the files carry the stylesheet's instruction
        self._stylesheet = stylesheet
        self._cutoff = datetime.fromtimestamp(now, UTC) - timedelta(hours=window_hours)
        self._max_bytes = max_bytes
        self._fragments: dict[str, bytes] = {}
        #: key -> sha256 of each news file as read back
        self.published: dict[str, str] = {}
        #: key -> sha256 of each news file :meth:`render` made
        self.rendered: dict[str, str] = {}
        #: ``loc: reason`` of each article the writer refused
        self.skipped: list[str] = []

    def in_window(self, news: News) -> bool:
        return _moment(news.publication_date) >= self._cutoff

    def load(self, key: str, body: bytes) -> None:
        """Take the published news file ``key`` apart; raises :class:`PublishedFormatError` for
        a file that is not in the writer's format (nothing of it is kept then). Expired articles
        are dropped on render."""
        fragments = parse_published(body)
        for fragment in fragments.values():
            found = _PUBLICATION_DATE.search(fragment)
            if found is None:
                raise PublishedFormatError(f"{key}: an article has no publication_date")
            try:
                _moment(found[1].decode("ascii"))
            except ValueError as error:  # UnicodeDecodeError included
                raise PublishedFormatError(f"{key}: an article's date is not W3C") from error
        self.published[key] = hashlib.sha256(body).hexdigest()
        self._fragments.update(fragments)
        prefix = key[: key.rfind("/") + 1]
        self._prefix.update(dict.fromkeys(fragments, prefix))

    def apply(self, changes: Mapping[str, Item | None]) -> None:
        """Apply changed URL items (URL hash -> item, None when it no longer exists)."""
        for uh, item in changes.items():
            page = (
                page_of_item(item)
                if item is not None and is_live(item) and has_news(item)
                else None
            )
            if page is None or page.news is None or not self.in_window(page.news):
                self._fragments.pop(uh, None)
                continue
            site = self._sites.site_of(page.url) or self._sites.primary
            text = news_element(page).encode("utf-8")
            if len(text) > self._max_bytes - URLSET_FRAME_BYTES:
                self._fragments.pop(uh, None)
                self.skipped.append(f"{page.url}: alone needs more than {self._max_bytes} bytes")
                continue
            self._fragments[uh] = text
            self._prefix[uh] = self._sites.key_prefix(site)

    def replace_shard(self, shard_id: str, items: Iterable[Item]) -> None:
        """Replace the articles of one shard (its hash prefix) with those of ``items``, all of
        the shard's live URL items as the table holds them."""
        for uh in [uh for uh in self._fragments if covers(shard_id, uh)]:
            del self._fragments[uh]
        self.apply({url_hash_of(item): item for item in items if has_news(item)})

    def replace_all(self, items: Iterable[Item]) -> None:
        """Replace every article with those of ``items`` (every live item the table holds)."""
        self._fragments.clear()
        self._prefix.clear()
        self.apply({url_hash_of(item): item for item in items})

    def _current(self) -> dict[str, list[bytes]]:
        """The fragments still inside the window, by host key prefix, in URL-hash order."""
        kept: dict[str, list[bytes]] = {}
        for uh, fragment in sorted(self._fragments.items()):
            found = _PUBLICATION_DATE.search(fragment)
            if found is not None and _moment(found[1].decode("ascii")) >= self._cutoff:
                kept.setdefault(self._prefix.get(uh, ""), []).append(fragment)
            else:
                del self._fragments[uh]
        return kept

    def render(self) -> list[NewsFile]:
        """Each host's news files: at most 1,000 articles (and the byte cap) each, in URL-hash
        order, numbered from 1; none for a host without an article inside the window."""
        files: list[NewsFile] = []
        for prefix, fragments in self._current().items():
            files += self._render_host(prefix, fragments)
        self.rendered = {news_file.key: news_file.sha256 for news_file in files}
        return files

    def _render_host(self, prefix: str, fragments: list[bytes]) -> list[NewsFile]:
        files: list[NewsFile] = []
        group: list[bytes] = []
        size = URLSET_FRAME_BYTES

        def close() -> None:
            text = urlset_of(group, stylesheet=self._stylesheet)
            key = news_file_key(len(files) + 1, prefix)
            files.append(NewsFile(key, gzip_bytes(text), len(group)))

        for fragment in fragments:
            if group and (
                len(group) >= MAX_NEWS_URLS_PER_FILE or size + len(fragment) > self._max_bytes
            ):
                close()
                group, size = [], URLSET_FRAME_BYTES
            group.append(fragment)
            size += len(fragment)
        if group:
            close()
        return files
