"""The files of a static site: each leaf's files rendered by the rebuild's own leaf renderer
(safe in a worker process), each host's News files, and each host's index with its empty-site
file, stylesheet and view, written as the rebuild writes them (``rebuild.render``,
``rebuild.news.desk``, ``protocol.index``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sitemap_updater.protocol.index import render_index
from sitemap_updater.protocol.stylesheet import STYLESHEET_NAME, stylesheet_body
from sitemap_updater.protocol.urls import Site
from sitemap_updater.rebuild.inputs.spools import Record, item_of
from sitemap_updater.rebuild.news import NewsDesk
from sitemap_updater.rebuild.render import render_home, render_shard
from sitemap_updater.store.keys import EMPTY_SITE_KEY, INDEX_KEY
from sitemap_updater.store.spaces import Layout, key_prefix_of, shard_file_key
from sitemap_updater.view import view_files
from sitemap_updater_local.outputs.staged_directory import write_new

#: One file a leaf's rendering wrote: (shard id, file name, URLs, newest lastmod).
LeafFile = tuple[str, str, int, str | None]


@dataclass(frozen=True, slots=True)
class LeafFiles:
    """What rendering one leaf wrote, and the ``url: reason`` of each URL left out."""

    files: list[LeafFile]
    skipped: list[str]


@dataclass(frozen=True, slots=True)
class LeafWork:
    """One leaf of a build to render: its spooled items (in hash order), its site, the caps,
    whether its files name the stylesheet, and where they are written."""

    shard_id: str
    records: list[Record]
    site: Site
    max_urls: int
    max_bytes: int
    stylesheet: bool
    out_dir: str


def render_leaf(work: LeafWork) -> LeafFiles:
    """Render one leaf into ``work.out_dir`` (its files, and those a byte split makes of it) by
    the rebuild's leaf renderer; safe to run on a worker process."""
    items = [item_of(record) for record in work.records]
    parts = render_shard(
        work.shard_id,
        items,
        work.site,
        max_urls=work.max_urls,
        max_bytes=work.max_bytes,
        stylesheet=work.stylesheet,
    )
    files: list[LeafFile] = []
    skipped: list[str] = []
    for part in parts:
        skipped += part.skipped
        if part.body is None:
            continue
        name = shard_file_key(part.shard_id)
        write_new(work.out_dir, name, part.body)
        files.append((part.shard_id, name, part.url_count, part.newest_lastmod))
    return LeafFiles(files, skipped)


def write_news(desk: NewsDesk, staging: str) -> list[tuple[str, int]]:
    """Write the News files of ``desk`` (which was given every article of the build) into
    ``staging``, as the rebuild renders them: each host's articles inside the window, at most
    1,000 a file; returns each file's name and article count."""
    written: list[tuple[str, int]] = []
    for news_file in desk.render():
        write_new(staging, news_file.key, news_file.body)
        written.append((news_file.key, news_file.url_count))
    return written


def write_indexes(
    layout: Layout,
    written: list[LeafFile],
    staging: str,
    *,
    stylesheet: bool,
    news: Sequence[tuple[str, int]] = (),
) -> list[str]:
    """Write each host's index into ``staging``, listing the host's files of ``written`` (in
    shard id order), or its empty-site file, written here, when it has none, as the rebuild
    does, then its ``news`` files (listed without a lastmod, as the regular files without
    one), with ``stylesheet`` the host's ``sitemap.xsl``, and the host's view
    (``sitemap.html`` and its script and style); returns every file name of the build, each
    host's index after its files."""
    files: list[str] = []
    for prefix, site in layout.prefixes().items():
        own = [(name, newest) for _, name, _, newest in written if key_prefix_of(name) == prefix]
        if not own:
            home = prefix + EMPTY_SITE_KEY
            body = render_home(site, stylesheet=stylesheet)
            write_new(staging, home, body)
            own = [(home, None)]
        own += [(name, None) for name, _ in news if key_prefix_of(name) == prefix]
        beside = []
        if stylesheet:
            write_new(staging, prefix + STYLESHEET_NAME, stylesheet_body())
            beside = [prefix + STYLESHEET_NAME]
        for name, body in view_files():
            write_new(staging, prefix + name, body)
            beside.append(prefix + name)
        listed = [(layout.url_of(name), newest) for name, newest in own]
        index, _ = render_index(listed, stylesheet=stylesheet)
        write_new(staging, prefix + INDEX_KEY, index)
        files += [name for name, _ in own] + beside + [prefix + INDEX_KEY]
    return files
