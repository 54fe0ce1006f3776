"""A local deployment observed on loopback: its site, Search Console and Bing are stand-ins.

```python
with observed_site(articles=40) as observed:
    observed.deployment.send(observed.page_events(moment))
    observed.deployment.drain(); observed.deployment.rebuild_until_clean()
    observed.deployment.observe()          # submits the index, inspects, checks health
```

The site (``standins.site.LocalSite``) is the deployment's ``SiteUrl`` (``http://127.0.0.1:PORT``)
and serves real redirects, 404s, noindex pages and canonical tags; the Search Console and Bing
stand-ins answer as their APIs document, with the keys stored in the emulated Secrets Manager
and the template's endpoint parameters pointing at them. Nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Final

from sitemap_updater_local.deployment.local import DEFAULT_TEMPLATE, LocalDeployment
from sitemap_updater_local.deployment.runtime import FunctionOutput
from sitemap_updater_local.deployment.stack.template import LOCAL_STACK_NAME
from sitemap_updater_local.standins.bing import BingStandIn
from sitemap_updater_local.standins.search_console import (
    SearchConsoleStandIn,
)
from sitemap_updater_local.standins.site import LocalSite

SECTION_RULES: Final = "/articles/=articles"
BING_KEY: Final = "local-stand-in-bing-key"
#: pages of the site stand-in that are not listed: one that drips for seconds
UNLISTED: Final = frozenset({"slow"})


@dataclass
class ObservedSite:
    deployment: LocalDeployment
    site: LocalSite
    console: SearchConsoleStandIn
    bing: BingStandIn
    articles: int

    @property
    def site_property(self) -> str:
        """The Search Console property of the site (its URL prefix)."""
        return f"{self.site.url}/"

    @property
    def index_url(self) -> str:
        return f"{self.site.url}/sitemap.xml"

    def listed_urls(self) -> list[str]:
        """The articles and every problem page but those in :data:`UNLISTED`."""
        problems = [url for name, url in self.site.problem_urls().items() if name not in UNLISTED]
        return self.site.article_urls(self.articles) + problems

    def page_events(self, moment: datetime, spacing: timedelta = timedelta(hours=1)) -> list[str]:
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
    endpoint_url: str | None = None,
    stack_name: str = LOCAL_STACK_NAME,
    output: FunctionOutput | None = None,
) -> Iterator[ObservedSite]:
    """The stand-ins and a deployment of ``template`` observing them; ``parameters`` add to
    (or override) the ones that turn both engines on and point them at the stand-ins.
    ``endpoint_url``, ``stack_name`` and ``output`` are the deployment's
    (:class:`LocalDeployment`)."""
    with LocalSite() as site:
        origin = site.url
        with (
            SearchConsoleStandIn(properties={f"{origin}/"}, clock=clock or time.time) as console,
            BingStandIn(keys={BING_KEY}, sites={f"{origin}/"}) as bing,
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
                yield ObservedSite(deployment, site, console, bing, articles)
