"""The figures of a host's section, computed from its observations and the engines' status.

- ``indexed_share`` and its 95% Wilson interval come from the ``random`` stratum alone (a
  uniform sample of the section), so the favoured recent changes do not bias it;
  ``indexed_drop`` compares the share of the last :data:`DROP_RECENT_DAYS` with the one before;
- ``not_indexed`` counts the inspected URLs not on Google by Search Console's coverage state
  (``Crawled - currently not indexed``, ``Discovered - currently not indexed``, ...);
- ``canonical_mismatch`` counts inspected URLs for which Google chose another canonical;
- ``crawl_latency_*`` is the time from a page's change to Google's first crawl after it, from
  the Kaplan-Meier curve of the counted changes (``latency``), with intervals and sample size;
- ``unhealthy_share`` is over the URLs whose health was checked in the window, with its Wilson
  interval, whose lower bound the alarm watches once enough URLs were checked;
- :func:`problems` lists the URLs that should not be in a sitemap as they are, by kind, site
  problems first (``sitemap-updater coverage`` reads them from the observations, so the figures
  need not keep them).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any, Final

from sitemap_updater.engines.health import PROBLEMS
from sitemap_updater.observe.estimates import latency
from sitemap_updater.observe.estimates.statistics import (
    Estimate,
    survival_quantile,
    wilson_interval,
)
from sitemap_updater.observe.records import Observation
from sitemap_updater.observe.sampling import RANDOM

#: the unhealthy share counts for the alarm once this many URLs were checked in the window (or
#: every URL of a smaller section): fewer leave its interval too wide to tell 3% from 5%
ALARM_MIN_CHECKS: Final = 200
#: the indexed share of the last this many days against the one of the days before them
DROP_RECENT_DAYS: Final = 7
#: ... each from at least this many URLs drawn uniformly
DROP_MIN_INSPECTIONS: Final = 100
#: kinds of problem the site's own pages have (the health check's words), then Google's view
#: of them, then what the observer could not learn
SITE_KINDS: Final = tuple(p for p in PROBLEMS if p != "off-site")
GOOGLE_KINDS: Final = ("google-canonical-elsewhere", "not-indexed")
OBSERVER_KINDS: Final = ("inspection-error",)
KINDS: Final = (*SITE_KINDS, "off-site", *GOOGLE_KINDS, *OBSERVER_KINDS)
_DAY: Final = 86_400


def _rounded(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def _interval(successes: int, trials: int) -> list[float | None] | None:
    found = wilson_interval(successes, trials)
    return None if found is None else [_rounded(v) for v in found]


def _share(observations: list[Observation]) -> dict[str, Any]:
    indexed = sum(1 for o in observations if o.indexed)
    return {
        "inspected": len(observations),
        "indexed_share": _rounded(indexed / len(observations)) if observations else None,
        "indexed_interval": _interval(indexed, len(observations)),
    }


def indexed_drop(uniform: list[Observation], now: float) -> dict[str, Any]:
    """The indexed share of the uniform sample inspected in the last :data:`DROP_RECENT_DAYS`
    against the one inspected before; ``drop_percent`` is how far the earlier interval's lower
    bound is above the recent one's upper bound (0: no drop told apart from chance; None:
    fewer than :data:`DROP_MIN_INSPECTIONS` on either side)."""
    split = now - DROP_RECENT_DAYS * _DAY
    recent = [o for o in uniform if (o.inspected_at or 0.0) >= split]
    earlier = [o for o in uniform if (o.inspected_at or 0.0) < split]
    figures: dict[str, Any] = {
        "recent": _share(recent),
        "earlier": _share(earlier),
        "drop_percent": None,
    }
    enough = min(len(recent), len(earlier)) >= DROP_MIN_INSPECTIONS
    low, high = figures["earlier"]["indexed_interval"], figures["recent"]["indexed_interval"]
    if enough and low is not None and high is not None:
        figures["drop_percent"] = round(max(0.0, (low[0] or 0.0) - (high[1] or 0.0)) * 100, 2)
    return figures


def _estimate(found: Estimate) -> dict[str, Any]:
    return {
        "seconds": _rounded(found.value, 1),
        "interval": None
        if found.low is None
        else [_rounded(found.low, 1), _rounded(found.high, 1)],
    }


def crawl_latency(observations: Iterable[Observation]) -> dict[str, Any]:
    """The crawl latency's median and 90th percentile with their 95% intervals (an upper end
    None: not reached yet, too many still waiting), from ``latency.samples``."""
    samples = latency.samples(observations)
    median, p90 = (
        _estimate(survival_quantile(samples, 0.5)),
        _estimate(survival_quantile(samples, 0.9)),
    )
    crawled = sum(1 for _, seen in samples if seen)
    return {
        "crawl_latency_median_seconds": median["seconds"],
        "crawl_latency_median_interval": median["interval"],
        "crawl_latency_p90_seconds": p90["seconds"],
        "crawl_latency_p90_interval": p90["interval"],
        "crawl_latency_samples": len(samples),
        "crawl_latency_crawled": crawled,
        "awaiting_crawl": len(samples) - crawled,
    }


def coverage(observations: Iterable[Observation], now: float) -> dict[str, Any]:
    """The inspection figures of a section's observations."""
    listed = list(observations)
    seen = [o for o in listed if o.inspected_at is not None]
    uniform = [o for o in seen if o.stratum == RANDOM]
    indexed = sum(1 for o in uniform if o.indexed)
    states = Counter(o.coverage_state or "(no state given)" for o in seen if not o.indexed)
    return {
        "inspected": len(seen),
        "sampled_uniformly": len(uniform),
        "indexed": indexed,
        "indexed_share": _rounded(indexed / len(uniform)) if uniform else None,
        "indexed_interval": _interval(indexed, len(uniform)),
        "indexed_drop": indexed_drop(uniform, now),
        "not_indexed": dict(sorted(states.items(), key=lambda kv: (-kv[1], kv[0]))),
        "canonical_mismatch": sum(1 for o in seen if o.foreign_google_canonical),
        "inspection_errors": sum(1 for o in listed if o.inspection_error is not None),
        **crawl_latency(listed),
    }


def health(observations: Iterable[Observation], published: int) -> dict[str, Any]:
    """The health figures: URLs checked, unhealthy (with the share's interval), how many of
    each problem, and the share's lower bound the alarm watches (None: too few checked)."""
    checked = [o for o in observations if o.checked_at is not None]
    found = Counter(o.problem for o in checked if o.problem is not None)
    unhealthy = sum(found.values())
    interval = _interval(unhealthy, len(checked))
    enough = bool(checked) and len(checked) >= min(ALARM_MIN_CHECKS, max(1, published))
    return {
        "checked": len(checked),
        "unhealthy": unhealthy,
        "unhealthy_share": _rounded(unhealthy / len(checked)) if checked else None,
        "unhealthy_interval": interval,
        "unhealthy_alarm_percent": (
            round((interval[0] or 0.0) * 100, 2) if enough and interval else None
        ),
        "problems": dict(sorted(found.items())),
    }


def _kind(o: Observation) -> list[str]:
    kinds = []
    if o.problem is not None:
        kinds.append(o.problem)
    if o.foreign_google_canonical:
        kinds.append("google-canonical-elsewhere")
    if o.inspected_at is not None and o.indexed is False:
        kinds.append("not-indexed")
    if o.inspection_error is not None:
        kinds.append("inspection-error")
    return kinds


def _detail(o: Observation, kind: str) -> str | None:
    if kind == "redirect":
        return o.redirect_to
    if kind == "google-canonical-elsewhere":
        return o.google_canonical
    if kind == "not-indexed":
        return o.coverage_state
    if kind == "inspection-error":
        return o.inspection_error
    return o.health_reason


def _source(kind: str) -> str:
    return "google" if kind in GOOGLE_KINDS else "observer" if kind in OBSERVER_KINDS else "site"


def problems(observations: Iterable[Observation]) -> list[dict[str, Any]]:
    """Every URL that should not be in a sitemap as it is, once per kind of problem it has:
    by kind (the site's own problems first, the worst first: :data:`KINDS`), the most recently
    seen first within a kind."""
    rows = [
        {
            "url": o.url,
            "kind": kind,
            "source": _source(kind),
            "status": o.status if kind in SITE_KINDS else None,
            "detail": _detail(o, kind),
            "failures": o.failures if kind in SITE_KINDS else None,
            "seen_at": o.checked_at if kind in SITE_KINDS else o.inspected_at,
        }
        for o in observations
        for kind in _kind(o)
    ]
    return sorted(rows, key=lambda r: (KINDS.index(r["kind"]), -(r["seen_at"] or 0.0), r["url"]))


def _age_hours(moment: float | None, now: float) -> float | None:
    return None if moment is None else _rounded((now - moment) / 3600, 2)


def sitemap_figures(files: Iterable[Mapping[str, Any]], now: float) -> dict[str, Any]:
    """Search Console's figures of a section's files, from their status as Google last read
    them (``signals.sitemap_status_dict``, from ``sitemaps.list?sitemapIndex=``)."""
    read = list(files)
    submitted = [f["submitted"] for f in read if f.get("submitted") is not None]
    downloads = [f["last_downloaded"] for f in read if f.get("last_downloaded") is not None]
    return {
        "submitted": sum(submitted) if submitted else None,
        "files_known": len(read),
        "sitemap_errors": sum(int(f.get("errors", 0)) for f in read),
        "sitemap_warnings": sum(int(f.get("warnings", 0)) for f in read),
        "files_pending": sum(1 for f in read if f.get("is_pending")),
        "oldest_download_age_hours": _age_hours(min(downloads) if downloads else None, now),
    }


def bing_figures(feeds: Iterable[Mapping[str, Any]], now: float) -> dict[str, Any]:
    """What Bing's Webmaster API gives of a section's files (``GetFeedDetails`` of the index):
    the URLs it counted in them, how many it knows, their fetch status, the oldest crawl."""
    known = list(feeds)
    counts = [f["url_count"] for f in known if f.get("url_count") is not None]
    crawls = [f["last_crawled"] for f in known if f.get("last_crawled") is not None]
    return {
        "bing_urls": sum(counts) if counts else None,
        "bing_files_known": len(known),
        "bing_status": dict(sorted(Counter(str(f.get("status") or "") for f in known).items())),
        "bing_oldest_crawl_age_hours": _age_hours(min(crawls) if crawls else None, now),
    }


def section_figures(
    published: int, observations: Iterable[Observation], now: float
) -> dict[str, Any]:
    """Everything the coverage table shows of one section that its observations tell."""
    listed = list(observations)
    return {
        "published": published,
        **coverage(listed, now),
        **health(listed, published),
        "computed_at": int(now),
    }


def history_entry(figures: Mapping[str, Any], now: float) -> dict[str, Any]:
    """The few figures of a section kept in its history for each run (``coverage --since``)."""
    names = (
        "published",
        "submitted",
        "inspected",
        "indexed_share",
        "indexed_interval",
        "checked",
        "unhealthy_share",
        "unhealthy_interval",
        "crawl_latency_median_seconds",
        "crawl_latency_median_interval",
        "crawl_latency_samples",
        "canonical_mismatch",
        "excluded",
        "bing_urls",
    )
    entry: dict[str, Any] = {"at": int(now), **{n: figures.get(n) for n in names}}
    entry["not_indexed"] = sum((figures.get("not_indexed") or {}).values())
    return entry
