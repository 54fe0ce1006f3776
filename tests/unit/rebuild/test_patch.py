"""Patching a published file: a changed URL whose page alone is over the byte cap."""

from __future__ import annotations

from sitemap_updater.page.model import Page
from sitemap_updater.protocol.urls import Site
from sitemap_updater.rebuild.patch import patch_shard
from sitemap_updater.rebuild.render import render_shard
from sitemap_updater.store.items import live_item
from sitemap_updater.store.keys import url_hash

SITE = Site.parse("https://www.example.com")


def test_a_changed_url_alone_over_the_byte_cap_is_left_out_and_named_as_a_full_render_does() -> (
    None
):
    small = live_item(Page(url="https://www.example.com/a"), "ev", "d")
    big = live_item(Page(url="https://www.example.com/" + "b" * 1500), "ev", "d")
    [published] = render_shard("r", [small], SITE, max_urls=8, max_bytes=1024, stylesheet=True)
    changes = {url_hash(str(big["url"]["S"])): big}

    patched = patch_shard(
        "r", published.body, changes, SITE, max_urls=8, max_bytes=1024, stylesheet=True
    )

    items = sorted([small, big], key=lambda item: item["sk"]["S"])
    full = render_shard("r", items, SITE, max_urls=8, max_bytes=1024, stylesheet=True)
    assert [p.body for p in patched.rendered] == [f.body for f in full] == [published.body]
    assert patched.skipped == list(full[0].skipped)
    assert patched.skipped[0].startswith("https://www.example.com/bbb")
