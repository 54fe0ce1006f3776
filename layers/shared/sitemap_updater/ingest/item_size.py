"""The stored size of a DynamoDB item, by DynamoDB's published rules.

An upsert whose item would not fit can never be written: DynamoDB answers every attempt with
a ``ValidationException``. Ingest measures the item first and rejects such a change with a
reason, instead of letting SQS retry it until its redrive policy gives up.

Rules (Amazon DynamoDB Developer Guide, "Item sizes and formats"): an item is the sum of its
attribute names (UTF-8 bytes) and values; a string is its UTF-8 length; a number is about one
byte per two significant digits plus one; a boolean or null is one byte; a list or map costs 3
bytes plus one byte per element, plus its elements (and, for a map, their names).
"""

from __future__ import annotations

from typing import Any, Final

from sitemap_updater.protocol.entry import NO_EXTRAS, Entry, extras_of
from sitemap_updater.store.items import extra_attributes
from sitemap_updater.store.keys import ATTR_SECTION

#: The most bytes ingest lets a URL item take. DynamoDB's limit is 400 KB (409,600 bytes);
#: this stays under it so that the estimate below never has to be exact to the byte.
MAX_ITEM_BYTES: Final = 400_000

_LIST_OVERHEAD: Final = 3
_ELEMENT_OVERHEAD: Final = 1


def _number_size(text: str) -> int:
    digits = text.lstrip("-+").replace(".", "").split("e")[0].split("E")[0].strip("0")
    return (max(len(digits), 1) + 1) // 2 + 1


def value_size(value: dict[str, Any]) -> int:
    """Bytes one attribute value takes (low-level attribute-value form)."""
    ((kind, raw),) = value.items()
    if kind == "S":
        return len(str(raw).encode("utf-8"))
    if kind == "N":
        return _number_size(str(raw))
    if kind == "B":
        return len(raw)
    if kind in {"BOOL", "NULL"}:
        return 1
    if kind in {"SS", "NS", "BS"}:
        member = kind[0]
        return sum(value_size({member: m}) for m in raw)
    if kind == "L":
        return _LIST_OVERHEAD + sum(_ELEMENT_OVERHEAD + value_size(v) for v in raw)
    if kind == "M":
        return _LIST_OVERHEAD + sum(
            _ELEMENT_OVERHEAD + len(k.encode("utf-8")) + value_size(v) for k, v in raw.items()
        )
    raise ValueError(f"unknown DynamoDB attribute type {kind!r}")


def item_size(item: dict[str, dict[str, Any]]) -> int:
    """Bytes an item takes: every attribute name plus its value."""
    return sum(len(name.encode("utf-8")) + value_size(value) for name, value in item.items())


# Fixed parts of a live URL item (store/items.py): attribute names and fixed-width values.
_LIVE_FIXED: Final = (
    len("pk") + len("u#0")  # partition key
    + len("sk") + 32  # the identity hash
    + len("loc") + len("st") + len("live") + len("ev") + len("digest")
)  # fmt: skip
_ALTERNATE_FIXED: Final = (
    _ELEMENT_OVERHEAD + _LIST_OVERHEAD + 2 * _ELEMENT_OVERHEAD + len("hreflang") + len("href")
)
_PRIORITY: Final = len("priority")


def live_item_size(entry: Entry, event_key: str, digest: str, section: str | None = None) -> int:
    """``item_size(live_item(entry, event_key, digest, section))``, counted without building
    the item."""
    size = _LIVE_FIXED + len(entry.loc.encode()) + len(event_key.encode()) + len(digest.encode())
    if section is not None:
        size += len(ATTR_SECTION) + len(section.encode())
    if entry.lastmod is not None:
        size += len("lastmod") + len(entry.lastmod.encode())
    if entry.changefreq is not None:
        size += len("changefreq") + len(entry.changefreq.encode())
    if entry.priority is not None:
        size += _PRIORITY + _number_size(f"{entry.priority:.1f}")
    if entry.alternates:
        size += len("alternates") + _LIST_OVERHEAD + _ALTERNATE_FIXED * len(entry.alternates)
        for a in entry.alternates:
            size += len(a.hreflang.encode()) + len(a.href.encode())
    if entry.images:
        size += len("images") + _LIST_OVERHEAD + _ELEMENT_OVERHEAD * len(entry.images)
        for i in entry.images:
            size += len(i.loc.encode())
    if extras_of(entry) != NO_EXTRAS:  # rare (videos, a news object): measured on the item
        size += item_size(extra_attributes(entry))
    return size
