"""Bing Webmaster API: submit a sitemap (``SubmitFeed``) and read what Bing found in it
(``GetFeeds``, ``GetFeedDetails``), with an API key.

``POST {api_root}/SubmitFeed?apikey=KEY`` with ``Content-Type: application/json;
charset=utf-8`` and the body ``{"siteUrl": ..., "feedUrl": ...}``; success is 200 with
``{"d": null}``
(https://learn.microsoft.com/en-us/dotnet/api/microsoft.bing.webmaster.api.interfaces.iwebmasterapi.submitfeed).
An error is a 4xx or 5xx whose JSON body is ``{"ErrorCode": n, "Message": "..."}``, ``n`` one of
the ``ApiErrorCode`` values (3 InvalidApiKey, 4 ThrottleUser, 5 ThrottleHost, 14 NotAuthorized,
...). The key is a query parameter: no log line or exception text ever holds it (nor the URL it
is in), in any case or encoding (``engines.redaction``).

``GET {api_root}/GetFeeds?siteUrl=...&apikey=KEY`` answers the site's top-level feeds (the
submitted sitemaps and indexes), ``GET {api_root}/GetFeedDetails?siteUrl=...&feedUrl=...&apikey=
KEY`` the feeds a submitted index lists, each as ``{"d": [Feed, ...]}``; a ``Feed`` has
``Compressed``, ``FileSize``, ``LastCrawled``, ``Status``, ``Submitted``, ``Type``, ``Url`` and
``UrlCount``, its times in the WCF JSON form ``/Date(milliseconds[+-hhmm])/``
(https://learn.microsoft.com/en-us/dotnet/api/microsoft.bing.webmaster.api.interfaces.feed).
That is all Bing's API says of a sitemap: no per-URL index state.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final
from urllib.parse import quote, urlencode

from sitemap_updater.bounded_http import Deadline
from sitemap_updater.engines.exceptions import EngineError, error_for
from sitemap_updater.engines.fetching import SECURE_RULE, Answer, FetchFailed, fetch, secure
from sitemap_updater.engines.redaction import redact

API_ROOT: Final = "https://ssl.bing.com/webmaster/api.svc/json"
ENGINE: Final = "bing"
OPERATION: Final = "SubmitFeed"
#: ``ApiErrorCode`` values, by what they mean for a later attempt.
QUOTA_CODES: Final = frozenset({4, 5})  # ThrottleUser, ThrottleHost
CREDENTIAL_CODES: Final = frozenset({3, 6, 10, 14})  # InvalidApiKey, UserBlocked, ...NotAuthorized
LATER_CODES: Final = frozenset({1, 2})  # InternalError, UnknownError
MAX_ANSWER_BYTES: Final = 64 * 1024
#: Most bytes of a feed list read (an index of 50,000 files is far more; a site's is not)
MAX_FEEDS_BYTES: Final = 4 * 1024 * 1024
_WCF_DATE: Final = re.compile(r"/Date\((-?\d+)([+-]\d{4})?\)/")


@dataclass(frozen=True, slots=True)
class BingFeed:
    """What Bing reports of one sitemap (or index) it knows for a site."""

    url: str
    #: Bing's word for the last fetch (``Success``, ``Pending``, an error's name ...)
    status: str
    type: str
    url_count: int | None
    last_crawled: datetime | None
    submitted: datetime | None


class UnreadableFeeds(EngineError):
    """A successful answer whose JSON is not the documented list of feeds."""


def wcf_date(value: object) -> datetime | None:
    """A WCF JSON date (``/Date(1316156400000-0700)/``: milliseconds since the epoch, UTC; the
    offset only says the server's zone) as a time; None for none or another form."""
    match = _WCF_DATE.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        return None
    moment = datetime.fromtimestamp(int(match.group(1)) / 1000, UTC)
    return None if moment.year < 1971 else moment  # DateTime.MinValue: never


def _feed(operation: str, value: object) -> BingFeed:
    if not isinstance(value, dict) or not isinstance(value.get("Url"), str):
        raise UnreadableFeeds(ENGINE, operation, 200, "the answer holds a feed without a Url")
    count = value.get("UrlCount")
    return BingFeed(
        url=value["Url"],
        status=str(value.get("Status") or ""),
        type=str(value.get("Type") or ""),
        url_count=count if isinstance(count, int) and not isinstance(count, bool) else None,
        last_crawled=wcf_date(value.get("LastCrawled")),
        submitted=wcf_date(value.get("Submitted")),
    )


def feed_list(operation: str, body: bytes) -> list[BingFeed]:
    """A ``{"d": [Feed, ...]}`` answer (``"d": null``: none)."""
    try:
        value = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise UnreadableFeeds(ENGINE, operation, 200, "the answer is not JSON") from None
    entries: Any = value.get("d") if isinstance(value, dict) else None
    if entries is None:
        return []
    if not isinstance(entries, list):
        raise UnreadableFeeds(ENGINE, operation, 200, "the answer's d is not a list")
    return [_feed(operation, entry) for entry in entries]


class BingWebmaster:
    """A client of the Bing Webmaster API. ``deadline_seconds`` bounds each request;
    failures raise :class:`~sitemap_updater.engines.exceptions.EngineError` subclasses."""

    def __init__(
        self, api_key: str, *, api_root: str = API_ROOT, deadline_seconds: float = 10.0
    ) -> None:
        if not secure(api_root):
            reason = f"api_root={api_root!r} {SECURE_RULE}"
            raise EngineError(ENGINE, "configuration", None, reason)
        if not api_key or not api_key.isascii() or not api_key.isprintable():
            raise EngineError(ENGINE, "configuration", None, "the API key is empty or not text")
        self._api_key = api_key
        self._api_root = api_root.rstrip("/")
        self._deadline_seconds = deadline_seconds

    def __repr__(self) -> str:
        return f"BingWebmaster(api_root={self._api_root!r})"

    def secrets(self) -> list[str]:
        """The credential a text may hold: the API key."""
        return [self._api_key]

    def redact(self, text: str) -> str:
        """``text`` without the key (in any case and encoding) or any Bearer value."""
        return redact(text, self.secrets())

    def _request(
        self,
        operation: str,
        query: dict[str, str],
        *,
        body: bytes | None = None,
        max_bytes: int = MAX_ANSWER_BYTES,
    ) -> Answer:
        parameters = urlencode({**query, "apikey": self._api_key}, quote_via=quote)
        url = f"{self._api_root}/{operation}?{parameters}"
        headers = {"Content-Type": "application/json; charset=utf-8"} if body is not None else {}
        try:
            answer = fetch(
                url,
                deadline=Deadline(self._deadline_seconds),
                max_bytes=max_bytes,
                method="POST" if body is not None else "GET",
                body=body,
                headers=headers,
            )
        except FetchFailed as error:
            raise error_for(ENGINE, operation, None, self.redact(error.reason)) from None
        if not 200 <= answer.status < 300:
            raise self._error(operation, answer.status, answer.body)
        return answer

    def submit_feed(self, site_url: str, feed_url: str) -> None:
        """Submit the sitemap ``feed_url`` for the verified site ``site_url``. Idempotent."""
        body = json.dumps({"siteUrl": site_url, "feedUrl": feed_url}).encode("utf-8")
        self._request(OPERATION, {}, body=body)

    def feeds(self, site_url: str) -> list[BingFeed]:
        """The site's top-level feeds (``GetFeeds``): its submitted sitemaps and indexes."""
        answer = self._request("GetFeeds", {"siteUrl": site_url}, max_bytes=MAX_FEEDS_BYTES)
        return feed_list("GetFeeds", answer.body)

    def feed_details(self, site_url: str, feed_url: str) -> list[BingFeed]:
        """The feeds the submitted index ``feed_url`` lists (``GetFeedDetails``)."""
        query = {"siteUrl": site_url, "feedUrl": feed_url}
        answer = self._request("GetFeedDetails", query, max_bytes=MAX_FEEDS_BYTES)
        return feed_list("GetFeedDetails", answer.body)

    def _error(self, operation: str, status: int, body: bytes) -> EngineError:
        code, message = None, f"HTTP {status}"
        try:
            value = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            value = None
        if isinstance(value, dict):
            code = value.get("ErrorCode")
            message = str(value.get("Message") or message)
        reason = self.redact(message if code is None else f"{message} (ErrorCode {code})")
        return error_for(
            ENGINE,
            operation,
            status,
            reason,
            quota=code in QUOTA_CODES,
            credentials=code in CREDENTIAL_CODES,
            later=code in LATER_CODES,
        )
