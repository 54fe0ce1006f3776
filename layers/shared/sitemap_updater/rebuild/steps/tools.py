"""What the steps of a run use besides its state: the settings, the site, the table's URL items,
the node states, the bucket and the time budget."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sitemap_updater.config import RebuildConfig
from sitemap_updater.protocol import Site
from sitemap_updater.rebuild.inputs.source import ShardSource
from sitemap_updater.rebuild.outputs.bucket import Publisher
from sitemap_updater.rebuild.render import RenderedShard, render_shard
from sitemap_updater.rebuild.state.nodes import StateStore
from sitemap_updater.store.items import Item


@dataclass(frozen=True, slots=True)
class Tools:
    config: RebuildConfig
    site: Site
    source: ShardSource
    store: StateStore
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
            self.site,
            max_urls=self.config.max_urls_per_sitemap,
            max_bytes=self.config.max_bytes_per_sitemap,
            stylesheet=self.config.stylesheet,
        )
