"""Patch a published urlset with the changed URLs, without reading its other entries again.

The published file is the state the last publish left: an incremental run gets it from S3,
takes it apart into one ``<url>`` fragment per entry (keyed by the URL hash of its ``loc``),
replaces, adds or drops the fragments of the changed URLs, and joins them again in hash order.
The fragments of unchanged entries are the bytes the writer produced and checked when they were
first rendered; every changed entry goes through the writer (``render_urlset``) again, with all
its checks. Joining and compressing the fragments gives exactly the bytes a full rebuild writes
for the same entries, because the writer's output depends only on the text (see ``gzipio``).

A file this module cannot take apart (not our format, or truncated) raises
:class:`PublishedFormatError`; the caller then rebuilds that shard from the table instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from zlib_ng import zlib_ng

from sitemap_updater.protocol import (
    Entry,
    EntryTooLargeError,
    Site,
    SitemapError,
    gzip_bytes,
    render_urlset,
)
from sitemap_updater.protocol.render.chunk import ChunkRenderer
from sitemap_updater.protocol.urlset import LEGACY_URLSET_OPEN, URLSET_CLOSE, URLSET_OPEN
from sitemap_updater.rebuild.render import RenderedShard
from sitemap_updater.store.items import Item, entry_from_item, is_live
from sitemap_updater.store.keys import HASH_BITS, hash_bits, url_hash
from sitemap_updater.store.shards import children, split_counts

_OPEN: Final = URLSET_OPEN.encode("utf-8")
_LEGACY_OPEN: Final = LEGACY_URLSET_OPEN.encode("utf-8")
_CLOSE: Final = URLSET_CLOSE.encode("utf-8")
_URL_END: Final = b"</url>\n"
_LOC_START: Final = b"<url><loc>"
_LASTMOD: Final = re.compile(rb"<lastmod>([^<]*)</lastmod>")
#: The five entities the writer's ``escape`` produces, undone in the reverse order.
_ENTITIES: Final = (("&apos;", "'"), ("&quot;", '"'), ("&gt;", ">"), ("&lt;", "<"), ("&amp;", "&"))


class PublishedFormatError(ValueError):
    """A published file that is not a urlset in the form this project's writer produces."""


def _loc_of(fragment: bytes) -> str:
    end = fragment.find(b"</loc>")
    if not fragment.startswith(_LOC_START) or end < 0:
        raise PublishedFormatError(
            f"a <url> element does not start with its loc: {fragment[:80]!r}"
        )
    loc = fragment[len(_LOC_START) : end].decode("utf-8")
    if "&" in loc:
        for entity, char in _ENTITIES:
            loc = loc.replace(entity, char)
    return loc


def parse_published(body: bytes) -> dict[str, bytes]:
    """The ``<url>`` fragments of a published gzipped urlset, by the URL hash of their loc."""
    try:
        text = zlib_ng.decompress(body, 16 + zlib_ng.MAX_WBITS)
    except Exception as error:  # zlib_ng.error (its stub does not type it as an exception)
        raise PublishedFormatError(f"not a gzip file: {error}") from error
    opening = _OPEN if text.startswith(_OPEN) else _LEGACY_OPEN
    if not text.startswith(opening) or not text.endswith(_CLOSE):
        raise PublishedFormatError("the file does not have the urlset header and footer")
    inner = text[len(opening) : len(text) - len(_CLOSE)]
    fragments: dict[str, bytes] = {}
    if not inner:
        return fragments
    if not inner.endswith(_URL_END):
        raise PublishedFormatError("the last <url> element is not closed")
    for piece in inner[: -len(_URL_END)].split(_URL_END):
        fragment = piece + _URL_END
        fragments[url_hash(_loc_of(fragment))] = fragment
    return fragments


def changed_between(before: Mapping[str, bytes], after: Mapping[str, bytes]) -> list[str]:
    """The locs whose fragment differs between two parsed files (added, changed or removed)."""
    return [
        _loc_of(after.get(uh) or before[uh])
        for uh in sorted(before.keys() | after.keys())
        if before.get(uh) != after.get(uh)
    ]


def render_fragment(item: Item, site: Site, *, max_bytes: int) -> bytes:
    """The ``<url>`` fragment of a live URL item, through the writer and all of its checks;
    raises the writer's :class:`SitemapError` for an entry it refuses."""
    return render_entry_fragment(entry_from_item(item), site, max_bytes=max_bytes)


def render_entry_fragment(entry: Entry, site: Site, *, max_bytes: int) -> bytes:
    """The ``<url>`` fragment of ``entry``, through the writer and all of its checks."""
    body, _ = render_urlset([entry], site, max_bytes=max_bytes)
    text = zlib_ng.decompress(body, 16 + zlib_ng.MAX_WBITS)
    return text[len(_OPEN) : len(text) - len(_CLOSE)]


def entry_fragments(entries: Sequence[Entry], site: Site, *, max_bytes: int) -> list[bytes | str]:
    """The ``<url>`` fragment of each entry, as the writer renders it into a file of at most
    ``max_bytes``, or, for an entry the writer refuses there (alone over the byte cap, or a
    rule), the ``loc: reason`` a full render reports for it.

    A block the writer's block renderer takes (the common case: normalized entries without
    videos or news) is rendered once and cut at each ``</url>``, which no escaped value holds;
    any other block is rendered entry by entry through the writer.
    """
    rendered = ChunkRenderer(site.origin + "/").render(entries)
    if rendered is None:
        return [_fragment_or_reason(entry, site, max_bytes) for entry in entries]
    room = max_bytes - URLSET_FRAME_BYTES
    text = rendered[0].encode("utf-8")
    # each element is one line (no value in the block holds a line break); cut at </url>\n
    # if that ever were not so
    result: list[bytes | str] = list(text.splitlines(keepends=True))
    if len(result) != len(entries) or text.count(_URL_END) != len(entries):
        result = [piece + _URL_END for piece in text.split(_URL_END)[: len(entries)]]
    if max(map(len, result)) > room:
        result = [
            fragment if len(fragment) <= room else too_large(entry.loc, max_bytes)
            for entry, fragment in zip(entries, result, strict=True)
        ]
    return result


def too_large(loc: str, max_bytes: int) -> str:
    """The ``loc: reason`` a render reports for an entry alone over ``max_bytes``."""
    error = EntryTooLargeError(
        "bytes", f"{loc} alone needs more than {max_bytes} uncompressed bytes"
    )
    return f"{loc}: {error}"


def _fragment_or_reason(entry: Entry, site: Site, max_bytes: int) -> bytes | str:
    try:
        return render_entry_fragment(entry, site, max_bytes=max_bytes)
    except SitemapError as error:
        return f"{entry.loc}: {error}"


def urlset_of(fragments: Sequence[bytes]) -> bytes:
    """The uncompressed urlset that holds ``fragments`` in order."""
    return _urlset(fragments)


#: Bytes a urlset adds around its fragments.
URLSET_FRAME_BYTES: Final = len(_OPEN) + len(_CLOSE)


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
                new = render_fragment(item, site, max_bytes=max_bytes)
            except SitemapError as error:
                skipped.append(f"{item['loc']['S']}: {error}")
        if new == old:
            continue
        if new is None:
            loc = _loc_of(fragments.pop(uh)) if old is not None else None
        else:
            fragments[uh] = new
            loc = str(item["loc"]["S"]) if item is not None else None
        if loc is not None:
            changed.append(loc)
    return changed, skipped


def _urlset(fragments: Sequence[bytes]) -> bytes:
    return b"".join([_OPEN, *fragments, _CLOSE])


def _newest(text: bytes) -> str | None:
    found = _LASTMOD.findall(text)
    return max(found).decode("ascii") if found else None


def _render_fitting(
    shard_id: str, pairs: Sequence[tuple[str, bytes]], max_bytes: int
) -> list[RenderedShard]:
    if not pairs:
        return [RenderedShard(shard_id, None, 0, 0, None)]
    fragments = [fragment for _, fragment in pairs]
    size = len(_OPEN) + len(_CLOSE) + sum(map(len, fragments))
    if size > max_bytes and len(pairs) > 1 and len(shard_id) - 1 < HASH_BITS:
        left, right = children(shard_id)
        depth = len(left) - 1
        zero = [p for p in pairs if hash_bits(p[0], depth)[-1] == "0"]
        one = [p for p in pairs if hash_bits(p[0], depth)[-1] == "1"]
        return _render_fitting(left, zero, max_bytes) + _render_fitting(right, one, max_bytes)
    text = _urlset(fragments)
    return [RenderedShard(shard_id, gzip_bytes(text), len(pairs), len(text), _newest(text))]


def render_fragments(
    shard_id: str, fragments: Mapping[str, bytes], *, max_urls: int, max_bytes: int
) -> list[RenderedShard]:
    """The leaves (one, or several after a split) that hold ``fragments``, rendered in hash
    order; splits follow the same rules as :func:`sitemap_updater.rebuild.render.render_shard`
    (the URL cap by ``split_counts``, then the byte cap by the next hash bit)."""
    ordered = sorted(fragments.items())
    leaves = split_counts([uh for uh, _ in ordered], shard_id, max_urls)
    if leaves == [shard_id]:
        return _render_fitting(shard_id, ordered, max_bytes)
    rendered: list[RenderedShard] = []
    for leaf in leaves:
        bits = leaf[1:]
        group = [p for p in ordered if hash_bits(p[0], len(bits)) == bits]
        rendered.extend(_render_fitting(leaf, group, max_bytes))
    return rendered


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
    fragments = parse_published(published) if published is not None else {}
    changed, skipped = apply_changes(fragments, changes, site, max_bytes=max_bytes)
    rendered = render_fragments(shard_id, fragments, max_urls=max_urls, max_bytes=max_bytes)
    return Patched(rendered, changed, skipped)


def locs_of(body: bytes) -> Iterable[str]:
    """Every loc of a published urlset (for comparing what two files publish)."""
    return (_loc_of(fragment) for fragment in parse_published(body).values())
