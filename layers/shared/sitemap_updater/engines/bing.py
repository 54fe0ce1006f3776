"""Bing Webmaster API: submit a sitemap (``SubmitFeed``) with an API key.

``POST {api_root}/SubmitFeed?apikey=KEY`` with the JSON body ``{"siteUrl": ..., "feedUrl": ...}``
(https://learn.microsoft.com/en-us/dotnet/api/microsoft.bing.webmaster.api.interfaces.iwebmasterapi.submitfeed).
The key is a query parameter: it is never written to a log line or an exception's text.
"""

from __future__ import annotations

from typing import Final

API_ROOT: Final = "https://ssl.bing.com/webmaster/api.svc/json"
ENGINE: Final = "bing"


class BingWebmaster:
    """A client of the Bing Webmaster API. ``deadline_seconds`` bounds each request;
    failures raise :class:`~sitemap_updater.engines.exceptions.EngineError` subclasses."""

    def __init__(
        self, api_key: str, *, api_root: str = API_ROOT, deadline_seconds: float = 10.0
    ) -> None:
        raise NotImplementedError

    def submit_feed(self, site_url: str, feed_url: str) -> None:
        """Submit the sitemap ``feed_url`` for the verified site ``site_url``. Idempotent."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"BingWebmaster(api_root={getattr(self, '_api_root', API_ROOT)!r})"
