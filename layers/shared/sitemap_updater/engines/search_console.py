"""Google Search Console: submit a sitemap, read its status, inspect a URL.

Endpoints (https://developers.google.com/webmaster-tools/v1/api_reference_index):

- ``PUT  {api_root}/webmasters/v3/sites/{siteUrl}/sitemaps/{feedpath}``: sitemaps.submit;
- ``GET  {api_root}/webmasters/v3/sites/{siteUrl}/sitemaps``: sitemaps.list, and with
  ``?sitemapIndex={index URL}`` the sitemaps a submitted index lists, each with what Google
  found in it (``sitemaps.get``, which knows only the sitemaps submitted themselves and answers
  404 for the files of an index, is not used);
- ``POST {api_root}/v1/urlInspection/index:inspect``: URL Inspection.

The Search Console API's own host serves all three (``www.googleapis.com`` serves the first two
too), so one root is enough. ``siteUrl`` and ``feedpath`` are percent-encoded whole (``/``
too). The service account signs a JWT that the key file's ``token_uri`` exchanges for an access
token with the scope :data:`SCOPE` (``google-auth`` does both; :mod:`.google_transport` carries
its requests). ``contents[].indexed`` is deprecated and never read.

No text of an error holds the access token or any ``Bearer`` value (``engines.redaction``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import quote

import google.auth.exceptions
from google.oauth2 import service_account

from sitemap_updater.engines.console_answers import (
    ENGINE,
    Inspection,
    SitemapStatus,
    decode,
    error_of,
    inspection,
    sitemap_list,
)
from sitemap_updater.engines.exceptions import CredentialsRefused, EngineError, error_for
from sitemap_updater.engines.fetching import SECURE_RULE, secure
from sitemap_updater.engines.google_transport import BoundedRequest, RetryLater
from sitemap_updater.engines.redaction import redact
from sitemap_updater.protocol.urls import origin_of

__all__ = ["API_ROOT", "SCOPE", "Inspection", "SearchConsole", "SitemapStatus"]

#: The one OAuth scope every call needs (read and write of the properties the account may use).
SCOPE: Final = "https://www.googleapis.com/auth/webmasters"
#: Where the Search Console API lives (``/webmasters/v3/...`` and ``/v1/...`` follow).
API_ROOT: Final = "https://searchconsole.googleapis.com"
#: The language of the inspection's human-readable parts (the fields read here are codes).
INSPECTION_LANGUAGE: Final = "en-US"


def _secure(operation: str, url: str, field: str) -> str:
    if not secure(url):
        raise EngineError(ENGINE, operation, None, f"{field}={url!r} {SECURE_RULE}")
    return url


class SearchConsole:
    """A client of the Search Console APIs, signed in as a service account.

    ``service_account_info`` is the parsed JSON key of the service account (its ``token_uri``
    says where tokens come from; tests point it, and ``api_root``, at 127.0.0.1).
    ``deadline_seconds`` bounds each request, the token's included. Failures raise
    :class:`~sitemap_updater.engines.exceptions.EngineError` subclasses; a key google-auth
    cannot read raises :class:`CredentialsRefused` here, without any of the key's text."""

    def __init__(
        self,
        service_account_info: Mapping[str, Any],
        *,
        api_root: str = API_ROOT,
        deadline_seconds: float = 10.0,
    ) -> None:
        self._root = _secure("configuration", api_root.rstrip("/"), "api_root")
        token_uri = service_account_info.get("token_uri")
        if not isinstance(token_uri, str):
            raise CredentialsRefused(ENGINE, "credentials", None, "the key has no token_uri")
        _secure("configuration", token_uri, "token_uri")
        try:
            from_info = service_account.Credentials.from_service_account_info
            credentials = from_info(service_account_info, scopes=[SCOPE])  # type: ignore[no-untyped-call]
        except (ValueError, KeyError, TypeError, google.auth.exceptions.GoogleAuthError):
            reason = "the service-account key is not one google-auth can read (fields or key)"
            raise CredentialsRefused(ENGINE, "credentials", None, reason) from None
        self._credentials = credentials
        self._token_request = BoundedRequest(
            deadline_seconds, {origin_of(token_uri)}, token_endpoint=True
        )
        self._request = BoundedRequest(deadline_seconds, {origin_of(self._root)})

    def __repr__(self) -> str:
        email = getattr(self._credentials, "service_account_email", "?")
        return f"SearchConsole({email!r}, api_root={self._root!r})"

    def _sitemaps_url(self, site_url: str, feed_url: str | None = None) -> str:
        url = f"{self._root}/webmasters/v3/sites/{quote(site_url, safe='')}/sitemaps"
        return url if feed_url is None else f"{url}/{quote(feed_url, safe='')}"

    def secrets(self) -> list[str]:
        """The credentials a text may hold: the current access token (None before the first)."""
        token = getattr(self._credentials, "token", None)
        return [token] if isinstance(token, str) and token else []

    def redact(self, text: str) -> str:
        """``text`` without the access token or any Bearer value."""
        return redact(text, self.secrets())

    def _authorize(self, operation: str, method: str, url: str, headers: dict[str, str]) -> None:
        try:
            self._credentials.before_request(self._token_request, method, url, headers)
        except RetryLater as error:
            answer = error.answer
            named = f"{operation} (token)"
            raise error_of(
                named, answer.status, answer.body, dict(answer.fields), secrets=self.secrets()
            ) from None
        except google.auth.exceptions.TransportError as error:
            reason = self.redact(str(error))
            raise error_for(ENGINE, f"{operation} (token)", None, reason) from None
        except google.auth.exceptions.RefreshError as error:
            # the token endpoint refused the signed assertion: a wrong or revoked key
            reason = str(error.args[0]) if error.args else "the token endpoint refused the key"
            reason = self.redact(reason)
            raise CredentialsRefused(ENGINE, f"{operation} (token)", None, reason) from None

    def _call(
        self, operation: str, method: str, url: str, payload: object = None
    ) -> dict[str, Any]:
        """One authorized request; a 401 refreshes the token once and asks again."""
        body = b"" if payload is None else json.dumps(payload).encode("utf-8")
        for attempt in (1, 2):
            headers = {"Accept": "application/json"}
            if payload is not None:
                headers["Content-Type"] = "application/json; charset=utf-8"
            if attempt == 2:
                self._credentials.token = None  # make before_request fetch a new one
            self._authorize(operation, method, url, headers)
            try:
                answer = self._request(url, method, body if method != "GET" else None, headers)
            except google.auth.exceptions.TransportError as error:
                raise error_for(ENGINE, operation, None, self.redact(str(error))) from None
            if answer.status != 401:
                break
        if not 200 <= answer.status < 300:
            raise error_of(
                operation, answer.status, answer.data, answer.headers, secrets=self.secrets()
            )
        return decode(operation, answer.status, answer.data)

    def submit(self, site_url: str, feed_url: str) -> None:
        """Submit ``feed_url`` (a sitemap or sitemap index) for the property ``site_url``
        (``https://www.example.com/`` or ``sc-domain:example.com``). Idempotent."""
        self._call("sitemaps.submit", "PUT", self._sitemaps_url(site_url, feed_url))

    def sitemaps(self, site_url: str, sitemap_index: str | None = None) -> list[SitemapStatus]:
        """The status of every sitemap submitted for the property, or with ``sitemap_index``
        of every sitemap that submitted index lists (as Google last read it)."""
        url = self._sitemaps_url(site_url)
        if sitemap_index is not None:
            url += f"?sitemapIndex={quote(sitemap_index, safe='')}"
        value = self._call("sitemaps.list", "GET", url)
        return sitemap_list("sitemaps.list", value)

    def inspect(self, site_url: str, page_url: str) -> Inspection:
        """The index status of ``page_url`` in the property ``site_url`` (one of the
        property's daily 2,000 and per-minute 600 inspections)."""
        payload = {
            "inspectionUrl": page_url,
            "siteUrl": site_url,
            "languageCode": INSPECTION_LANGUAGE,
        }
        url = f"{self._root}/v1/urlInspection/index:inspect"
        value = self._call("urlInspection.index.inspect", "POST", url, payload)
        return inspection("urlInspection.index.inspect", page_url, value)
