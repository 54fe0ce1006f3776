"""One entry per page in a full rebuild, from a table that may hold a page under several spellings.

Versions before the full RFC 3986 normalization (``protocol.urls``) stored ``/%7euser`` and
``/~user``, or ``/a/./b`` and ``/a/b``, as two URL items, each under the hash of its own
spelling. A full rebuild re-derives the identity of every loc it reads (``normalize_url``): an
item stored under another spelling is spooled under its identity (loc and key), and where one
identity has several items, only the newest by ordering key (``ev``) counts. A live item is
published under the identity's URL; a tombstone newer than every live item, under any spelling,
removes the page.

Only identities that some item spells another way cost anything: every tombstone's identity and
ordering key go to a file beside the spools while the Scan runs (the live items of an identity
may come after its tombstone), and are read back once for the identities respelled. A delete of
such a page outlives its tombstone in the rebuild's own table (``state.removals``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO

from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.protocol.urls import already_normalized, normalize_url
from sitemap_updater.store.items import Item, loc_of, url_hash_of
from sitemap_updater.store.keys import ATTR_EVENT_KEY, ATTR_LOC, key_attributes, url_hash, url_key


def _identity(loc: str) -> str | None:
    """The identity of a stored loc, where it is not ``loc`` itself; ``None`` otherwise (and for
    a loc today's rules refuse: it is kept as it was stored)."""
    if already_normalized(loc):
        return None
    try:
        identity = normalize_url(loc)
    except SitemapError:
        return None
    return None if identity == loc else identity


def _order(item: Item) -> tuple[str, str]:
    return item[ATTR_EVENT_KEY]["S"], loc_of(item)


class Identities:
    """The identities a full rebuild's Scan came across, with ``directory`` (the spools')
    holding its tombstones' ordering keys."""

    def __init__(self, directory: Path, remembered: Mapping[str, str]) -> None:
        self._path = directory / "tombstones.tsv"
        self._tombstones: IO[str] | None = None
        self._remembered = remembered
        #: identity hashes that some item spells another way
        self.respelled: set[str] = set()
        #: identity hash -> ordering key of its newest delete (respelled identities only), from
        #: the Scan's tombstones and the ``remembered`` deletes whose tombstones have expired
        self.removed_at: dict[str, str] = {}

    def live(self, item: Item) -> Item:
        """``item`` under its identity: itself, or a copy with the identity's loc and key."""
        identity = _identity(loc_of(item))
        if identity is None:
            return item
        uh = url_hash(identity)
        self.respelled.add(uh)
        return {**item, **key_attributes(url_key(uh)), ATTR_LOC: {"S": identity}}

    def removed(self, item: Item) -> None:
        """Note a tombstone's identity and ordering key."""
        identity = _identity(loc_of(item))
        uh = url_hash_of(item) if identity is None else url_hash(identity)
        if identity is not None:
            self.respelled.add(uh)
        if self._tombstones is None:
            self._tombstones = self._path.open("a", encoding="utf-8")
        self._tombstones.write(f"{uh}\t{item[ATTR_EVENT_KEY]['S']}\n")

    def close(self) -> None:
        """End of the Scan: the newest delete of each respelled identity."""
        removed_at = self.removed_at
        for uh, ev in self._remembered.items():
            if uh in self.respelled:
                removed_at[uh] = ev
        if self._tombstones is None:
            return
        self._tombstones.close()
        self._tombstones = None
        if self.respelled:
            with self._path.open(encoding="utf-8") as lines:
                for line in lines:
                    uh, ev = line.rstrip("\n").split("\t")
                    if uh in self.respelled and ev > removed_at.get(uh, ""):
                        removed_at[uh] = ev
        self._path.unlink()

    def newest(self, items: Iterable[Item]) -> list[Item]:
        """``items`` (live, under their identities) with one per identity: of the items of a
        respelled identity, the newest, unless a newer tombstone removed the page."""
        if not self.respelled:
            return list(items)
        kept: list[Item] = []
        at: dict[str, int] = {}
        for item in items:
            uh = url_hash_of(item)
            if uh not in self.respelled:
                kept.append(item)
                continue
            if item[ATTR_EVENT_KEY]["S"] < self.removed_at.get(uh, ""):
                continue
            seen = at.get(uh)
            if seen is None:
                at[uh] = len(kept)
                kept.append(item)
            elif _order(item) > _order(kept[seen]):
                kept[seen] = item
        return kept
