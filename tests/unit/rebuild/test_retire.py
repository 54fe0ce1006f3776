"""When a retired file is due for deletion (no AWS)."""

from __future__ import annotations

from sitemap_updater.rebuild.state.retire import due_for_deletion


def test_files_past_their_grace_period_are_due() -> None:
    entries = {"sitemap-r0.xml.gz": 100, "sitemap-r1.xml.gz": 150}
    assert due_for_deletion(entries, now=160, grace_seconds=60) == ["sitemap-r0.xml.gz"]
    assert due_for_deletion(entries, now=210, grace_seconds=60) == [
        "sitemap-r0.xml.gz",
        "sitemap-r1.xml.gz",
    ]


def test_zero_grace_makes_a_file_due_at_once() -> None:
    assert due_for_deletion({"sitemap-r0.xml.gz": 100}, now=100, grace_seconds=0) == [
        "sitemap-r0.xml.gz"
    ]
