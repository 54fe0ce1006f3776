"""Capacity: how many URLs one deployment publishes before a hard limit is reached, and which.

    .venv/bin/python benchmarks/capacity.py [--cap 40000] [--seed 1] [--space pages/]

URL hashes are uniform (the identity is a SHA-256), so the shard tree that the rebuild grows for
N URLs is simulated by splitting counts: a shard over the cap splits into its two children (the
real ``store.shards.children``) with a binomial share of its URLs each, exactly as
``split_counts`` splits real hashes. The tree grows in one space (``--space``: the primary host's
default section ``pages/``; another host's section is longer, ``www.example.de/products/``), and
every shard id and file key carries it. For each N it measures, with the real key functions:

* the ``meta/shardmap`` item (``leaves`` and ``nodes`` lists) and the ``meta/published`` item
  (``files`` list and the hashes), sized by DynamoDB's documented rules (attribute names + UTF-8
  values; a list is 3 bytes + 1 byte per element + its elements; a number is about 1 byte per 2
  digits + 1), against DynamoDB's 400 KB item limit;
* the sitemap index: its entry count against the protocol's 50,000, and its bytes (rendered by the
  real ``render_index``) against 52,428,800;

then bisects for the smallest N at which each limit is first exceeded, and prints them in order.
Sources: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html
(item sizes), https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html
(400 KB items), https://www.sitemaps.org/protocol.html (index limits).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "layers" / "shared"))

from sitemap_updater.config import DEFAULT_MAX_URLS_PER_SITEMAP  # noqa: E402
from sitemap_updater.protocol.index import render_index  # noqa: E402
from sitemap_updater.protocol.limits import MAX_BYTES, MAX_URLS  # noqa: E402
from sitemap_updater.store.keys import META_PK, PUBLISHED_SK, ROOT_SHARD, SHARDMAP_SK  # noqa: E402
from sitemap_updater.store.shards import children  # noqa: E402
from sitemap_updater.store.spaces import shard_file_key  # noqa: E402

DYNAMODB_ITEM_LIMIT = 400 * 1024
SHA256_HEX = 64
SITE = "https://www.example.com"
LASTMOD = "2026-11-20T10:00:00Z"


@dataclass(frozen=True)
class Tree:
    leaves: list[str]
    nodes: list[str]


#: the space the tree grows in (``--space``)
SPACE = ["pages/"]


def grow(urls: int, cap: int, seed: int) -> Tree:
    """The leaves and every node the rebuild creates for ``urls`` uniform hashes."""
    rng = random.Random(seed)
    leaves: list[str] = []
    nodes: list[str] = []
    stack = [(SPACE[0] + ROOT_SHARD, urls)]
    while stack:
        shard, count = stack.pop()
        nodes.append(shard)
        if count <= cap:
            leaves.append(shard)
            continue
        zero, one = children(shard)
        left = rng.binomialvariate(count, 0.5)
        stack += [(one, count - left), (zero, left)]
    return Tree(leaves, nodes)


def _string(name: str, value: str) -> int:
    return len(name.encode()) + len(value.encode())


def _string_list(name: str, values: list[str]) -> int:
    return len(name.encode()) + 3 + sum(1 + len(v.encode()) for v in values)


def _number(name: str, value: int) -> int:
    return len(name.encode()) + (len(str(value)) + 1) // 2 + 1


def _key(sk: str) -> int:
    return _string("pk", META_PK) + _string("sk", sk)


def shardmap_bytes(tree: Tree) -> int:
    """Size of ``meta/shardmap`` as ``ShardStore.save_map`` writes it."""
    return (
        _key(SHARDMAP_SK)
        + _string_list("leaves", tree.leaves)
        + _string_list("nodes", tree.nodes)
        + _number("version", len(tree.nodes))
    )


def published_bytes(tree: Tree) -> int:
    """Size of ``meta/published`` as ``PublishedStore.save`` writes it (robots.txt on)."""
    files = [shard_file_key(leaf) for leaf in tree.leaves]
    index_sha = _string("singles", "") + 3 + _string("sitemap.xml", "0" * SHA256_HEX)
    return (
        _key(PUBLISHED_SK)
        + _string_list("files", files)
        + index_sha
        + _string("robots_sha256", "0" * SHA256_HEX)
    )


def index_bytes(tree: Tree) -> int:
    """Bytes of the index the rebuild renders for these leaves. Past 50,000 entries (where the
    entry limit is already exceeded) the writer refuses, so the size is scaled linearly."""
    entries = [(f"{SITE}/{shard_file_key(leaf)}", LASTMOD) for leaf in tree.leaves]
    data, _ = render_index(entries[:MAX_URLS])
    return len(data) * len(entries) // min(len(entries), MAX_URLS)


@dataclass(frozen=True)
class Limit:
    name: str
    measure: Callable[[Tree], int]
    limit: int
    unit: str


LIMITS = (
    Limit("meta/shardmap item (DynamoDB)", shardmap_bytes, DYNAMODB_ITEM_LIMIT, "bytes"),
    Limit("meta/published item (DynamoDB)", published_bytes, DYNAMODB_ITEM_LIMIT, "bytes"),
    Limit("sitemap index entries (protocol)", lambda tree: len(tree.leaves), MAX_URLS, "files"),
    Limit("sitemap index size (protocol)", index_bytes, MAX_BYTES, "bytes"),
)


def first_breach(limit: Limit, cap: int, seed: int, high: int) -> int | None:
    """Smallest URL count (to 0.1%) whose tree exceeds ``limit``; None if ``high`` does not."""
    if limit.measure(grow(high, cap, seed)) <= limit.limit:
        return None
    low = cap
    while high - low > max(1, low // 1000):
        mid = (low + high) // 2
        if limit.measure(grow(mid, cap, seed)) > limit.limit:
            high = mid
        else:
            low = mid
    return high


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--cap", type=int, default=DEFAULT_MAX_URLS_PER_SITEMAP, help="MAX_URLS_PER_SITEMAP"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--up-to", type=int, default=4_000_000_000, help="largest N searched")
    parser.add_argument("--space", default=SPACE[0], help="the space the tree grows in")
    args = parser.parse_args(argv)
    SPACE[0] = args.space
    print(f"shard cap {args.cap:,} URLs per file, space {args.space!r}")
    for urls in (1_000_000, 10_000_000, 100_000_000):
        tree = grow(urls, args.cap, args.seed)
        sizes = ", ".join(
            f"{limit.name.split(' (')[0]} {limit.measure(tree):,} {limit.unit}" for limit in LIMITS
        )
        print(f"{urls:>14,} URLs: {len(tree.leaves):,} files; {sizes}")
    breaches = []
    for limit in LIMITS:
        at = first_breach(limit, args.cap, args.seed, args.up_to)
        breaches.append((at if at is not None else args.up_to + 1, limit, at))
    print("limits, in the order a growing site reaches them:")
    for _, limit, at in sorted(breaches, key=lambda row: row[0]):
        where = f"{at:,} URLs" if at is not None else f"not below {args.up_to:,} URLs"
        if at is None:
            print(f"  {limit.name:<36} {where}")
            continue
        files = len(grow(at, args.cap, args.seed).leaves)
        print(f"  {limit.name:<36} {where} ({files:,} files; limit {limit.limit:,} {limit.unit})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
