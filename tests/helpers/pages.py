"""Pages judged in tests the way every listing is judged (``ingest.judge.judge_listing``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import msgspec

from sitemap_updater.ingest.judge import judge_listing
from sitemap_updater.page.model import Page
from sitemap_updater.protocol.urls import Site
from sitemap_updater.sites import Sites, sites_of

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def make_page(site: Site | Sites, *, now: datetime | None = None, **fields: Any) -> Page:
    """The judged page of ``fields`` (the producer contract's names; structs such as
    ``Alternate`` are taken as their fields) on ``site``, strictly: the first rule broken is
    raised as its ``SitemapError``."""
    plain = msgspec.to_builtins({k: v for k, v in fields.items() if v is not None})
    sites = site if isinstance(site, Sites) else sites_of(site)
    change = judge_listing(plain, sites=sites, now=now or NOW, drops=None)
    assert change.page is not None
    return change.page
