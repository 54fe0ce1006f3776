"""The shard tree: shards are prefixes of the URL identity hash (docs/architecture.md).

Pure functions, no AWS. A shard id is ``"r"`` followed by a bit string. The tree only grows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sitemap_updater.store.keys import (
    HASH_BITS,
    HASH_HEX_LEN,
    PARTITION_BITS,
    ROOT_SHARD,
    URL_PK_PREFIX,
    hash_bits,
)


class ShardIdError(ValueError):
    """A string is not a valid shard id."""


def bits_of(shard_id: str) -> str:
    if not shard_id.startswith(ROOT_SHARD) or set(shard_id[1:]) - {"0", "1"}:
        raise ShardIdError(f"shard id {shard_id!r} must be 'r' followed by 0/1 bits")
    if len(shard_id) - 1 > HASH_BITS:
        raise ShardIdError(f"shard id {shard_id!r} is deeper than the {HASH_BITS}-bit hash")
    return shard_id[1:]


def children(shard_id: str) -> tuple[str, str]:
    bits_of(shard_id)
    return shard_id + "0", shard_id + "1"


def leaf_for(uh: str, leaves: Iterable[str]) -> str:
    """The leaf shard that holds the URL with identity hash ``uh``."""
    leaf_set = set(leaves)
    depth = max((len(s) - 1 for s in leaf_set), default=0)
    bits = hash_bits(uh, depth)
    for d in range(depth + 1):
        candidate = ROOT_SHARD + bits[:d]
        if candidate in leaf_set:
            return candidate
    raise ShardIdError(f"no leaf among {sorted(leaf_set)[:5]}... covers hash {uh}")


@dataclass(frozen=True, slots=True)
class QueryRange:
    """One DynamoDB Query that reads (part of) a shard: a partition and an inclusive sk range."""

    pk: str
    sk_lo: str | None
    sk_hi: str | None


def _pad_hex(bits: str, fill: str) -> str:
    padded = bits + fill * (HASH_BITS - len(bits))
    return format(int(padded, 2), f"0{HASH_HEX_LEN}x")


def query_ranges(shard_id: str) -> list[QueryRange]:
    """The Queries that together return every URL item of a shard, in hash order."""
    bits = bits_of(shard_id)
    if len(bits) >= PARTITION_BITS:
        pk = URL_PK_PREFIX + format(int(bits[:PARTITION_BITS], 2), "x")
        if len(bits) == PARTITION_BITS:
            return [QueryRange(pk, None, None)]
        return [QueryRange(pk, _pad_hex(bits, "0"), _pad_hex(bits, "1"))]
    free = PARTITION_BITS - len(bits)
    ranges = []
    for tail in range(2**free):
        prefix = bits + (format(tail, f"0{free}b") if free else "")
        ranges.append(QueryRange(URL_PK_PREFIX + format(int(prefix, 2), "x"), None, None))
    return ranges


def split_counts(hashes: Sequence[str], shard_id: str, cap: int) -> list[str]:
    """Leaves that replace ``shard_id`` so that none holds more than ``cap`` of ``hashes``.

    ``hashes`` are the identity hashes of the shard's URLs. Returns ``[shard_id]`` if it fits.
    """
    if cap < 1:
        raise ValueError("cap must be >= 1")
    if len(hashes) <= cap:
        return [shard_id]
    depth = len(bits_of(shard_id))
    if depth >= HASH_BITS:
        raise ShardIdError(f"shard {shard_id} cannot be split further")
    zero, one = children(shard_id)
    left = [h for h in hashes if hash_bits(h, depth + 1)[-1] == "0"]
    right = [h for h in hashes if hash_bits(h, depth + 1)[-1] == "1"]
    return split_counts(left, zero, cap) + split_counts(right, one, cap)
