"""An incremental run's leaves: patch the published file of every leaf with a change, and
rebuild from the table the leaves a full rebuild left held back.

A change goes to the leaf of its item's space (host and section); a page whose old image was in
another space is removed from that space's leaf in the same run, so it is never in both files.
The leaves a page leaves are patched before the others, so that a run out of time defers the
leaf a page joins, never the one it leaves: the page is then in neither file until the next run,
never in both.

The run reads the branches of the indexes its changes fall in (``Run.read_points``), no others.
The unchanged pages of a changed file come from the published file itself (``patch``); a file
that cannot be read back is rebuilt from the table instead.
"""

from __future__ import annotations

from sitemap_updater.observability import logger
from sitemap_updater.protocol.urlset import PublishedFormatError
from sitemap_updater.rebuild.freshness import oldest_written
from sitemap_updater.rebuild.inputs.feed import FeedRead
from sitemap_updater.rebuild.patch import Recorded, fragments_differing, patch_shard
from sitemap_updater.rebuild.steps.objects import sha256_hex
from sitemap_updater.rebuild.steps.run import Run
from sitemap_updater.rebuild.steps.tools import Tools
from sitemap_updater.store.items import Item, url_hash_of, url_of
from sitemap_updater.store.shards import LeafIndex
from sitemap_updater.store.spaces import point_of, shard_file_key

#: URL hash -> new image of the URL item (None: removed)
Changes = dict[str, Item | None]


def rebuild_changed(tools: Tools, run: Run, feed: FeedRead, *, force: bool) -> None:
    """Patch every leaf with a change, and rebuild the held leaves from the table, while time
    remains; a leaf left over is deferred, its changes behind the checkpoint the run saves."""
    groups = _by_leaf(run, feed)
    pending = [leaf for leaf in run.held_read if leaf in run.leaves]
    wanted = sorted(
        set(groups) | set(pending), key=lambda leaf: (not _left(groups, feed, leaf), leaf)
    )
    # first, so that a leaf read from the table below replaces its articles with the newest
    run.news.apply(feed.changes)
    for leaf in wanted:
        changes = groups.get(leaf, {})
        mark = run.held_read.get(leaf) if leaf in pending else None
        if tools.out_of_time():
            marks = [t for t in (mark, oldest_written(changes.values())) if t is not None]
            run.defer([leaf], since_ms=min(marks) if marks else None)
            continue
        if leaf in pending:
            removed: list[Item] = []
            others: list[Item] = []
            items = list(
                tools.shard_items(run.placement, leaf, removed=removed.append, others=others.append)
            )
            run.news.replace_shard(leaf, [*items, *others])
            run.apply(leaf, tools.render(leaf, items), force=force)
            if mark is not None:  # the feed's changes of the leaf are counted below
                held = (i for i in (*items, *removed) if url_hash_of(i) not in changes)
                run.lags.add(held, since_ms=mark)
        else:
            patch_leaf(tools, run, leaf, changes, force=force)
        run.lags.add(changes.values())


def _left(groups: dict[str, Changes], feed: FeedRead, leaf: str) -> bool:
    """Whether a page leaves ``leaf`` for another space (a removal of a live page)."""
    return any(
        item is None and feed.changes.get(uh) is not None
        for uh, item in groups.get(leaf, {}).items()
    )


def _by_leaf(run: Run, feed: FeedRead) -> dict[str, Changes]:
    """The feed's changes by leaf: each to the leaf of its new image's space, and a removal to
    the leaf of its old image's space where that is another one (a move, or an expired
    tombstone). The branches of the indexes they fall in are read first; leaves of spaces new
    to the trees are added as roots."""
    layout = run.placement.layout
    run.trees.read_hosts(
        layout.prefix_of(url_of(image))
        for uh, item in feed.changes.items()
        for image in (feed.before.get(uh), item)
        if image is not None
    )
    placed: list[tuple[str, str | None, set[str]]] = []
    for uh, item in feed.changes.items():
        old = feed.before.get(uh)
        spaces: set[str] = set()
        if old is not None:
            spaces.add(_space(run, old))
        target = _space(run, item) if item is not None else None
        if target is not None:
            spaces.add(target)
        placed.append((uh, target, spaces))
    run.read_points(point_of(space, uh) for uh, _, spaces in placed for space in spaces)
    index = LeafIndex(run.leaves)
    groups: dict[str, Changes] = {}
    for uh, target, spaces in placed:
        item = feed.changes[uh]
        for space in spaces:
            leaf = index.leaf_for(space, uh)
            groups.setdefault(leaf, {})[uh] = item if space == target else None
    run.add_roots(index.new_roots)
    return groups


def _space(run: Run, item: Item) -> str:
    space = run.placement.space_of(item, take=True)
    assert space is not None  # a section is taken when asked to
    return space


def patch_leaf(tools: Tools, run: Run, leaf: str, changes: Changes, *, force: bool) -> None:
    """Apply ``changes`` to the published file of ``leaf``; a file that cannot be read back, or
    is not the bytes its state records, is rebuilt from the table instead."""
    state = run.states.get(leaf)
    key = shard_file_key(leaf)
    recorded = state.file_sha256 if state is not None else None
    body: bytes | None = None
    try:
        if recorded is not None:
            body = run.read_object(key)
            if body is None:
                raise PublishedFormatError(f"{key} is missing from the bucket")
            if sha256_hex(body) != recorded:
                raise PublishedFormatError(f"{key} is not the file the last publish recorded")
        patched = patch_shard(
            leaf,
            body,
            changes,
            tools.layout.site_of_shard(leaf),
            max_urls=tools.config.max_urls_per_sitemap,
            max_bytes=tools.config.max_bytes_per_sitemap,
            stylesheet=tools.config.stylesheet,
            recorded=Recorded(state.url_count, state.file_lastmod) if state and body else None,
        )
    except PublishedFormatError as error:
        _rebuild_from_table(tools, run, leaf, body, str(error), crashed=force)
        run.note_changed(url_of(item) for item in changes.values() if item)
        return
    run.apply(leaf, patched.rendered, force=force)
    run.note_changed(patched.changed_locs)
    run.note_skipped(patched.skipped)


def _rebuild_from_table(
    tools: Tools, run: Run, leaf: str, body: bytes | None, reason: str, *, crashed: bool
) -> None:
    """Render ``leaf`` from the table, counting the pages its published ``body`` got wrong.
    After a crash (``crashed``) the bucket may hold the dead run's bytes, which no record
    describes: they are replaced all the same, but are not reported as repaired."""
    if crashed:
        logger.info("published file rebuilt from the table", shard=leaf, reason=reason)
    else:
        run.note_repaired(shard_file_key(leaf), reason)
    rendered = tools.render(leaf, list(tools.shard_items(run.placement, leaf)))
    if body is not None:
        run.note_drift(len(fragments_differing(body, rendered)), ())
    run.apply(leaf, rendered, force=True)
