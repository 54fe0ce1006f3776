"""Render a shard's leaves: gzipped urlsets of fragments, splitting the shard when it is full.

The one leaf renderer, for a full rebuild (``render_shard``: the shard's live URL items), a
patch (``render_fragments``: the fragments of a published file with the changes applied) and
``build``. Each URL's ``<url>`` fragment comes from the protocol core's fragment API, with all
of the writer's checks. A shard with more URLs than the cap is split with
``store.shards.split_counts``; a part whose bytes still exceed the byte cap is split again by
its next hash bit. Fragments are joined in hash order, so the same items always give the same
bytes, whichever path (Query, full Scan, or a patch of the published file) read them.
``stylesheet`` (the setting ``STYLESHEET``) says whether every file carries the stylesheet's
instruction; where a file splits does not depend on it (``protocol.render.fragments``).
"""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from sitemap_updater.protocol.entry import Entry
from sitemap_updater.protocol.gzipio import gzip_bytes
from sitemap_updater.protocol.render.fragments import URLSET_FRAME_BYTES, entry_fragments, urlset_of
from sitemap_updater.protocol.urls import Site
from sitemap_updater.protocol.urlset import UrlsetWriter
from sitemap_updater.store.items import Item, entry_from_item, url_hash_of
from sitemap_updater.store.keys import HASH_BITS, hash_bits
from sitemap_updater.store.shards import bits_of, children, depth_of, split_counts

_LASTMOD: Final = re.compile(rb"<lastmod>([^<]*)</lastmod>")


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


#: A URL hash and its fragment, or the ``loc: reason`` of a URL left out.
Rendered = tuple[str, bytes | str]


def newest_lastmod(text: bytes) -> str | None:
    """The newest ``<lastmod>`` in a urlset's (or a fragment's) text, None if it has none."""
    found = _LASTMOD.findall(text)
    return max(found).decode("ascii") if found else None


def _render_fitting(
    shard_id: str, pairs: Sequence[Rendered], max_bytes: int, stylesheet: bool
) -> list[RenderedShard]:
    """One leaf of ``pairs`` (in hash order), split by the next hash bit while over the byte cap."""
    fragments = [fragment for _, fragment in pairs if isinstance(fragment, bytes)]
    skipped = tuple(reason for _, reason in pairs if isinstance(reason, str))
    if not fragments:
        return [RenderedShard(shard_id, None, 0, 0, None, skipped=skipped)]
    size = URLSET_FRAME_BYTES + sum(map(len, fragments))
    if size > max_bytes and len(fragments) > 1 and depth_of(shard_id) < HASH_BITS:
        left, right = children(shard_id)
        depth = depth_of(left)
        zero = [p for p in pairs if hash_bits(p[0], depth)[-1] == "0"]
        one = [p for p in pairs if hash_bits(p[0], depth)[-1] == "1"]
        return _render_fitting(left, zero, max_bytes, stylesheet) + _render_fitting(
            right, one, max_bytes, stylesheet
        )
    return [render_joined(shard_id, fragments, skipped, stylesheet=stylesheet)]


def render_joined(
    shard_id: str, fragments: Sequence[bytes], skipped: tuple[str, ...] = (), *, stylesheet: bool
) -> RenderedShard:
    """One leaf holding ``fragments`` (not empty, in hash order, within both caps), rendered."""
    text = urlset_of(fragments, stylesheet=stylesheet)
    return render_text(shard_id, text, len(fragments), newest_lastmod(text), skipped)


def render_text(
    shard_id: str, text: bytes, url_count: int, newest: str | None, skipped: tuple[str, ...] = ()
) -> RenderedShard:
    """One leaf whose urlset is ``text`` (``url_count`` fragments, the newest lastmod
    ``newest``), compressed."""
    return RenderedShard(shard_id, gzip_bytes(text), url_count, len(text), newest, skipped=skipped)


def render_leaves(
    shard_id: str, pairs: Sequence[Rendered], *, max_urls: int, max_bytes: int, stylesheet: bool
) -> list[RenderedShard]:
    """The leaves (one, or several after a split) that hold ``pairs`` (URL hash, fragment or the
    ``loc: reason`` of a refused URL), which must be in hash order: split by the URL cap with
    ``split_counts`` (over every URL hash given), then by the byte cap, by the next hash bit."""
    leaves = split_counts([uh for uh, _ in pairs], shard_id, max_urls)
    if leaves == [shard_id]:
        return _render_fitting(shard_id, pairs, max_bytes, stylesheet)
    rendered: list[RenderedShard] = []
    for leaf in leaves:
        bits = bits_of(leaf)
        group = [p for p in pairs if hash_bits(p[0], len(bits)) == bits]
        rendered.extend(_render_fitting(leaf, group, max_bytes, stylesheet))
    return rendered


def render_fragments(
    shard_id: str,
    fragments: Mapping[str, bytes],
    *,
    max_urls: int,
    max_bytes: int,
    stylesheet: bool,
) -> list[RenderedShard]:
    """The leaves that hold ``fragments`` (by URL hash), rendered in hash order."""
    return render_leaves(
        shard_id,
        sorted(fragments.items()),
        max_urls=max_urls,
        max_bytes=max_bytes,
        stylesheet=stylesheet,
    )


def render_shard(
    shard_id: str,
    items: Sequence[Item],
    site: Site,
    *,
    max_urls: int,
    max_bytes: int,
    stylesheet: bool,
) -> list[RenderedShard]:
    """The leaves (one, or several after a split) that hold ``items``, rendered.

    ``items`` are the shard's live URL items in hash order. Returns ``[shard_id]``'s rendering
    when everything fits, else the rendering of each new leaf, in hash order. A URL the writer
    refuses (alone over the byte cap, or stored data that breaks a rule, e.g. a loc off a
    changed SITE_URL) is left out and its ``loc: reason`` kept, rather than hold back every
    other URL of the shard.
    """
    fragments = entry_fragments(map(entry_from_item, items), site, max_bytes=max_bytes)
    pairs = [(url_hash_of(item), fragment) for item, fragment in zip(items, fragments, strict=True)]
    return render_leaves(
        shard_id, pairs, max_urls=max_urls, max_bytes=max_bytes, stylesheet=stylesheet
    )


def render_home(site: Site, *, max_urls: int, max_bytes: int, stylesheet: bool) -> bytes:
    """The file an empty site publishes: a urlset holding only the site root URL."""
    sink = io.BytesIO()
    writer = UrlsetWriter(sink, site, max_urls=max_urls, max_bytes=max_bytes, stylesheet=stylesheet)
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
