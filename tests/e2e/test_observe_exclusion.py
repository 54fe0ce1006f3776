"""ExcludeUnhealthy on the local deployment and the local site: a URL whose own problem (missing,
redirected, noindex, canonical elsewhere) repeats is left out of the sitemap by the next rebuild,
a server error never is, a URL that heals comes back, and turning the option off brings back
every one; each exclusion is counted in the figures."""

from __future__ import annotations

import gzip
from datetime import UTC, datetime, timedelta

from sitemap_updater.observe.records import FiguresStore
from sitemap_updater_local.deployment import SimulatedClock
from sitemap_updater_local.deployment.observed import ObservedSite, observed_site
from sitemap_updater_local.standins.site import SiteAnswer

START = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
PARAMETERS = {
    "HealthChecksPerDay": "480",
    "ObserveDailyApiCalls": "0",  # health alone
    "ExcludeUnhealthy": "true",
    "ExcludeAfterFailures": "2",
}
EXCLUDABLE = {
    "missing",
    "gone",
    "redirect-301",
    "redirect-302",
    "redirect-off-site",
    "noindex-meta",
    "noindex-googlebot",
    "noindex-header",
    "foreign-canonical",
}


def _listed(site: ObservedSite) -> set[str]:
    dep = site.deployment
    urls: set[str] = set()
    for key in dep.objects():
        if key.startswith("sitemap-pages-") and key.endswith(".xml.gz"):
            body = gzip.decompress(
                dep.s3.get_object(Bucket=dep.bucket_name, Key=key)["Body"].read()
            )
            urls |= {
                part.split(b"</loc>")[0].decode().rsplit("/", 1)[1]
                for part in body.split(b"<loc>")[1:]
            }
    return urls


def _pages_figures(site: ObservedSite) -> dict[str, object]:
    dep = site.deployment
    store = FiguresStore(dep.dynamodb, dep.rebuild_function.environment["STATE_TABLE_NAME"])
    return store.load_all()[(site.site.url, "pages")]


def test_repeated_problems_exclude_healing_restores_and_turning_off_restores_all() -> None:
    clock = SimulatedClock(START)
    with observed_site(articles=10, clock=clock, parameters=PARAMETERS) as site:
        dep = site.deployment
        dep.send(site.page_changes(START - timedelta(hours=1)))
        dep.drain()
        dep.rebuild_until_clean()
        everything = _listed(site)
        assert everything == EXCLUDABLE | {"broken"}

        dep.observe()  # the first failure of each: nothing is excluded yet
        dep.rebuild_until_clean()
        assert _listed(site) == everything
        assert _pages_figures(site)["excluded"] == 0

        clock.advance(3600)
        dep.observe()  # the second in a row: excluded, but not the server error
        figures = _pages_figures(site)
        assert figures["excluded"] == figures["excluded_this_run"] == len(EXCLUDABLE)
        dep.rebuild_until_clean()
        assert _listed(site) == {"broken"}
        dep.rebuild(full=True)  # a full rebuild from the table leaves them out too
        assert _listed(site) == {"broken"}

        site.site.pages["/missing"] = SiteAnswer()  # the page is back
        clock.advance(3600)
        dep.observe()
        figures = _pages_figures(site)
        assert figures["restored_this_run"] == 1 and figures["excluded"] == len(EXCLUDABLE) - 1
        dep.rebuild_until_clean()
        assert _listed(site) == {"broken", "missing"}

        dep.observe_function.environment["EXCLUDE_UNHEALTHY"] = "false"  # a stack update
        clock.advance(3600)
        dep.observe()
        assert _pages_figures(site)["excluded"] == 0
        dep.rebuild_until_clean()
        assert _listed(site) == everything
