"""A sitemap or CSV entry checked the careful way: ``make_entry``, which names a broken rule.

Kept apart from ``change_reader`` (which judges JSONL bodies as ingest does, and imports the
ingest contract for it), so that reading a sitemap or a CSV file does not load the contract.
"""

from __future__ import annotations

from datetime import datetime

from sitemap_updater.protocol import Site, make_entry
from sitemap_updater.protocol.entry import Alternate, Entry, Image
from sitemap_updater_local.inputs.records import RawEntry, quote


def invalid(field: str, value: object, rule: str) -> str:
    """One readable line naming the field, the value and the rule it breaks."""
    return f"{field}: {quote(value)} is invalid: {rule}"


def _priority(raw: str | None) -> object:
    """A sitemap's priority text as a number; text that is not a number is passed on as is,
    so that ``make_entry`` rejects it with its own message."""
    if raw is None:
        return None
    try:
        return float(raw)
    except ValueError:
        return raw


def entry_from_raw(site: Site, raw: RawEntry, now: datetime) -> Entry:
    """The normalized entry of a sitemap or CSV record; raises ``SitemapError``."""
    return make_entry(
        site,
        loc=raw.loc,
        lastmod=raw.lastmod,
        changefreq=raw.changefreq,
        priority=_priority(raw.priority),
        alternates=tuple(Alternate(hreflang=h, href=href) for h, href in raw.alternates),
        images=tuple(Image(loc=loc) for loc in raw.images),
        videos=raw.videos,
        news=raw.news,
        now=now,
    )
