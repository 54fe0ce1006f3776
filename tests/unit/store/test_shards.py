"""The shard tree: hash prefixes, key ranges, splits."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitemap_updater.store.keys import HASH_HEX_LEN, hash_bits, url_hash, url_key
from sitemap_updater.store.shards import (
    LeafIndex,
    ShardIdError,
    bits_of,
    children,
    query_ranges,
    space_of_shard,
    split,
    split_counts,
)
from sitemap_updater.store.spaces import shard_file_key

hashes = st.text(alphabet="0123456789abcdef", min_size=HASH_HEX_LEN, max_size=HASH_HEX_LEN)


def test_url_hash_is_the_sha256_prefix_of_the_normalized_url() -> None:
    loc = "https://www.example.com/a"
    assert url_hash(loc) == hashlib.sha256(loc.encode()).hexdigest()[:HASH_HEX_LEN]
    assert url_key(url_hash(loc)) == {"pk": "u#" + url_hash(loc)[0], "sk": url_hash(loc)}


def test_hash_bits_reads_hex_digits_as_bits() -> None:
    assert hash_bits("a3" + "0" * 30, 8) == "10100011"
    assert hash_bits("f" + "0" * 31, 3) == "111"


@pytest.mark.parametrize("bad", ["", "x01", "r012", "rr"])
def test_invalid_shard_ids_are_rejected(bad: str) -> None:
    with pytest.raises(ShardIdError):
        bits_of(bad)


def test_file_key_of_a_shard() -> None:
    assert shard_file_key("r01") == "sitemap-r01.xml.gz"  # a shard from before sections
    assert shard_file_key("products/r01") == "sitemap-products-r01.xml.gz"
    assert shard_file_key("www.example.de/pages/r") == "www.example.de/sitemap-pages-r.xml.gz"


def test_a_shard_id_names_its_space_and_its_bits() -> None:
    assert (space_of_shard("www.example.de/pages/r01"), bits_of("www.example.de/pages/r01")) == (
        "www.example.de/pages/",
        "01",
    )
    assert (space_of_shard("r01"), bits_of("r01")) == ("", "01")


@given(hashes)
def test_every_hash_has_exactly_one_leaf(uh: str) -> None:
    leaves = ["r00", "r010", "r011", "r1"]
    leaf = LeafIndex(leaves).leaf_for("", uh)
    assert hash_bits(uh, len(leaf) - 1) == leaf[1:]
    assert sum(hash_bits(uh, len(s) - 1) == s[1:] for s in leaves) == 1


@given(hashes, st.sampled_from(["r", "r1", "r01", "r0110", "r01101", "r0110100111"]))
def test_query_ranges_cover_exactly_the_shard(uh: str, shard: str) -> None:
    inside = hash_bits(uh, len(shard) - 1) == shard[1:]
    key = url_key(uh)
    covered = any(
        r.pk == key["pk"]
        and (r.sk_lo is None or r.sk_lo <= uh)
        and (r.sk_hi is None or uh <= r.sk_hi)
        for r in query_ranges(shard)
    )
    assert covered == inside


def test_shallow_shards_query_every_matching_partition() -> None:
    assert [r.pk for r in query_ranges("r")] == [f"u#{d:x}" for d in range(16)]
    assert [r.pk for r in query_ranges("r1")] == [f"u#{d:x}" for d in range(8, 16)]
    assert query_ranges("r1010")[0].sk_lo is None


@given(
    st.lists(hashes, max_size=40),
    st.sampled_from(["r", "r0", "r101", "pages/r1", "de.example.com/news/r0110"]),
)
def test_the_one_split_rule_sends_each_member_to_the_child_of_its_next_bit(
    uhs: list[str], shard: str
) -> None:
    members = [(uh, i) for i, uh in enumerate(uhs)]
    (zero, low), (one, high) = split(shard, members, lambda member: member[0])
    assert (zero, one) == children(shard)
    depth = len(bits_of(shard))
    assert low == [m for m in members if hash_bits(m[0], depth + 1)[-1] == "0"]  # in their order
    assert high == [m for m in members if hash_bits(m[0], depth + 1)[-1] == "1"]


def test_a_shard_as_deep_as_the_hash_cannot_be_split() -> None:
    deepest = "r" + "0" * (HASH_HEX_LEN * 4)
    with pytest.raises(ShardIdError, match="cannot be split"):
        split(deepest, [], str)


def test_split_until_every_leaf_fits() -> None:
    uhs = [url_hash(f"https://www.example.com/p{i}") for i in range(1000)]
    leaves = split_counts(uhs, "r", 100)
    assert len(leaves) > 1
    counts = {leaf: 0 for leaf in leaves}
    for uh in uhs:
        counts[LeafIndex(leaves).leaf_for("", uh)] += 1
    assert sum(counts.values()) == 1000
    assert max(counts.values()) <= 100


def test_split_keeps_a_shard_that_fits() -> None:
    assert split_counts(["0" * 32], "r01", 1) == ["r01"]


def test_a_node_has_two_children() -> None:
    assert children("r1") == ("r10", "r11")
