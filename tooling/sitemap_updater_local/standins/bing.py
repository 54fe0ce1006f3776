"""The Bing Webmaster API's ``SubmitFeed``, ``GetFeeds`` and ``GetFeedDetails`` on 127.0.0.1,
answering as Bing documents.

```python
with BingStandIn(keys={"k3y"}, sites={"https://www.example.com/"}) as bing:
    client = BingWebmaster("k3y", api_root=bing.api_root)
    bing.feeds                     # [(siteUrl, feedUrl), ...] accepted, in order
    bing.crawled(feed, when=..., files={file_url: 120})   # as if Bing fetched an index
    bing.fail(Failure.QUOTA)       # the next request: ErrorCode 4 (ThrottleUser)
```

Success is 200 with ``{"d": ...}`` (``null`` for a submission, a list of ``Feed`` objects for
``GetFeeds``, the site's submitted feeds, and ``GetFeedDetails``, the files of a submitted
index, each with ``Url``, ``Status``, ``UrlCount``, ``LastCrawled`` and ``Submitted`` as WCF JSON
dates, ``/Date(milliseconds)/``); a refusal is 400 with ``{"ErrorCode": n, "Message": "ERROR!!!
Name"}`` (``ApiErrorCode``: 3 InvalidApiKey, 4 ThrottleUser, 7 InvalidUrl, 14 NotAuthorized
...).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

from sitemap_updater_local.standins.loopback import (
    Failure,
    LoopbackServer,
    Reply,
    Request,
    json_reply,
)

PREFIX: Final = "/webmaster/api.svc/json/"
ERROR_CODES: Final = {
    "InternalError": 1,
    "InvalidApiKey": 3,
    "ThrottleUser": 4,
    "InvalidUrl": 7,
    "InvalidParameter": 8,
    "NotFound": 11,
    "NotAuthorized": 14,
}


def _fault(name: str, status: int = 400) -> Reply:
    return json_reply(status, {"ErrorCode": ERROR_CODES[name], "Message": f"ERROR!!! {name}"})


def wcf(moment: datetime | None) -> str | None:
    """A time in the WCF JSON form Bing answers with."""
    return None if moment is None else f"/Date({round(moment.timestamp() * 1000)})/"


@dataclass
class FeedRecord:
    """A feed as Bing knows it: when it was submitted and last fetched, what it found."""

    url: str
    submitted: datetime | None = None
    last_crawled: datetime | None = None
    status: str = "Pending"
    url_count: int = 0

    def resource(self) -> dict[str, Any]:
        return {
            "__type": "Feed:#Microsoft.Bing.Webmaster.Api",
            "Compressed": self.url.endswith(".gz"),
            "FileSize": 0,
            "LastCrawled": wcf(self.last_crawled),
            "Status": self.status,
            "Submitted": wcf(self.submitted),
            "Type": "Sitemap",
            "Url": self.url,
            "UrlCount": self.url_count,
        }


class BingStandIn(LoopbackServer):
    """Bing Webmaster for the API ``keys``, whose account has verified ``sites`` (None: any)."""

    def __init__(
        self,
        *,
        keys: Iterable[str],
        sites: Iterable[str] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__()
        self.clock = clock
        #: the message of the error ``fail(Failure.ERROR)`` makes (None: Bing's own words), and
        #: whether it quotes the request's API key back
        self.error_message: str | None = None
        self.echo_credentials = False
        self.keys = set(keys)
        self.sites = None if sites is None else set(sites)
        self.feeds: list[tuple[str, str]] = []
        #: what Bing found of each submitted feed, and of the files of an index
        self.records: dict[str, FeedRecord] = {}
        self.files: dict[str, list[FeedRecord]] = {}

    @property
    def api_root(self) -> str:
        return self.url + PREFIX.rstrip("/")

    def failure_reply(self, failure: Failure, request: Request) -> Reply:
        if failure in (Failure.QUOTA, Failure.RATE):
            return _fault("ThrottleUser")
        if failure is Failure.UNAVAILABLE:
            return Reply(503, b"Service Unavailable", {"Content-Type": "text/plain"})
        message = self.error_message
        if self.echo_credentials:  # as an error that quotes the request back may
            message = (
                f"{message or 'ERROR!!! InvalidParameter'} (apikey={request.query.get('apikey')})"
            )
        if message is not None:
            code = ERROR_CODES["InvalidParameter"]
            return json_reply(400, {"ErrorCode": code, "Message": message})
        return _fault("InvalidParameter")

    def crawled(self, feed_url: str, *, when: datetime, files: dict[str, int]) -> None:
        """Bing fetched the submitted index ``feed_url`` and its ``files`` (URL -> URLs)."""
        record = self.records[feed_url]
        record.last_crawled, record.status = when, "Success"
        record.url_count = sum(files.values())
        self.files[feed_url] = [
            FeedRecord(url, record.submitted, when, "Success", count)
            for url, count in files.items()
        ]

    def _read(self, request: Request) -> Reply:
        operation = request.path.removeprefix(PREFIX)
        site = request.query.get("siteUrl", [""])[0]
        if self.sites is not None and site not in self.sites:
            return _fault("NotAuthorized")
        mine = [self.records[feed] for s, feed in dict.fromkeys(self.feeds) if s == site]
        if operation == "GetFeeds":
            return json_reply(200, {"d": [record.resource() for record in mine]})
        feed = request.query.get("feedUrl", [""])[0]
        if feed not in {record.url for record in mine}:
            return _fault("NotFound", 400)
        return json_reply(200, {"d": [f.resource() for f in self.files.get(feed, [])]})

    def answer(self, request: Request) -> Reply:
        operation = request.path.removeprefix(PREFIX)
        if not request.path.startswith(PREFIX) or operation not in {
            "SubmitFeed",
            "GetFeeds",
            "GetFeedDetails",
        }:
            return _fault("NotFound", 404)
        if request.query.get("apikey", [""])[0] not in self.keys:
            return _fault("InvalidApiKey")
        if operation != "SubmitFeed":
            if request.method != "GET":
                return Reply(405, b"Method Not Allowed", {"Allow": "GET"})
            return self._read(request)
        if request.method != "POST":
            return Reply(405, b"Method Not Allowed", {"Allow": "POST"})
        body = request.json()
        site, feed = (
            (body.get("siteUrl"), body.get("feedUrl")) if isinstance(body, dict) else (0, 0)
        )
        if not isinstance(site, str) or not isinstance(feed, str):
            return _fault("InvalidParameter")
        if self.sites is not None and site not in self.sites:
            return _fault("NotAuthorized")
        if not feed.startswith(site.rstrip("/") + "/"):
            return _fault("InvalidUrl")
        self.feeds.append((site, feed))
        self.records.setdefault(feed, FeedRecord(feed, datetime.fromtimestamp(self.clock(), UTC)))
        return json_reply(200, {"d": None})
