"""The site a URL belongs to: its origin, and the hosts and origins its media and hreflang
alternates may point to."""

from __future__ import annotations

from dataclasses import dataclass

from sitemap_updater.protocol.errors import ForeignHostError, InvalidUrlError
from sitemap_updater.protocol.urls.normal_form import normal_form


def origin_of(url: str) -> str:
    """The ``scheme://host[:port]`` a URL of the form ``scheme://authority/...`` starts with
    (the text up to the first ``/`` after its ``//``); any other text is returned whole."""
    start = url.find("//")
    end = url.find("/", start + 2) if start >= 0 else -1
    return url[:end] if end >= 0 else url


def host_of(url: str) -> str:
    """The host of a normalized URL (``scheme://host[:port]/...``), without its port."""
    authority = url.split("/", 3)[2]
    colon = authority.rfind(":")
    return authority[:colon] if colon > authority.rfind("]") else authority


@dataclass(frozen=True, slots=True)
class Site:
    """The one scheme, host and port that every ``loc`` of the site must have, the hosts
    its images and videos may live on (``media_hosts``: besides the site's own host; ``None``:
    any host), and the origins its hreflang alternates may point to (``alternate_origins``:
    besides the site's own origin; ``None``: any origin)."""

    origin: str
    media_hosts: frozenset[str] | None = None
    alternate_origins: frozenset[str] | None = frozenset()

    @classmethod
    def parse(cls, raw: str, media_hosts: frozenset[str] | None = None) -> Site:
        """``Site.parse("https://www.example.com")``; a path other than ``/``, a query or a
        fragment is an error (the site is an origin)."""
        if not isinstance(raw, str):
            raise InvalidUrlError("site", raw, "must be a string")
        if "#" in raw or "?" in raw:
            raise InvalidUrlError("site", raw, "must be scheme://host[:port], without query")
        url = normal_form(raw if raw.endswith("/") else raw + "/", "site")
        origin = url[:-1]
        if origin.count("/") != 2:
            raise InvalidUrlError("site", raw, "must be scheme://host[:port], without a path")
        return cls(origin, media_hosts)

    def media_ok(self, url: str) -> bool:
        """Whether an image or video may live at the normalized ``url``: any host when no media
        hosts are set, else the site's own host or one of them."""
        hosts = self.media_hosts
        if hosts is None:
            return True
        host = host_of(url)
        return host in hosts or host == host_of(self.root_url)

    def check_media(self, url: str, *, field: str, value: object = None) -> None:
        """Raise :class:`ForeignHostError` unless an image or video may live at ``url``."""
        if not self.media_ok(url):
            allowed = ", ".join(sorted({host_of(self.root_url), *(self.media_hosts or ())}))
            raise ForeignHostError(
                field,
                url if value is None else value,
                f"must be on the site's host or a media host (MEDIA_HOSTS): {allowed}",
            )

    @property
    def root_url(self) -> str:
        return self.origin + "/"

    def owns(self, url: str) -> bool:
        """Whether the normalized ``url`` has this site's scheme, host and port."""
        return url.startswith(self.origin) and url[len(self.origin) : len(self.origin) + 1] == "/"

    def alternate_ok(self, url: str) -> bool:
        """Whether an hreflang alternate may point to the normalized ``url``: the site's own
        origin, one of ``alternate_origins``, or any origin when that is ``None``."""
        origins = self.alternate_origins
        return self.owns(url) or origins is None or origin_of(url) in origins

    def check_alternate(self, url: str, *, field: str, value: object = None) -> None:
        """Raise :class:`ForeignHostError` unless an hreflang alternate may point to ``url``."""
        if self.alternate_ok(url):
            return
        if not self.alternate_origins:  # the site alone: the rule (and words) of its locs
            self.check(url, field=field, value=value)
        listed = ", ".join(sorted({self.origin, *(self.alternate_origins or ())}))
        rule = f"must be on one of the sites (SITE_URL): {listed} (same scheme, host and port)"
        raise ForeignHostError(field, url if value is None else value, rule)

    def check(self, url: str, *, field: str = "loc", value: object = None) -> None:
        """Raise :class:`ForeignHostError` unless the normalized ``url`` is on this site."""
        if not self.owns(url):
            raise ForeignHostError(
                field,
                url if value is None else value,
                f"must be on {self.origin} (same scheme, host and port as the site)",
            )
