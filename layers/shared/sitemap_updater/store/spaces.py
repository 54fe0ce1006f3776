"""Spaces: the (host, section) parts of the shard tree, and the keys of their files.

A space is ``<key prefix><section>/``: the key prefix is empty for the primary host and
``<host>/`` for every other listed host, so a space names where its files live. A shard id is its
space followed by ``r`` and hash bits, and its file is ``<key prefix>sitemap-<section>-r<bits>``
(``sitemap-products-r01.xml.gz``). A shard id without a space (``r01``) is from a layout before
sections; its file is ``sitemap-r01.xml.gz``, and the first run of a new layout replaces it.
"""

from __future__ import annotations

import re
from typing import Any, Final

from sitemap_updater.protocol.urls import Site
from sitemap_updater.sections import SectionRules
from sitemap_updater.sites import Sites
from sitemap_updater.store.items import Item, url_of
from sitemap_updater.store.keys import ATTR_SECTION
from sitemap_updater.store.shards import space_of_shard

#: the name of a section's file (what ``shard_file_key`` writes after the key prefix)
_SECTION_FILE: Final = re.compile(r"sitemap-([a-z0-9-]{1,32})-r[01]*\.xml\.gz")
#: the two parts of a layout's text (``Layout.text``)
_SITES: Final = "sites="
_RULES: Final = ";rules="


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


def section_of_file(key: str) -> str | None:
    """The section of a published file's key (``shard_file_key``'s inverse); None for any
    other key (an index, a News file, an empty-site file, a file from before sections)."""
    found = _SECTION_FILE.fullmatch(key[key.rfind("/") + 1 :])
    return None if found is None else found[1]


def key_prefix_of(key: str) -> str:
    """The host key prefix of an object key (``""`` at the bucket root)."""
    return key[: key.rfind("/") + 1]


class Layout:
    """Where a deployment publishes each URL: the listed sites and the section rules; files are
    listed under each host's own origin, or under ``public_base_url`` with their key prefix."""

    def __init__(self, sites: Sites, rules: SectionRules, public_base_url: str = "") -> None:
        self.sites = sites
        self.rules = rules
        self.public_base_url = public_base_url
        self._prefixes = {sites.key_prefix(site): site for site in sites}
        #: the space of every URL whose change names no section, when there is only one
        self._only_space = (
            f"{rules.section_of('/')}/" if len(sites) == 1 and not rules.rules else None
        )

    @classmethod
    def of(
        cls, site_url: str, rules: SectionRules, public_base_url: str, **site_options: Any
    ) -> Layout:
        """The layout of a deployment's settings; a public base equal to ``site_url`` (or
        empty) lists each host's files under its own origin."""
        sites = Sites.parse(site_url, **site_options)
        base = "" if public_base_url in ("", site_url) else public_base_url
        return cls(sites, rules, base)

    @property
    def text(self) -> str:
        """What the shard map records: a map of another layout is rebuilt in full."""
        origins = ",".join(site.origin for site in self.sites)
        return f"{_SITES}{origins}{_RULES}{self.rules.text()}"

    @classmethod
    def recorded(cls, text: str) -> Layout:
        """The layout whose :attr:`text` a shard map records (an origin holds no ``;``, so the
        sites end at the first ``;rules=``); its files are listed under each host's own origin,
        the text keeping no public base. Raises ``ValueError`` for any other text."""
        origins, found, rules = text.removeprefix(_SITES).partition(_RULES)
        if not text.startswith(_SITES) or not found:
            raise ValueError(f"{text!r} is not the text of a layout ({_SITES}...{_RULES}...)")
        return cls(Sites.parse(origins), SectionRules.parse(rules))

    def space_of(self, item: Item) -> str:
        """The space of a URL item (live or a tombstone): its host's and its section's."""
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
