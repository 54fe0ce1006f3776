"""URL items: a judged page as DynamoDB stores it, and back (low-level attribute-value form).

A live item holds the page's plain form (``msgspec.to_builtins``: its fields by name, absent ones
left out, an alternate or an image as a map of its fields) beside the item's own attributes (keys,
state, ordering key, digest, section); a tombstone holds the URL alone. Nothing here names a field
of the page: an added field is stored, read and measured through its declaration
(``page.model``). The rebuild trusts what ingest stored (it was judged there), so reading builds
the page straight from it.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Final

import msgspec

from sitemap_updater.page.model import Page
from sitemap_updater.store.keys import (
    ATTR_DIGEST,
    ATTR_EVENT_KEY,
    ATTR_EXCLUDED,
    ATTR_SECTION,
    ATTR_STATE,
    ATTR_TTL,
    ATTR_URL,
    ATTR_WRITTEN_AT,
    STATE_GONE,
    STATE_LIVE,
    key_attributes,
    url_hash,
    url_key,
)

AttributeValue = dict[str, Any]
Item = dict[str, AttributeValue]

#: The attributes of a URL item that are the item's own, not the page's.
OWN_ATTRIBUTES: Final = frozenset(
    {"pk", "sk", ATTR_STATE, ATTR_EVENT_KEY, ATTR_DIGEST, ATTR_SECTION, ATTR_WRITTEN_AT, ATTR_TTL,
     ATTR_EXCLUDED}
)  # fmt: skip
#: DynamoDB's limit is 400 KB (409,600 bytes); ingest keeps each URL item under this, so that the
#: measure never has to be exact to the byte.
MAX_ITEM_BYTES: Final = 400_000
_LIST_OVERHEAD: Final = 3
_ELEMENT_OVERHEAD: Final = 1


def to_attribute(value: Any) -> AttributeValue:
    """A plain value (str, bool, int, float, list or tuple, dict) in attribute-value form."""
    if isinstance(value, str):
        return {"S": value}
    if isinstance(value, bool):
        return {"BOOL": value}
    if isinstance(value, int | float):
        return {"N": repr(value)}
    if isinstance(value, list | tuple):
        return {"L": [to_attribute(v) for v in value]}
    if isinstance(value, dict):
        return {"M": {k: to_attribute(v) for k, v in value.items()}}
    raise TypeError(f"cannot store {value!r}")


def plain(value: AttributeValue) -> Any:
    """The plain value of an attribute (a number as an int, or a float where it has a point)."""
    ((kind, raw),) = value.items()
    if kind == "S" or kind == "BOOL":
        return raw
    if kind == "N":
        text = str(raw)
        return int(text) if text.lstrip("-").isdigit() else float(Decimal(text))
    if kind == "L":
        return [plain(v) for v in raw]
    if kind == "M":
        return {k: plain(v) for k, v in raw.items()}
    return raw


def live_item(page: Page, event_key: str, digest: str, section: str | None = None) -> Item:
    """The item that records ``page`` as live, ordered by ``event_key``, in the ``section`` its
    change named (none: the attribute is left out)."""
    item: Item = key_attributes(url_key(url_hash(page.url)))
    for name, value in msgspec.to_builtins(page).items():
        item[name] = to_attribute(value)
    item[ATTR_STATE] = {"S": STATE_LIVE}
    item[ATTR_EVENT_KEY] = {"S": event_key}
    item[ATTR_DIGEST] = {"S": digest}
    if section is not None:
        item[ATTR_SECTION] = {"S": section}
    return item


def tombstone_item(url: str, event_key: str, digest: str, expires_at: int) -> Item:
    """The item that records ``url`` as deleted until ``expires_at`` (epoch seconds, TTL)."""
    item: Item = key_attributes(url_key(url_hash(url)))
    item[ATTR_URL] = {"S": url}
    item[ATTR_STATE] = {"S": STATE_GONE}
    item[ATTR_EVENT_KEY] = {"S": event_key}
    item[ATTR_DIGEST] = {"S": digest}
    item[ATTR_TTL] = {"N": str(expires_at)}
    return item


def _upgraded(fields: dict[str, Any]) -> dict[str, Any]:
    """The fields of a page item written before 0.1.0 in the form of 0.1.0 (docs/upgrading.md):
    its URL under ``loc``, images as their URLs, a news article's publication flattened into it,
    and a video's uploader, tags and restrictions in fields of their own."""
    fields["url"] = fields.pop("loc")
    fields["images"] = [{"loc": loc} for loc in fields.get("images", ())]
    news = fields.get("news")
    if news is not None:
        publication = {"name": news.pop("name"), "language": news.pop("language")}
        fields["news"] = {**news, "publication": publication}
    for video in fields.get("videos", ()):
        if "tags" in video:
            video["tag"] = video.pop("tags")
        if "uploader" in video:
            video["uploader"] = {
                "name": video.pop("uploader"),
                "info": video.pop("uploader_info", None),
            }
        for name, key in (("restriction", "countries"), ("platform", "platforms")):
            if name in video:
                video[name] = {
                    "relationship": video[name]["relationship"],
                    key: video[name]["values"],
                }
    return fields


def page_of_item(item: Item) -> Page:
    """The page a live URL item holds."""
    fields = {name: plain(value) for name, value in item.items() if name not in OWN_ATTRIBUTES}
    if "loc" in fields:
        fields = _upgraded(fields)
    return msgspec.convert(fields, Page)


def is_live(item: Item) -> bool:
    """Whether the sitemaps list the URL: it is live and not excluded as unhealthy."""
    return item.get(ATTR_STATE, {}).get("S") == STATE_LIVE and ATTR_EXCLUDED not in item


def url_of(item: Item) -> str:
    """The normalized URL a URL item (live or tombstone, of any version) is about."""
    stored = item.get(ATTR_URL) or item["loc"]
    return str(stored["S"])


def written_at_of(item: Item) -> int | None:
    """When ingest wrote a URL item, in epoch milliseconds (``None``: the item has no stamp)."""
    written = item.get(ATTR_WRITTEN_AT)
    return int(written["N"]) if written is not None else None


def section_of_item(item: Item) -> str | None:
    """The section a live URL item's change named, or ``None`` if it named none."""
    stored = item.get(ATTR_SECTION)
    return None if stored is None else str(stored["S"])


def url_hash_of(item: Item) -> str:
    """The identity hash of a URL item's URL (its sort key, see ``keys.url_key``)."""
    return str(item["sk"]["S"])


def has_news(item: Item) -> bool:
    """Whether a URL item holds a news article."""
    return "news" in item


def value_size(value: AttributeValue) -> int:
    """Bytes one attribute value takes, by DynamoDB's published rules (Developer Guide, "Item
    sizes and formats"): a string its UTF-8 length, a number about one byte per two significant
    digits plus one, a boolean or null one byte, a list or map 3 bytes plus one per element, plus
    its elements (and, for a map, their names)."""
    ((kind, raw),) = value.items()
    if kind == "S":
        return len(str(raw).encode("utf-8"))
    if kind == "N":
        digits = str(raw).lstrip("-+").replace(".", "").split("e")[0].split("E")[0].strip("0")
        return (max(len(digits), 1) + 1) // 2 + 1
    if kind == "B":
        return len(raw)
    if kind in {"BOOL", "NULL"}:
        return 1
    if kind in {"SS", "NS", "BS"}:
        return sum(value_size({kind[0]: member}) for member in raw)
    if kind == "L":
        return _LIST_OVERHEAD + sum(_ELEMENT_OVERHEAD + value_size(v) for v in raw)
    if kind == "M":
        return _LIST_OVERHEAD + sum(
            _ELEMENT_OVERHEAD + len(k.encode("utf-8")) + value_size(v) for k, v in raw.items()
        )
    raise ValueError(f"unknown DynamoDB attribute type {kind!r}")


def item_size(item: Item) -> int:
    """Bytes an item takes: every attribute name plus its value."""
    return sum(len(name.encode("utf-8")) + value_size(value) for name, value in item.items())
