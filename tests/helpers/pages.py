"""Pages judged in tests the way every listing is judged (``ingest.judge.judge_listing``), and
changes judged the way ingest judges a message (``ingest.judge.judge_message``)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import msgspec

from sitemap_updater.ingest.judge import Judged, judge_message
from sitemap_updater.ingest.listing import judge_listing
from sitemap_updater.page.model import Page
from sitemap_updater.protocol.urls import Site
from sitemap_updater.sites import Sites, sites_of

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def _sites(site: Site | Sites) -> Sites:
    return site if isinstance(site, Sites) else sites_of(site)


def make_page(site: Site | Sites, *, now: datetime | None = None, **fields: Any) -> Page:
    """The judged page of ``fields`` (the producer contract's names; structs such as
    ``Alternate`` are taken as their fields) on ``site``, strictly: the first rule broken is
    raised as its ``SitemapError``."""
    plain = msgspec.to_builtins({k: v for k, v in fields.items() if v is not None})
    change = judge_listing(plain, sites=_sites(site), now=now or NOW, drops=None)
    assert change.page is not None
    return change.page


def judge_sent(
    site: Site | Sites,
    message: object,
    *,
    now: datetime | None = None,
    sent_at: datetime | None = None,
) -> Judged:
    """The judgement of the one change a message holds (``message`` as JSON, or its text) as
    ingest judges it: the :class:`~sitemap_updater.ingest.judge.Change`, or the
    :class:`~sitemap_updater.ingest.judge.Rejection` naming field, value and rule."""
    text = message if isinstance(message, str) else json.dumps(message)
    moment = now or NOW
    (judged,) = judge_message(text, sent_at=sent_at or moment, sites=_sites(site), now=moment).items
    return judged
