"""The figures of a host's section, computed from its observations and Search Console's status.

- ``indexed_share`` and its 95% Wilson interval come from the ``random`` stratum alone (a
  uniform sample of the section), so the favoured recent changes do not bias it;
- ``canonical_mismatch`` counts inspected URLs for which Google chose another canonical;
- ``crawl_latency_*`` is ``lastCrawlTime`` minus the change's time (the URL's lastmod) for the
  inspected URLs Google crawled after their change; ``awaiting_crawl`` those it has not yet;
- ``unhealthy_share`` is over the URLs whose health was checked in the window.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any, Final

from sitemap_updater.engines.health import PROBLEMS
from sitemap_updater.observe.records import Observation
from sitemap_updater.observe.sampling import RANDOM
from sitemap_updater.observe.statistics import quantile, wilson_interval

#: the worst URLs a section's figures keep, worst first
WORST_KEPT: Final = 10


def _rounded(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def coverage(observations: Iterable[Observation]) -> dict[str, Any]:
    """The inspection figures of a section's observations."""
    seen = [o for o in observations if o.inspected_at is not None]
    uniform = [o for o in seen if o.stratum == RANDOM]
    indexed = sum(1 for o in uniform if o.indexed)
    interval = wilson_interval(indexed, len(uniform))
    latencies = [
        o.crawled_at - o.changed_at
        for o in seen
        if o.crawled_at is not None and o.changed_at is not None and o.crawled_at >= o.changed_at
    ]
    awaiting = sum(
        1
        for o in seen
        if o.changed_at is not None and (o.crawled_at is None or o.crawled_at < o.changed_at)
    )
    return {
        "inspected": len(seen),
        "sampled_uniformly": len(uniform),
        "indexed": indexed,
        "indexed_share": _rounded(indexed / len(uniform)) if uniform else None,
        "indexed_interval": None if interval is None else [_rounded(v) for v in interval],
        "canonical_mismatch": sum(1 for o in seen if o.foreign_google_canonical),
        "crawl_latency_median_seconds": _rounded(quantile(latencies, 0.5), 1),
        "crawl_latency_p90_seconds": _rounded(quantile(latencies, 0.9), 1),
        "crawl_latency_samples": len(latencies),
        "awaiting_crawl": awaiting,
    }


def health(observations: Iterable[Observation]) -> dict[str, Any]:
    """The health figures: URLs checked, unhealthy, and how many of each problem."""
    checked = [o for o in observations if o.checked_at is not None]
    problems = Counter(o.problem for o in checked if o.problem is not None)
    unhealthy = sum(problems.values())
    return {
        "checked": len(checked),
        "unhealthy": unhealthy,
        "unhealthy_share": _rounded(unhealthy / len(checked)) if checked else None,
        "problems": dict(sorted(problems.items())),
    }


def _badness(o: Observation) -> tuple[int, float]:
    rank = PROBLEMS.index(o.problem) if o.problem in PROBLEMS else len(PROBLEMS)
    return rank, -(o.checked_at or o.inspected_at or 0.0)


def worst(observations: Iterable[Observation], kept: int = WORST_KEPT) -> list[dict[str, Any]]:
    """The URLs that should not be in a sitemap as they are (redirects, 404s, noindex, a
    canonical elsewhere, by the site or by Google), worst first."""
    bad = [o for o in observations if o.problem is not None or o.foreign_google_canonical]
    return [
        {
            "url": o.url,
            "problem": o.problem or "google-canonical-elsewhere",
            "status": o.status,
            "redirect_to": o.redirect_to,
            "google_canonical": o.google_canonical if o.foreign_google_canonical else None,
            "failures": o.failures,
        }
        for o in sorted(bad, key=_badness)[:kept]
    ]


def section_figures(
    published: int,
    files: Mapping[str, Mapping[str, Any]],
    observations: Iterable[Observation],
    now: float,
) -> dict[str, Any]:
    """Everything the coverage table shows of one section; ``files`` is Search Console's last
    known status of each of its files (``sitemap_status_dict``)."""
    listed = list(observations)
    read = [f for f in files.values() if not f.get("unknown")]  # statuses Google gave
    submitted = [f["submitted"] for f in read if f.get("submitted") is not None]
    downloads = [f.get("last_downloaded") for f in read]
    return {
        "published": published,
        "submitted": sum(submitted) if submitted else None,
        "files_known": len(read),
        "sitemap_errors": sum(int(f.get("errors", 0)) for f in read),
        "sitemap_warnings": sum(int(f.get("warnings", 0)) for f in read),
        "files_pending": sum(1 for f in read if f.get("is_pending")),
        "oldest_download_age_hours": _age_hours(downloads, now),
        **coverage(listed),
        **health(listed),
        "worst": worst(listed),
        "computed_at": int(now),
    }


def _age_hours(downloads: list[float | None], now: float) -> float | None:
    """Hours since the least recent download among files (None: none known, or one never
    downloaded counts as the oldest only once Google read any)."""
    known = [d for d in downloads if d is not None]
    if not known:
        return None
    return _rounded((now - min(known)) / 3600, 2)
