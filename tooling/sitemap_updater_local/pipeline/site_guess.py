"""The site a source's records tell, when ``--site`` does not: the origin of the first URL."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from sitemap_updater.protocol import Site, SitemapError
from sitemap_updater_local.inputs.opening import SourcePolicy
from sitemap_updater_local.inputs.records import BodyLine, RawEntry, Row, SourceError, raw_entry
from sitemap_updater_local.inputs.sitemaps.sitemap_rows import read_sitemap_rows


def _first_url(record: RawEntry | BodyLine) -> object:
    if isinstance(record, RawEntry):
        return record.loc
    try:
        body: Any = json.loads(record.text)
    except ValueError:
        return None
    if isinstance(body, list) and body:
        body = body[0]
    if isinstance(body, dict) and isinstance(body.get("detail"), dict):
        body = body["detail"]
    return body.get("url") if isinstance(body, dict) else None


def guess_site(record: RawEntry | BodyLine) -> Site:
    """The site of the first URL a record holds; raises ``SitemapError`` or ``ValueError``."""
    url = _first_url(record)
    if not isinstance(url, str):
        raise ValueError("holds no url")
    parts = urlsplit(url.strip())
    return Site.parse(f"{parts.scheme}://{parts.netloc}")


def site_of_first_entry(location: str, depth: int, policy: SourcePolicy) -> Site | None:
    """The site the first entry of a local sitemap file tells, read only that far (``policy``:
    a copy, so that nothing is counted twice); ``None``: a URL, or an entry that does not tell
    it, which the caller reads itself and reports."""
    if "://" in location:
        return None
    records = read_sitemap_rows(location, depth=depth, policy=policy)
    try:
        first = next((r for r in records if isinstance(r, Row | RawEntry)), None)
        if first is None:
            return None
        return guess_site(raw_entry(first) if isinstance(first, Row) else first)
    except (SourceError, SitemapError, ValueError):
        return None
    finally:
        records.close()
