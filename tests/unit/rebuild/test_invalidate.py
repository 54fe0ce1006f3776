"""Which paths an invalidation sends and its idempotent caller reference (no AWS)."""

from __future__ import annotations

import pytest

from sitemap_updater.rebuild.outputs.invalidate import (
    WILDCARD,
    Invalidator,
    caller_reference,
    changes_digest,
    paths_to_invalidate,
)
from sitemap_updater.rebuild.state.publication import SentBatch


def test_caller_reference_ignores_order_and_follows_the_new_hashes() -> None:
    a = caller_reference({"/sitemap.xml": "aa", "/sitemap-r0.xml.gz": "bb"}, 1)
    b = caller_reference({"/sitemap-r0.xml.gz": "bb", "/sitemap.xml": "aa"}, 1)
    c = caller_reference({"/sitemap-r0.xml.gz": "cc", "/sitemap.xml": "aa"}, 1)
    assert a == b
    assert a != c
    assert len(a) == 64


def test_content_that_comes_back_gets_a_new_reference_in_each_generation() -> None:
    """A -> B -> A: the third publish writes the same pairs as the first, in a later generation."""
    content_a = {"/sitemap-r.xml.gz": "a" * 64}
    content_b = {"/sitemap-r.xml.gz": "b" * 64}
    refs = [
        caller_reference(content_a, 1),
        caller_reference(content_b, 2),
        caller_reference(content_a, 3),
    ]
    assert len(set(refs)) == 3


def test_a_retry_that_writes_the_same_changes_reuses_the_sent_reference() -> None:
    changes = {"/sitemap-r.xml.gz": "b" * 64, "/sitemap.xml": "c" * 64}
    sent = SentBatch(caller_reference(changes, 4), changes_digest(changes))
    # the retry runs under the next generation, but repeats the request it follows
    assert caller_reference(changes, 5, sent) == sent.reference
    reverted = {"/sitemap-r.xml.gz": "a" * 64, "/sitemap.xml": "c" * 64}
    assert caller_reference(reverted, 5, sent) == caller_reference(reverted, 5) != sent.reference


def test_a_negative_generation_is_rejected() -> None:
    with pytest.raises(ValueError, match=r"generation=-1 must be >= 0"):
        caller_reference({"/sitemap.xml": "a"}, -1)


def test_changed_paths_are_sent_as_they_are_up_to_the_limit() -> None:
    changes = {f"/sitemap-r{i}.xml.gz": "x" for i in range(3)}
    assert paths_to_invalidate(changes, 3) == sorted(changes)


def test_above_the_limit_one_wildcard_replaces_the_sitemap_paths() -> None:
    changes = {f"/sitemap-r{i}.xml.gz": "x" for i in range(4)} | {"/robots.txt": "y"}
    assert paths_to_invalidate(changes, 3) == [WILDCARD, "/robots.txt"]


def test_without_a_distribution_nothing_is_sent() -> None:
    invalidator = Invalidator(None, "", 10)
    assert not invalidator.enabled
    assert invalidator.invalidate({"/sitemap.xml": "a"}, "ref") == []


def test_a_path_without_leading_slash_is_rejected() -> None:
    class Never:
        def create_invalidation(self, **_: object) -> None:
            raise AssertionError("must not be called")

    invalidator = Invalidator(Never(), "E123", 10)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"'sitemap\.xml' must start with '/'"):
        invalidator.invalidate({"sitemap.xml": "a"}, "ref")
