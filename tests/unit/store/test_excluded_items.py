"""An item the observer marked as excluded is not listed, whatever else it holds."""

from __future__ import annotations

from sitemap_updater.page.model import Page
from sitemap_updater.store.items import is_live, live_item
from sitemap_updater.store.keys import ATTR_EXCLUDED


def test_a_marked_live_item_is_not_listed_and_unmarked_it_is_again() -> None:
    item = live_item(Page(url="https://www.example.com/a"), "ev", "digest")
    assert is_live(item)
    marked = {**item, ATTR_EXCLUDED: {"N": "1800000000"}}
    assert not is_live(marked)
    assert is_live({k: v for k, v in marked.items() if k != ATTR_EXCLUDED})
