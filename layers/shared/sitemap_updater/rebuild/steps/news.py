"""The news files: read back the published ones at the start of a run, put the changed ones
before the index that lists them."""

from __future__ import annotations

import contextlib

from sitemap_updater.protocol.urlset import (
    PublishedFormatError,
    fragment_loc,
    fragments_of,
)
from sitemap_updater.rebuild.inputs.source import ShardSource
from sitemap_updater.rebuild.news import NewsDesk
from sitemap_updater.rebuild.steps.objects import sha256_hex
from sitemap_updater.rebuild.steps.run import Run
from sitemap_updater.rebuild.steps.tools import Tools
from sitemap_updater.store.items import Item, url_hash_of
from sitemap_updater.store.keys import url_hash

#: (file key, index lastmod, URL count) of a news file the index lists
NewsListing = tuple[str, str | None, int]


def news_desk(tools: Tools, now: float) -> NewsDesk:
    """An empty desk for the run's news files (:func:`load_news` fills it)."""
    return NewsDesk(
        tools.layout.sites,
        window_hours=tools.config.news_window_hours,
        now=now,
        max_bytes=tools.config.max_bytes_per_sitemap,
        stylesheet=tools.config.stylesheet,
    )


def load_news(run: Run, source: ShardSource) -> None:
    """The articles of the published news files; reads them only when a host lists some, so a
    site without news reads nothing. A file that cannot be read back, or is not the bytes the
    host's news record holds, is rebuilt from the table: each article it names is read again by
    its URL hash (one BatchGetItem per 100), so an article nobody published leaves it."""
    for news in run.trees.news.values():
        for key, recorded, _, _ in news.files:
            body = None
            try:
                body = run.read_object(key)
                if body is None:
                    continue
                if recorded != sha256_hex(body):
                    raise PublishedFormatError(f"{key} is not the file the last publish recorded")
                run.news.load(key, body)
            except PublishedFormatError as error:
                if run.publication.in_flight is None:  # else a crashed run's bytes, no record's
                    run.note_repaired(key, str(error))
                _articles_from_table(run, source, body)


def _articles_from_table(run: Run, source: ShardSource, body: bytes | None) -> None:
    """Render again, from the table, the articles a news file that cannot be trusted names: the
    loc of each ``<url>`` that can be read (a file whose frame cannot be read names none: its
    articles return with their next change or the next full rebuild)."""
    hashes: list[str] = []
    try:
        fragments = fragments_of(body) if body is not None else []
    except PublishedFormatError:
        fragments = []
    for fragment in fragments:
        with contextlib.suppress(PublishedFormatError):
            hashes.append(url_hash(fragment_loc(fragment)))
    changes: dict[str, Item | None] = dict.fromkeys(hashes)
    for item in source.items_by_hash(hashes):
        changes[url_hash_of(item)] = item
    run.news.apply(changes)


def publish_news(run: Run, *, force: bool) -> list[NewsListing]:
    """Put the news files whose bytes changed; returns the listing of each, for the index."""
    desk = run.news
    listed: list[NewsListing] = []
    lastmods = {
        key: lastmod for news in run.trees.news.values() for key, _, lastmod, _ in news.files
    }
    for news_file in desk.render():
        changed = desk.published.get(news_file.key) != news_file.sha256
        if changed or force:
            run.objects.put(news_file.key, news_file.body)
        previous = lastmods.get(news_file.key)
        lastmod = run.now_w3c if changed or previous is None else previous
        listed.append((news_file.key, lastmod, news_file.url_count))
    run.note_news(listed)
    return listed
