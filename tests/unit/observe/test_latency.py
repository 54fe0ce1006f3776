"""Crawl latency as a time to an event: what each inspection of a page says of the time from its
change to Google's first crawl after it, and which changes count at all."""

from __future__ import annotations

from sitemap_updater.observe.estimates import latency
from sitemap_updater.observe.estimates.latency import (
    AWAITING_RECHECK_SECONDS,
    LATENCY_HORIZON_SECONDS,
    LATENCY_WINDOW_SECONDS,
)
from sitemap_updater.observe.records import Observation
from sitemap_updater.observe.sampling import RECENT

CHANGED = 1_800_000_000.0
HOUR = 3600.0
URL = "https://www.example.com/a"


def _changed(at: float = CHANGED) -> Observation:
    return latency.with_change(Observation(URL, RECENT), at)


def _inspected(seen: Observation, at: float, crawled: float | None) -> Observation:
    return latency.with_answer(seen.with_changes(inspected_at=at), at, crawled)


def test_a_crawl_after_the_change_seen_soon_after_it_is_a_sample() -> None:
    seen = _inspected(_changed(), CHANGED + 2 * HOUR, CHANGED + HOUR)
    assert latency.samples([seen]) == [(HOUR, True)]


def test_a_page_not_crawled_yet_is_censored_at_its_last_inspection() -> None:
    seen = _inspected(_changed(), CHANGED + HOUR, CHANGED - 30 * 86_400)  # crawled long before
    seen = _inspected(seen, CHANGED + 7 * HOUR, CHANGED - 30 * 86_400)
    assert latency.samples([seen]) == [(7 * HOUR, False)]
    # ... and its first crawl, once it shows, is the sample, whatever Google does later
    seen = _inspected(seen, CHANGED + 13 * HOUR, CHANGED + 9 * HOUR)
    seen = _inspected(seen, CHANGED + 60 * HOUR, CHANGED + 50 * HOUR)
    assert latency.samples([seen]) == [(9 * HOUR, True)]


def test_a_change_first_inspected_long_after_it_says_nothing_of_its_first_crawl() -> None:
    # months old lastmod, recrawled yesterday: not "months of latency", no sample at all
    old = CHANGED - 120 * 86_400
    seen = _inspected(_changed(old), CHANGED, CHANGED - 86_400)
    assert CHANGED - old > LATENCY_WINDOW_SECONDS
    assert latency.samples([seen]) == []
    assert not latency.awaiting(seen, CHANGED + 86_400)


def test_a_new_change_keeps_the_sample_of_the_one_before() -> None:
    crawled = _inspected(_changed(), CHANGED + 2 * HOUR, CHANGED + HOUR)
    again = latency.with_change(crawled, CHANGED + 10 * HOUR)
    assert latency.samples([again]) == [(HOUR, True)]
    waiting = _inspected(_changed(), CHANGED + 3 * HOUR, None)
    again = latency.with_change(waiting, CHANGED + 10 * HOUR)
    again = _inspected(again, CHANGED + 11 * HOUR, None)
    assert sorted(latency.samples([again])) == [(HOUR, False), (3 * HOUR, False)]


def test_a_waiting_page_is_due_again_after_a_while_and_until_its_horizon() -> None:
    seen = _inspected(_changed(), CHANGED + HOUR, None)
    assert not latency.awaiting(seen, CHANGED + HOUR + AWAITING_RECHECK_SECONDS - 1)
    assert latency.awaiting(seen, CHANGED + HOUR + AWAITING_RECHECK_SECONDS)
    assert not latency.awaiting(seen, CHANGED + LATENCY_HORIZON_SECONDS)
    crawled = _inspected(seen, CHANGED + 8 * HOUR, CHANGED + 5 * HOUR)
    assert not latency.awaiting(crawled, CHANGED + 30 * HOUR)


def test_an_answer_from_before_the_change_is_no_look_after_it() -> None:
    seen = latency.with_answer(_changed(), CHANGED - HOUR, None)
    assert seen.looked_at is None and latency.samples([seen]) == []
