"""Codec between protocol entries and DynamoDB URL items (low-level attribute-value form).

The rebuild trusts what ingest stored (it was validated there), so decoding builds entries
directly; the writer still escapes and checks every character.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sitemap_updater.protocol.entry import Alternate, Entry, Image
from sitemap_updater.store.keys import (
    ATTR_DIGEST,
    ATTR_EVENT_KEY,
    ATTR_LOC,
    ATTR_STATE,
    ATTR_TTL,
    STATE_GONE,
    STATE_LIVE,
    url_hash,
    url_key,
)

AttributeValue = dict[str, Any]
Item = dict[str, AttributeValue]


def live_item(entry: Entry, event_key: str, digest: str) -> Item:
    """The item that records ``entry`` as live, ordered by ``event_key``."""
    item: Item = {k: {"S": v} for k, v in url_key(url_hash(entry.loc)).items()}
    item[ATTR_LOC] = {"S": entry.loc}
    item[ATTR_STATE] = {"S": STATE_LIVE}
    item[ATTR_EVENT_KEY] = {"S": event_key}
    item[ATTR_DIGEST] = {"S": digest}
    if entry.lastmod is not None:
        item["lastmod"] = {"S": entry.lastmod}
    if entry.changefreq is not None:
        item["changefreq"] = {"S": entry.changefreq}
    if entry.priority is not None:
        item["priority"] = {"N": f"{entry.priority:.1f}"}
    if entry.alternates:
        item["alternates"] = {
            "L": [
                {"M": {"hreflang": {"S": a.hreflang}, "href": {"S": a.href}}}
                for a in entry.alternates
            ]
        }
    if entry.images:
        item["images"] = {"L": [{"S": i.loc} for i in entry.images]}
    return item


def tombstone_item(loc: str, event_key: str, digest: str, expires_at: int) -> Item:
    """The item that records ``loc`` as deleted until ``expires_at`` (epoch seconds, TTL)."""
    item: Item = {k: {"S": v} for k, v in url_key(url_hash(loc)).items()}
    item[ATTR_LOC] = {"S": loc}
    item[ATTR_STATE] = {"S": STATE_GONE}
    item[ATTR_EVENT_KEY] = {"S": event_key}
    item[ATTR_DIGEST] = {"S": digest}
    item[ATTR_TTL] = {"N": str(expires_at)}
    return item


def is_live(item: Item) -> bool:
    return bool(item.get(ATTR_STATE, {}).get("S") == STATE_LIVE)


def entry_from_item(item: Item) -> Entry:
    """Rebuild an entry from a live URL item (low-level attribute-value form)."""
    priority = item.get("priority")
    return Entry(
        loc=item[ATTR_LOC]["S"],
        lastmod=item["lastmod"]["S"] if "lastmod" in item else None,
        changefreq=item["changefreq"]["S"] if "changefreq" in item else None,
        priority=float(Decimal(priority["N"])) if priority else None,
        alternates=tuple(
            Alternate(hreflang=a["M"]["hreflang"]["S"], href=a["M"]["href"]["S"])
            for a in item.get("alternates", {}).get("L", [])
        ),
        images=tuple(Image(loc=i["S"]) for i in item.get("images", {}).get("L", [])),
    )
