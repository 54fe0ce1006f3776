"""Which paths an invalidation sends and its idempotent caller reference (no AWS)."""

from __future__ import annotations

import pytest

from sitemap_updater.rebuild.invalidate import (
    WILDCARD,
    Invalidator,
    caller_reference,
    paths_to_invalidate,
)


def test_caller_reference_ignores_order_and_follows_the_new_hashes() -> None:
    a = caller_reference({"/sitemap.xml": "aa", "/sitemap-r0.xml.gz": "bb"})
    b = caller_reference({"/sitemap-r0.xml.gz": "bb", "/sitemap.xml": "aa"})
    c = caller_reference({"/sitemap-r0.xml.gz": "cc", "/sitemap.xml": "aa"})
    assert a == b
    assert a != c
    assert len(a) == 64


def test_changed_paths_are_sent_as_they_are_up_to_the_limit() -> None:
    changes = {f"/sitemap-r{i}.xml.gz": "x" for i in range(3)}
    assert paths_to_invalidate(changes, 3) == sorted(changes)


def test_above_the_limit_one_wildcard_replaces_the_sitemap_paths() -> None:
    changes = {f"/sitemap-r{i}.xml.gz": "x" for i in range(4)} | {"/robots.txt": "y"}
    assert paths_to_invalidate(changes, 3) == [WILDCARD, "/robots.txt"]


def test_without_a_distribution_nothing_is_sent() -> None:
    invalidator = Invalidator(None, "", 10)
    assert not invalidator.enabled
    assert invalidator.invalidate({"/sitemap.xml": "a"}) == []


def test_a_path_without_leading_slash_is_rejected() -> None:
    class Never:
        def create_invalidation(self, **_: object) -> None:
            raise AssertionError("must not be called")

    invalidator = Invalidator(Never(), "E123", 10)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"'sitemap\.xml' must start with '/'"):
        invalidator.invalidate({"sitemap.xml": "a"})
