"""No page, URL or answer can stop an observer run: pages no reading survives, a URL as long as
ingest accepts, a redirect to 60 KB of Location, an answer the client cannot read and an error
that echoes the credentials each cost their own URL's outcome (an ``error`` with its reason)
or figure; nothing stored grows past its cap or holds a credential; and a run that dies midway
has counted every call it made. Nothing leaves 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from sitemap_updater.engines import health
from sitemap_updater.observe.budget import BUDGET_PK
from sitemap_updater.observe.records import TEXT_CHARS, ObservationStore
from sitemap_updater.store.items import item_size
from sitemap_updater_local.deployment import SimulatedClock
from sitemap_updater_local.deployment.observed import BING_KEY, ObservedSite, observed_site
from sitemap_updater_local.standins.loopback import Failure
from sitemap_updater_local.standins.site import HOSTILE

START = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


@pytest.fixture
def observed() -> Iterator[tuple[ObservedSite, SimulatedClock]]:
    clock = SimulatedClock(START)
    with observed_site(articles=10, clock=clock, parameters={"HealthChecksPerDay": "960"}) as site:
        site.site.pages.update(HOSTILE)
        yield site, clock


def _publish(site: ObservedSite, extra: list[str]) -> None:
    dep = site.deployment
    events = site.page_changes(START - timedelta(hours=1))
    stamp = START.strftime("%Y-%m-%dT%H:%M:%SZ")
    events += [json.dumps({"action": "upsert", "url": url, "occurred_at": stamp}) for url in extra]
    dep.send(events)
    dep.drain()
    dep.rebuild_until_clean()


def _items(site: ObservedSite) -> list[dict[str, Any]]:
    """The observer's items of the state table."""
    dep = site.deployment
    items = dep.dynamodb.scan(TableName=site.state_table)["Items"]
    return [item for item in items if item["pk"]["S"].startswith("observe#")]


def _observations(site: ObservedSite) -> dict[str, Any]:
    dep = site.deployment
    store = ObservationStore(dep.dynamodb, site.state_table)
    found = {}
    for section in ("articles", "pages"):
        found.update(store.load(site.site.url, section, dep.clock() if dep.clock else 0))
    return found


def test_no_page_or_url_stops_the_run(
    observed: tuple[ObservedSite, SimulatedClock], monkeypatch: pytest.MonkeyPatch
) -> None:
    site, _ = observed
    long_url = f"{site.site.url}/articles/" + "x" * (2048 - len(site.site.url) - 10)
    hostile = [site.site.url + path for path in HOSTILE]
    for n in range(10):  # ten redirects to 60 KB of Location each
        site.site.pages[f"/long-redirect-{n}"] = HOSTILE["/long-redirect"]
    far = [f"{site.site.url}/long-redirect-{n}" for n in range(10)]
    _publish(site, [long_url, *hostile, *far, site.site.url + "/broken-reader"])
    site.console.inspections[site.site.url + "/articles/3"] = {"verdict": 7}  # unreadable
    reading = health.judge

    def judge(url: str, identity: str, answer: Any) -> Any:
        if url.endswith("/broken-reader"):
            raise AssertionError("unknown status keyword 'FOR' in marked section")
        return reading(url, identity, answer)

    monkeypatch.setattr(health, "judge", judge)
    report = site.deployment.observe()
    seen = _observations(site)
    assert report["health_checks"] == len(seen) == 10 + 10 + 1 + len(HOSTILE) + 10 + 1
    assert long_url in seen and seen[long_url].checked_at is not None
    broken = seen[site.site.url + "/broken-reader"]
    assert broken.problem == "error" and "AssertionError" in (broken.health_reason or "")
    assert seen[site.site.url + "/charset-undefined"].problem is None
    redirect = seen[site.site.url + "/long-redirect"]
    assert redirect.problem == "redirect" and len(redirect.redirect_to or "") == TEXT_CHARS
    unreadable = seen[site.site.url + "/articles/3"]
    assert unreadable.inspected_at is None and "not text" in (unreadable.inspection_error or "")
    assert report["inspected"] == len(seen) - 1  # answers, not attempts
    assert all(item_size(item) < 20_000 for item in _items(site))


def test_a_run_that_dies_midway_has_counted_every_call_it_made(
    observed: tuple[ObservedSite, SimulatedClock], monkeypatch: pytest.MonkeyPatch
) -> None:
    site, _ = observed
    _publish(site, [])
    saved = ObservationStore.save
    saves: list[int] = []

    def save(self: ObservationStore, *args: Any) -> None:
        saves.append(1)
        if len(saves) > 6:
            raise RuntimeError("the function ran out of time")
        saved(self, *args)

    monkeypatch.setattr(ObservationStore, "save", save)
    with pytest.raises(RuntimeError, match="ran out of time"):
        site.deployment.observe()
    made = [r for r in site.console.requests if r.path != "/token"]
    (budget,) = [i for i in _items(site) if i["pk"]["S"] == BUDGET_PK]
    assert int(budget["used"]["N"]) == len(made) > 6


def test_no_credential_is_kept_or_printed(observed: tuple[ObservedSite, SimulatedClock]) -> None:
    site, clock = observed
    _publish(site, [])
    site.console.echo_credentials = site.bing.echo_credentials = True
    site.console.fail(Failure.ERROR)  # the submission: its error quotes the token back
    site.console.fail(Failure.ERROR, channel="inspect", times=3)
    site.bing.fail(Failure.ERROR)  # ... and Bing's, the key
    first = site.deployment.observe()
    after_first = json.dumps(_items(site)) + json.dumps(site.coverage()) + json.dumps(first)
    clock.advance(3600)
    second = site.deployment.observe()  # the submissions go through: their reasons are gone
    after_second = json.dumps(_items(site)) + json.dumps(site.coverage()) + json.dumps(second)
    printed = "\n".join(site.deployment.output.tail)
    assert "Authorization" in after_first and "apikey" in after_first  # the errors are there ...
    for text in (after_first, after_second, printed):  # ... without what they quoted
        for secret in (*site.console.tokens, BING_KEY):
            assert secret.lower() not in text.lower()
