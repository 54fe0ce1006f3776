"""Codec between protocol entries and DynamoDB URL items (low-level attribute-value form).

The rebuild trusts what ingest stored (it was validated there), so decoding builds entries
directly; the writer still escapes and checks every character.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sitemap_updater.protocol.entry import (
    EXTRA_FIELDS,
    NO_EXTRAS,
    Alternate,
    Entry,
    EntryField,
    Image,
    extras_of,
)
from sitemap_updater.protocol.extensions.news import News
from sitemap_updater.protocol.extensions.video import Relationship, Video
from sitemap_updater.protocol.languages.tags import is_hreflang
from sitemap_updater.store.keys import (
    ATTR_DIGEST,
    ATTR_EVENT_KEY,
    ATTR_EXCLUDED,
    ATTR_LOC,
    ATTR_SECTION,
    ATTR_STATE,
    ATTR_TTL,
    ATTR_WRITTEN_AT,
    STATE_GONE,
    STATE_LIVE,
    key_attributes,
    url_hash,
    url_key,
)

AttributeValue = dict[str, Any]
Item = dict[str, AttributeValue]

ATTR_NEWS = "news"


def news_fields(news: News) -> dict[str, Any]:
    """The stored (and digested) fields of a news object."""
    return {
        "name": news.name,
        "language": news.language,
        "publication_date": news.publication_date,
        "title": news.title,
    }


def video_fields(video: Video) -> dict[str, Any]:
    """The stored (and digested) fields of a video: the ones it has, by their tag names."""
    fields: dict[str, Any] = {}
    for name in Video.__slots__:
        value = getattr(video, name)
        if value is None or value == ():
            continue
        if isinstance(value, Relationship):
            value = {"relationship": value.relationship, "values": list(value.values)}
        elif isinstance(value, tuple):
            value = list(value)
        fields[name] = value
    return fields


def plain_value(field: EntryField, value: Any) -> Any:
    """The stored (and digested) form of an extra field's value (``protocol.entry``), as plain
    data (str, bool, int, list, dict), by its kind."""
    if field.kind == "videos":
        return [video_fields(v) for v in value]
    if field.kind == "news":
        return news_fields(value)
    if field.kind == "text":
        return value
    raise TypeError(f"no stored form for an extra field of kind {field.kind!r}")


def from_plain(field: EntryField, value: Any) -> Any:
    """The value of an extra field whose stored form (:func:`plain_value`) is ``value``."""
    if field.kind == "videos":
        return tuple(_video(v) for v in value)
    if field.kind == "news":
        return News(**value)
    return value


def to_attribute(value: Any) -> AttributeValue:
    """A plain value (str, bool, int, list, dict) in DynamoDB's attribute-value form."""
    if isinstance(value, str):
        return {"S": value}
    if isinstance(value, bool):
        return {"BOOL": value}
    if isinstance(value, int):
        return {"N": str(value)}
    if isinstance(value, list):
        return {"L": [to_attribute(v) for v in value]}
    if isinstance(value, dict):
        return {"M": {k: to_attribute(v) for k, v in value.items()}}
    raise TypeError(f"cannot store {value!r}")


def _plain(value: AttributeValue) -> Any:
    ((kind, raw),) = value.items()
    if kind == "L":
        return [_plain(v) for v in raw]
    if kind == "M":
        return {k: _plain(v) for k, v in raw.items()}
    if kind == "N":
        return int(raw)
    return raw


def _video(fields: dict[str, Any]) -> Video:
    values: dict[str, Any] = {}
    for name, value in fields.items():
        if name in {"restriction", "platform"}:
            value = Relationship(value["relationship"], tuple(value["values"]))
        elif name == "tags":
            value = tuple(value)
        values[name] = value
    return Video(**values)


def news_from_item(item: Item) -> News | None:
    """The news object stored in a live URL item, if it has one."""
    stored = item.get(ATTR_NEWS)
    return None if stored is None else News(**_plain(stored))


def extra_attributes(entry: Entry) -> Item:
    """The attributes of ``entry``'s extra fields that it has, each by the field's name."""
    extras = extras_of(entry)
    if extras == NO_EXTRAS:
        return {}
    return {
        field.name: to_attribute(plain_value(field, value))
        for field, value in zip(EXTRA_FIELDS, extras, strict=True)
        if value != field.absent
    }


def live_item(entry: Entry, event_key: str, digest: str, section: str | None = None) -> Item:
    """The item that records ``entry`` as live, ordered by ``event_key``, in the ``section``
    its change named (none: the attribute is left out)."""
    item: Item = key_attributes(url_key(url_hash(entry.loc)))
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
    item.update(extra_attributes(entry))
    if section is not None:
        item[ATTR_SECTION] = {"S": section}
    return item


def tombstone_item(loc: str, event_key: str, digest: str, expires_at: int) -> Item:
    """The item that records ``loc`` as deleted until ``expires_at`` (epoch seconds, TTL)."""
    item: Item = key_attributes(url_key(url_hash(loc)))
    item[ATTR_LOC] = {"S": loc}
    item[ATTR_STATE] = {"S": STATE_GONE}
    item[ATTR_EVENT_KEY] = {"S": event_key}
    item[ATTR_DIGEST] = {"S": digest}
    item[ATTR_TTL] = {"N": str(expires_at)}
    return item


def is_live(item: Item) -> bool:
    """Whether the sitemaps list the URL: it is live and not excluded as unhealthy."""
    return item.get(ATTR_STATE, {}).get("S") == STATE_LIVE and ATTR_EXCLUDED not in item


def loc_of(item: Item) -> str:
    """The normalized URL a URL item (live or tombstone) is about."""
    return str(item[ATTR_LOC]["S"])


def written_at_of(item: Item) -> int | None:
    """When ingest wrote a URL item (live or tombstone), in epoch milliseconds; None for an
    item written before ingest stamped them."""
    written = item.get(ATTR_WRITTEN_AT)
    return int(written["N"]) if written is not None else None


def section_of_item(item: Item) -> str | None:
    """The section a live URL item's change named, or ``None`` if it named none."""
    stored = item.get(ATTR_SECTION)
    return None if stored is None else str(stored["S"])


def url_hash_of(item: Item) -> str:
    """The identity hash of a URL item's URL (its sort key, see ``keys.url_key``)."""
    return str(item["sk"]["S"])


def entry_from_item(item: Item) -> Entry:
    """Rebuild an entry from a live URL item (low-level attribute-value form), as the regular
    sitemap publishes it: its extra fields but the news object (see :func:`news_from_item`).

    An alternate whose ``hreflang`` the current rule refuses (stored before the rule asked for a
    registered language, such as ``english``) is left out, so that the page itself stays
    published; the producer's next change of the page is judged by the rule in full."""
    priority = item.get("priority")
    entry = Entry(
        loc=item[ATTR_LOC]["S"],
        lastmod=item["lastmod"]["S"] if "lastmod" in item else None,
        changefreq=item["changefreq"]["S"] if "changefreq" in item else None,
        priority=float(Decimal(priority["N"])) if priority else None,
        alternates=tuple(
            Alternate(hreflang=a["M"]["hreflang"]["S"], href=a["M"]["href"]["S"])
            for a in item.get("alternates", {}).get("L", [])
            if is_hreflang(a["M"]["hreflang"]["S"])
        ),
        images=tuple(Image(loc=i["S"]) for i in item.get("images", {}).get("L", [])),
    )
    extras = {
        field.name: from_plain(field, _plain(item[field.name]))
        for field in EXTRA_FIELDS
        if field.regular and field.name in item
    }
    return entry._replace(**extras) if extras else entry
