"""The sites of one deployment: the origins ``SITE_URL`` lists, the first of them the primary.

``SITE_URL`` holds one origin or a comma-separated list of them
(``https://www.example.com,https://www.example.de``). Every loc is on one of them; each site's
files are published apart (the primary's at the bucket root, every other one's under its host,
:meth:`Sites.key_prefix`). An hreflang alternate may point to any listed site (or, with
``alternates_any_host``, to any origin): each :class:`Site` of the list carries the other
origins as its ``alternate_origins``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from functools import lru_cache

from sitemap_updater.protocol.errors import ForeignHostError, InvalidUrlError
from sitemap_updater.protocol.urls import Site, host_of


def media_hosts_of(text: str) -> frozenset[str] | None:
    """The media hosts a setting names: ``*`` for any host (``None``), else the hosts of a
    comma-separated list, normalized as a URL's host is (empty: none but the site's own)."""
    if text.strip() == "*":
        return None
    hosts = set()
    for raw in filter(None, (part.strip() for part in text.split(","))):
        if any(char in raw for char in "/?#@:[]"):
            raise InvalidUrlError("media host", raw, "must be a host name alone")
        try:
            hosts.add(host_of(Site.parse(f"https://{raw}").root_url))
        except InvalidUrlError as exc:
            raise InvalidUrlError("media host", raw, f"must be a host name: {exc.rule}") from None
    return frozenset(hosts)


class Sites:
    """The listed sites, in list order (:attr:`all`); :attr:`primary` is the first."""

    __slots__ = ("_by_origin", "_listed", "_only_root", "all", "primary")

    def __init__(self, sites: Sequence[Site]) -> None:
        if not sites:
            raise ValueError("a deployment has at least one site")
        self.all: tuple[Site, ...] = tuple(sites)
        self.primary: Site = self.all[0]
        self._by_origin = {site.origin: site for site in self.all}
        #: the root URL of the one site of a list of one (its test is one ``startswith``)
        self._only_root = self.primary.root_url if len(self.all) == 1 else None
        self._listed = ", ".join(site.origin for site in self.all)

    @classmethod
    def parse(
        cls,
        raw: str,
        media_hosts: frozenset[str] | None = None,
        *,
        alternates_any_host: bool = False,
    ) -> Sites:
        """The sites of a ``SITE_URL`` text: one origin or a comma-separated list of them.

        Raises :class:`InvalidUrlError` naming the entry for an entry that is empty or not an
        origin (``Site.parse``), or whose host an earlier entry already has."""
        if not isinstance(raw, str):
            raise InvalidUrlError("site", raw, "must be a string")
        entries = [entry.strip() for entry in raw.split(",")]
        parsed: list[Site] = []
        hosts: dict[str, str] = {}
        for number, entry in enumerate(entries, start=1):
            if not entry:
                raise InvalidUrlError(
                    "site",
                    raw,
                    f"entry {number} of {len(entries)} is empty: must be one origin or a "
                    "comma-separated list of origins (scheme://host[:port])",
                )
            where = f"entry {number} of {len(entries)}: " if len(entries) > 1 else ""
            try:
                site = Site.parse(entry, media_hosts)
            except InvalidUrlError as exc:
                raise InvalidUrlError("site", entry, where + exc.rule) from None
            host = host_of(site.root_url)
            if host in hosts:
                raise InvalidUrlError(
                    "site", entry, f"{where}host {host} is listed twice (also as {hosts[host]})"
                )
            hosts[host] = entry
            parsed.append(site)
        origins = frozenset(site.origin for site in parsed)
        return cls(
            [
                dataclasses.replace(
                    site,
                    alternate_origins=None if alternates_any_host else origins - {site.origin},
                )
                for site in parsed
            ]
        )

    def __len__(self) -> int:
        return len(self.all)

    def __iter__(self) -> Iterator[Site]:
        return iter(self.all)

    def __repr__(self) -> str:
        return f"Sites({self._listed})"

    def site_of(self, url: str) -> Site | None:
        """The listed site that owns the normalized ``url`` (``None``: none does). Any other
        text may be given: ``None`` then only says that it is not a normalized URL of a site."""
        only = self._only_root
        if only is not None:
            return self.primary if url.startswith(only) else None
        # the origin ends at the first "/" after "scheme://" (the 8th character at the earliest)
        end = url.find("/", 8)
        return self._by_origin.get(url[:end]) if end > 0 else None

    def owner(self, url: str, *, field: str = "loc", value: object = None) -> Site:
        """The listed site that owns the normalized ``url``; :class:`ForeignHostError` naming
        ``field``, the value and the listed origins when none does."""
        site = self.site_of(url)
        if site is not None:
            return site
        if len(self.all) == 1:  # the words of the site alone
            self.primary.check(url, field=field, value=value)
        raise ForeignHostError(
            field,
            url if value is None else value,
            f"must be on one of the sites (SITE_URL): {self._listed} (same scheme, host and port)",
        )

    def key_prefix(self, site: Site) -> str:
        """Where ``site``'s objects live in the bucket: ``""`` (the root) for the primary, else
        its host (no scheme, no port) and ``/``."""
        return "" if site.origin == self.primary.origin else host_of(site.root_url) + "/"


@lru_cache(maxsize=16)
def sites_of(site: Site) -> Sites:
    """The list of the one site ``site`` (as it is: its ``alternate_origins`` are kept)."""
    return Sites([site])
