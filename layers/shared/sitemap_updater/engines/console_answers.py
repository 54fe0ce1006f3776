"""The Search Console APIs' answers read into :class:`SitemapStatus` and :class:`Inspection`,
and their error JSON into :class:`~sitemap_updater.engines.exceptions.EngineError`.

Documented forms (https://developers.google.com/webmaster-tools/v1/sitemaps and
https://developers.google.com/webmaster-tools/v1/urlInspection.index/UrlInspectionResult):
a sitemap has ``path``, ``lastSubmitted``, ``lastDownloaded`` (RFC 3339), ``isPending``,
``errors`` and ``warnings`` (int64, sent as text) and ``contents[]`` with ``type`` and
``submitted`` (``indexed`` is deprecated: never read); a list is ``{"sitemap": [...]}``; an
inspection is ``{"inspectionResult": {"indexStatusResult": {...}}}``. An error is
``{"error": {"code", "message", "status", "errors": [{"reason", ...}], "details": [...]}}``; a
quota error's ``details`` may hold a ``google.rpc.ErrorInfo`` whose ``metadata.quota_limit``
names the limit (per minute or per day) and a ``google.rpc.RetryInfo`` with ``retryDelay``
(https://cloud.google.com/apis/design/errors), and its answer a ``Retry-After`` header.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from sitemap_updater.bounded_http import retry_after_seconds
from sitemap_updater.engines.exceptions import PER_DAY, PER_MINUTE, EngineError, error_for
from sitemap_updater.engines.redaction import redact

ENGINE: Final = "search-console"
#: ``errors[].reason`` and ``status`` values that say a quota is spent (Google answers some
#: of them with 403, not 429).
QUOTA_REASONS: Final = frozenset(
    {
        "quotaExceeded",
        "rateLimitExceeded",
        "userRateLimitExceeded",
        "dailyLimitExceeded",
        "RESOURCE_EXHAUSTED",
    }
)


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


class UnreadableAnswer(EngineError):
    """A successful answer whose JSON is not of the documented form."""


def _unreadable(operation: str, status: int, rule: str) -> UnreadableAnswer:
    return UnreadableAnswer(ENGINE, operation, status, f"the answer {rule}")


def decode(operation: str, status: int, body: bytes) -> dict[str, Any]:
    """The JSON object of a successful answer (an empty body is ``{}``)."""
    if not body.strip():
        return {}
    try:
        value = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise _unreadable(operation, status, "is not JSON") from None
    if not isinstance(value, dict):
        raise _unreadable(operation, status, "is not a JSON object")
    return value


def _time(operation: str, value: object, name: str) -> datetime | None:
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        moment = None
    if moment is None:
        raise _unreadable(operation, 200, f"field {name}={value!r} is not an RFC 3339 time")
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _count(operation: str, value: object, name: str) -> int:
    """An int64 field, which Google's JSON sends as text; absent is 0."""
    if value is None:
        return 0
    if isinstance(value, int | str) and not isinstance(value, bool):
        try:
            count = int(value)
        except ValueError:
            pass
        else:
            if count >= 0:
                return count
    raise _unreadable(operation, 200, f"field {name}={value!r} is not a count")


def _text(operation: str, value: object, name: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise _unreadable(operation, 200, f"field {name}={value!r} is not text")


def sitemap_status(operation: str, value: object) -> SitemapStatus:
    """One sitemap resource."""
    if not isinstance(value, dict) or not isinstance(value.get("path"), str):
        raise _unreadable(operation, 200, "holds a sitemap without a path")
    submitted: dict[str, int] = {}
    contents = value.get("contents") or []
    if not isinstance(contents, list):
        raise _unreadable(operation, 200, "field contents is not a list")
    for content in contents:
        if not isinstance(content, dict):
            raise _unreadable(operation, 200, "field contents holds a value that is no object")
        kind = _text(operation, content.get("type"), "contents[].type") or "unknown"
        count = _count(operation, content.get("submitted"), "contents[].submitted")
        submitted[kind] = submitted.get(kind, 0) + count
    return SitemapStatus(
        path=value["path"],
        last_downloaded=_time(operation, value.get("lastDownloaded"), "lastDownloaded"),
        last_submitted=_time(operation, value.get("lastSubmitted"), "lastSubmitted"),
        is_pending=value.get("isPending") is True,
        errors=_count(operation, value.get("errors"), "errors"),
        warnings=_count(operation, value.get("warnings"), "warnings"),
        submitted=submitted,
    )


def sitemap_list(operation: str, value: Mapping[str, Any]) -> list[SitemapStatus]:
    """A sitemaps.list answer (no ``sitemap`` field: none submitted)."""
    entries = value.get("sitemap") or []
    if not isinstance(entries, list):
        raise _unreadable(operation, 200, "field sitemap is not a list")
    return [sitemap_status(operation, entry) for entry in entries]


def inspection(operation: str, url: str, value: Mapping[str, Any]) -> Inspection:
    """A urlInspection.index.inspect answer."""
    result = value.get("inspectionResult")
    status = result.get("indexStatusResult") if isinstance(result, dict) else None
    if not isinstance(status, dict):
        raise _unreadable(operation, 200, "has no inspectionResult.indexStatusResult")
    sitemaps = status.get("sitemap") or []
    if not isinstance(sitemaps, list) or not all(isinstance(s, str) for s in sitemaps):
        raise _unreadable(operation, 200, "field sitemap is not a list of URLs")
    return Inspection(
        url=url,
        verdict=_text(operation, status.get("verdict"), "verdict") or "VERDICT_UNSPECIFIED",
        coverage_state=_text(operation, status.get("coverageState"), "coverageState") or "",
        indexing_state=_text(operation, status.get("indexingState"), "indexingState")
        or "INDEXING_STATE_UNSPECIFIED",
        google_canonical=_text(operation, status.get("googleCanonical"), "googleCanonical"),
        user_canonical=_text(operation, status.get("userCanonical"), "userCanonical"),
        last_crawl_time=_time(operation, status.get("lastCrawlTime"), "lastCrawlTime"),
        sitemaps=tuple(sitemaps),
    )


def _retry_delay(value: object) -> float | None:
    """A ``google.rpc.RetryInfo.retryDelay`` (a protobuf Duration in JSON: ``"38s"``)."""
    if isinstance(value, str) and value.endswith("s"):
        try:
            seconds = float(value[:-1])
        except ValueError:
            return None
        return seconds if seconds >= 0 else None
    return None


def _window(words: str) -> str | None:
    """The quota a limit's name or message speaks of: per minute or per day (None: neither)."""
    flat = re.sub(r"[^a-z]", "", words.lower())  # "PerMinutePerSite", "per minute" alike
    if "perminute" in flat:
        return PER_MINUTE
    if "perday" in flat or "dailylimit" in flat:
        return PER_DAY
    return None


def _quota_details(error: Mapping[str, Any], reasons: set[str]) -> tuple[str | None, float | None]:
    """(the quota's window, the retry delay Google asks for) from an error's ``details``
    (``google.rpc.ErrorInfo`` metadata ``quota_limit``, ``google.rpc.RetryInfo``) and its
    ``errors[].reason`` and message."""
    window, delay = None, None
    details = error.get("details")
    for detail in details if isinstance(details, list) else []:
        if not isinstance(detail, dict):
            continue
        metadata = detail.get("metadata")
        if isinstance(metadata, dict):
            named = " ".join(str(metadata.get(k, "")) for k in ("quota_limit", "quota_metric"))
            window = window or _window(named)
        if "retryDelay" in detail:
            delay = _retry_delay(detail.get("retryDelay"))
    if window is None and "dailyLimitExceeded" in reasons:
        window = PER_DAY
    return window or _window(str(error.get("message", ""))), delay


def error_of(
    operation: str,
    status: int,
    body: bytes,
    headers: Mapping[str, str] | None = None,
    *,
    secrets: Iterable[str | None] = (),
    now: float | None = None,
) -> EngineError:
    """The error an unsuccessful answer means, with Google's own message as the reason
    (``secrets`` redacted from it, ``engines.redaction``). A quota error says its window and
    the wait Google asks for: the ``Retry-After`` header, else the error's ``RetryInfo``."""
    reason, quota, window, delay = f"HTTP {status}", False, None, None
    try:
        error = json.loads(body).get("error")
    except (ValueError, UnicodeDecodeError, AttributeError):
        error = None
    if isinstance(error, dict):
        reason = str(error.get("message") or error.get("status") or reason)
        details = error.get("errors")
        details = details if isinstance(details, list) else []
        reasons = {str(e.get("reason")) for e in details if isinstance(e, dict)}
        quota = bool(QUOTA_REASONS & (reasons | {str(error.get("status"))}))
        if quota or status == 429:
            window, delay = _quota_details(error, reasons)
    elif isinstance(error, str):  # the OAuth token endpoint's form: {"error": "invalid_grant"}
        reason = error
    fields = {name.lower(): value for name, value in (headers or {}).items()}
    after = retry_after_seconds(fields.get("retry-after"), time.time() if now is None else now)
    return error_for(
        ENGINE,
        operation,
        status,
        redact(reason, secrets),
        quota=quota,
        window=window,
        retry_after=after if after is not None else delay,
    )
