"""Every host, every run: ten hosts (``SiteUrl`` allows ten) at the template's defaults, where each
answer of Search Console takes half a second and each page a fifth of one, as they may for
real, on the run's clock. Doing every host's share would take longer than the function's
timeout; the run shares its time, so each host gets inspections and health checks, about as
many as the next, and the run ends within the timeout with every host's figures written."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import boto3

from sitemap_updater.observe.credentials import engine_clients
from sitemap_updater.observe.observer import ObserveService
from sitemap_updater.observe.records import FiguresStore
from sitemap_updater.observe.settings import ObserveConfig
from sitemap_updater_local.deployment import SimulatedClock
from sitemap_updater_local.deployment.observed import ObservedSite, observed_site

START = datetime(2026, 11, 27, 0, 0, tzinfo=UTC)  # a run at midnight: a 24th of the day's calls
HOSTS = 10
INSPECTION_SECONDS = 0.5
PAGE_SECONDS = 0.2


def _run(site: ObservedSite, clock: SimulatedClock) -> tuple[dict[str, Any], float, float]:
    """One run of the observer's service on the deployment, its time on the simulated clock
    and bounded by the function's timeout: (its report, the seconds it took, the timeout)."""
    dep = site.deployment
    function = dep.observe_function
    assert function is not None
    config = ObserveConfig.from_env(function.environment)
    timeout = float(function.spec.timeout_seconds)
    secrets = boto3.client("secretsmanager", region_name="us-east-1")
    started = clock()
    service = ObserveService(
        config,
        dynamodb=dep.dynamodb,
        s3=dep.s3,
        engines=engine_clients(config, secrets),
        clock=clock,
        remaining_seconds=lambda: timeout - (clock() - started),
        sleep=clock.advance,
        monotonic=clock,
    )
    report = service.run()
    return report, clock() - started, timeout


def test_ten_hosts_at_the_defaults_each_get_inspections_and_checks_within_the_timeout() -> None:
    clock = SimulatedClock(START)
    defaults = {"HealthRequestsPerSecond": "1"}  # the template's, not the stand-ins' quicker one
    with observed_site(articles=60, hosts=HOSTS, clock=clock, parameters=defaults) as site:
        dep = site.deployment
        dep.send(site.page_changes(START))
        dep.drain()
        dep.rebuild_until_clean()
        site.console.latency, site.console.advance = INSPECTION_SECONDS, clock.advance
        for each in site.sites:
            each.latency, each.advance = PAGE_SECONDS, clock.advance
        first, seconds, timeout = _run(site, clock)
        clock.advance(3600 - seconds)
        second, _, _ = _run(site, clock)
        table = dep.rebuild_function.environment["STATE_TABLE_NAME"]
        figures = FiguresStore(dep.dynamodb, table).load_all()
        origins = {each.url for each in site.sites}
    assert first["hosts"] == HOSTS and seconds <= timeout
    for report in (first, second):
        counts = report["per_host"]
        assert len(counts) == HOSTS
        inspected = [c["inspected"] for c in counts.values()]
        checked = [c["health_checks"] for c in counts.values()]
        assert min(inspected) > 0 and min(checked) > 0, counts
        assert max(inspected) - min(inspected) <= max(inspected) // 4 + 2, counts
        # the time was short: not every host could spend its share of the day's calls
        shares = [c["allowed"] for c in report["search_console_calls"].values()]
        assert sum(inspected) < sum(shares)
    assert {origin for origin, _ in figures} == origins
    assert {section for _, section in figures} == {"", "articles", "pages"}
