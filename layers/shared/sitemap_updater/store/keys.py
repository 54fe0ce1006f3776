"""Key design of the single table: URL items, shard nodes and meta items."""

from __future__ import annotations

import hashlib
from typing import Any, Final

#: Hex digits of sha256 kept as a URL's identity hash (128 bits).
HASH_HEX_LEN: Final = 32
HASH_BITS: Final = HASH_HEX_LEN * 4
#: Bits of the hash that choose the URL item's partition key (16 partitions).
PARTITION_BITS: Final = 4
#: BatchGetItem reads at most this many keys per call.
BATCH_GET_LIMIT: Final = 100

URL_PK_PREFIX: Final = "u#"
META_PK: Final = "meta"
PUBLISHED_SK: Final = "published"
#: the items of 0.1.0 that held every space's tree in one item: read once, by the upgrade
LEGACY_SHARDMAP_SK: Final = "shardmap"
LEGACY_SHARD_PK_PREFIX: Final = "shard#"
LEGACY_SHARD_SK: Final = "state"
#: the state of one layout (``layout_key``) lives under these partition keys: each host's
#: record (``hosts#<layout>``, sort key ``host#<key prefix>``), each host's news files
#: (``news#<layout>``, the same sort key), the branches of each host's trees
#: (``tree#<layout>#<key prefix>``, sort key the branch's top without the prefix) and the
#: branches holding leaves back for a later run (``held#<layout>``, sort key the branch's top)
HOSTS_PK_PREFIX: Final = "hosts#"
NEWS_PK_PREFIX: Final = "news#"
TREE_PK_PREFIX: Final = "tree#"
HELD_PK_PREFIX: Final = "held#"
HOST_SK_PREFIX: Final = "host#"
LEASE_SK: Final = "lease"
FEED_SK: Final = "feed"
RETIRED_PK: Final = "retired"
ROOT_SHARD: Final = "r"
INDEX_KEY: Final = "sitemap.xml"
ROBOTS_KEY: Final = "robots.txt"
EMPTY_SITE_KEY: Final = "sitemap-home.xml.gz"

# Attribute names of a URL item.
ATTR_URL: Final = "url"
ATTR_STATE: Final = "st"
ATTR_EVENT_KEY: Final = "ev"
ATTR_DIGEST: Final = "digest"
ATTR_TTL: Final = "ttl"
#: when ingest wrote the item (epoch milliseconds, the ingest function's clock)
ATTR_WRITTEN_AT: Final = "wt"
#: the section the change named (only when it named one; see ``sitemap_updater.sections``)
ATTR_SECTION: Final = "sec"
#: set by the observer on a live URL whose health checks failed again and again (when
#: ``ExcludeUnhealthy`` is on): the sitemaps leave it out until the attribute goes (the
#: observer removes it when the URL is healthy again; the page's next change drops it too)
ATTR_EXCLUDED: Final = "excl"
STATE_LIVE: Final = "live"
STATE_GONE: Final = "gone"


def url_hash(normalized_loc: str) -> str:
    """The 128-bit identity hash of a normalized URL, as 32 lowercase hex digits."""
    return hashlib.sha256(normalized_loc.encode("utf-8")).hexdigest()[:HASH_HEX_LEN]


def url_key(uh: str) -> dict[str, str]:
    """Primary key of the URL item whose identity hash is ``uh``."""
    return {"pk": URL_PK_PREFIX + uh[0], "sk": uh}


def hash_bits(uh: str, n: int) -> str:
    """The first ``n`` bits of a hex hash, as a string of '0'/'1'."""
    digits = (n + 3) // 4
    return "".join(format(int(c, 16), "04b") for c in uh[:digits])[:n]


def legacy_shard_key(shard_id: str) -> dict[str, str]:
    """Primary key of a shard node's state item in 0.1.0 (read once, by the upgrade)."""
    return {"pk": LEGACY_SHARD_PK_PREFIX + shard_id, "sk": LEGACY_SHARD_SK}


def layout_key(text: str | None) -> str:
    """The short name of a layout (``store.spaces.Layout.text``; None: a tree from before
    layouts were recorded) in the keys of its state items."""
    return hashlib.sha256((text or "").encode("utf-8")).hexdigest()[:16]


def host_key(partition: str, layout: str, prefix: str) -> dict[str, str]:
    """Primary key of a host's item under ``partition`` (``HOSTS_PK_PREFIX`` or
    ``NEWS_PK_PREFIX``) for the layout named ``layout`` and the host's key ``prefix``."""
    return {"pk": partition + layout, "sk": HOST_SK_PREFIX + prefix}


def tree_partition(layout: str, prefix: str) -> str:
    """The partition key of the branches of one host's trees."""
    return f"{TREE_PK_PREFIX}{layout}#{prefix}"


def key_attributes(key: dict[str, str]) -> dict[str, Any]:
    """A primary key (``url_key``, ``meta_key``, ``host_key``, ...) in attribute-value form."""
    return {name: {"S": value} for name, value in key.items()}


def meta_key(sk: str) -> dict[str, str]:
    return {"pk": META_PK, "sk": sk}
