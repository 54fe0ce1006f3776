"""Patch a published urlset with the changed URLs, without reading its other entries again.

The published file is the state the last publish left: an incremental run gets it from S3,
takes it apart into one ``<url>`` fragment per entry (keyed by the URL hash of its ``loc``),
replaces, adds or drops the fragments of the changed URLs, and joins them again in hash order.
The fragments of unchanged entries are the bytes the writer produced and checked when they were
first rendered; every changed entry is rendered again by the protocol core's fragment API
(``protocol.render.fragments``), with all the writer's checks. The leaves are rendered by the
rebuild's one leaf renderer (``render``), so joining and compressing the fragments gives exactly
the bytes a full rebuild writes for the same entries.

A file this module cannot take apart (not our format, or truncated) raises
``PublishedFormatError``; the caller then rebuilds that shard from the table instead.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.protocol.render.fragments import (
    URLSET_FRAME_BYTES,
    PublishedFormatError,
    entry_fragment,
    fragment_loc,
    fragments_of,
)
from sitemap_updater.protocol.urls import Site
from sitemap_updater.rebuild.render import RenderedShard, render_fragments, render_joined
from sitemap_updater.store.items import Item, entry_from_item, is_live, loc_of
from sitemap_updater.store.keys import url_hash


def parse_published(body: bytes) -> dict[str, bytes]:
    """The ``<url>`` fragments of a published gzipped urlset, by the URL hash of their loc;
    raises ``PublishedFormatError`` for a file not in the writer's format."""
    return {url_hash(fragment_loc(fragment)): fragment for fragment in fragments_of(body)}


def changed_between(before: Mapping[str, bytes], after: Mapping[str, bytes]) -> list[str]:
    """The locs whose fragment differs between two parsed files (added, changed or removed)."""
    return [
        fragment_loc(after.get(uh) or before[uh])
        for uh in sorted(before.keys() | after.keys())
        if before.get(uh) != after.get(uh)
    ]


def entries_differing(old: bytes, rendered: Sequence[RenderedShard]) -> list[str]:
    """The locs whose entry differs between the published file ``old`` (all of its entries, if
    it cannot be taken apart) and the files ``rendered`` from the table in its place."""
    try:
        before = parse_published(old)
    except PublishedFormatError:
        before = {}
    after: dict[str, bytes] = {}
    for shard in rendered:
        if shard.body is not None:
            after.update(parse_published(shard.body))
    return changed_between(before, after)


@dataclass(slots=True)
class Patched:
    """A shard after its changes: its rendered leaves, the locs whose published entry was added,
    changed or removed, and the ``loc: reason`` of every changed URL the writer refused."""

    rendered: list[RenderedShard]
    changed_locs: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def apply_changes(
    fragments: dict[str, bytes],
    changes: Mapping[str, Item | None],
    site: Site,
    *,
    max_bytes: int,
) -> tuple[list[str], list[str]]:
    """Apply ``changes`` (URL hash -> item, None when it no longer exists) to ``fragments`` in
    place; returns the locs whose fragment changed and the refusals."""
    changed: list[str] = []
    skipped: list[str] = []
    for uh, item in changes.items():
        old = fragments.get(uh)
        new: bytes | None = None
        if item is not None and is_live(item):
            try:
                new = entry_fragment(entry_from_item(item), site, max_bytes=max_bytes)
            except SitemapError as error:
                skipped.append(f"{loc_of(item)}: {error}")
        if new == old:
            continue
        if new is None:
            loc = fragment_loc(fragments.pop(uh)) if old is not None else None
        else:
            fragments[uh] = new
            loc = loc_of(item) if item is not None else None
        if loc is not None:
            changed.append(loc)
    return changed, skipped


def patch_shard(
    shard_id: str,
    published: bytes | None,
    changes: Mapping[str, Item | None],
    site: Site,
    *,
    max_urls: int,
    max_bytes: int,
) -> Patched:
    """``published`` (the shard's file, None if it has none) with ``changes`` applied."""
    if published is not None:
        patched = patch_in_place(shard_id, published, changes, site, max_urls, max_bytes)
        if patched is not None:
            return patched
    fragments = parse_published(published) if published is not None else {}
    changed, skipped = apply_changes(fragments, changes, site, max_bytes=max_bytes)
    rendered = render_fragments(shard_id, fragments, max_urls=max_urls, max_bytes=max_bytes)
    return Patched(rendered, changed, skipped)


def patch_in_place(
    shard_id: str,
    published: bytes,
    changes: Mapping[str, Item | None],
    site: Site,
    max_urls: int,
    max_bytes: int,
) -> Patched | None:
    """:func:`patch_shard` of a file that stays one leaf, found rather than parsed: the file is
    in hash order, so each change's place is a binary search that hashes the locs of a few
    fragments, and every other fragment is copied unread. None when the result would not be
    exactly one file within both caps (the caller then takes the path that parses every entry)."""
    pieces = fragments_of(published)
    hashes: dict[int, str] = {}

    def hash_at(index: int) -> str:
        if index not in hashes:
            hashes[index] = url_hash(fragment_loc(pieces[index]))
        return hashes[index]

    edits: dict[str, tuple[int, bytes | None]] = {}
    found: dict[str, bytes] = {}
    for uh in changes:
        at = bisect_left(range(len(pieces)), uh, key=hash_at)
        if at < len(pieces) and hash_at(at) == uh:
            found[uh] = pieces[at]
        edits[uh] = (at, None)
    changed, skipped = apply_changes(found, changes, site, max_bytes=max_bytes)
    for uh, (at, _) in edits.items():
        edits[uh] = (at, found.get(uh))
    kept = _spliced(pieces, edits, hash_at)
    if not kept or len(kept) > max_urls or URLSET_FRAME_BYTES + sum(map(len, kept)) > max_bytes:
        return None
    return Patched([render_joined(shard_id, kept)], changed, skipped)


def _spliced(
    pieces: list[bytes],
    edits: Mapping[str, tuple[int, bytes | None]],
    hash_at: Callable[[int], str],
) -> list[bytes]:
    """``pieces`` with each edit (URL hash -> its place and new fragment, None to drop it)
    applied: a fragment at its place with the same hash is replaced, else the new one goes in
    before it; new fragments for one place go in hash order."""
    out: list[bytes] = []
    start = 0
    for uh, (at, fragment) in sorted(edits.items(), key=lambda e: (e[1][0], e[0])):
        out.extend(pieces[start:at])
        start = at
        if at < len(pieces) and hash_at(at) == uh:
            start = at + 1
        if fragment is not None:
            out.append(fragment)
    out.extend(pieces[start:])
    return out
