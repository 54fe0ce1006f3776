"""Crawl latency: the time from a page's change to Google's first crawl after it.

URL Inspection reports a page's *last* crawl (``lastCrawlTime``), not the first after a change:
a page changed months ago and recrawled yesterday says nothing of how soon Google came after
the change. So a change counts only when the observer first inspected the page within
:data:`LATENCY_WINDOW_SECONDS` of it (its lastmod): a crawl Google reports then is the first
after the change (a page is rarely crawled twice within a day of a change), and a page not yet
crawled then is inspected again every :data:`AWAITING_RECHECK_SECONDS` until a crawl shows,
which then is the first. Each counted change is one sample of the time to an event:

- crawled: ``lastCrawlTime - lastmod`` at the first inspection that shows a crawl after it;
- not yet crawled (censored): at least ``last inspection - lastmod``, and counted so, not
  dropped, until :data:`LATENCY_HORIZON_SECONDS` after the change.

A page that changes again keeps its previous change's sample (crawled, or censored at its
last inspection before the new change), so that no sample is lost to a page changing often.

The median and the 90th percentile come from the Kaplan-Meier curve of these samples
(``statistics.survival_quantile``), with their intervals and the sample size.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from sitemap_updater.observe.records import Observation

#: a change counts when its page is first inspected within this long after it
LATENCY_WINDOW_SECONDS: Final = 24 * 3600
#: a counted page not yet crawled is inspected again after this long
AWAITING_RECHECK_SECONDS: Final = 6 * 3600
#: ... until its change is this old: then it stays censored at its last inspection
LATENCY_HORIZON_SECONDS: Final = 7 * 86_400


def with_change(seen: Observation, changed_at: float | None) -> Observation:
    """``seen`` for the page as now listed, last changed at ``changed_at``: a newer change
    starts a new sample, the old one kept as censored if it counted and no crawl showed."""
    if changed_at is None or seen.changed_at is None or changed_at <= seen.changed_at:
        return seen if seen.changed_at is not None else seen.with_changes(changed_at=changed_at)
    current = _sample(seen)
    return seen.with_changes(
        changed_at=changed_at,
        looked_at=None,
        uncrawled_at=None,
        first_crawl_at=None,
        earlier_latency=seen.earlier_latency if current is None else current[0],
        earlier_crawled=seen.earlier_crawled if current is None else current[1],
    )


def with_answer(seen: Observation, answered_at: float, crawled_at: float | None) -> Observation:
    """``seen`` after an inspection answered at ``answered_at`` reported the last crawl
    ``crawled_at`` (None: never crawled)."""
    changed = seen.changed_at
    if changed is None or answered_at < changed or seen.first_crawl_at is not None:
        return seen
    looked = seen.looked_at if seen.looked_at is not None else answered_at
    if crawled_at is not None and crawled_at >= changed:
        return seen.with_changes(looked_at=looked, first_crawl_at=crawled_at)
    return seen.with_changes(looked_at=looked, uncrawled_at=answered_at)


def counts(seen: Observation) -> bool:
    """Whether the page's current change is a sample: first inspected soon enough after it."""
    return (
        seen.changed_at is not None
        and seen.looked_at is not None
        and seen.looked_at - seen.changed_at <= LATENCY_WINDOW_SECONDS
    )


def awaiting(seen: Observation, now: float) -> bool:
    """Whether the page is a sample still waiting for its crawl, due to be inspected again."""
    if not counts(seen) or seen.first_crawl_at is not None or seen.changed_at is None:
        return False
    last = seen.inspected_at or 0.0
    young = now - seen.changed_at < LATENCY_HORIZON_SECONDS
    return young and now - last >= AWAITING_RECHECK_SECONDS


def _sample(seen: Observation) -> tuple[float, bool] | None:
    """The sample of the page's current change, if it counts."""
    if not counts(seen) or seen.changed_at is None:
        return None
    if seen.first_crawl_at is not None:
        return max(0.0, seen.first_crawl_at - seen.changed_at), True
    if seen.uncrawled_at is not None:
        return max(0.0, seen.uncrawled_at - seen.changed_at), False
    return None


def samples(observations: Iterable[Observation]) -> list[tuple[float, bool]]:
    """(seconds from the change, whether Google's first crawl after it was seen) of each
    counted change: each page's current one and the one before it."""
    found: list[tuple[float, bool]] = []
    for seen in observations:
        if seen.earlier_latency is not None:
            found.append((max(0.0, seen.earlier_latency), bool(seen.earlier_crawled)))
        current = _sample(seen)
        if current is not None:
            found.append(current)
    return found
