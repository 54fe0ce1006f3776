"""The shard tree: shards are prefixes of the URL identity hash (docs/architecture.md).

Pure functions, no AWS. A shard id is a space (``store.spaces``: the host and section its URLs
belong to, empty for the one space of a layout without sections) followed by ``"r"`` and a bit
string. Each space has its own tree, which only grows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
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


def space_of_shard(shard_id: str) -> str:
    """The space of a shard id: everything up to its last ``/`` included (``""`` for none)."""
    return shard_id[: shard_id.rfind("/") + 1]


def bits_of(shard_id: str) -> str:
    """The hash bits a shard id names (after its space and ``"r"``)."""
    tail = shard_id[shard_id.rfind("/") + 1 :]
    if not tail.startswith(ROOT_SHARD) or set(tail[1:]) - {"0", "1"}:
        raise ShardIdError(f"shard id {shard_id!r} must end in 'r' followed by 0/1 bits")
    if len(tail) - 1 > HASH_BITS:
        raise ShardIdError(f"shard id {shard_id!r} is deeper than the {HASH_BITS}-bit hash")
    return tail[1:]


def depth_of(shard_id: str) -> int:
    """How many hash bits a shard id names."""
    return len(bits_of(shard_id))


def children(shard_id: str) -> tuple[str, str]:
    bits_of(shard_id)
    return shard_id + "0", shard_id + "1"


class LeafIndex:
    """Finds the leaf of a (space, hash) in O(depth) without rebuilding a set per lookup.

    A space without a leaf yet gets its root: ``leaf_for`` returns it and ``new_roots`` lists it,
    so that a run can add it to the shard map."""

    def __init__(self, leaves: Iterable[str]) -> None:
        self._leaves = set(leaves)
        self._depths: dict[str, list[int]] = {}
        for leaf in self._leaves:
            self._depths.setdefault(space_of_shard(leaf), []).append(depth_of(leaf))
        for space, depths in self._depths.items():
            self._depths[space] = sorted(set(depths))
        self.new_roots: list[str] = []

    def leaf_for(self, space: str, uh: str) -> str:
        depths = self._depths.get(space)
        if depths is None:
            root = space + ROOT_SHARD
            self._leaves.add(root)
            self._depths[space] = [0]
            self.new_roots.append(root)
            return root
        bits = hash_bits(uh, depths[-1])
        for depth in depths:
            candidate = space + ROOT_SHARD + bits[:depth]
            if candidate in self._leaves:
                return candidate
        raise ShardIdError(f"no leaf of space {space!r} covers hash {uh}")


@dataclass(frozen=True, slots=True)
class QueryRange:
    """One DynamoDB Query that reads (part of) a shard: a partition and an inclusive sk range."""

    pk: str
    sk_lo: str | None
    sk_hi: str | None


def _pad_hex(bits: str, fill: str) -> str:
    padded = bits + fill * (HASH_BITS - len(bits))
    return format(int(padded, 2), f"0{HASH_HEX_LEN}x")


def low_hash(shard_id: str) -> str:
    """The lowest URL hash a shard covers (its bits followed by zeros, in hex): a shard in the
    place of a URL hash, for ``split`` to split a list of shards (``rebuild.state.branches``)."""
    return _pad_hex(bits_of(shard_id), "0")


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


def half_of(shard_id: str) -> Callable[[str], int]:
    """The one split rule: for a URL hash, which child of ``shard_id`` holds it (0 or 1), the
    hash's next bit after the shard's prefix. Every split of a shard (by URL count, by bytes,
    of a spool on disk) goes through it."""
    depth = depth_of(shard_id)
    if depth >= HASH_BITS:
        raise ShardIdError(f"shard {shard_id} cannot be split further")
    digit, shift = depth // 4, 3 - depth % 4

    def half(uh: str) -> int:
        return (int(uh[digit], 16) >> shift) & 1

    return half


def split[T](shard_id: str, members: Iterable[T], uh_of: Callable[[T], str]) -> Halves[T]:
    """The two children of ``shard_id`` and, for each, the ``members`` (in their order) whose
    URL hash (``uh_of``) it holds by :func:`half_of`."""
    half = half_of(shard_id)
    halves: tuple[list[T], list[T]] = ([], [])
    for member in members:
        halves[half(uh_of(member))].append(member)
    zero, one = children(shard_id)
    return (zero, halves[0]), (one, halves[1])


def descent(shard_id: str, levels: int) -> tuple[list[str], Callable[[str], str]]:
    """The shards ``levels`` below ``shard_id``, in hash order, and for a URL hash the one of
    them that holds it: :func:`half_of` applied level after level."""
    nodes: dict[str, tuple[tuple[str, str], Callable[[str], int]]] = {}
    level = [shard_id]
    for _ in range(levels):
        for node in level:
            nodes[node] = (children(node), half_of(node))
        level = [child for node in level for child in nodes[node][0]]

    def leaf_for(uh: str) -> str:
        node = shard_id
        for _ in range(levels):
            pair, half = nodes[node]
            node = pair[half(uh)]
        return node

    return level, leaf_for


#: The two children of a split shard, each with its members.
type Halves[T] = tuple[tuple[str, list[T]], tuple[str, list[T]]]


def split_counts(hashes: Sequence[str], shard_id: str, cap: int) -> list[str]:
    """Leaves that replace ``shard_id`` so that none holds more than ``cap`` of ``hashes``, the
    identity hashes of its URLs (``[shard_id]`` if it fits)."""
    if cap < 1:
        raise ValueError("cap must be >= 1")
    if len(hashes) <= cap:
        return [shard_id]
    (zero, left), (one, right) = split(shard_id, hashes, str)
    return split_counts(left, zero, cap) + split_counts(right, one, cap)


def covers(shard_id: str, uh: str) -> bool:
    """Whether the shard's hash prefix is a prefix of the URL hash ``uh``."""
    bits = bits_of(shard_id)
    return hash_bits(uh, len(bits)) == bits
