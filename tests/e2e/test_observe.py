"""The observer on the local deployment, against the loopback stand-ins of Search Console, Bing
and the site (``sitemap_updater_local.deployment.observed``): submission once per index and
retried, the engines' status of the index and of its files, the sampled coverage and crawl
latency, the URL health, the quota refusals, and ``sitemap-updater coverage`` reading what the
runs wrote (text, JSON, history, CSV). Nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import csv
import json
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from moto.server import ThreadedMotoServer

from sitemap_updater.observe.estimates.statistics import wilson_interval
from sitemap_updater.observe.records import FiguresStore
from sitemap_updater_local import cli
from sitemap_updater_local.deployment import SimulatedClock
from sitemap_updater_local.deployment.observed import ObservedSite, observed_site
from sitemap_updater_local.standins.loopback import Failure
from sitemap_updater_local.standins.search_console import indexed

START = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
#: every listed URL changed in the hours before START, one an hour
CHANGED = START - timedelta(hours=1)
#: a small health sample, so a run takes about a second at 10 fetches a second
PARAMETERS = {"HealthChecksPerDay": "480"}


@pytest.fixture
def observed() -> Iterator[tuple[ObservedSite, SimulatedClock]]:
    clock = SimulatedClock(START)
    with observed_site(articles=30, clock=clock, parameters=PARAMETERS) as site:
        site.deployment.send(site.page_changes(CHANGED))
        site.deployment.drain()
        site.deployment.rebuild_until_clean()
        yield site, clock


def _figures(site: ObservedSite) -> dict[tuple[str, str], dict[str, Any]]:
    dep = site.deployment
    table = dep.rebuild_function.environment["STATE_TABLE_NAME"]
    return FiguresStore(dep.dynamodb, table).load_all()


def _section(site: ObservedSite, name: str) -> dict[str, Any]:
    """A section as ``coverage --json`` shows it (every problem URL in ``worst``)."""
    (host,) = site.coverage()["hosts"]
    (section,) = [s for s in host["sections"] if s["name"] == name]
    return dict(section)


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
    site.console.downloaded(site.site_property, site.index_url, when=START, warnings=1)
    site.engines_read_the_index(START)
    clock.advance(3600)
    site.deployment.observe()
    figures = _figures(site)
    host = figures[(site.site.url, "")]
    assert host["index"]["warnings"] == 0 and host["index"]["is_pending"] is False
    assert host["index_download_age_hours"] == 1.0
    assert host["bing_index"]["status"] == "Success" and host["bing_index"]["url_count"] == 40
    art, pages = figures[(site.site.url, "articles")], figures[(site.site.url, "pages")]
    assert (art["published"], art["submitted"], art["bing_urls"]) == (30, 30, 30)
    assert (pages["published"], pages["submitted"], pages["bing_urls"]) == (10, 10, 10)
    assert art["inspected"] == 30 and art["indexed_share"] == 1.0
    interval = wilson_interval(art["sampled_uniformly"], art["sampled_uniformly"])
    assert art["indexed_interval"] == [round(v, 4) for v in interval or ()]
    assert art["sampled_uniformly"] >= 10
    # the changes of the day before the first look count (1 to 23 hours before it); each was
    # crawled two hours after it
    assert art["crawl_latency_samples"] == 23 and art["awaiting_crawl"] == 0
    assert art["crawl_latency_median_seconds"] == art["crawl_latency_p90_seconds"] == 7200.0
    assert art["crawl_latency_median_interval"] == [7200.0, 7200.0]
    assert art["canonical_mismatch"] == 1
    assert pages["indexed_share"] == 0.0 and pages["not_indexed"] == {
        "URL is unknown to Google": 10
    }
    # the files' status comes from the index's list, once a run; no file is asked for alone
    lists = [r for r in site.console.requests if "sitemapIndex" in r.query]
    assert [r.query["sitemapIndex"] for r in lists] == [[site.index_url]] * 2
    assert not [r for r in site.console.requests if r.method == "GET" and ".xml.gz" in r.path]


def test_health_of_the_sampled_urls_on_the_local_site(
    observed: tuple[ObservedSite, SimulatedClock],
) -> None:
    site, _ = observed
    site.deployment.observe()
    pages = _figures(site)[(site.site.url, "pages")]
    assert pages["checked"] == 10 and pages["unhealthy_share"] == 1.0
    worst = _section(site, "pages")["worst"]
    found = {w["url"].rsplit("/", 1)[1]: w for w in worst if w["source"] == "site"}
    assert {name: w["kind"] for name, w in found.items()} == {
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
    assert found["redirect-301"]["detail"] == f"{site.site.url}/articles/1"
    articles = _figures(site)[(site.site.url, "articles")]
    assert articles["checked"] == 10 and articles["unhealthy"] == 0
    agents = {r.headers.get("User-Agent", "") for r in site.site.requests}
    assert len(agents) == 1 and agents.pop().startswith("sitemap-updater-health/")
    assert not any(r.path == "/somewhere" for r in site.site.requests)


def _calls(site: ObservedSite) -> dict[str, Any]:
    return dict(_figures(site)[(site.site.url, "")]["search_console_calls"])


def _inspections(site: ObservedSite) -> list[Any]:
    return site.console.requests_to("/v1/urlInspection")


def test_the_day_quota_stops_inspections_and_the_run_still_writes_its_figures(
    observed: tuple[ObservedSite, SimulatedClock],
) -> None:
    site, _ = observed
    site.console.per_day = 5  # the property's quota is spent after five inspections
    report = site.deployment.observe()
    figures = _figures(site)
    inspected = sum(figures[(site.site.url, s)]["inspected"] for s in ("articles", "pages"))
    assert inspected == report["inspected"] == 5  # answers, not attempts
    assert len(_inspections(site)) == 6  # the sixth was refused with 429, and the run stopped there
    calls = _calls(site)
    assert (calls["stopped_on"], calls["refused"]) == ("daily", {"daily": 1})
    assert "per day per site" in calls["stop_reason"] and calls["answered"] < calls["calls"]
    assert figures[(site.site.url, "pages")]["checked"] == 10  # health is checked regardless


def test_a_per_minute_refusal_is_waited_out_and_costs_that_call_only(
    observed: tuple[ObservedSite, SimulatedClock],
) -> None:
    site, clock = observed
    site.console.retry_after = 1
    site.console.fail(Failure.RATE, channel="inspect")  # the run's first inspection
    started = clock()
    report = site.deployment.observe()
    asked = [json.loads(r.body)["inspectionUrl"] for r in _inspections(site)]
    assert Counter(asked)[asked[0]] == 2  # the refused one, asked again once its wait was over
    assert report["inspected"] == 40 and len(set(asked)) == 40 == len(asked) - 1
    calls = _calls(site)
    assert calls["refused"] == {"per-minute": 1} and calls["waited_seconds"] == 1
    assert calls["stopped_on"] is None and calls["calls"] == calls["answered"] + 1
    assert clock() - started >= 1  # the wait was on the run's clock


def test_the_coverage_command_prints_the_figures_per_host_and_section(
    observed: tuple[ObservedSite, SimulatedClock],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    site, clock = observed
    site.console.per_day = 5
    site.deployment.observe()
    clock.advance(3600)
    site.deployment.observe()
    stack = site.deployment.register_stack()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    exported = tmp_path / "problems.csv"
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
        options = ["--since", "3650d", "--csv", str(exported)]
        code_since = cli.main(
            ["coverage", "--stack-name", stack, "--endpoint-url", endpoint, *options]
        )
        trend, _ = capsys.readouterr()
        missing = cli.main(["coverage", "--stack-name", "nope", "--endpoint-url", endpoint])
    finally:
        server.stop()
    assert code == code_json == code_since == 0 and missing == 2
    assert f"site {site.site.url}" in text
    assert "section" in text and "published" in text and "indexed (95% CI)" in text
    calls = next(line for line in text.splitlines() if "Search Console calls" in line)
    assert "refused (429): 1 daily; stopped on daily: " in calls and "per day per site" in calls
    # the problem URLs grouped by kind, the site's own first, then Google's
    kinds = [line.strip().split(" (")[0] for line in text.splitlines() if line.startswith("    ")]
    kinds = [k for k in kinds if not k.startswith(("articles", "pages"))]
    assert kinds[:2] == ["not-found", "error"] and kinds.index("redirect") < kinds.index(
        "not-indexed"
    )
    assert "pages: " + site.site.url + "/redirect-301 (HTTP 301) -> " in text
    assert text.rstrip().splitlines()[-1].startswith("coverage: 1 hosts, 2 sections, ")
    (only,) = document["hosts"]
    assert [s["name"] for s in only["sections"]] == ["articles", "pages"]
    assert only["index"]["index_url"] == site.index_url
    assert only["index"]["search_console_calls"]["stopped_on"] == "daily"
    pages = only["sections"][1]
    assert {w["kind"] for w in pages["worst"]} >= {"not-found", "redirect", "noindex"}
    # --since adds the history, one line a day; --csv holds every problem URL of --json
    assert "trend, the last run of each day:" in trend
    assert trend.rstrip().splitlines()[-1].endswith(f", written to {exported}")
    with exported.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == sum(len(s["worst"]) for s in only["sections"])
    assert {(r["section"], r["kind"], r["url"]) for r in rows} == {
        (s["name"], w["kind"], w["url"]) for s in only["sections"] for w in s["worst"]
    }


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
    problems = [w["kind"] for s in ("articles", "pages") for w in _section(site, s)["worst"]]
    assert problems.count("unreachable") == 2
    clock.advance(3600)
    assert f"google {site.index_url}: submitted" in site.deployment.observe()["submissions"]
