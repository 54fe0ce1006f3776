"""What the steps of a run use besides its state: the settings, the layout (sites and sections),
the table's URL items, the bucket and the time budget."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from sitemap_updater.config import RebuildConfig
from sitemap_updater.rebuild.inputs.source import Removed, ShardSource
from sitemap_updater.rebuild.outputs.bucket import Publisher
from sitemap_updater.rebuild.render import RenderedShard, render_shard
from sitemap_updater.store.items import Item, url_of
from sitemap_updater.store.shards import space_of_shard
from sitemap_updater.store.spaces import Layout, Placement, split_space


@dataclass(frozen=True, slots=True)
class Tools:
    config: RebuildConfig
    layout: Layout
    source: ShardSource
    publisher: Publisher
    #: True once the run must stop starting work (the time budget's margin is reached)
    out_of_time: Callable[[], bool]
    #: where a full rebuild spools the Scan (None: the system's temporary directory)
    spool_root: str | None = None

    def render(self, shard_id: str, items: Sequence[Item]) -> list[RenderedShard]:
        """The files of one leaf rendered from its items, within the configured caps."""
        return render_shard(
            shard_id,
            items,
            self.layout.site_of_shard(shard_id),
            max_urls=self.config.max_urls_per_sitemap,
            max_bytes=self.config.max_bytes_per_sitemap,
            stylesheet=self.config.stylesheet,
        )

    def shard_items(
        self,
        placement: Placement,
        shard_id: str,
        *,
        removed: Removed | None = None,
        others: Callable[[Item], None] | None = None,
    ) -> Iterator[Item]:
        """The live URL items of one leaf, read from the table (with ``removed``, its
        tombstones are handed to it). The Query of the leaf's hash range reads every space's
        items there: ``others`` takes the live items of the other spaces. A leaf of a layout
        before sections is the whole of its hash range."""
        space = space_of_shard(shard_id)
        prefix = split_space(space)[0]

        def mine(item: Item) -> bool:
            if not space:
                return True
            if self.layout.prefix_of(url_of(item)) != prefix:
                return False  # another host's: its sections are not the run's to place
            return placement.space_of(item) == space

        def own_removed(item: Item) -> None:
            if removed is not None and mine(item):
                removed(item)

        for item in self.source.iter_shard(shard_id, removed=own_removed if removed else None):
            if mine(item):
                yield item
            elif others is not None:
                others(item)
