"""The files of a static site: each leaf's files rendered from a resolved spool (safe in a
worker process), each host's News files, and each host's index with its empty-site file,
stylesheet and view, written as the rebuild writes them (``rebuild.render``,
``rebuild.news.desk``, ``protocol.render_index``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sitemap_updater.protocol import render_index
from sitemap_updater.protocol.stylesheet import STYLESHEET_NAME, stylesheet_body
from sitemap_updater.rebuild.news.desk import NewsDesk
from sitemap_updater.rebuild.render import render_home, render_leaves
from sitemap_updater.store.items import Item
from sitemap_updater.store.keys import EMPTY_SITE_KEY, INDEX_KEY
from sitemap_updater.store.shards import space_of_shard
from sitemap_updater.store.spaces import Layout, key_prefix_of, shard_file_key
from sitemap_updater.view import view_files
from sitemap_updater_local.outputs.staged_directory import (
    write_new,
)
from sitemap_updater_local.pipeline.final_state import FinalState, Span

#: One file a leaf's rendering wrote: (shard id, file name, URLs, newest lastmod).
LeafFile = tuple[str, str, int, str | None]


@dataclass(frozen=True, slots=True)
class LeafFiles:
    """What rendering one leaf wrote, the ``loc: reason`` of each URL left out, and the item of
    each News article among its URLs (for the News files, :func:`write_news`)."""

    files: list[LeafFile]
    skipped: list[str]
    articles: list[Item]


def render_leaf(
    directory: str,
    stylesheet: bool,
    leaf: str,
    spans: dict[int, Span],
    max_urls: int,
    max_bytes: int,
    out_dir: str,
) -> LeafFiles:
    """Render one leaf of a resolved spool into ``out_dir`` (the files of it and of the leaves
    a byte split makes of it), given the spans of the leaf's space, naming the stylesheet if
    ``stylesheet``; safe to run in a worker process."""
    pairs = list(FinalState(directory, {space_of_shard(leaf): spans}).pairs(leaf))
    articles: list[Item] = []
    if any(type(payload) is tuple for _, payload in pairs):
        articles = [payload[1] for _, payload in pairs if type(payload) is tuple]
        pairs = [(uh, p[0] if type(p) is tuple else p) for uh, p in pairs]
    # in hash order already (the spool's live frames are sorted): no dictionary, no sort
    live = [pair for pair in pairs if type(pair[1]) is bytes]
    skipped = [] if len(live) == len(pairs) else [p for _, p in pairs if type(p) is str]
    files: list[LeafFile] = []
    parts = render_leaves(leaf, live, max_urls=max_urls, max_bytes=max_bytes, stylesheet=stylesheet)
    for part in parts:
        if part.body is None:
            continue
        name = shard_file_key(part.shard_id)
        write_new(out_dir, name, part.body)
        files.append((part.shard_id, name, part.url_count, part.newest_lastmod))
    return LeafFiles(files, skipped, articles)


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
    max_urls: int,
    max_bytes: int,
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
            body = render_home(site, max_urls=max_urls, max_bytes=max_bytes, stylesheet=stylesheet)
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
