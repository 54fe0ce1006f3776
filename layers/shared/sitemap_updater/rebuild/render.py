"""Render a shard's live URL items into one gzipped urlset, splitting the shard when it is full.

A shard with more URLs than the cap is split with ``store.shards.split_counts``; a part whose
bytes still exceed the byte cap is split again by its next hash bit. Items come in hash order,
so the same items always give the same bytes, whichever path (Query or full Scan) read them.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Sequence
from dataclasses import dataclass

from sitemap_updater.protocol import (
    Entry,
    EntryTooLargeError,
    Site,
    SitemapError,
    SitemapFullError,
    UrlsetWriter,
)
from sitemap_updater.store.items import Item, entry_from_item
from sitemap_updater.store.keys import HASH_BITS, hash_bits
from sitemap_updater.store.shards import children, split_counts


@dataclass(frozen=True, slots=True)
class RenderedShard:
    """One leaf after rendering; ``body`` is None when it holds no live URL (no file)."""

    shard_id: str
    body: bytes | None
    url_count: int
    uncompressed_bytes: int
    newest_lastmod: str | None
    #: ``loc: reason`` of each URL left out (alone over the byte cap, or refused by the writer).
    skipped: tuple[str, ...] = ()

    @property
    def sha256(self) -> str | None:
        return None if self.body is None else hashlib.sha256(self.body).hexdigest()


def _hash(item: Item) -> str:
    return str(item["sk"]["S"])


def _partition(items: Sequence[Item], leaves: Sequence[str]) -> list[list[Item]]:
    """Items (in hash order) cut into the contiguous runs that belong to ``leaves`` (in order)."""
    groups: list[list[Item]] = [[] for _ in leaves]
    index = 0
    for item in items:
        uh = _hash(item)
        while hash_bits(uh, len(leaves[index]) - 1) != leaves[index][1:]:
            index += 1
        groups[index].append(item)
    return groups


def _render_fitting(
    shard_id: str, items: Sequence[Item], site: Site, max_urls: int, max_bytes: int
) -> list[RenderedShard]:
    sink = io.BytesIO()
    writer = UrlsetWriter(sink, site, max_urls=max_urls, max_bytes=max_bytes)
    skipped: list[str] = []
    for item in items:
        entry = entry_from_item(item)
        try:
            writer.add(entry)
        except EntryTooLargeError as error:
            skipped.append(f"{entry.loc}: {error}")
        except SitemapFullError:
            if len(shard_id) - 1 >= HASH_BITS:
                raise
            left, right = children(shard_id)
            halves = _partition(items, [left, right])
            parts = _render_fitting(left, halves[0], site, max_urls, max_bytes)
            parts += _render_fitting(right, halves[1], site, max_urls, max_bytes)
            return parts
        except SitemapError as error:
            # Stored data the writer refuses (e.g. a loc off a changed SITE_URL): leave the
            # URL out and say why, rather than hold back every other URL of the shard.
            skipped.append(f"{entry.loc}: {error}")
    if writer.url_count == 0:
        return [RenderedShard(shard_id, None, 0, 0, None, skipped=tuple(skipped))]
    stats = writer.close()
    return [
        RenderedShard(
            shard_id,
            sink.getvalue(),
            stats.url_count,
            stats.uncompressed_bytes,
            stats.newest_lastmod,
            skipped=tuple(skipped),
        )
    ]


def render_shard(
    shard_id: str, items: Sequence[Item], site: Site, *, max_urls: int, max_bytes: int
) -> list[RenderedShard]:
    """The leaves (one, or several after a split) that hold ``items``, rendered.

    ``items`` are the shard's live URL items in hash order. Returns ``[shard_id]``'s rendering
    when everything fits, else the rendering of each new leaf, in hash order.
    """
    leaves = split_counts([_hash(i) for i in items], shard_id, max_urls)
    rendered: list[RenderedShard] = []
    for leaf, group in zip(leaves, _partition(items, leaves), strict=True):
        rendered.extend(_render_fitting(leaf, group, site, max_urls, max_bytes))
    return rendered


def render_home(site: Site, *, max_urls: int, max_bytes: int) -> bytes:
    """The file an empty site publishes: a urlset holding only the site root URL."""
    sink = io.BytesIO()
    writer = UrlsetWriter(sink, site, max_urls=max_urls, max_bytes=max_bytes)
    writer.add(
        Entry(
            loc=site.root_url,
            lastmod=None,
            changefreq=None,
            priority=None,
            alternates=(),
            images=(),
        )
    )
    writer.close()
    return sink.getvalue()
