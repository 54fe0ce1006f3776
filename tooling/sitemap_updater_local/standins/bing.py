"""The Bing Webmaster API's ``SubmitFeed`` on 127.0.0.1, answering as Bing documents.

```python
with BingStandIn(keys={"k3y"}, sites={"https://www.example.com/"}) as bing:
    client = BingWebmaster("k3y", api_root=bing.api_root)
    bing.feeds                     # [(siteUrl, feedUrl), ...] accepted, in order
    bing.fail(Failure.QUOTA)       # the next request: ErrorCode 4 (ThrottleUser)
```

Success is 200 with ``{"d": null}``; a refusal is 400 with ``{"ErrorCode": n, "Message":
"ERROR!!! Name"}`` (``ApiErrorCode``: 3 InvalidApiKey, 4 ThrottleUser, 7 InvalidUrl,
14 NotAuthorized ...).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

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


class BingStandIn(LoopbackServer):
    """Bing Webmaster for the API ``keys``, whose account has verified ``sites`` (None: any)."""

    def __init__(self, *, keys: Iterable[str], sites: Iterable[str] | None = None) -> None:
        super().__init__()
        self.keys = set(keys)
        self.sites = None if sites is None else set(sites)
        self.feeds: list[tuple[str, str]] = []

    @property
    def api_root(self) -> str:
        return self.url + PREFIX.rstrip("/")

    def failure_reply(self, failure: Failure, request: Request) -> Reply:
        if failure is Failure.QUOTA:
            return _fault("ThrottleUser")
        if failure is Failure.UNAVAILABLE:
            return Reply(503, b"Service Unavailable", {"Content-Type": "text/plain"})
        return _fault("InvalidParameter")

    def answer(self, request: Request) -> Reply:
        if request.path != PREFIX + "SubmitFeed":
            return _fault("NotFound", 404)
        if request.method != "POST":
            return Reply(405, b"Method Not Allowed", {"Allow": "POST"})
        if request.query.get("apikey", [""])[0] not in self.keys:
            return _fault("InvalidApiKey")
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
        return json_reply(200, {"d": None})
