"""Key design of the single table: URL items, shard nodes and meta items."""

from __future__ import annotations

import hashlib
from typing import Any, Final

#: Hex digits of sha256 kept as a URL's identity hash (128 bits).
HASH_HEX_LEN: Final = 32
HASH_BITS: Final = HASH_HEX_LEN * 4
#: Bits of the hash that choose the URL item's partition key (16 partitions).
PARTITION_BITS: Final = 4

URL_PK_PREFIX: Final = "u#"
SHARD_PK_PREFIX: Final = "shard#"
SHARD_SK: Final = "state"
META_PK: Final = "meta"
SHARDMAP_SK: Final = "shardmap"
PUBLISHED_SK: Final = "published"
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


def shard_key(shard_id: str) -> dict[str, str]:
    """Primary key of a shard node's state item."""
    return {"pk": SHARD_PK_PREFIX + shard_id, "sk": SHARD_SK}


def key_attributes(key: dict[str, str]) -> dict[str, Any]:
    """A primary key (``url_key``, ``shard_key``, ``meta_key``) in attribute-value form."""
    return {name: {"S": value} for name, value in key.items()}


def meta_key(sk: str) -> dict[str, str]:
    return {"pk": META_PK, "sk": sk}
