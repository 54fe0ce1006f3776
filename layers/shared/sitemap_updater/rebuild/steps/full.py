"""A full rebuild's leaves: spool a parallel Scan of the table per leaf, then render and put every
leaf, counting the pages that differed from the published files (drift). The Scan's
tombstones count as the run's changes where they are new enough (``freshness``). A space the
trees have no leaf for yet (a new host or section, or every space after a layout change)
starts at its root; the news files take every article the Scan read.

Each part of a leaf is rendered and put before the next is loaded, so a leaf that splits into
many files holds one file's items and bytes at a time, not all of them.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from sitemap_updater.protocol.urlset import PublishedFormatError
from sitemap_updater.rebuild.inputs.spools import ScanStoppedError, Spools
from sitemap_updater.rebuild.patch import changed_between, parse_published
from sitemap_updater.rebuild.render import RenderedShard
from sitemap_updater.rebuild.steps.run import Run
from sitemap_updater.rebuild.steps.tools import Tools
from sitemap_updater.store.items import Item, has_news, url_hash_of, written_at_of
from sitemap_updater.store.shards import LeafIndex
from sitemap_updater.store.spaces import shard_file_key


def rebuild_all(tools: Tools, run: Run) -> None:
    """Render every leaf of the trees from the table, while time remains."""

    def space_of(item: Item) -> str:
        space = run.placement.space_of(item, take=True)
        assert space is not None  # a section is taken when asked to
        return space

    with tempfile.TemporaryDirectory(prefix="sitemap-spool-", dir=tools.spool_root) as tmp:
        spools = Spools(Path(tmp), run.leaves, space_of)
        earliest = min((run.full_since_ms(leaf) for leaf in run.leaves), default=0)
        removed_index = LeafIndex(run.leaves)
        articles: list[Item] = []

        def count_removed(item: Item) -> None:
            written = written_at_of(item)
            if written is not None and written >= earliest:  # else too old for any leaf
                leaf = removed_index.leaf_for(space_of(item), url_hash_of(item))
                run.lags.add([item], since_ms=run.full_since_ms(leaf))

        def keep_articles(items: Iterable[Item]) -> Iterator[Item]:
            for item in items:
                if has_news(item):
                    articles.append(item)
                yield item

        try:
            scan = tools.source.scan_all(tools.config.full_rebuild_segments, removed=count_removed)
            spools.fill(keep_articles(scan), tools.out_of_time)
        except ScanStoppedError:
            spools.close()
            run.scan_stopped = True
            # a move with no leaf of the new layout yet starts again with the next run
            for leaf in sorted(run.leaves):
                run.defer([leaf], since_ms=run.full_since_ms(leaf))
            return
        run.add_roots(spools.index.new_roots)
        run.news.replace_all(articles)
        articles.clear()
        leaves = sorted(run.leaves)
        for leaf in leaves:
            if tools.out_of_time():
                run.defer([leaf], since_ms=run.full_since_ms(leaf))
            else:
                _rebuild_leaf(tools, run, spools, leaf)


def _rebuild_leaf(tools: Tools, run: Run, spools: Spools, leaf: str) -> None:
    # repairs of a site published before are changes to announce; the first publish is not,
    # nor a move to another layout, which changes no page (only the files that hold them)
    want_locs = run.publication.files > 0 and not run.moving
    ids: list[str] = []
    config = tools.config
    for part, items in spools.load(leaf, config.max_urls_per_sitemap, config.max_bytes_per_sitemap):
        run.lags.add(items, since_ms=run.full_since_ms(leaf))
        rendered = tools.render(part, items)
        del items
        for shard in rendered if not run.moving else ():
            run.note_drift(*_drift_of(run, shard, want_locs=want_locs))
        run.put_leaves(rendered, force=True)
        ids.extend(r.shard_id for r in rendered)
        del rendered
    run.record_split(leaf, ids)


def _drift_of(run: Run, shard: RenderedShard, *, want_locs: bool) -> tuple[int, list[str]]:
    """:func:`drift` of the published file of ``shard``; a file that cannot be read back counts
    all of the shard's URLs and is reported as repaired."""
    key = shard_file_key(shard.shard_id)
    try:
        return drift(run.objects.get(key), shard, want_locs=want_locs)
    except PublishedFormatError as error:
        run.note_repaired(key, str(error))
        return drift(None, shard, want_locs=want_locs)


def drift(old: bytes | None, shard: RenderedShard, *, want_locs: bool) -> tuple[int, list[str]]:
    """How many URLs' fragments in ``old``, the published file of ``shard``, differ from its new
    rendering, and (with ``want_locs``) their locs. A file never published counts all of its
    URLs; equal bytes count none; only differing files are parsed. Raises
    :class:`PublishedFormatError` for a file that cannot be taken apart."""
    if old == shard.body:
        return 0, []
    if old is None and not want_locs:
        return shard.url_count, []
    before = parse_published(old) if old is not None else {}
    del old
    after = parse_published(shard.body) if shard.body is not None else {}
    locs = changed_between(before, after)
    return len(locs), locs if want_locs else []
