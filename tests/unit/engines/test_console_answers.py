"""Search Console's documented JSON read into SitemapStatus and Inspection; anything else is a
clear error, and Google's error JSON is sorted by what a later run can do."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from sitemap_updater.bounded_http import retry_after_seconds
from sitemap_updater.engines.console_answers import (
    UnreadableAnswer,
    decode,
    error_of,
    inspection,
    sitemap_list,
    sitemap_status,
)
from sitemap_updater.engines.exceptions import (
    CredentialsRefused,
    EngineError,
    EngineUnavailable,
    QuotaExhausted,
)

SITEMAP = {
    "path": "https://www.example.com/sitemap.xml",
    "lastSubmitted": "2026-11-20T08:00:00.000Z",
    "isPending": False,
    "isSitemapsIndex": False,
    "type": "sitemap",
    "lastDownloaded": "2026-11-21T09:30:15.123456789Z",
    "warnings": "3",
    "errors": "1",
    "contents": [
        {"type": "web", "submitted": "1200", "indexed": "999999"},
        {"type": "image", "submitted": "40", "indexed": "999999"},
    ],
}


def test_a_sitemap_resource() -> None:
    status = sitemap_status("sitemaps.get", SITEMAP)
    assert status.path == SITEMAP["path"]
    assert status.last_downloaded == datetime(2026, 11, 21, 9, 30, 15, 123456, tzinfo=UTC)
    assert status.last_submitted == datetime(2026, 11, 20, 8, tzinfo=UTC)
    assert (status.is_pending, status.errors, status.warnings) == (False, 1, 3)
    assert status.submitted == {"web": 1200, "image": 40}  # indexed is never read


def test_a_sitemap_never_downloaded_has_no_time_and_no_counts() -> None:
    status = sitemap_status("sitemaps.get", {"path": "https://a.example/s.xml", "isPending": True})
    assert status.last_downloaded is None and status.is_pending
    assert (status.errors, status.warnings, dict(status.submitted)) == (0, 0, {})


def test_a_list_and_an_empty_list() -> None:
    assert [s.path for s in sitemap_list("sitemaps.list", {"sitemap": [SITEMAP]})] == [
        SITEMAP["path"]
    ]
    assert sitemap_list("sitemaps.list", {}) == []


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"errors": "many"}, "errors='many' is not a count"),
        ({"warnings": -1}, "warnings=-1 is not a count"),
        ({"lastDownloaded": "yesterday"}, "lastDownloaded='yesterday' is not an RFC 3339 time"),
        ({"contents": "web"}, "contents is not a list"),
        ({"path": None}, "without a path"),
    ],
)
def test_a_sitemap_not_of_the_documented_form(change: dict[str, object], words: str) -> None:
    with pytest.raises(UnreadableAnswer) as raised:
        sitemap_status("sitemaps.get", SITEMAP | change)
    assert words in str(raised.value)


def test_an_inspection() -> None:
    answer = {
        "inspectionResult": {
            "inspectionResultLink": "https://search.google.com/x",
            "indexStatusResult": {
                "verdict": "PASS",
                "coverageState": "Submitted and indexed",
                "indexingState": "INDEXING_ALLOWED",
                "lastCrawlTime": "2026-11-26T22:01:02Z",
                "googleCanonical": "https://www.example.com/a",
                "userCanonical": "https://www.example.com/a?x",
                "sitemap": ["https://www.example.com/sitemap.xml"],
            },
        }
    }
    result = inspection("inspect", "https://www.example.com/a?x", answer)
    assert result.indexed and result.coverage_state == "Submitted and indexed"
    assert result.last_crawl_time == datetime(2026, 11, 26, 22, 1, 2, tzinfo=UTC)
    assert result.google_canonical != result.user_canonical
    assert result.sitemaps == ("https://www.example.com/sitemap.xml",)


def test_an_inspection_without_its_result_is_unreadable() -> None:
    with pytest.raises(UnreadableAnswer, match="indexStatusResult"):
        inspection("inspect", "https://a.example/", {"inspectionResult": {}})


def test_decode() -> None:
    assert decode("sitemaps.submit", 200, b"") == {}
    with pytest.raises(UnreadableAnswer, match="not JSON"):
        decode("sitemaps.get", 200, b"<html>")
    with pytest.raises(UnreadableAnswer, match="not a JSON object"):
        decode("sitemaps.get", 200, b"[1]")


def google_error(code: int, status: str, reason: str | None = None) -> bytes:
    error: dict[str, object] = {"code": code, "message": f"said {status}", "status": status}
    if reason:
        error["errors"] = [{"reason": reason, "domain": "usageLimits", "message": "m"}]
    return json.dumps({"error": error}).encode()


@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (429, google_error(429, "RESOURCE_EXHAUSTED"), QuotaExhausted),
        (403, google_error(403, "PERMISSION_DENIED", "dailyLimitExceeded"), QuotaExhausted),
        (403, google_error(403, "PERMISSION_DENIED", "forbidden"), CredentialsRefused),
        (401, google_error(401, "UNAUTHENTICATED"), CredentialsRefused),
        (503, google_error(503, "UNAVAILABLE"), EngineUnavailable),
        (502, b"<html>Bad Gateway</html>", EngineUnavailable),
        (400, google_error(400, "INVALID_ARGUMENT"), EngineError),
        (404, google_error(404, "NOT_FOUND"), EngineError),
        (400, b'{"error": "invalid_grant", "error_description": "x"}', EngineError),
    ],
)
def test_errors_are_sorted(status: int, body: bytes, kind: type[EngineError]) -> None:
    error = error_of("op", status, body)
    assert type(error) is kind and error.status == status and error.operation == "op"


def test_an_error_reason_is_one_printable_line_of_bounded_length() -> None:
    body = json.dumps({"error": {"code": 400, "message": "bad\n\x1b[31mred" + "x" * 1000}})
    error = error_of("op", 400, body.encode())
    assert "\n" not in str(error) and "\x1b" not in str(error) and "\\x1b" in str(error)
    assert len(error.reason) < 400


def _quota(limit: str, delay: str | None = None) -> bytes:
    details: list[dict[str, object]] = [
        {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": "RATE_LIMIT_EXCEEDED",
            "metadata": {"quota_limit": limit, "service": "searchconsole.googleapis.com"},
        }
    ]
    if delay is not None:
        details.append({"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay})
    error = {"code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED"}
    return json.dumps({"error": error | {"details": details}}).encode()


@pytest.mark.parametrize(
    ("body", "headers", "window", "wait"),
    [
        (_quota("UrlInspectionRequestsPerMinutePerSite", "7s"), {}, "per-minute", 7.0),
        (_quota("UrlInspectionRequestsPerMinutePerSite"), {"Retry-After": "3"}, "per-minute", 3.0),
        (_quota("UrlInspectionRequestsPerDayPerSite"), {"retry-after": "3600"}, "daily", 3600.0),
        (google_error(403, "PERMISSION_DENIED", "dailyLimitExceeded"), {}, "daily", None),
        (google_error(429, "RESOURCE_EXHAUSTED"), {}, None, None),
    ],
)
def test_a_quota_error_says_its_window_and_its_wait(
    body: bytes, headers: dict[str, str], window: str | None, wait: float | None
) -> None:
    error = error_of("urlInspection.index.inspect", 429, body, headers)
    assert isinstance(error, QuotaExhausted)
    assert (error.window, error.retry_after) == (window, wait)


def test_retry_after_as_an_http_date() -> None:
    now = datetime(2026, 11, 27, 12, 0, tzinfo=UTC).timestamp()
    assert retry_after_seconds("Fri, 27 Nov 2026 12:00:30 GMT", now) == 30.0
    assert retry_after_seconds("soon", now) is None and retry_after_seconds(None, now) is None
