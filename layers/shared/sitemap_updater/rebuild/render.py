"""Render a shard's leaves: gzipped urlsets of fragments, splitting the shard when it is full.

The one leaf renderer, for a full rebuild and ``build`` (``render_shard``: the shard's live URL
items), and a patch (``render_leaves``: the fragments of a published file with the changes
applied). Each page's ``<url>`` fragment is the one renderer's (``page.render``). A shard with
more URLs than the cap is split (``store.shards.split_counts``); a part whose bytes still exceed
the byte cap is split again, each by the one split rule (``store.shards.split``). Fragments are
joined in hash order, so the same items always give the same bytes, whichever path (Query, full
Scan, a patch of the published file, ``build``) read them. ``stylesheet`` (the setting
``STYLESHEET``) says whether every file carries the stylesheet's instruction; where a file splits
does not depend on it (``protocol.urlset``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from sitemap_updater.page.model import Page
from sitemap_updater.page.render import url_element
from sitemap_updater.protocol.gzipio import gzip_bytes
from sitemap_updater.protocol.urls import Site
from sitemap_updater.protocol.urlset import (
    URLSET_FRAME_BYTES,
    fragment_loc,
    newest_lastmod,
    urlset_of,
)
from sitemap_updater.store.items import Item, page_of_item, url_hash_of
from sitemap_updater.store.keys import HASH_BITS
from sitemap_updater.store.shards import covers, depth_of, split, split_counts


@dataclass(frozen=True, slots=True)
class RenderedShard:
    """One leaf after rendering; ``body`` is None when it holds no live URL (no file)."""

    shard_id: str
    body: bytes | None
    url_count: int
    uncompressed_bytes: int
    newest_lastmod: str | None
    #: ``url: reason`` of each URL left out (alone over the byte cap, or off the file's site).
    skipped: tuple[str, ...] = ()

    @property
    def sha256(self) -> str | None:
        return None if self.body is None else hashlib.sha256(self.body).hexdigest()


#: A URL hash and its fragment, or the ``url: reason`` of a URL left out.
Rendered = tuple[str, bytes | str]


def fragment(page: Page, site: Site, max_bytes: int) -> bytes | str:
    """The ``<url>`` fragment of a judged page in a file of ``site`` of at most ``max_bytes``,
    or why the file cannot list it (``url: reason``): a page alone over the byte cap, or one on
    another site (stored before ``SITE_URL`` changed)."""
    if not site.owns(page.url):
        return f"{page.url}: is not on {site.origin}, the site of its file"
    text = url_element(page).encode("utf-8")
    return text if fits_alone(text, max_bytes) else _too_large(page.url, max_bytes)


def fits_alone(text: bytes, max_bytes: int) -> bool:
    """Whether a file of at most ``max_bytes`` can hold the fragment ``text`` (the byte cap is
    the one limit a fragment alone can break)."""
    return len(text) <= max_bytes - URLSET_FRAME_BYTES


def _too_large(url: str, max_bytes: int) -> str:
    return f"{url}: alone needs more than {max_bytes} uncompressed bytes"


def _render_fitting(
    shard_id: str, pairs: Sequence[Rendered], max_bytes: int, stylesheet: bool
) -> list[RenderedShard]:
    """One leaf of ``pairs`` (in hash order), split while over the byte cap."""
    fragments = [text for _, text in pairs if isinstance(text, bytes)]
    skipped = tuple(reason for _, reason in pairs if isinstance(reason, str))
    if not fragments:
        return [RenderedShard(shard_id, None, 0, 0, None, skipped=skipped)]
    size = URLSET_FRAME_BYTES + sum(map(len, fragments))
    if size > max_bytes and len(fragments) > 1 and depth_of(shard_id) < HASH_BITS:
        rendered: list[RenderedShard] = []
        for child, half in split(shard_id, pairs, lambda pair: pair[0]):
            rendered += _render_fitting(child, half, max_bytes, stylesheet)
        return rendered
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
    ``url: reason`` of a refused URL), which must be in hash order: split by the URL cap (over
    every URL hash given), then by the byte cap. A fragment read back from a file published
    under a larger byte cap that no file may hold now is left out as :func:`fragment` leaves out
    a page."""
    pairs = [
        pair
        if isinstance(pair[1], str) or fits_alone(pair[1], max_bytes)
        else (pair[0], _too_large(fragment_loc(pair[1]), max_bytes))
        for pair in pairs
    ]
    leaves = split_counts([uh for uh, _ in pairs], shard_id, max_urls)
    if leaves == [shard_id]:
        return _render_fitting(shard_id, pairs, max_bytes, stylesheet)
    rendered: list[RenderedShard] = []
    for leaf in leaves:
        group = [pair for pair in pairs if covers(leaf, pair[0])]
        rendered.extend(_render_fitting(leaf, group, max_bytes, stylesheet))
    return rendered


def render_shard(
    shard_id: str,
    items: Sequence[Item],
    site: Site,
    *,
    max_urls: int,
    max_bytes: int,
    stylesheet: bool,
) -> list[RenderedShard]:
    """The leaves (one, or several after a split) that hold ``items``, the shard's live URL items
    in hash order, rendered. A URL its file cannot list is left out with its reason, rather than
    hold back every other URL of the shard."""
    pairs = [(url_hash_of(item), fragment(page_of_item(item), site, max_bytes)) for item in items]
    return render_leaves(
        shard_id, pairs, max_urls=max_urls, max_bytes=max_bytes, stylesheet=stylesheet
    )


def render_home(site: Site, *, stylesheet: bool) -> bytes:
    """The file an empty site publishes: a urlset holding only the site's root URL."""
    return gzip_bytes(urlset_of([url_element(Page(site.root_url)).encode()], stylesheet=stylesheet))
