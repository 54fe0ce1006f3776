"""A generated ``ShardSource``: any number of live URL items, made on the fly, never all held.

``SyntheticSource(urls=1_000_000)`` stands in for the DynamoDB reads of a rebuild
(``rebuild.inputs.source.ShardSource``): ``scan_all`` yields every item once, in index
order (a Scan's order is arbitrary too), and ``iter_shard`` yields the items of one shard in hash
order, as the Query on the table does. Item ``i`` is always the same item, in the exact
attribute-value form the table stores (``store.items.live_item``), so everything downstream of
the read is the production code path. A tenth of the pages carry language alternates and a
fifth carry images, so files are not made of trivially short entries.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from sitemap_updater.page.model import Alternate, Image, Page
from sitemap_updater.rebuild.inputs.source import Removed
from sitemap_updater.store.items import Item, live_item, url_hash_of
from sitemap_updater.store.keys import hash_bits, url_hash
from sitemap_updater.store.shards import bits_of

_SECTIONS = ("products", "blog", "category", "help", "stores", "guides")
_FREQS = ("daily", "weekly", "monthly")


class SyntheticSource:
    """``urls`` generated live URL items on ``site``; ``items_read`` counts the items yielded."""

    def __init__(self, urls: int, site: str = "https://www.example.com") -> None:
        if urls < 0:
            raise ValueError(f"urls={urls} must be >= 0")
        self.urls = urls
        self.site = site.rstrip("/")
        self.items_read = 0

    def page(self, i: int) -> Page:
        section = _SECTIONS[i % len(_SECTIONS)]
        loc = f"{self.site}/{section}/{i:08d}-item-{(i * 7919) % 100_003}"
        alternates: tuple[Alternate, ...] = ()
        if i % 10 == 0:
            alternates = tuple(
                Alternate(hreflang=lang, href=f"{self.site}/{lang}/{section}/{i:08d}")
                for lang in ("de", "fr")
            )
        images: tuple[Image, ...] = ()
        if i % 5 == 0:
            images = (Image(loc=f"{self.site}/media/{i:08d}.jpg"),)
        return Page(
            url=loc,
            lastmod=f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}",
            changefreq=_FREQS[i % len(_FREQS)],
            priority=(i % 11) / 10,
            alternates=alternates,
            images=images,
        )

    def item(self, i: int) -> Item:
        page = self.page(i)
        digest = url_hash(page.url)
        return live_item(page, f"20260101T000000.000000Z#0#{digest}", digest)

    def scan_all(self, segments: int, *, removed: Removed | None = None) -> Iterator[Item]:
        """Every item once, in index order (there are no tombstones for ``removed``)."""
        if segments < 1:
            raise ValueError(f"segments={segments} must be >= 1")
        for i in range(self.urls):
            self.items_read += 1
            yield self.item(i)

    def iter_shard(self, shard_id: str, *, removed: Removed | None = None) -> Iterator[Item]:
        """The shard's items in hash order (generates every item: for small sources; there are
        no tombstones to add to ``removed``)."""
        bits = bits_of(shard_id)
        found = []
        for i in range(self.urls):
            self.items_read += 1
            item = self.item(i)
            if hash_bits(url_hash_of(item), len(bits)) == bits:
                found.append(item)
        found.sort(key=url_hash_of)
        yield from found

    def items_by_hash(self, hashes: Iterable[str]) -> Iterator[Item]:
        """The items of the given URL hashes (generates every item: for small sources)."""
        wanted = set(hashes)
        for i in range(self.urls):
            item = self.item(i)
            if url_hash_of(item) in wanted:
                self.items_read += 1
                yield item
