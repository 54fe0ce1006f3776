"""Spaces: the (host, section) parts of the shard tree, and the keys of their files.

A space is ``<key prefix><section>/``: the key prefix is empty for the primary host and
``<host>/`` for every other listed host, so a space names where its files live. A shard id is its
space followed by ``r`` and hash bits, and its file is ``<key prefix>sitemap-<section>-r<bits>``
(``sitemap-products-r01.xml.gz``). A shard id without a space (``r01``) is from a layout before
sections; its file is ``sitemap-r01.xml.gz``, and the first run of a new layout replaces it.
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from typing import Any, Final

from sitemap_updater.protocol.urls import Site
from sitemap_updater.sections import (
    DEFAULT_MAX_SECTIONS_PER_HOST,
    DEFAULT_SECTION,
    MAX_SECTIONS_PER_HOST,
    SectionRules,
)
from sitemap_updater.sites import Sites
from sitemap_updater.store.items import Item, url_of
from sitemap_updater.store.keys import ATTR_SECTION, HASH_BITS, INDEX_KEY, ROOT_SHARD, hash_bits
from sitemap_updater.store.shards import space_of_shard

#: the name of a section's file (what ``shard_file_key`` writes after the key prefix)
_SECTION_FILE: Final = re.compile(r"sitemap-([a-z0-9-]{1,32})-(r[01]*)\.xml\.gz")
#: the name of a file from before sections (``sitemap-r01.xml.gz``)
_LEGACY_FILE: Final = re.compile(r"sitemap-(r[01]*)\.xml\.gz")
#: the name of a host's second, third, ... index (``index_file_key``)
_INDEX_FILE: Final = re.compile(r"sitemap-([1-9][0-9]*)\.xml")
#: the two parts of a layout's text (``Layout.text``)
_SITES: Final = "sites="
_RULES: Final = ";rules="
_SECTIONS: Final = ";sections="


def split_space(space: str) -> tuple[str, str]:
    """(key prefix, section) of a space (``("", "")`` for the space of a legacy shard id)."""
    body = space[:-1]
    cut = body.rfind("/") + 1
    return body[:cut], body[cut:]


def shard_file_key(shard_id: str) -> str:
    """S3 key (and URL path under the host's key prefix) of a shard's sitemap file."""
    space = space_of_shard(shard_id)
    tail = shard_id[len(space) :]
    if not space:
        return f"sitemap-{tail}.xml.gz"
    prefix, section = split_space(space)
    return f"{prefix}sitemap-{section}-{tail}.xml.gz"


def prefix_of_shard(shard_id: str) -> str:
    """The host key prefix of a shard id (``""`` for the primary host and a legacy id)."""
    return split_space(space_of_shard(shard_id))[0]


def point_of(space: str, uh: str) -> tuple[str, str]:
    """Where the URL hash ``uh`` of ``space`` falls among its host's branches and indexes: the
    host's key prefix and the sort key of the deepest possible shard of the URL."""
    prefix = split_space(space)[0]
    return prefix, space[len(prefix) :] + ROOT_SHARD + hash_bits(uh, HASH_BITS)


def shard_of_file(key: str) -> str | None:
    """The shard id whose file is ``key`` (``shard_file_key``'s inverse), or None."""
    prefix = key_prefix_of(key)
    name = key[len(prefix) :]
    found = _SECTION_FILE.fullmatch(name)
    if found is not None:
        return f"{prefix}{found[1]}/{found[2]}"
    legacy = _LEGACY_FILE.fullmatch(name)
    return legacy[1] if legacy is not None and not prefix else None


def index_file_key(prefix: str, number: int) -> str:
    """S3 key of a host's ``number``-th index (from 1): ``sitemap.xml``, ``sitemap-2.xml``..."""
    return prefix + (INDEX_KEY if number == 1 else f"sitemap-{number}.xml")


def index_number_of(key: str) -> int | None:
    """The number of the index whose key is ``key`` (``index_file_key``'s inverse), or None."""
    name = key[key.rfind("/") + 1 :]
    if name == INDEX_KEY:
        return 1
    found = _INDEX_FILE.fullmatch(name)
    return int(found[1]) if found is not None and found[1] != "1" else None


def section_of_file(key: str) -> str | None:
    """The section of a published file's key (``shard_file_key``'s inverse); None for any
    other key (an index, a News file, an empty-site file, a file from before sections)."""
    found = _SECTION_FILE.fullmatch(key[key.rfind("/") + 1 :])
    return None if found is None else found[1]


def key_prefix_of(key: str) -> str:
    """The host key prefix of an object key (``""`` at the bucket root)."""
    return key[: key.rfind("/") + 1]


class Layout:
    """Where a deployment publishes each URL: the listed sites, the section rules and the most
    sections a host has (``Placement``); files are listed under each host's own origin, or under
    ``public_base_url`` with their key prefix."""

    def __init__(
        self,
        sites: Sites,
        rules: SectionRules,
        public_base_url: str = "",
        max_sections: int = DEFAULT_MAX_SECTIONS_PER_HOST,
    ) -> None:
        self.sites = sites
        self.rules = rules
        self.public_base_url = public_base_url
        self.max_sections = max_sections
        #: the sections every host has, whatever its changes name
        self.fixed_sections = frozenset({DEFAULT_SECTION, *(name for _, name in rules.rules)})
        self._prefixes = {sites.key_prefix(site): site for site in sites}
        #: the space of every URL whose change names no section, when there is only one
        self._only_space = (
            f"{rules.section_of('/')}/" if len(sites) == 1 and not rules.rules else None
        )

    @classmethod
    def of(
        cls,
        site_url: str,
        rules: SectionRules,
        public_base_url: str,
        max_sections: int = DEFAULT_MAX_SECTIONS_PER_HOST,
        **site_options: Any,
    ) -> Layout:
        """The layout of a deployment's settings; a public base equal to ``site_url`` (or
        empty) lists each host's files under its own origin."""
        sites = Sites.parse(site_url, **site_options)
        base = "" if public_base_url in ("", site_url) else public_base_url
        return cls(sites, rules, base, max_sections)

    @property
    def text(self) -> str:
        """What the publication records: trees of another layout are rebuilt in full."""
        return f"{self.text_before_caps}{_SECTIONS}{self.max_sections}"

    @property
    def text_before_caps(self) -> str:
        """The layout's text as 0.1.0 recorded it, before the cap on sections was part of it."""
        origins = ",".join(site.origin for site in self.sites)
        return f"{_SITES}{origins}{_RULES}{self.rules.text()}"

    @classmethod
    def recorded(cls, text: str) -> Layout:
        """The layout whose :attr:`text` the publication records (an origin holds no ``;``, so
        the sites end at the first ``;rules=``; the cap, where recorded, follows the last
        ``;sections=``); its files are listed under each host's own origin, the text keeping no
        public base. Raises ``ValueError`` for any other text."""
        origins, found, rest = text.removeprefix(_SITES).partition(_RULES)
        if not text.startswith(_SITES) or not found:
            raise ValueError(f"{text!r} is not the text of a layout ({_SITES}...{_RULES}...)")
        rules, capped, cap = rest.rpartition(_SECTIONS)
        if not capped:
            rules, cap = rest, str(DEFAULT_MAX_SECTIONS_PER_HOST)
        if not cap.isdigit() or not 1 <= int(cap) <= MAX_SECTIONS_PER_HOST:
            raise ValueError(f"{text!r}: the cap on sections {cap!r} is not 1 to 1000")
        return cls(Sites.parse(origins), SectionRules.parse(rules), max_sections=int(cap))

    def prefix_of(self, loc: str) -> str:
        """The key prefix of the host of the normalized URL ``loc`` (the primary's when no
        listed site holds it)."""
        site = self.sites.site_of(loc)
        return self.sites.key_prefix(site) if site else ""

    def space_of(self, item: Item) -> str:
        """The space of a URL item (live or a tombstone): its host's and the section its change
        named, else its rules' (uncapped: ``Placement`` bounds the sections a host has)."""
        named = item.get(ATTR_SECTION)
        return self.space_for(url_of(item), None if named is None else named["S"])

    def space_for(self, loc: str, named: str | None = None) -> str:
        """The space of the normalized URL ``loc`` whose change named the section ``named``
        (``None``: it named none)."""
        if named is None and self._only_space is not None:
            return self._only_space
        site = self.sites.site_of(loc)
        section = self.rules.section_of(loc[len(site.origin) :] if site else loc, named)
        prefix = self.sites.key_prefix(site) if site else ""
        return f"{prefix}{section}/"

    def site_of_prefix(self, prefix: str) -> Site:
        """The site whose objects live under the key prefix ``prefix``; a prefix of no listed
        host (a legacy shard's) is the primary's, whose checks then refuse foreign URLs."""
        return self._prefixes.get(prefix, self.sites.primary)

    def site_of_shard(self, shard_id: str) -> Site:
        return self.site_of_prefix(split_space(space_of_shard(shard_id))[0])

    def prefixes(self) -> dict[str, Site]:
        """Each listed site by its key prefix, in list order."""
        return self._prefixes

    def base_url(self, prefix: str) -> str:
        """Where the objects under a host's key prefix are served: the host's own origin, or
        the public base followed by the prefix."""
        if self.public_base_url:
            return f"{self.public_base_url.rstrip('/')}/{prefix}".rstrip("/")
        return self.site_of_prefix(prefix).origin

    def url_of(self, key: str) -> str:
        """The public URL of an object key."""
        prefix = key_prefix_of(key)
        return f"{self.base_url(prefix)}/{key[len(prefix) :]}"


class Placement:
    """Where the rebuild publishes each URL item: in the space of its layout, but with at most
    ``layout.max_sections`` sections a host. A host's sections are its default section, its
    rules' and those its changes named, in the order it took them (``named``: key prefix -> the
    names taken, kept in the host's record). Once a host has ``max_sections``, a change naming
    another section is placed as if it named none. A host's list only grows and takes no name
    once full, so the space of a page never depends on when it is read: the space a run gives
    a page's old image is the one the run that published it gave it."""

    def __init__(self, layout: Layout, named: MutableMapping[str, list[str]]) -> None:
        self.layout = layout
        self.named = named
        #: (key prefix, section) of every named section placed as if unnamed, past the cap
        self.refused: set[tuple[str, str]] = set()

    def space_of(self, item: Item, *, take: bool = False) -> str | None:
        """The space of a URL item (live or a tombstone). A section its host has not taken yet,
        while the host has room, is taken when ``take`` (a change the run places); otherwise
        the item has no space yet (None: it is placed when the run that reads its change
        takes the section)."""
        named = item.get(ATTR_SECTION)
        return self.space_for(url_of(item), None if named is None else str(named["S"]), take=take)

    def space_for(self, loc: str, named: str | None, *, take: bool = False) -> str | None:
        """The space of the normalized URL ``loc`` whose change named the section ``named``
        (None: it named none), as :meth:`space_of` places an item."""
        if named is None:
            return self.layout.space_for(loc)
        if named in self.layout.fixed_sections:
            return self.layout.space_for(loc, named)
        prefix = self.layout.prefix_of(loc)
        taken = self.named.setdefault(prefix, [])
        if named in taken:
            return self.layout.space_for(loc, named)
        if len(self.layout.fixed_sections) + len(taken) >= self.layout.max_sections:
            self.refused.add((prefix, named))
            return self.layout.space_for(loc)
        if not take:
            return None
        taken.append(named)
        return self.layout.space_for(loc, named)
