"""Google Search Console: submit a sitemap, read its status, inspect a URL.

Endpoints (https://developers.google.com/webmaster-tools/v1/api_reference_index):

- ``PUT  {api_root}/webmasters/v3/sites/{siteUrl}/sitemaps/{feedpath}``: sitemaps.submit;
- ``GET  {api_root}/webmasters/v3/sites/{siteUrl}/sitemaps/{feedpath}``: sitemaps.get;
- ``GET  {api_root}/webmasters/v3/sites/{siteUrl}/sitemaps``: sitemaps.list;
- ``POST {api_root}/v1/urlInspection/index:inspect``: URL Inspection.

The Search Console API's own host serves all four (``www.googleapis.com`` serves the first three
too), so one root is enough.

``siteUrl`` and ``feedpath`` are percent-encoded whole (``/`` too). The service account signs a
JWT that the key file's ``token_uri`` exchanges for an access token with the scope
:data:`SCOPE` (``google-auth`` does both). ``contents[].indexed`` is deprecated and never read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

#: The one OAuth scope every call needs (read and write of the properties the account may use).
SCOPE: Final = "https://www.googleapis.com/auth/webmasters"
#: Where the Search Console API lives (``/webmasters/v3/...`` and ``/v1/...`` follow).
API_ROOT: Final = "https://searchconsole.googleapis.com"
ENGINE: Final = "search-console"


@dataclass(frozen=True, slots=True)
class SitemapStatus:
    """What Search Console knows of one submitted sitemap (or sitemap index)."""

    path: str
    last_downloaded: datetime | None
    last_submitted: datetime | None
    is_pending: bool
    errors: int
    warnings: int
    #: URLs (or images, videos, ...) Google found in it, by content type (``web``, ``image``...)
    submitted: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Inspection:
    """The index status of one URL, as the URL Inspection API reports it."""

    url: str
    #: ``PASS`` (on Google), ``PARTIAL``, ``FAIL``, ``NEUTRAL`` or ``VERDICT_UNSPECIFIED``
    verdict: str
    #: Google's words, e.g. ``Submitted and indexed``, ``Crawled - currently not indexed``
    coverage_state: str
    #: ``INDEXING_ALLOWED``, ``BLOCKED_BY_META_TAG``, ``BLOCKED_BY_HTTP_HEADER``, ...
    indexing_state: str
    google_canonical: str | None
    user_canonical: str | None
    last_crawl_time: datetime | None
    #: the sitemaps Google found the URL in
    sitemaps: tuple[str, ...] = ()

    @property
    def indexed(self) -> bool:
        """Whether the URL is on Google (verdict ``PASS``)."""
        return self.verdict == "PASS"


class SearchConsole:
    """A client of the Search Console APIs, signed in as a service account.

    ``service_account_info`` is the parsed JSON key of the service account (its ``token_uri``
    says where tokens come from; tests point it, and ``api_root``, at 127.0.0.1).
    ``deadline_seconds`` bounds each request, the token's included. Failures raise
    :class:`~sitemap_updater.engines.exceptions.EngineError` subclasses."""

    def __init__(
        self,
        service_account_info: Mapping[str, Any],
        *,
        api_root: str = API_ROOT,
        deadline_seconds: float = 10.0,
    ) -> None:
        raise NotImplementedError

    def submit(self, site_url: str, feed_url: str) -> None:
        """Submit ``feed_url`` (a sitemap or sitemap index) for the property ``site_url``
        (``https://www.example.com/`` or ``sc-domain:example.com``). Idempotent."""
        raise NotImplementedError

    def sitemap(self, site_url: str, feed_url: str) -> SitemapStatus:
        """The status of one submitted sitemap."""
        raise NotImplementedError

    def sitemaps(self, site_url: str) -> list[SitemapStatus]:
        """The status of every sitemap submitted for the property."""
        raise NotImplementedError

    def inspect(self, site_url: str, page_url: str) -> Inspection:
        """The index status of ``page_url`` in the property ``site_url`` (one of the
        property's daily 2,000 and per-minute 600 inspections)."""
        raise NotImplementedError
