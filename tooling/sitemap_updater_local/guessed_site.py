"""The site of a source whose command names none (``send`` and ``backfill`` without ``--site``):
the origin of the first URL it holds, as the one site of a list (``Sites.parse``)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from sitemap_updater.sites import Sites
from sitemap_updater_local.inputs.source_records import BodyLine, Listing


def first_url(record: Listing | BodyLine | dict[str, Any]) -> object:
    """The first URL a record holds: an entry's loc, a change's url (the first change of an
    array body, the detail of an EventBridge event); ``None``: none."""
    body: Any = record
    if isinstance(record, Listing):
        return record.url
    if isinstance(record, BodyLine):
        try:
            body = json.loads(record.text)
        except ValueError:
            return None
    if isinstance(body, list) and body:
        body = body[0]
    if isinstance(body, dict) and isinstance(body.get("detail"), dict):
        body = body["detail"]
    return body.get("url") if isinstance(body, dict) else None


def guess_site(
    record: Listing | BodyLine | dict[str, Any],
    media_hosts: frozenset[str] | None = None,
    *,
    alternates_any_host: bool = False,
) -> Sites:
    """The site of the first URL ``record`` holds; raises ``ValueError`` (``SitemapError``
    among them) when it holds none or its origin is not a site's."""
    url = first_url(record)
    if not isinstance(url, str):
        raise ValueError("holds no url")
    parts = urlsplit(url.strip())
    origin = f"{parts.scheme}://{parts.netloc}"
    return Sites.parse(origin, media_hosts, alternates_any_host=alternates_any_host)
