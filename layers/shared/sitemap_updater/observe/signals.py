"""What the observer tells CloudWatch, and Search Console's sitemap status as plain data.

Each section's figures are one log line (``section figures``, with ``host`` and ``section``),
which the dashboard's table reads with Logs Insights at no cost per figure. With
``SectionMetrics=true`` they also go out as metrics with the dimensions ``host`` and
``section``, and a host's index figures with ``host``: each is a custom metric, billed per month
(docs/search-engines.md). The alarms watch three metrics with no dimension but ``service``,
each the worst of the run: :data:`ALARM_METRICS`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from aws_lambda_powertools.metrics import EphemeralMetrics, MetricUnit

from sitemap_updater.observability import logger

if TYPE_CHECKING:
    # Search Console's answers are read only when it is turned on (``engines.search_console``)
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
#: any index or file, and the highest unhealthy share of any section (percent)
ALARM_METRICS: Final = ("IndexDownloadAgeHoursMax", "SearchConsoleErrors", "UnhealthyPercentMax")
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


def emit_alarm_figures(
    sections: Sequence[Mapping[str, Any]], hosts: Sequence[Mapping[str, Any]]
) -> dict[str, float]:
    """The worst of the run, for the alarms; returns what was sent."""
    ages = [h["index_download_age_hours"] for h in hosts]
    ages = [age for age in ages if age is not None]
    errors = sum(int(h.get("index_errors") or 0) for h in hosts) + sum(
        int(s.get("sitemap_errors") or 0) for s in sections
    )
    shares = [s["unhealthy_share"] for s in sections if s.get("unhealthy_share") is not None]
    sent: dict[str, float] = {"SearchConsoleErrors": errors}
    if ages:
        sent["IndexDownloadAgeHoursMax"] = max(ages)
    if shares:
        sent["UnhealthyPercentMax"] = max(shares) * 100
    metrics = EphemeralMetrics()
    for name, value in sent.items():
        unit = MetricUnit.Percent if name == "UnhealthyPercentMax" else MetricUnit.Count
        metrics.add_metric(name=name, unit=unit, value=value)
    metrics.flush_metrics()
    return sent
