"""The list of site origins a deployment serves; the first is the primary host."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from sitemap_updater.protocol.errors import InvalidUrlError
from sitemap_updater.protocol.urls import Site, host_of


@dataclass(frozen=True, slots=True)
class Sites:
    """Listed sites, in order; objects of the primary (first) keep the bucket root, the others'
    live under ``<host>/``."""

    all: tuple[Site, ...]

    @classmethod
    def parse(
        cls,
        raw: str,
        media_hosts: frozenset[str] | None = None,
        *,
        alternates_any_host: bool = False,
    ) -> Sites:
        del alternates_any_host
        sites: list[Site] = []
        hosts: set[str] = set()
        for position, entry in enumerate(part.strip() for part in raw.split(",")):
            if not entry:
                raise InvalidUrlError(f"site[{position}]", raw, "must not be empty")
            site = Site.parse(entry, media_hosts)
            host = host_of(site.root_url)
            if host in hosts:
                raise InvalidUrlError(f"site[{position}]", entry, "repeats a listed host")
            hosts.add(host)
            sites.append(site)
        return cls(tuple(sites))

    @property
    def primary(self) -> Site:
        return self.all[0]

    def site_of(self, url: str) -> Site | None:
        for site in self.all:
            if site.owns(url):
                return site
        return None

    def key_prefix(self, site: Site) -> str:
        return "" if site == self.primary else host_of(site.root_url) + "/"

    def __iter__(self) -> Iterator[Site]:
        return iter(self.all)

    def __len__(self) -> int:
        return len(self.all)
