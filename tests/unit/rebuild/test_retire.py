"""When a retired file may be deleted (no AWS)."""

from __future__ import annotations

from sitemap_updater.rebuild.state.retire import due_for_deletion


def test_only_unlisted_files_past_their_grace_period_are_due() -> None:
    entries = {"sitemap-r0.xml.gz": 100, "sitemap-r1.xml.gz": 150, "sitemap-r.xml.gz": 100}
    listed = {"sitemap-r.xml.gz"}
    assert due_for_deletion(entries, listed, now=160, grace_seconds=60) == ["sitemap-r0.xml.gz"]
    assert due_for_deletion(entries, listed, now=210, grace_seconds=60) == [
        "sitemap-r0.xml.gz",
        "sitemap-r1.xml.gz",
    ]


def test_zero_grace_deletes_at_once_but_never_a_listed_file() -> None:
    entries = {"sitemap-r0.xml.gz": 100}
    assert due_for_deletion(entries, set(), now=100, grace_seconds=0) == ["sitemap-r0.xml.gz"]
    assert due_for_deletion(entries, {"sitemap-r0.xml.gz"}, now=10**9, grace_seconds=0) == []
