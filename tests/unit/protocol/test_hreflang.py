"""hreflang: a BCP 47 language tag with a registered language subtag, or x-default, checked by
the one rule of ``protocol.languages.tags`` wherever alternates are read or written."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sitemap_updater.ingest.events import decode_body
from sitemap_updater.ingest.judged import Rejection
from sitemap_updater.protocol.errors import InvalidHreflangError
from sitemap_updater.protocol.urls import Site
from sitemap_updater.protocol import UrlsetWriter, make_entry  # GONE
from sitemap_updater.page.model import Alternate, Page
from sitemap_updater.protocol.languages import registry
from sitemap_updater.protocol.languages.tags import is_hreflang
from sitemap_updater_local.language_subtags import module_text, registry_path

SITE = Site.parse("https://www.example.com")
NOW = datetime(2026, 11, 21, 12, tzinfo=UTC)
VALID = ["de", "en-GB", "EN-gb", "zh-Hant-TW", "es-419", "de-CH-1996", "sgn-ase", "iw", "x-default"]
INVALID = ["english", "jp", "xx", "de-", "en_GB", "x-foo", "i-klingon", "X-Default", "en-GB-", "1"]


@pytest.mark.parametrize("value", VALID)
def test_registered_language_tags_and_x_default_are_taken(value: str) -> None:
    assert is_hreflang(value)
    entry = make_entry(
        SITE, loc=SITE.root_url, alternates=[{"hreflang": value, "href": SITE.root_url}]
    )
    assert entry.alternates == (Alternate(value, SITE.root_url),)


@pytest.mark.parametrize("value", INVALID)
def test_other_values_are_refused_naming_field_value_and_rule(value: str) -> None:
    assert not is_hreflang(value)
    with pytest.raises(InvalidHreflangError) as info:
        make_entry(
            SITE,
            loc=SITE.root_url,
            alternates=[
                {"hreflang": "de", "href": SITE.root_url},
                {"hreflang": value, "href": SITE.root_url},
            ],
        )
    assert (info.value.field, info.value.value) == ("alternates[1].hreflang", value)
    assert "BCP 47 language tag whose language is registered" in info.value.rule


def test_an_unregistered_language_is_named_in_the_rule() -> None:
    with pytest.raises(InvalidHreflangError) as info:
        make_entry(
            SITE, loc=SITE.root_url, alternates=[{"hreflang": "english", "href": SITE.root_url}]
        )
    assert info.value.rule.startswith("language 'english' is not a registered language subtag")


def test_the_ingest_judge_refuses_english_on_its_fast_path_too() -> None:
    body = json.dumps(
        {
            "action": "upsert",
            "url": SITE.root_url,
            "occurred_at": "2026-11-21T11:00:00Z",
            "alternates": [{"hreflang": "english", "href": SITE.root_url}],
        }
    )
    (rejection,) = decode_body(body, sent_at=NOW, site=SITE, now=NOW).items
    assert isinstance(rejection, Rejection)
    assert (rejection.field, rejection.value) == ("alternates[0].hreflang", "english")


@pytest.mark.parametrize("many", [1, 300], ids=["entry", "block"])
def test_the_writer_refuses_an_entry_built_by_hand_with_english(many: int) -> None:
    bad = Page(SITE.root_url + "en", alternates=(Alternate("english", SITE.root_url),))
    entries = [Page(f"{SITE.root_url}{i}") for i in range(many - 1)] + [bad]
    writer = UrlsetWriter(io.BytesIO(), SITE)
    with pytest.raises(InvalidHreflangError, match="english"):
        writer.add_many(entries)


def test_the_committed_table_is_the_registry_langcodes_ships() -> None:
    with open(registry_path(), encoding="utf-8") as source:
        expected = module_text(source)
    assert Path(registry.__file__).read_text(encoding="utf-8") == expected, (
        "protocol/languages/registry.py is out of date: run "
        "python -m sitemap_updater_local.language_subtags"
    )
