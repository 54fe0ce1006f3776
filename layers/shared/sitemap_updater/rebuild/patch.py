"""Patch a published urlset with the changed URLs, without reading its other pages again.

The published file is the state the last publish left: an incremental run gets it from S3,
takes it apart into one ``<url>`` fragment per page (keyed by the URL hash of its ``loc``),
replaces, adds or drops the fragments of the changed URLs, and joins them again in hash order.
The fragments of unchanged pages are the bytes the writer produced and checked when they were
first rendered; every changed page is rendered again by the one renderer (``render.fragment``).
The leaves are rendered by the rebuild's one leaf renderer (``render``), so joining and
compressing the fragments gives exactly the bytes a full rebuild writes for the same pages.

A file this module cannot take apart (not our format, or truncated) raises
``PublishedFormatError``; the caller then rebuilds that shard from the table instead. A published
file with or without the stylesheet's instruction is patched alike; the patched file carries it
as ``stylesheet`` (the current setting) says.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from sitemap_updater.protocol.urls import Site
from sitemap_updater.protocol.urlset import (
    URL_END,
    URLSET_CLOSE_BYTES,
    URLSET_FRAME_BYTES,
    PublishedFormatError,
    fragment_loc,
    fragments_of,
    newest_lastmod,
    urlset_opening,
    urlset_text,
)
from sitemap_updater.rebuild.render import RenderedShard, fragment, render_leaves, render_text
from sitemap_updater.store.items import Item, is_live, page_of_item, url_of
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


def fragments_differing(old: bytes, rendered: Sequence[RenderedShard]) -> list[str]:
    """The locs whose fragment differs between the published file ``old`` (all of its pages, if
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


@dataclass(frozen=True, slots=True)
class Recorded:
    """What the last publish recorded for a published file: its URL count and newest lastmod
    (a node state's ``url_count`` and ``file_lastmod``)."""

    url_count: int
    newest_lastmod: str | None


@dataclass(slots=True)
class Patched:
    """A shard after its changes: its rendered leaves, the locs whose fragment was added,
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
            rendered = fragment(page_of_item(item), site, max_bytes)
            if isinstance(rendered, str):
                skipped.append(rendered)
            else:
                new = rendered
        if new == old:
            continue
        if new is None:
            loc = fragment_loc(fragments.pop(uh)) if old is not None else None
        else:
            fragments[uh] = new
            loc = url_of(item) if item is not None else None
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
    stylesheet: bool,
    recorded: Recorded | None = None,
) -> Patched:
    """``published`` (the shard's file, None if it has none) with ``changes`` applied.

    ``recorded`` is what the last publish recorded for these very bytes; with it, the patched
    file's URL count and newest lastmod come from the record and the changed fragments, and the
    file is not read for them."""
    if published is not None:
        limits = max_urls, max_bytes, stylesheet
        patched = patch_in_place(shard_id, published, changes, site, *limits, recorded)
        if patched is not None:
            return patched
    fragments = parse_published(published) if published is not None else {}
    changed, skipped = apply_changes(fragments, changes, site, max_bytes=max_bytes)
    rendered = render_leaves(
        shard_id,
        sorted(fragments.items()),
        max_urls=max_urls,
        max_bytes=max_bytes,
        stylesheet=stylesheet,
    )
    return Patched(rendered, changed, skipped)


def patch_in_place(
    shard_id: str,
    published: bytes,
    changes: Mapping[str, Item | None],
    site: Site,
    max_urls: int,
    max_bytes: int,
    stylesheet: bool,
    recorded: Recorded | None = None,
) -> Patched | None:
    """:func:`patch_shard` of a file that stays one leaf, found rather than parsed: the file is
    in hash order, so each change's place is a binary search over the text that hashes the locs
    of a few fragments, and the text between the changes is copied unread, never cut into
    fragments. None when the result would not be exactly one file within both caps (the caller
    then takes the path that parses every fragment)."""
    text, start, end = urlset_text(published)
    places = {uh: _place(text, start, end, uh) for uh in changes}
    found = {uh: text[at:until] for uh, (at, until) in places.items() if until > at}
    changed, skipped = apply_changes(found, changes, site, max_bytes=max_bytes)
    view = memoryview(text)  # slices of it are joined without a copy of their own
    opening = urlset_opening(stylesheet)
    pieces: list[bytes | memoryview] = [opening]
    count = recorded.url_count if recorded else text.count(URL_END, start, end)
    cursor = start
    for uh, (at, until) in sorted(places.items(), key=lambda place: (place[1][0], place[0])):
        pieces.append(view[cursor:at])
        cursor = until
        fragment = found.get(uh)
        if fragment is not None:
            pieces.append(fragment)
        count += (fragment is not None) - (until > at)
    pieces += [view[cursor:end], URLSET_CLOSE_BYTES]
    patched = b"".join(pieces)
    frame = len(opening) + len(URLSET_CLOSE_BYTES)
    if not count or count > max_urls or len(patched) - frame + URLSET_FRAME_BYTES > max_bytes:
        return None
    newest = _newest_after(patched, recorded, found.values())
    return Patched([render_text(shard_id, patched, count, newest)], changed, skipped)


def _place(text: bytes, start: int, end: int, uh: str) -> tuple[int, int]:
    """Where the fragment of URL hash ``uh`` lies in ``text[start:end]`` (fragments in hash
    order) as (its start, its end), or, when there is none, (where it would go) twice."""
    low, high = start, end
    while low < high:
        middle = (low + high) // 2
        at = text.rfind(URL_END, low, middle)
        at = low if at < 0 else at + len(URL_END)
        until = text.find(URL_END, at, high) + len(URL_END)
        found = url_hash(fragment_loc(text[at:until]))
        if found == uh:
            return at, until
        if found < uh:
            low = until
        else:
            high = at
    return low, low


def _newest_after(patched: bytes, recorded: Recorded | None, added: Iterable[bytes]) -> str | None:
    """The newest lastmod of ``patched``: the ``recorded`` one of the file before, when a fragment
    still holds it, or the newest of the ``added`` fragments; read from ``patched`` when the
    record does not settle it."""
    if recorded is None:
        return newest_lastmod(patched)
    before = recorded.newest_lastmod
    if before is not None and f"<lastmod>{before}</lastmod>".encode() not in patched:
        return newest_lastmod(patched)
    return max(filter(None, (before, *map(newest_lastmod, added))), default=None)
