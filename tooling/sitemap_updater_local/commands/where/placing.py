"""Where a URL belongs, by the layer's own rules: its identity (``normalize_url``), its site
and space (``store.spaces.Layout``), the leaf of its space's shard tree that covers its hash
(``store.shards.LeafIndex``) and that leaf's file (``shard_file_key``); and whether a file
lists it, read as the rebuild reads a published file back (``protocol.urlset``)."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.protocol.urls import normalize_url
from sitemap_updater.protocol.urlset import fragment_loc, fragments_of, newest_lastmod
from sitemap_updater.store.keys import HASH_BITS, ROOT_SHARD, hash_bits, url_hash
from sitemap_updater.store.shards import LeafIndex, ShardIdError
from sitemap_updater.store.spaces import Layout, shard_file_key, split_space
from sitemap_updater_local.errors import CommandError


def identity_of(url: str) -> str:
    """The normalized URL, the identity the table and the files know a page by; a URL that
    cannot be normalized stops the command (exit status 2) with the rule it breaks."""
    try:
        return normalize_url(url, field="URL")
    except SitemapError as error:
        raise CommandError(f"cannot be normalized: {error}") from error


@dataclass(frozen=True, slots=True)
class Place:
    """The file that lists a URL, or should: ``site`` is ``None`` for a URL on no listed site,
    which no file lists; ``shard`` is the leaf whose file it is, ``None`` where the space has
    no file yet (``file`` is then its root's, the first file the space will have)."""

    identity: str
    site: str | None
    section: str | None = None
    #: the change named the section (the rules did not place it)
    named: bool = False
    shard: str | None = None
    file: str | None = None

    def as_json(self) -> dict[str, object]:
        return {
            "site": self.site,
            "section": self.section,
            "section_named": self.named,
            "shard": self.shard,
            "file": self.file,
        }


def place(
    layout: Layout,
    identity: str,
    leaves: Iterable[str],
    named: str | None = None,
    *,
    space: str | None = None,
) -> Place:
    """Where ``layout`` places ``identity`` (whose change named the section ``named``) among the
    shard tree's ``leaves``; ``space`` where the caller placed it already (``Placement``, which
    bounds the sections a host has)."""
    site = layout.sites.site_of(identity)
    if site is None:
        return Place(identity, None)
    space = space or layout.space_for(identity, named)
    leaf = leaf_of(leaves, space, url_hash(identity))
    file = shard_file_key(leaf or space + ROOT_SHARD)
    return Place(identity, site.origin, split_space(space)[1], named is not None, leaf, file)


def leaf_of(leaves: Iterable[str], space: str, uh: str) -> str | None:
    """The leaf of ``space`` that covers the hash ``uh`` (``None``: the space has no leaf)."""
    index = LeafIndex(leaves)
    try:
        leaf = index.leaf_for(space, uh)
    except ShardIdError as error:
        raise CommandError(f"the shard tree is broken: {error}") from error
    return None if index.new_roots else leaf


def leaves_among(keys: Collection[str], space: str, uh: str) -> list[str]:
    """The shard ids of ``space`` on the path of the hash ``uh`` whose files are among ``keys``
    (a build output's files): one per depth at most, so at most :data:`HASH_BITS` + 1 names
    looked up, never a file read."""
    path = (space + ROOT_SHARD + hash_bits(uh, depth) for depth in range(HASH_BITS + 1))
    return [shard for shard in path if shard_file_key(shard) in keys]


def listing(body: bytes, identity: str) -> tuple[bool, str | None]:
    """Whether the gzipped urlset ``body`` lists ``identity``, and the ``lastmod`` it gives it;
    ``PublishedFormatError`` for a file that is not a urlset this project writes."""
    for fragment in fragments_of(body):
        if fragment_loc(fragment) == identity:
            return True, newest_lastmod(fragment)
    return False, None
