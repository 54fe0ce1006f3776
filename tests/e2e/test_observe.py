"""The observer on the local deployment, against the loopback stand-ins of Search Console, Bing
and the site (``sitemap_updater_local.deployment.observed``): submission once per index and
retried, Search Console's status, the sampled coverage and crawl latency, the URL health, and
``sitemap-updater coverage`` reading what the runs wrote. Nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from moto.server import ThreadedMotoServer

from sitemap_updater.observe.records import FiguresStore
from sitemap_updater.observe.statistics import wilson_interval
from sitemap_updater_local import cli
from sitemap_updater_local.deployment import SimulatedClock
from sitemap_updater_local.deployment.observed import ObservedSite, observed_site
from sitemap_updater_local.standins.loopback import Failure
from sitemap_updater_local.standins.search_console import SitemapRecord, indexed

START = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
#: every listed URL changed in the hours before START, one an hour
CHANGED = START - timedelta(hours=1)
#: a small health sample, so a run takes about a second at 10 fetches a second
PARAMETERS = {"HealthChecksPerDay": "480"}


@pytest.fixture
def observed() -> Iterator[tuple[ObservedSite, SimulatedClock]]:
    clock = SimulatedClock(START)
    with observed_site(articles=30, clock=clock, parameters=PARAMETERS) as site:
        site.deployment.send(site.page_events(CHANGED))
        site.deployment.drain()
        site.deployment.rebuild_until_clean()
        yield site, clock


def _figures(site: ObservedSite) -> dict[tuple[str, str], dict[str, Any]]:
    dep = site.deployment
    table = dep.rebuild_function.environment["STATE_TABLE_NAME"]
    return FiguresStore(dep.dynamodb, table).load_all()


def _submits(site: ObservedSite) -> list[str]:
    return [r.path for r in site.console.requests if r.method == "PUT"]


def test_each_index_is_submitted_once_to_both_engines(
    observed: tuple[ObservedSite, SimulatedClock],
) -> None:
    site, clock = observed
    first = site.deployment.observe()
    clock.advance(3600)
    site.deployment.observe()
    assert sorted(first["submissions"]) == [
        f"bing {site.index_url}: submitted",
        f"google {site.index_url}: submitted",
    ]
    assert len(_submits(site)) == 1
    assert site.bing.feeds == [(site.site_property, site.index_url)]
    host = _figures(site)[(site.site.url, "")]
    assert {(s["engine"], s["state"], s["attempts"]) for s in host["submissions"]} == {
        ("google", "submitted", 1),
        ("bing", "submitted", 1),
    }


def test_a_refused_submission_is_recorded_and_retried_by_the_next_run(
    observed: tuple[ObservedSite, SimulatedClock],
) -> None:
    site, clock = observed
    site.console.fail(Failure.UNAVAILABLE)  # the run's first API call: the submission
    site.bing.fail(Failure.QUOTA)
    first = site.deployment.observe()
    assert sorted(first["submissions"]) == [
        f"bing {site.index_url}: failed",
        f"google {site.index_url}: failed",
    ]
    host = _figures(site)[(site.site.url, "")]
    reasons = {s["engine"]: s["reason"] for s in host["submissions"]}
    assert "HTTP 503" in reasons["google"] and "ThrottleUser" in reasons["bing"]
    clock.advance(3600)
    second = site.deployment.observe()
    assert sorted(second["submissions"]) == [
        f"bing {site.index_url}: submitted",
        f"google {site.index_url}: submitted",
    ]
    clock.advance(3600)
    assert site.deployment.observe()["submissions"] == []


def test_coverage_latency_and_status_per_section(
    observed: tuple[ObservedSite, SimulatedClock],
) -> None:
    site, clock = observed
    articles = site.site.article_urls(site.articles)
    # Google crawled each article two hours after its change, and chose the first as canonical
    # of the second; the problem pages it does not know
    for i, url in enumerate(articles):
        changed = CHANGED - timedelta(hours=i)
        canonical = articles[0] if i == 1 else url
        site.console.inspections[url] = indexed(
            last_crawl=changed + timedelta(hours=2), google_canonical=canonical
        )
    site.deployment.observe()
    files = {
        key: f"{site.site.url}/{key}"
        for key in site.deployment.objects()
        if key.startswith("sitemap-") and key.endswith(".xml.gz")
    }
    site.console.downloaded(
        site.site_property, site.index_url, when=START, submitted={"web": 40}, warnings=1
    )
    records = site.console.sitemaps[site.site_property]
    for key, url in files.items():
        counted = 30 if "articles" in key else 9
        records[url] = SitemapRecord(url, START, START, False, contents={"web": counted})
    clock.advance(3600)
    site.deployment.observe()
    figures = _figures(site)
    host = figures[(site.site.url, "")]
    assert host["index"]["warnings"] == 1 and host["index"]["is_pending"] is False
    assert host["index_download_age_hours"] == 1.0
    art, pages = figures[(site.site.url, "articles")], figures[(site.site.url, "pages")]
    assert (art["published"], art["submitted"]) == (30, 30)
    assert (pages["published"], pages["submitted"]) == (10, 9)
    assert art["inspected"] == 30 and art["indexed_share"] == 1.0
    interval = wilson_interval(art["sampled_uniformly"], art["sampled_uniformly"])
    assert art["indexed_interval"] == [round(v, 4) for v in interval or ()]
    assert art["sampled_uniformly"] >= 10
    assert art["crawl_latency_median_seconds"] == art["crawl_latency_p90_seconds"] == 7200.0
    assert art["canonical_mismatch"] == 1
    assert pages["indexed_share"] == 0.0 and pages["awaiting_crawl"] == 10


def test_health_of_the_sampled_urls_on_the_local_site(
    observed: tuple[ObservedSite, SimulatedClock],
) -> None:
    site, _ = observed
    site.deployment.observe()
    pages = _figures(site)[(site.site.url, "pages")]
    assert pages["checked"] == 10 and pages["unhealthy_share"] == 1.0
    found = {w["url"].rsplit("/", 1)[1]: w for w in pages["worst"]}
    assert {name: w["problem"] for name, w in found.items()} == {
        "missing": "not-found",
        "gone": "not-found",
        "broken": "error",
        "redirect-301": "redirect",
        "redirect-302": "redirect",
        "redirect-off-site": "redirect",
        "noindex-meta": "noindex",
        "noindex-googlebot": "noindex",
        "noindex-header": "noindex",
        "foreign-canonical": "foreign-canonical",
    }
    assert found["redirect-301"]["redirect_to"] == f"{site.site.url}/articles/1"
    articles = _figures(site)[(site.site.url, "articles")]
    assert articles["checked"] == 10 and articles["unhealthy"] == 0
    agents = {r.headers.get("User-Agent", "") for r in site.site.requests}
    assert len(agents) == 1 and agents.pop().startswith("sitemap-updater-health/")
    assert not any(r.path == "/somewhere" for r in site.site.requests)


def test_the_day_quota_stops_inspections_and_the_run_still_writes_its_figures(
    observed: tuple[ObservedSite, SimulatedClock],
) -> None:
    site, _ = observed
    site.console.per_day = 5  # the property's quota is spent after five inspections
    report = site.deployment.observe()
    figures = _figures(site)
    inspected = sum(figures[(site.site.url, s)]["inspected"] for s in ("articles", "pages"))
    assert inspected == 5
    assert report["inspected"] == 6  # the sixth was refused with 429, and the run stopped there
    assert figures[(site.site.url, "pages")]["checked"] == 10  # health is checked regardless


def test_the_coverage_command_prints_the_figures_per_host_and_section(
    observed: tuple[ObservedSite, SimulatedClock], capsys: pytest.CaptureFixture[str]
) -> None:
    site, _ = observed
    site.deployment.observe()
    stack = site.deployment.register_stack()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        capsys.readouterr()
        code = cli.main(["coverage", "--stack-name", stack, "--endpoint-url", endpoint])
        text, _ = capsys.readouterr()
        code_json = cli.main(
            ["coverage", "--stack-name", stack, "--endpoint-url", endpoint, "--json"]
        )
        document = json.loads(capsys.readouterr()[0])
        missing = cli.main(["coverage", "--stack-name", "nope", "--endpoint-url", endpoint])
    finally:
        server.stop()
    assert code == code_json == 0 and missing == 2
    assert f"site {site.site.url}" in text
    assert "section" in text and "published" in text and "indexed (95% CI)" in text
    assert "redirect (HTTP 301): " in text and "noindex (HTTP 200): " in text
    (only,) = document["hosts"]
    assert [s["name"] for s in only["sections"]] == ["articles", "pages"]
    assert only["index"]["index_url"] == site.index_url


def test_slow_and_dropped_answers_end_by_the_deadline_and_the_run_goes_on(
    observed: tuple[ObservedSite, SimulatedClock],
) -> None:
    site, clock = observed
    site.deployment.observe_function.environment["OBSERVE_DEADLINE_SECONDS"] = "1"
    site.console.fail(Failure.SLOW)  # the submission drips for longer than the deadline
    site.console.fail(Failure.DROP)  # the index's status: the connection closes unanswered
    site.site.fail(Failure.SLOW, times=2)  # the first two pages fetched, likewise
    report = site.deployment.observe()
    assert f"google {site.index_url}: failed" in report["submissions"]
    figures = _figures(site)
    host = figures[(site.site.url, "")]
    google = next(s for s in host["submissions"] if s["engine"] == "google")
    assert "deadline" in google["reason"]
    assert host["index"] is None and host["problems"]
    problems = [
        w["problem"] for s in ("articles", "pages") for w in figures[(site.site.url, s)]["worst"]
    ]
    assert problems.count("unreachable") == 2
    clock.advance(3600)
    assert f"google {site.index_url}: submitted" in site.deployment.observe()["submissions"]
