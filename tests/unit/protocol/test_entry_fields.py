"""Every shape of an entry follows the one declaration of its fields (``protocol.entry``)."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime

from sitemap_updater.ingest.contract import ChangeObject
from sitemap_updater.ingest.ordering import canonical_entry_json, content_digest
from sitemap_updater.ingest.wire import UPSERT_FIELDS
from sitemap_updater.protocol import Site
from sitemap_updater.protocol.entry import (
    ENTRY_FIELDS,
    EXTRA_FIELDS,
    NO_EXTRAS,
    PLAIN_FIELDS,
    Alternate,
    Entry,
    Image,
    entry_of,
    extras_of,
    make_entry,
)
from sitemap_updater.protocol.extensions.news import News
from sitemap_updater.protocol.render.element import EntryRenderer
from sitemap_updater.store.items import entry_from_item, live_item, news_from_item
from sitemap_updater_local.pipeline.upsert_lines import upsert_event

SITE = Site.parse("https://www.example.com")
NOW = datetime(2026, 11, 20, 12, tzinfo=UTC)
#: A change object's own fields, which are not an entry's.
CHANGE_FIELDS = {"action", "occurred_at", "section"}
VIDEO = {
    "thumbnail_loc": "https://cdn.example.com/v.jpg",
    "title": "Talks",
    "description": "Two minutes.",
    "content_loc": "https://cdn.example.com/v.mp4",
}
NEWS = {
    "publication": {"name": "The Times", "language": "en"},
    "publication_date": "2026-11-20",
    "title": "A & B",
}


def _full_entry() -> Entry:
    return make_entry(
        SITE,
        loc="https://www.example.com/a",
        lastmod="2026-11-20",
        changefreq="daily",
        priority=0.5,
        alternates=[{"hreflang": "de", "href": "https://www.example.com/de/a"}],
        images=[{"loc": "https://cdn.example.com/a.jpg"}],
        videos=[VIDEO],
        news=NEWS,
        now=NOW,
    )


def test_the_declaration_names_each_field_of_the_entry_in_order() -> None:
    assert tuple(field.name for field in ENTRY_FIELDS) == Entry._fields
    assert PLAIN_FIELDS + EXTRA_FIELDS == ENTRY_FIELDS
    assert tuple(Entry._field_defaults[field.name] for field in EXTRA_FIELDS) == NO_EXTRAS


def test_the_contract_declares_each_field_under_its_wire_name() -> None:
    wires = {field.wire for field in ENTRY_FIELDS}
    assert set(ChangeObject.model_fields) == wires | CHANGE_FIELDS


def test_the_fast_path_knows_the_plain_fields_and_no_extra() -> None:
    assert {field.wire for field in PLAIN_FIELDS} | CHANGE_FIELDS == UPSERT_FIELDS


def test_each_extra_field_is_rendered_and_counted_only_when_present() -> None:
    entry = _full_entry()
    assert extras_of(entry) != NO_EXTRAS
    assert extras_of(entry._replace(**{f.name: f.absent for f in EXTRA_FIELDS})) == NO_EXTRAS
    assert all(field.render is not None for field in EXTRA_FIELDS)
    assert extras_of(entry) == (entry.videos, entry.news)


def test_a_change_object_gives_the_entry_make_entry_gives() -> None:
    change = ChangeObject.model_validate(
        {
            "action": "upsert",
            "url": "https://www.example.com/a",
            "lastmod": "2026-11-20",
            "changefreq": "daily",
            "priority": 0.5,
            "alternates": [{"hreflang": "de", "href": "https://www.example.com/de/a"}],
            "images": [{"loc": "https://cdn.example.com/a.jpg"}],
            "videos": [VIDEO],
            "news": NEWS,
        }
    )
    assert entry_of(SITE, change.entry_values(), now=NOW) == _full_entry()


def test_the_item_stores_and_digests_each_field_by_its_name() -> None:
    entry = _full_entry()
    item = live_item(entry, "ev", "digest")
    names = {field.name for field in ENTRY_FIELDS}
    assert names <= set(item)
    assert entry_from_item(item) == entry._replace(news=None)
    assert news_from_item(item) == entry.news
    digested = canonical_entry_json(entry)
    assert all(f'"{name}":' in digested for name in names)


def test_an_entry_without_extras_keeps_its_digested_form() -> None:
    entry = Entry("https://www.example.com/a", images=(Image("https://cdn.example.com/a.jpg"),))
    assert canonical_entry_json(entry) == (
        '{"alternates":[],"changefreq":null,"images":["https://cdn.example.com/a.jpg"],'
        '"lastmod":null,"loc":"https://www.example.com/a","priority":null}'
    )


def test_the_contract_upsert_of_an_entry_is_judged_back_to_it() -> None:
    entry = _full_entry()
    event = upsert_event(entry)
    assert set(event) == {field.wire for field in ENTRY_FIELDS} | {"action"}
    change = ChangeObject.model_validate(event)
    assert entry_of(SITE, change.entry_values(), now=NOW) == entry


def test_extras_render_after_the_alternates_and_images_in_field_order() -> None:
    entry = _full_entry()._replace(alternates=(Alternate("de", "https://www.example.com/de/a"),))
    text = EntryRenderer(SITE).text(entry)
    assert text.index("<image:image>") < text.index("<video:video>") < text.index("<news:news>")
    assert isinstance(entry.news, News)


def test_the_digest_holds_each_plain_field_in_sorted_order() -> None:
    """``content_digest`` dumps them without sorting: their literal must be in order."""
    entry = Entry("https://www.example.com/a", priority=0.5)
    assert list(json.loads(canonical_entry_json(entry))) == sorted(f.name for f in PLAIN_FIELDS)
    assert content_digest(entry) == hashlib.sha256(canonical_entry_json(entry).encode()).hexdigest()
