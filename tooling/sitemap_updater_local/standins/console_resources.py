"""What Google's Search Console APIs answer, as the stand-in builds it: a sitemap resource, an
inspection's ``indexStatusResult`` (on Google or not), an error, and a quota's 429 with the
limit it names and its wait (https://developers.google.com/webmaster-tools/v1/sitemaps,
https://developers.google.com/webmaster-tools/v1/urlInspection.index/UrlInspectionResult,
https://cloud.google.com/apis/design/errors)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from sitemap_updater_local.standins.loopback import Reply, json_reply

SERVICE: Final = "searchconsole.googleapis.com"
#: the limits a refusal names, as Google's quota metadata does
MINUTE_LIMIT: Final = "UrlInspectionRequestsPerMinutePerSite"
DAY_LIMIT: Final = "UrlInspectionRequestsPerDayPerSite"
UNKNOWN_TO_GOOGLE: Final = {
    "verdict": "NEUTRAL",
    "coverageState": "URL is unknown to Google",
    "robotsTxtState": "ROBOTS_TXT_STATE_UNSPECIFIED",
    "indexingState": "INDEXING_STATE_UNSPECIFIED",
    "pageFetchState": "PAGE_FETCH_STATE_UNSPECIFIED",
}


def rfc3339(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def indexed(
    *,
    last_crawl: datetime,
    google_canonical: str | None = None,
    user_canonical: str | None = None,
    sitemaps: Iterable[str] = (),
) -> dict[str, Any]:
    """An ``indexStatusResult`` of a page on Google."""
    result = {
        "verdict": "PASS",
        "coverageState": "Submitted and indexed",
        "robotsTxtState": "ALLOWED",
        "indexingState": "INDEXING_ALLOWED",
        "pageFetchState": "SUCCESSFUL",
        "lastCrawlTime": rfc3339(last_crawl),
        "sitemap": list(sitemaps),
        "crawledAs": "MOBILE",
    }
    for name, value in (("googleCanonical", google_canonical), ("userCanonical", user_canonical)):
        if value is not None:
            result[name] = value
    return result


def not_indexed(
    coverage_state: str = "Crawled - currently not indexed", *, last_crawl: datetime | None = None
) -> dict[str, Any]:
    """An ``indexStatusResult`` of a page Google knows but does not show."""
    result = {**UNKNOWN_TO_GOOGLE, "verdict": "NEUTRAL", "coverageState": coverage_state}
    if last_crawl is not None:
        result |= {"lastCrawlTime": rfc3339(last_crawl), "pageFetchState": "SUCCESSFUL"}
    return result


@dataclass
class SitemapRecord:
    """One submitted sitemap as the stand-in keeps it (``contents``: submitted by type)."""

    path: str
    last_submitted: datetime
    last_downloaded: datetime | None = None
    is_pending: bool = True
    is_index: bool = False
    errors: int = 0
    warnings: int = 0
    contents: dict[str, int] = field(default_factory=dict)

    def resource(self) -> dict[str, Any]:
        value: dict[str, Any] = {
            "path": self.path,
            "lastSubmitted": rfc3339(self.last_submitted),
            "isPending": self.is_pending,
            "isSitemapsIndex": self.is_index,
            "type": "sitemap",
            "warnings": str(self.warnings),
            "errors": str(self.errors),
        }
        if self.last_downloaded is not None:
            value["lastDownloaded"] = rfc3339(self.last_downloaded)
        if self.contents:  # "indexed" is deprecated: sent as Google does, never to be read
            value["contents"] = [
                {"type": kind, "submitted": str(count), "indexed": "0"}
                for kind, count in self.contents.items()
            ]
        return value


def error_reply(code: int, status: str, message: str, reason: str | None = None) -> Reply:
    error: dict[str, Any] = {"code": code, "message": message, "status": status}
    if reason is not None:
        error["errors"] = [{"message": message, "domain": "global", "reason": reason}]
    return json_reply(code, {"error": error})


def quota_refusal(limit: str, wait: int, site_url: str = "") -> Reply:
    """429 for a spent quota of URL Inspection: ``limit`` (:data:`MINUTE_LIMIT` or
    :data:`DAY_LIMIT`) named in its details, ``wait`` seconds in them and in ``Retry-After``."""
    per = "minute" if limit == MINUTE_LIMIT else "day"
    message = (
        f"Quota exceeded for quota metric 'URL Inspection requests' and limit 'URL Inspection "
        f"requests per {per} per site' of service '{SERVICE}'"
        + (f" for site '{site_url}'." if site_url else ".")
    )
    error: dict[str, Any] = {
        "code": 429,
        "message": message,
        "status": "RESOURCE_EXHAUSTED",
        "errors": [{"message": message, "domain": "usageLimits", "reason": "rateLimitExceeded"}],
        "details": [
            {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "RATE_LIMIT_EXCEEDED",
                "domain": "googleapis.com",
                "metadata": {
                    "service": SERVICE,
                    "quota_metric": f"{SERVICE}/url_inspection_requests",
                    "quota_limit": limit,
                },
            },
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{wait}s"},
        ],
    }
    return json_reply(429, {"error": error}, {"Retry-After": str(wait)})
