"""Items stored under an earlier rule still publish their page."""

from __future__ import annotations

from sitemap_updater.protocol.entry import Alternate, Entry
from sitemap_updater.protocol.limits import MAX_BYTES
from sitemap_updater.protocol.render.fragments import entry_fragment
from sitemap_updater.protocol.urls import Site
from sitemap_updater.store.items import entry_from_item, live_item, section_of_item
from sitemap_updater.store.keys import ATTR_SECTION

SITE = Site.parse("https://www.example.com")


def test_an_alternate_stored_before_the_hreflang_rule_is_left_out_and_the_page_kept() -> None:
    stored = Entry(
        loc="https://www.example.com/a",
        alternates=(
            Alternate(hreflang="english", href="https://www.example.com/a"),
            Alternate(hreflang="de", href="https://www.example.com/de/a"),
        ),
    )
    item = live_item(stored, "0001", "digest")

    entry = entry_from_item(item)

    assert entry.loc == stored.loc
    assert [a.hreflang for a in entry.alternates] == ["de"]
    assert b'hreflang="de"' in entry_fragment(entry, SITE, max_bytes=MAX_BYTES)


def test_the_section_is_stored_only_when_the_change_named_one() -> None:
    entry = Entry(loc="https://www.example.com/a")
    named = live_item(entry, "0001", "digest", "products")
    assert named[ATTR_SECTION] == {"S": "products"}
    assert section_of_item(named) == "products"
    unnamed = live_item(entry, "0001", "digest")
    assert ATTR_SECTION not in unnamed
    assert section_of_item(unnamed) is None
    assert entry_from_item(named) == entry_from_item(unnamed) == entry
