"""What the observer tells CloudWatch, and the engines' sitemap status as plain data.

Each section's figures are one log line (``section figures``, with ``host`` and ``section``),
which the dashboard's table reads with Logs Insights at no cost per figure. With
``SectionMetrics=true`` they also go out as metrics with the dimensions ``host`` and
``section``, and a host's index figures with ``host``: each is a custom metric, billed per month
(docs/search-engines.md). The alarms watch four metrics with no dimension but ``service``,
each the worst of the run and sent by every run (a value that does not alarm when there is
nothing to tell), so that a run that does not happen is missing data, which the alarms count
as breaching: :data:`ALARM_METRICS`. Those of Search Console go out only when it is on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from aws_lambda_powertools.metrics import EphemeralMetrics, MetricUnit

from sitemap_updater.observability import logger
from sitemap_updater.observe.records import REASON_CHARS, capped

if TYPE_CHECKING:
    # the engines' answers are read only when they are turned on (``run.engines.Engines``)
    from sitemap_updater.engines.bing import BingFeed
    from sitemap_updater.engines.console_answers import SitemapStatus

#: section figure -> (metric name, unit); shares are sent as percentages
SECTION_METRICS: Final = {
    "published": ("Published", MetricUnit.Count),
    "submitted": ("Submitted", MetricUnit.Count),
    "inspected": ("Inspected", MetricUnit.Count),
    "indexed_share": ("IndexedPercent", MetricUnit.Percent),
    "crawl_latency_median_seconds": ("CrawlLatencyMedianSeconds", MetricUnit.Seconds),
    "crawl_latency_p90_seconds": ("CrawlLatencyP90Seconds", MetricUnit.Seconds),
    "unhealthy_share": ("UnhealthyPercent", MetricUnit.Percent),
    "canonical_mismatch": ("CanonicalMismatches", MetricUnit.Count),
    "sitemap_errors": ("SitemapErrors", MetricUnit.Count),
    "sitemap_warnings": ("SitemapWarnings", MetricUnit.Count),
    "excluded": ("ExcludedUrls", MetricUnit.Count),
}
HOST_METRICS: Final = {
    "index_download_age_hours": ("IndexDownloadAgeHours", MetricUnit.Count),
    "index_errors": ("IndexErrors", MetricUnit.Count),
    "index_warnings": ("IndexWarnings", MetricUnit.Count),
}
#: the alarms' metrics: the oldest index download (hours), errors Search Console reports for
#: any index or file, the highest lower bound of a section's unhealthy share (percent, among
#: sections with enough URLs checked), and the largest drop of a section's indexed share
#: (percentage points between the intervals of the last week and the week before)
ALARM_METRICS: Final = (
    "IndexDownloadAgeHoursMax",
    "SearchConsoleErrors",
    "UnhealthyPercentLowerBoundMax",
    "IndexedDropPercentMax",
)
#: the alarm metrics sent only while Search Console is on
SEARCH_CONSOLE_METRICS: Final = frozenset(
    {"IndexDownloadAgeHoursMax", "SearchConsoleErrors", "IndexedDropPercentMax"}
)
_PERCENT: Final = {"indexed_share", "unhealthy_share"}


def sitemap_status_dict(status: SitemapStatus, now: float) -> dict[str, Any]:
    """A sitemap's status as JSON-ready data (``contents[].indexed`` is never read)."""
    downloaded = status.last_downloaded.timestamp() if status.last_downloaded else None
    return {
        "errors": status.errors,
        "warnings": status.warnings,
        "is_pending": status.is_pending,
        "last_downloaded": downloaded,
        "submitted": status.submitted.get("web"),
        "checked_at": int(now),
    }


def bing_feed_dict(feed: BingFeed) -> dict[str, Any]:
    """What Bing reports of a feed, as JSON-ready data."""
    return {
        "status": capped(feed.status, REASON_CHARS),
        "url_count": feed.url_count,
        "last_crawled": feed.last_crawled.timestamp() if feed.last_crawled else None,
        "submitted": feed.submitted.timestamp() if feed.submitted else None,
    }


def _emit(
    dimensions: Mapping[str, str], figures: Mapping[str, Any], names: Mapping[str, Any]
) -> None:
    metrics = EphemeralMetrics()
    for dimension, text in dimensions.items():
        metrics.add_dimension(name=dimension, value=text)
    added = 0
    for figure, (metric, unit) in names.items():
        value = figures.get(figure)
        if value is None:
            continue
        metrics.add_metric(
            name=metric, unit=unit, value=value * 100 if figure in _PERCENT else value
        )
        added += 1
    if added:
        metrics.flush_metrics()


def log_section(host: str, section: str, figures: Mapping[str, Any]) -> None:
    """One log line of a section's figures (the lists aside), for the dashboard's table."""
    logger.info(
        "section figures",
        extra={
            "host": host,
            "section": section,
            **{k: v for k, v in figures.items() if not isinstance(v, list | dict)},
        },
    )


def emit_section(host: str, section: str, figures: Mapping[str, Any]) -> None:
    _emit({"host": host, "section": section}, figures, SECTION_METRICS)


def emit_host(host: str, figures: Mapping[str, Any]) -> None:
    _emit({"host": host}, figures, HOST_METRICS)


def alarm_figures(
    sections: Sequence[Mapping[str, Any]],
    hosts: Sequence[Mapping[str, Any]],
    *,
    search_console: bool,
) -> dict[str, float]:
    """The worst of the run, for the alarms: each metric of :data:`ALARM_METRICS` (those of
    Search Console only while it is on), 0 where nothing is known."""
    ages = [h.get("index_download_age_hours") for h in hosts]
    errors = sum(int(h.get("index_errors") or 0) for h in hosts) + sum(
        int(s.get("sitemap_errors") or 0) for s in sections
    )
    lows = [s.get("unhealthy_alarm_percent") for s in sections]
    drops = [(s.get("indexed_drop") or {}).get("drop_percent") for s in sections]
    sent: dict[str, float] = {
        "IndexDownloadAgeHoursMax": max((a for a in ages if a is not None), default=0.0),
        "SearchConsoleErrors": float(errors),
        "UnhealthyPercentLowerBoundMax": max((v for v in lows if v is not None), default=0.0),
        "IndexedDropPercentMax": max((v for v in drops if v is not None), default=0.0),
    }
    if not search_console:
        sent = {k: v for k, v in sent.items() if k not in SEARCH_CONSOLE_METRICS}
    return sent


def emit_alarm_figures(figures: Mapping[str, float]) -> None:
    """Send the alarms' figures (``alarm_figures``)."""
    metrics = EphemeralMetrics()
    for name, value in figures.items():
        unit = MetricUnit.Percent if "Percent" in name else MetricUnit.Count
        metrics.add_metric(name=name, unit=unit, value=value)
    metrics.flush_metrics()
