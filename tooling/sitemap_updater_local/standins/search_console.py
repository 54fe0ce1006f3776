"""Google Search Console on 127.0.0.1: the OAuth token endpoint, the Sitemaps API
(``sitemaps.submit``, ``get``, ``list``, ``list`` with ``sitemapIndex=``) and the URL Inspection
API, answering the JSON Google documents.

```python
with SearchConsoleStandIn(properties={"https://www.example.com/"}) as console:
    key = console.new_key()                  # a service-account key whose token_uri is here
    client = SearchConsole(key.info, api_root=console.url)
    console.downloaded(site, feed, when=..., submitted={"web": 120})   # as if Google fetched it
    console.read_index(site, index, when=..., files={file_url: 120})   # ... an index, its files
    console.inspections[url] = indexed(last_crawl=...)                  # what inspect answers
    console.crawls = CrawlSchedule(median_hours=6)                      # ... or crawls drawn
    console.fail(Failure.QUOTA)              # the next API request: 429, the day's quota spent
    console.fail(Failure.RATE, channel="inspect")   # the next inspection: the minute's
```

The token endpoint takes only the JWT-bearer grant, and only an assertion signed by a key made
by :meth:`SearchConsoleStandIn.new_key` (checked with its public key by ``google.auth.jwt``),
addressed to Google's token endpoint and asking for the Search Console scope. Every API
request needs a token it issued.

The files of a submitted index are known to ``sitemaps.list?sitemapIndex=<index>`` only:
``sitemaps.get`` of one answers 404, as for any sitemap not submitted itself. Inspections count
against Google's quotas per property, 600 a minute and 2,000 a day (a UTC day here; ``clock``
is injectable): a refusal is 429 ``RESOURCE_EXHAUSTED`` whose ``details`` name the limit
(``google.rpc.ErrorInfo`` ``metadata.quota_limit``) and the wait (``google.rpc.RetryInfo``), with
the same wait in ``Retry-After`` (https://cloud.google.com/apis/design/errors). Without an
answer set in :attr:`SearchConsoleStandIn.inspections`, a URL is answered from
:attr:`SearchConsoleStandIn.crawls` (``standins.crawls``), else as unknown to Google.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any, Final
from urllib.parse import parse_qs, unquote, urlsplit

import google.auth.exceptions
from google.auth import jwt

from sitemap_updater_local.standins.console_resources import (
    DAY_LIMIT,
    MINUTE_LIMIT,
    UNKNOWN_TO_GOOGLE,
    SitemapRecord,
    error_reply,
    indexed,
    not_indexed,
    quota_refusal,
)
from sitemap_updater_local.standins.crawls import CrawlSchedule
from sitemap_updater_local.standins.keys import CLIENT_EMAIL, ServiceAccountKey, make_key
from sitemap_updater_local.standins.loopback import (
    Failure,
    LoopbackServer,
    Reply,
    Request,
    json_reply,
)

__all__ = ["SearchConsoleStandIn", "SitemapRecord", "indexed", "not_indexed"]

GRANT_TYPE: Final = "urn:ietf:params:oauth:grant-type:jwt-bearer"
SCOPE: Final = "https://www.googleapis.com/auth/webmasters"
#: The audience of a service account's assertion: Google's token endpoint, wherever the key
#: file's ``token_uri`` sends it.
AUDIENCE: Final = "https://oauth2.googleapis.com/token"
TOKEN_PATH: Final = "/token"
SITEMAPS_PREFIX: Final = "/webmasters/v3/sites/"
INSPECT_PATH: Final = "/v1/urlInspection/index:inspect"
INSPECTIONS_PER_MINUTE: Final = 600
INSPECTIONS_PER_DAY: Final = 2000


class SearchConsoleStandIn(LoopbackServer):
    """Search Console for the service accounts whose keys :meth:`new_key` made, with access
    to ``properties`` (``https://host/`` or ``sc-domain:host``; None: any)."""

    def __init__(
        self,
        *,
        properties: Iterable[str] | None = None,
        clock: Callable[[], float] = time.time,
        per_minute: int = INSPECTIONS_PER_MINUTE,
        per_day: int = INSPECTIONS_PER_DAY,
    ) -> None:
        super().__init__()
        self.properties = None if properties is None else set(properties)
        self.clock = clock
        self.per_minute = per_minute
        self.per_day = per_day
        self.public_keys: dict[str, bytes] = {}
        self.tokens: dict[str, str] = {}  # token -> client e-mail
        self.sitemaps: dict[str, dict[str, SitemapRecord]] = {}
        #: the files of each submitted index Google read: site -> index URL -> file URL
        self.index_files: dict[str, dict[str, dict[str, SitemapRecord]]] = {}
        self.inspections: dict[str, dict[str, Any]] = {}
        self.crawls: CrawlSchedule | None = None
        self.default_inspection: Callable[[str], dict[str, Any]] = lambda _: UNKNOWN_TO_GOOGLE
        #: the ``Retry-After`` of a per-minute refusal made by ``fail(Failure.RATE)``, and the
        #: message of an error made by ``fail(Failure.ERROR)`` (an error may echo a request)
        self.retry_after = 1
        self.error_message = "Request contains an invalid argument."
        #: whether such an error quotes the request's ``Authorization`` header back
        self.echo_credentials = False
        self._inspected: dict[str, list[float]] = {}

    @property
    def token_uri(self) -> str:
        return self.url + TOKEN_PATH

    def new_key(self, client_email: str = CLIENT_EMAIL) -> ServiceAccountKey:
        """A key for ``client_email`` whose assertions this stand-in accepts."""
        key = make_key(self.token_uri, client_email)
        self.public_keys[client_email] = key.public_pem
        return key

    def revoke_tokens(self) -> None:
        """Forget every access token issued (as if each had expired)."""
        self.tokens.clear()

    def downloaded(
        self,
        site_url: str,
        feed_url: str,
        *,
        when: datetime,
        submitted: dict[str, int] | None = None,
        errors: int = 0,
        warnings: int = 0,
    ) -> None:
        """Google fetched the submitted ``feed_url``: what it found."""
        record = self.sitemaps[site_url][feed_url]
        record.last_downloaded, record.is_pending = when, False
        record.errors, record.warnings = errors, warnings
        record.contents = dict(submitted or {})

    def read_index(
        self,
        site_url: str,
        index_url: str,
        *,
        when: datetime,
        files: dict[str, int],
        errors: dict[str, int] | None = None,
    ) -> None:
        """Google fetched the submitted index ``index_url`` and each of its ``files`` (file
        URL -> URLs found in it; ``errors``: file URL -> errors found in it)."""
        self.downloaded(site_url, index_url, when=when)
        self.sitemaps[site_url][index_url].is_index = True
        self.index_files.setdefault(site_url, {})[index_url] = {
            url: SitemapRecord(
                url,
                when,
                when,
                False,
                errors=(errors or {}).get(url, 0),
                contents={"web": count},
            )
            for url, count in files.items()
        }

    def channel(self, request: Request) -> str:
        return "token" if request.path == TOKEN_PATH else "api"

    def channels(self, request: Request) -> tuple[str, ...]:
        """``inspect`` fails the URL inspections alone, ``api`` any API call."""
        if request.path == INSPECT_PATH:
            return ("inspect", "api")
        return (self.channel(request),)

    def failure_reply(self, failure: Failure, request: Request) -> Reply:
        if self.channel(request) == "token":
            codes = {Failure.QUOTA: 429, Failure.UNAVAILABLE: 503}
            error = {
                "error": "invalid_grant",
                "error_description": "Invalid grant: account not found",
            }
            if failure in codes:
                error = {"error": "temporarily_unavailable", "error_description": "Try again later"}
            return json_reply(codes.get(failure, 400), error)
        if failure is Failure.QUOTA:
            return quota_refusal(DAY_LIMIT, self._seconds_to_midnight())
        if failure is Failure.RATE:
            return quota_refusal(MINUTE_LIMIT, self.retry_after)
        if failure is Failure.UNAVAILABLE:
            return error_reply(503, "UNAVAILABLE", "The service is currently unavailable.")
        message = self.error_message
        if self.echo_credentials:  # as an error that quotes the request back may
            message += f" (request header: Authorization: {request.headers.get('Authorization')})"
        return error_reply(400, "INVALID_ARGUMENT", message, "invalid")

    def answer(self, request: Request) -> Reply:
        if request.path == TOKEN_PATH and request.method == "POST":
            return self._token(request)
        email = self._bearer(request)
        if email is None:
            message = (
                "Request had invalid authentication credentials. Expected OAuth 2 access token."
            )
            return error_reply(401, "UNAUTHENTICATED", message, "authError")
        if request.path == INSPECT_PATH and request.method == "POST":
            return self._inspect(request)
        if request.path.startswith(SITEMAPS_PREFIX):
            return self._sitemaps(request)
        return error_reply(404, "NOT_FOUND", "Requested entity was not found.", "notFound")

    def _token(self, request: Request) -> Reply:
        form = {name: values[0] for name, values in _form(request.body).items()}
        if form.get("grant_type") != GRANT_TYPE:
            why = f"Invalid grant_type: {form.get('grant_type', '')}"
            return json_reply(400, {"error": "unsupported_grant_type", "error_description": why})
        try:
            claims = jwt.decode(  # type: ignore[no-untyped-call]
                form.get("assertion", ""), certs=self._key_of(form), audience=AUDIENCE
            )
        except (ValueError, google.auth.exceptions.GoogleAuthError):
            why = "Invalid JWT Signature."
            return json_reply(400, {"error": "invalid_grant", "error_description": why})
        if SCOPE not in str(claims.get("scope", "")).split():
            return json_reply(400, {"error": "invalid_scope", "error_description": "Bad scope"})
        token = "ya29.stand-in-" + secrets.token_urlsafe(24)
        self.tokens[token] = str(claims["iss"])
        return json_reply(200, {"access_token": token, "expires_in": 3599, "token_type": "Bearer"})

    def _key_of(self, form: dict[str, str]) -> bytes:
        """The public key of the assertion's issuer (read unverified, then checked with it)."""
        try:
            unverified = jwt.decode(form.get("assertion", ""), verify=False)  # type: ignore[no-untyped-call]
            issuer = unverified.get("iss")
        except ValueError:
            issuer = None
        if issuer not in self.public_keys:
            raise ValueError("no key for this issuer")
        return self.public_keys[issuer]

    def _bearer(self, request: Request) -> str | None:
        scheme, _, token = (request.headers.get("Authorization") or "").partition(" ")
        return self.tokens.get(token) if scheme == "Bearer" else None

    def _allowed(self, site_url: str) -> Reply | None:
        if self.properties is None or site_url in self.properties:
            return None
        message = (
            f"User does not have sufficient permission for site '{site_url}'. "
            "See also: https://support.google.com/webmasters/answer/2451999."
        )
        return error_reply(403, "PERMISSION_DENIED", message, "forbidden")

    def _sitemaps(self, request: Request) -> Reply:
        rest = request.path[len(SITEMAPS_PREFIX) :].split("/")
        if len(rest) not in (2, 3) or rest[1] != "sitemaps":
            return error_reply(404, "NOT_FOUND", "Requested entity was not found.", "notFound")
        site_url = unquote(rest[0])
        refused = self._allowed(site_url)
        if refused is not None:
            return refused
        records = self.sitemaps.setdefault(site_url, {})
        if len(rest) == 2 and request.method == "GET":
            index = request.query.get("sitemapIndex", [None])[0]
            if index is not None:
                if index not in records:
                    return error_reply(
                        404, "NOT_FOUND", "Requested entity was not found.", "notFound"
                    )
                chosen = self.index_files.get(site_url, {}).get(index, {})
            else:
                chosen = records
            listed = [record.resource() for record in chosen.values()]
            return json_reply(200, {"sitemap": listed} if listed else {})
        feed_url = unquote(rest[2]) if len(rest) == 3 else ""
        if request.method == "PUT" and feed_url:
            if not _belongs(feed_url, site_url):
                return error_reply(400, "INVALID_ARGUMENT", "Sitemap URL is not in this property.")
            now = datetime.fromtimestamp(self.clock(), UTC)
            record = records.setdefault(feed_url, SitemapRecord(feed_url, now))
            record.last_submitted = now
            return Reply(200)
        if request.method == "GET" and feed_url in records:
            return json_reply(200, records[feed_url].resource())
        return error_reply(404, "NOT_FOUND", "Requested entity was not found.", "notFound")

    def _inspect(self, request: Request) -> Reply:
        body = request.json()
        if not isinstance(body, dict) or not all(
            isinstance(body.get(name), str) for name in ("inspectionUrl", "siteUrl")
        ):
            return error_reply(400, "INVALID_ARGUMENT", "inspectionUrl and siteUrl are required.")
        site_url, url = body["siteUrl"], body["inspectionUrl"]
        refused = self._allowed(site_url)
        if refused is not None:
            return refused
        if not _belongs(url, site_url):
            return error_reply(
                400, "INVALID_ARGUMENT", f"URL '{url}' is not in property '{site_url}'."
            )
        refused = self._count_inspection(site_url)
        if refused is not None:
            return refused
        status = self.inspections.get(url) or self._crawled(url) or self.default_inspection(url)
        link = "https://search.google.com/search-console/inspect?resource_id=" + site_url
        result = {"inspectionResultLink": link, "indexStatusResult": status}
        return json_reply(200, {"inspectionResult": result})

    def _crawled(self, url: str) -> dict[str, Any] | None:
        """The answer of the crawl schedule for ``url`` (None: no schedule)."""
        if self.crawls is None:
            return None
        crawl = self.crawls.last_crawl(url, self.clock())
        if crawl is None:
            return not_indexed("Discovered - currently not indexed")
        if not self.crawls.indexed(url):
            return not_indexed(self.crawls.not_indexed_state, last_crawl=crawl)
        return indexed(last_crawl=crawl, google_canonical=url, user_canonical=url)

    def _seconds_to_midnight(self) -> int:
        return int(86400 - self.clock() % 86400) + 1

    def _count_inspection(self, site_url: str) -> Reply | None:
        """Count one inspection of the property; the refusal when a quota is spent."""
        now = self.clock()
        done = self._inspected.setdefault(site_url, [])
        today = [t for t in done if t // 86400 == now // 86400]
        this_minute = [t for t in today if t > now - 60]
        if len(today) >= self.per_day:
            return quota_refusal(DAY_LIMIT, self._seconds_to_midnight(), site_url)
        if len(this_minute) >= self.per_minute:
            wait = max(1, int(this_minute[0] + 60 - now) + 1)
            return quota_refusal(MINUTE_LIMIT, wait, site_url)
        self._inspected[site_url] = [*today, now]
        return None


def _form(body: bytes) -> dict[str, list[str]]:
    return parse_qs(body.decode("utf-8", "replace"))


def _belongs(url: str, site_url: str) -> bool:
    """Whether ``url`` is in the property (a URL prefix, or ``sc-domain:`` and its subdomains)."""
    if site_url.startswith("sc-domain:"):
        domain, host = site_url.removeprefix("sc-domain:"), urlsplit(url).hostname or ""
        return host == domain or host.endswith("." + domain)
    return url.startswith(site_url)
