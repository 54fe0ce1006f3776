"""Capacity: how many URLs one deployment publishes before a hard limit is reached, and which.

    .venv/bin/python benchmarks/capacity.py [--cap 40000] [--seed 1] [--space pages/]

URL hashes are uniform (the identity is a SHA-256), so the shard tree that the rebuild grows for
N URLs is simulated by splitting counts: a shard over the cap splits into its two children (the
real ``store.shards.children``) with a binomial share of its URLs each, exactly as
``split_counts`` splits real hashes. The tree grows in one space (``--space``: the primary host's
default section ``pages/``; a long host's and section's name, such as a 180-character host and a
32-character section, makes every key longer), and every leaf gets the largest state a file can
have (its hash, two full timestamps, the cap as its URL count, the byte cap as its size). For
each N it measures, with the real item and key functions of the rebuild's state:

* the largest branch of the tree (``rebuild.state.branches``: the leaves are grouped by the
  real ``regroup``, at most 512 a branch), the host's record (``rebuild.state.hosts``, with
  every index the host needs and the most sections a host may have) and the publication
  (``meta/published``), each sized by DynamoDB's documented rules (``store.items.item_size``),
  against DynamoDB's 400 KB item limit;
* the host's indexes, cut in two by the rebuild's own rule (``cut_start``) wherever one would
  list more than 50,000 files or pass 52,428,800 bytes (``over_limits``): the largest index's
  entries and bytes (rendered by the real ``render_index``) against the protocol's limits, and
  robots.txt, which names every index, against the 500 KiB a crawler reads of it;

then bisects for the smallest N at which each limit is first exceeded, and prints them in order.
Sources: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html
(item sizes), https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html
(400 KB items), https://www.sitemaps.org/protocol.html (index limits),
https://www.rfc-editor.org/rfc/rfc9309 (section 2.5: a crawler parses at least 500 KiB).
"""

from __future__ import annotations

import argparse
import functools
import random
import sys
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "layers" / "shared"))

# ruff: noqa: E402 (the layer is put on the path first)
from sitemap_updater.config import DEFAULT_MAX_BYTES_PER_SITEMAP, DEFAULT_MAX_URLS_PER_SITEMAP
from sitemap_updater.protocol.index import render_index
from sitemap_updater.protocol.limits import MAX_BYTES, MAX_URLS
from sitemap_updater.protocol.stylesheet import STYLESHEET_NAME
from sitemap_updater.rebuild.outputs.bucket import robots_txt
from sitemap_updater.rebuild.state.branches import (
    Branch,
    branch_of,
    item_of,
    leaves_of,
    listed_file,
    regroup,
)
from sitemap_updater.rebuild.state.hosts import HostRecord, IndexPart, record_item
from sitemap_updater.rebuild.state.nodes import NodeState
from sitemap_updater.rebuild.state.publication import Publication
from sitemap_updater.rebuild.state.publication import item_of as publication_item
from sitemap_updater.rebuild.steps.index import IndexedFile, cut_start, over_limits
from sitemap_updater.sections import DEFAULT_MAX_SECTIONS_PER_HOST, MAX_SECTION_LEN
from sitemap_updater.store.items import item_size
from sitemap_updater.store.keys import ROOT_SHARD, layout_key
from sitemap_updater.store.shards import children
from sitemap_updater.store.spaces import index_file_key, split_space
from sitemap_updater.view import view_files

DYNAMODB_ITEM_LIMIT = 400 * 1024
#: RFC 9309, section 2.5: crawlers must parse at least the first 500 KiB of robots.txt
ROBOTS_LIMIT = 500 * 1024
SHA256_HEX = "0" * 64
LASTMOD = "2026-11-20T10:00:00Z"
#: the sizes measured besides ``--up-to``: 2.5 billion is 50,000 files of 50,000 URLs
SIZES = (1_000_000, 100_000_000, 2_500_000_000)
#: the space the tree grows in (``--space``)
SPACE = ["pages/"]


@dataclass(frozen=True)
class Site:
    """The state of one host whose tree holds every URL: its branches and its indexes."""

    leaves: list[str]
    branches: list[Branch]
    record: HostRecord
    #: the entries of each index, by number
    indexes: dict[int, list[IndexedFile]]

    @property
    def prefix(self) -> str:
        return self.record.prefix


def origin_of(prefix: str) -> str:
    return f"https://{prefix.rstrip('/') or 'www.example.com'}"


def grow(urls: int, cap: int, seed: int) -> list[str]:
    """The leaves the rebuild creates for ``urls`` uniform hashes."""
    rng = random.Random(seed)
    leaves: list[str] = []
    stack = [(SPACE[0] + ROOT_SHARD, urls)]
    while stack:
        shard, count = stack.pop()
        if count <= cap:
            leaves.append(shard)
            continue
        zero, one = children(shard)
        left = rng.binomialvariate(count, 0.5)
        stack += [(one, count - left), (zero, left)]
    return sorted(leaves)


@functools.cache
def site_of(urls: int, cap: int, seed: int) -> Site:
    """The branches, record and indexes of the host for ``urls`` URLs."""
    leaves = grow(urls, cap, seed)
    states = {
        leaf: NodeState(leaf, SHA256_HEX, LASTMOD, LASTMOD, cap, DEFAULT_MAX_BYTES_PER_SITEMAP)
        for leaf in leaves
    }
    branches = regroup([], states, {})
    prefix = split_space(SPACE[0])[0]
    listed = [
        (branch.sort_key, [entry for s in branch.states if (entry := listed_file(s))])
        for branch in branches
    ]
    groups = _cut(prefix, listed)
    indexes = {number: entries for number, (_, entries) in enumerate(groups, start=1)}
    sections = tuple(
        f"s{n:04d}-".ljust(MAX_SECTION_LEN, "x") for n in range(DEFAULT_MAX_SECTIONS_PER_HOST)
    )
    beside = tuple(
        (prefix + name, SHA256_HEX) for name in (STYLESHEET_NAME, *(n for n, _ in view_files()))
    )
    parts = tuple(
        IndexPart(number, start, SHA256_HEX, len(entries), sum(n for _, _, n in entries))
        for number, (start, entries) in enumerate(groups, start=1)
    )
    record = HostRecord(prefix, parts, beside, None, sections)
    return Site(leaves, branches, record, indexes)


def _cut(
    prefix: str, listed: list[tuple[str, list[IndexedFile]]]
) -> list[tuple[str, list[IndexedFile]]]:
    """The host's indexes, each (its start, its entries): one, cut in two by the rebuild's rule
    wherever it would pass the protocol's limits, until none does."""
    entries = [entry for _, files in listed for entry in files]
    urls = [f"{origin_of(prefix)}/{key[len(prefix) :]}" for key, _, _ in entries]
    if over_limits(entries, urls, stylesheet=True, max_files=MAX_URLS):
        start = cut_start([(key, len(files)) for key, files in listed])
        if start is not None:
            at = next(n for n, (key, _) in enumerate(listed) if key == start)
            return _cut(prefix, listed[:at]) + _cut(prefix, listed[at:])
    return [(listed[0][0] if listed else "", entries)]


def layout_text(prefix: str) -> str:
    rules = f"/{'x' * 64}/={SPACE[0][len(prefix) :].rstrip('/')}"
    return f"sites={origin_of(prefix)};rules={rules};sections={DEFAULT_MAX_SECTIONS_PER_HOST}"


def branch_bytes(site: Site) -> int:
    key = layout_key(layout_text(site.prefix))
    return max(item_size(item_of(key, branch)) for branch in site.branches)


def record_bytes(site: Site) -> int:
    return item_size(record_item(layout_key(layout_text(site.prefix)), site.record))


def publication_bytes(site: Site) -> int:
    publication = Publication(
        layout=layout_text(site.prefix),
        moving_from=layout_key(""),
        indexes_for=f"{origin_of(site.prefix)};stylesheet",
        files=len(site.leaves),
        urls=sum(part.urls for part in site.record.indexes),
        robots_sha256=SHA256_HEX,
        in_flight="0" * 36,
        generation=10**12,
        published_at=2**40,
    )
    return item_size(publication_item(publication))


def largest_index_entries(site: Site) -> int:
    return max(len(entries) for entries in site.indexes.values())


def largest_index_bytes(site: Site) -> int:
    origin = origin_of(site.prefix)
    sizes = []
    for entries in site.indexes.values():
        listed = [(f"{origin}/{key[len(site.prefix) :]}", lastmod) for key, lastmod, _ in entries]
        data, _ = render_index(listed[:MAX_URLS], stylesheet=True)
        sizes.append(len(data) * len(listed) // max(1, min(len(listed), MAX_URLS)))
    return max(sizes)


def robots_bytes(site: Site) -> int:
    origin = origin_of(site.prefix)
    keys = [index_file_key(site.prefix, part.number) for part in site.record.indexes]
    return len(robots_txt([f"{origin}/{key[len(site.prefix) :]}" for key in keys]))


def read_every_branch_mib(site: Site) -> float:
    """The peak memory (MiB, ``tracemalloc``) of what a run holds when it reads every branch of
    the host, as a full rebuild or the recovery from a crash does: the items as DynamoDB returns
    them, the branches and every leaf's state (the client's own buffers aside)."""
    key = layout_key(layout_text(site.prefix))
    tracemalloc.start()
    try:
        items = [item_of(key, branch) for branch in site.branches]
        tracemalloc.reset_peak()
        states, _ = leaves_of(branch_of(item) for item in items)
        assert len(states) == len(site.leaves)
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


@dataclass(frozen=True)
class Limit:
    name: str
    measure: Callable[[Site], int]
    limit: int
    unit: str


LIMITS = (
    Limit("largest branch item (DynamoDB)", branch_bytes, DYNAMODB_ITEM_LIMIT, "bytes"),
    Limit("host record item (DynamoDB)", record_bytes, DYNAMODB_ITEM_LIMIT, "bytes"),
    Limit("publication item (DynamoDB)", publication_bytes, DYNAMODB_ITEM_LIMIT, "bytes"),
    Limit("index entries (protocol)", largest_index_entries, MAX_URLS, "files"),
    Limit("index size (protocol)", largest_index_bytes, MAX_BYTES, "bytes"),
    Limit("robots.txt (RFC 9309)", robots_bytes, ROBOTS_LIMIT, "bytes"),
)


def first_breach(limit: Limit, cap: int, seed: int, high: int) -> int | None:
    """Smallest URL count (to 0.1%) whose state exceeds ``limit``; None if ``high`` does not."""
    if limit.measure(site_of(high, cap, seed)) <= limit.limit:
        return None
    low = cap
    while high - low > max(1, low // 1000):
        mid = (low + high) // 2
        if limit.measure(site_of(mid, cap, seed)) > limit.limit:
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
    site_of.cache_clear()
    print(
        f"shard cap {args.cap:,} URLs per file, space {args.space!r} ({len(args.space)} characters)"
    )
    for urls in sorted({n for n in SIZES if n <= args.up_to} | {args.up_to}):
        site = site_of(urls, args.cap, args.seed)
        sizes = ", ".join(
            f"{limit.name.split(' (')[0]} {limit.measure(site):,} {limit.unit}" for limit in LIMITS
        )
        print(
            f"{urls:>14,} URLs: {len(site.leaves):,} files, {len(site.branches):,} branches, "
            f"{len(site.record.indexes)} indexes; {sizes}; "
            f"every branch read holds {read_every_branch_mib(site):.2f} MiB"
        )
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
        files = len(grow(at, args.cap, args.seed))
        print(f"  {limit.name:<36} {where} ({files:,} files; limit {limit.limit:,} {limit.unit})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
