"""Crawl latency against a stand-in whose crawl delays are known: pages change every hour, Google
first crawls each change after a delay drawn from a log-normal distribution of a known median
(and recrawls every 30 to 48 hours after), and the observer runs hourly on the local deployment
for two days. The median it reports, from the Kaplan-Meier curve of the changes it saw soon
enough, has an interval that holds the true median; the pages changed long ago, whose last
crawl says nothing of the delay after their change, are no sample."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta

from sitemap_updater.observe.records import ObservationStore
from sitemap_updater_local.deployment import SimulatedClock
from sitemap_updater_local.deployment.observed import observed_site
from sitemap_updater_local.standins.crawls import CrawlSchedule

START = datetime(2026, 11, 27, 0, 0, tzinfo=UTC)
ARTICLES = 200
#: the true median of the delay from a change to its first crawl
MEDIAN_HOURS = 6.0
RUNS = 48
CHANGES_PER_HOUR = 6


def _upsert(url: str, moment: datetime) -> str:
    stamp = moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    return json.dumps({"action": "upsert", "url": url, "occurred_at": stamp, "lastmod": stamp})


def test_the_reported_median_s_interval_holds_the_true_median() -> None:
    clock = SimulatedClock(START)
    parameters = {"HealthChecksPerDay": "0"}  # the engines alone
    with observed_site(articles=ARTICLES, clock=clock, parameters=parameters) as site:
        dep = site.deployment
        crawls = site.console.crawls = CrawlSchedule(median_hours=MEDIAN_HOURS, seed=11)
        urls = site.site.article_urls(ARTICLES)
        old = START - timedelta(days=90)
        for url in urls:  # every page changed months ago, and crawled since
            crawls.changed(url, old)
        dep.send([_upsert(url, old) for url in urls])
        dep.drain()
        dep.rebuild_until_clean()
        rng = random.Random(5)
        for _ in range(RUNS):
            now = datetime.fromtimestamp(clock(), UTC)
            changed = rng.sample(urls, CHANGES_PER_HOUR)
            for url in changed:
                crawls.changed(url, now)
            dep.send([_upsert(url, now) for url in changed])
            dep.drain()
            dep.rebuild_until_clean()
            clock.advance(600)  # the observer runs ten minutes after the publish
            dep.observe()
            clock.advance(3000)
        figures = site.coverage()["hosts"][0]["sections"]
        (articles,) = [s for s in figures if s["name"] == "articles"]
        observed = ObservationStore(dep.dynamodb, site.state_table).load(
            site.site.url, "articles", clock()
        )
    low, high = articles["crawl_latency_median_interval"]
    truth = MEDIAN_HOURS * 3600
    assert low <= truth and (high is None or truth <= high), (low, high, truth)
    assert low <= articles["crawl_latency_median_seconds"] <= (high or float("inf"))
    # most of the changes are samples, some still waiting for their crawl (censored)
    assert articles["crawl_latency_samples"] >= RUNS * CHANGES_PER_HOUR // 2
    assert 0 < articles["awaiting_crawl"] < articles["crawl_latency_samples"] // 2
    assert articles["crawl_latency_samples"] <= RUNS * CHANGES_PER_HOUR
    # the uniform sample inspected pages changed months ago: none of them is a sample
    months_old = [o for o in observed.values() if o.changed_at == old.timestamp()]
    assert months_old and all(o.inspected_at is not None for o in months_old)
    assert all(o.looked_at is None or o.looked_at - o.changed_at > 86_400 for o in months_old)
