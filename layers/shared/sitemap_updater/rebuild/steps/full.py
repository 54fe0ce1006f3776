"""A full rebuild's leaves: spool a parallel Scan of the table per leaf, then render and put every
leaf, counting the entries that differed from the published files (drift). The Scan's
tombstones count as the run's changes where they are new enough (``freshness``).

Each part of a leaf is rendered and put before the next is loaded, so a leaf that splits into
many files holds one file's items and bytes at a time, not all of them.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from sitemap_updater.protocol.render.fragments import PublishedFormatError
from sitemap_updater.rebuild.inputs.spools import ScanStoppedError, Spools
from sitemap_updater.rebuild.patch import changed_between, parse_published
from sitemap_updater.rebuild.render import RenderedShard
from sitemap_updater.rebuild.steps.run import Run
from sitemap_updater.rebuild.steps.tools import Tools
from sitemap_updater.store.items import Item, url_hash_of, written_at_of
from sitemap_updater.store.keys import shard_file_key
from sitemap_updater.store.shards import leaf_for


def rebuild_all(tools: Tools, run: Run) -> None:
    """Render every leaf of the shard map from the table, while time remains."""
    leaves = sorted(run.shard_map.leaves)
    with tempfile.TemporaryDirectory(prefix="sitemap-spool-", dir=tools.spool_root) as tmp:
        spools = Spools(Path(tmp), leaves)
        earliest = min(run.full_since_ms(leaf) for leaf in leaves)

        def count_removed(item: Item) -> None:
            written = written_at_of(item)
            if written is not None and written >= earliest:  # else too old for any leaf
                leaf = leaf_for(url_hash_of(item), leaves)
                run.lags.add([item], since_ms=run.full_since_ms(leaf))

        try:
            scan = tools.source.scan_all(tools.config.full_rebuild_segments, removed=count_removed)
            spools.fill(scan, tools.out_of_time)
        except ScanStoppedError:
            spools.close()
            for leaf in leaves:
                run.defer([leaf], since_ms=run.full_since_ms(leaf))
            return
        for leaf in leaves:
            if tools.out_of_time():
                run.defer([leaf], since_ms=run.full_since_ms(leaf))
            else:
                _rebuild_leaf(tools, run, spools, leaf)


def _rebuild_leaf(tools: Tools, run: Run, spools: Spools, leaf: str) -> None:
    # repairs of a site published before are changes to announce; the first publish is not
    want_locs = bool(run.published.files)
    ids: list[str] = []
    config = tools.config
    for part, items in spools.load(leaf, config.max_urls_per_sitemap, config.max_bytes_per_sitemap):
        run.news.replace_shard(part, items)
        run.lags.add(items, since_ms=run.full_since_ms(leaf))
        rendered = tools.render(part, items)
        del items
        for shard in rendered:
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
    """How many URLs' entries in ``old``, the published file of ``shard``, differ from its new
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
