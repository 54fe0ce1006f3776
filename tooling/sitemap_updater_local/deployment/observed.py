"""A local deployment observed on loopback: its site, Search Console and Bing are stand-ins.

```python
with observed_site(articles=40) as observed:
    observed.deployment.send(observed.page_changes(moment))
    observed.deployment.drain(); observed.deployment.rebuild_until_clean()
    observed.deployment.observe()          # submits the index, inspects, checks health
```

The site (``standins.site.LocalSite``) is the deployment's ``SiteUrl`` (``http://127.0.0.1:PORT``;
with ``hosts=N``, N sites on ``127.0.0.1`` to ``127.0.0.N``, each a host of ``SiteUrl``) and
serves real redirects, 404s, noindex pages and canonical tags; the Search Console and Bing
stand-ins answer as their APIs document, with the keys stored in the emulated Secrets Manager
and the template's endpoint parameters pointing at them. On a simulated clock, the observer's
paced waits move that clock on instead of taking real time. Nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final

from sitemap_updater.observe.report import coverage_report
from sitemap_updater.protocol.urlset import fragments_of as read_fragments
from sitemap_updater.store.spaces import section_of_file
from sitemap_updater_local.deployment.clock import SimulatedClock
from sitemap_updater_local.deployment.local import DEFAULT_TEMPLATE, LocalDeployment
from sitemap_updater_local.deployment.runtime import FunctionOutput
from sitemap_updater_local.deployment.stack.template import LOCAL_STACK_NAME
from sitemap_updater_local.standins.bing import BingStandIn
from sitemap_updater_local.standins.crawls import CrawlSchedule
from sitemap_updater_local.standins.search_console import SearchConsoleStandIn, indexed
from sitemap_updater_local.standins.site import LocalSite

SECTION_RULES: Final = "/articles/=articles"
BING_KEY: Final = "local-stand-in-bing-key"
#: pages of the site stand-in that are not listed: one that drips for seconds
UNLISTED: Final = frozenset({"slow"})


@dataclass
class ObservedSite:
    deployment: LocalDeployment
    sites: list[LocalSite]
    console: SearchConsoleStandIn
    bing: BingStandIn
    articles: int

    @property
    def site(self) -> LocalSite:
        """The primary host's site."""
        return self.sites[0]

    @property
    def site_property(self) -> str:
        """The Search Console property of the site (its URL prefix)."""
        return f"{self.site.url}/"

    @property
    def index_url(self) -> str:
        return f"{self.site.url}/sitemap.xml"

    @property
    def state_table(self) -> str:
        return self.deployment.rebuild_function.environment["STATE_TABLE_NAME"]

    def coverage(self, since: float | None = None) -> dict[str, Any]:
        """What ``sitemap-updater coverage --json`` prints of the deployment."""
        dep = self.deployment
        now = None if dep.clock is None else dep.clock()
        stack = dep.template.stack_name
        return coverage_report(dep.dynamodb, self.state_table, stack, since=since, now=now)

    def file_counts(self) -> dict[str, int]:
        """Each published section file, by URL, and the URLs it lists."""
        dep = self.deployment
        counts = {}
        for key in dep.objects():
            if section_of_file(key) is not None:
                body = dep.s3.get_object(Bucket=dep.bucket_name, Key=key)["Body"].read()
                counts[f"{self.site.url}/{key}"] = len(read_fragments(body))
        return counts

    def engines_read_the_index(self, when: datetime) -> None:
        """Search Console and Bing fetched the index and each of its files, as published."""
        files = self.file_counts()
        self.console.read_index(self.site_property, self.index_url, when=when, files=files)
        self.bing.crawled(self.index_url, when=when, files=files)

    def listed_urls(self) -> list[str]:
        """The articles and every problem page but those in :data:`UNLISTED`, of each site."""
        urls = []
        for site in self.sites:
            problems = [url for name, url in site.problem_urls().items() if name not in UNLISTED]
            urls += site.article_urls(self.articles) + problems
        return urls

    def page_changes(self, moment: datetime, spacing: timedelta = timedelta(hours=1)) -> list[str]:
        """An upsert of each listed URL, the first changed at ``moment``, each next one
        ``spacing`` earlier (so the sample has recent and older changes to tell apart)."""
        return [
            json.dumps(
                {
                    "action": "upsert",
                    "url": url,
                    "occurred_at": _stamp(moment - i * spacing),
                    "lastmod": _stamp(moment - i * spacing),
                }
            )
            for i, url in enumerate(self.listed_urls())
        ]


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@contextmanager
def observed_site(
    *,
    articles: int = 40,
    parameters: Mapping[str, str] | None = None,
    template: Path = DEFAULT_TEMPLATE,
    clock: Callable[[], float] | None = None,
    hosts: int = 1,
    seed: int = 0,
    endpoint_url: str | None = None,
    stack_name: str = LOCAL_STACK_NAME,
    output: FunctionOutput | None = None,
) -> Iterator[ObservedSite]:
    """The stand-ins and a deployment of ``template`` observing them; ``parameters`` add to
    (or override) the ones that turn both engines on and point them at the stand-ins. The
    observer's draws are seeded with ``seed``. ``endpoint_url``, ``stack_name`` and ``output``
    are the deployment's (:class:`LocalDeployment`)."""
    with ExitStack() as stack:
        sites = [
            stack.enter_context(LocalSite(address=f"127.0.0.{n}")) for n in range(1, hosts + 1)
        ]
        origin = ",".join(site.url for site in sites)
        properties = {f"{site.url}/" for site in sites}
        now = clock or time.time
        with (
            SearchConsoleStandIn(properties=properties, clock=now) as console,
            BingStandIn(keys={BING_KEY}, sites=properties, clock=now) as bing,
        ):
            key = console.new_key()
            settings = {
                "PublicBaseUrl": origin,
                "SectionRules": SECTION_RULES,
                "SearchConsoleEndpoint": console.url,
                "BingWebmasterEndpoint": bing.api_root,
                "HealthRequestsPerSecond": "10",
                **(parameters or {}),
            }
            # one secret for both engines, as docs/search-engines.md advises
            shared = json.dumps({**key.info, "api_key": BING_KEY})
            secrets = {"SearchConsoleSecretArn": shared, "BingSecretArn": shared}
            with LocalDeployment(
                template,
                origin,
                parameters=settings,
                clock=clock,
                secrets=secrets,
                endpoint_url=endpoint_url,
                stack_name=stack_name,
                output=output,
            ) as deployment:
                if deployment.observe_function is not None:
                    module = deployment.observe_function.load()
                    module.__dict__["rng"] = random.Random(seed)
                if isinstance(clock, SimulatedClock):
                    simulated_waits(deployment, clock)
                yield ObservedSite(deployment, sites, console, bing, articles)


def simulated_waits(deployment: LocalDeployment, clock: SimulatedClock) -> None:
    """Make the observer's paced waits move ``clock`` on instead of taking real time."""
    if deployment.observe_function is None:
        return
    module = deployment.observe_function.load()
    module.__dict__["sleep"] = clock.advance
    module.__dict__["monotonic"] = clock


def demo_coverage(articles: int = 60, output: FunctionOutput | None = None) -> dict[str, Any]:
    """The coverage report of a small site observed on the stand-ins, as ``sitemap-updater
    coverage --json`` prints it: Google and Bing read the index and its files, Google crawls
    each article hours after its change (``standins.crawls``, a median of six hours) and chose
    another canonical for one, and the site answers its problem pages as they are. The
    functions' log lines go to ``output``."""
    start = datetime.now(UTC).replace(microsecond=0)
    clock = SimulatedClock(start)
    with observed_site(articles=articles, clock=clock, output=output) as observed:
        dep = observed.deployment
        changed = start - timedelta(hours=1)
        dep.send(observed.page_changes(changed))
        dep.drain()
        dep.rebuild_until_clean()
        listed = observed.site.article_urls(articles)
        crawls = observed.console.crawls = CrawlSchedule(median_hours=6, seed=articles)
        for i, url in enumerate(listed):
            crawls.changed(url, changed - timedelta(hours=i))
        second = crawls.last_crawl(listed[1], start) or start
        observed.console.inspections[listed[1]] = indexed(
            last_crawl=second, google_canonical=listed[0]
        )
        dep.observe()  # submits the index: the engines read it within the hour
        observed.engines_read_the_index(start)
        clock.advance(3600)
        dep.observe()
        return observed.coverage()
