"""hreflang: a BCP 47 language tag with a registered language subtag, or x-default, checked by
the one rule of ``protocol.languages.tags`` wherever alternates are judged."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitemap_updater.ingest.rejection import Rejection
from sitemap_updater.page.model import Alternate
from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.protocol.languages import tags
from sitemap_updater.protocol.languages.tags import is_hreflang
from sitemap_updater.protocol.urls import Site
from sitemap_updater_local.language_subtags import registry_path, table_text
from tests.helpers.pages import judge_sent, make_page

SITE = Site.parse("https://www.example.com")
VALID = ["de", "en-GB", "EN-gb", "zh-Hant-TW", "es-419", "de-CH-1996", "sgn-ase", "iw", "x-default"]
INVALID = ["english", "jp", "xx", "de-", "en_GB", "x-foo", "i-klingon", "X-Default", "en-GB-", "1"]


@pytest.mark.parametrize("value", VALID)
def test_registered_language_tags_and_x_default_are_taken(value: str) -> None:
    assert is_hreflang(value)
    page = make_page(
        SITE, url=SITE.root_url, alternates=[{"hreflang": value, "href": SITE.root_url}]
    )
    assert page.alternates == (Alternate(value, SITE.root_url),)


@pytest.mark.parametrize("value", INVALID)
def test_other_values_are_refused_naming_field_value_and_rule(value: str) -> None:
    assert not is_hreflang(value)
    rejection = judge_sent(
        SITE,
        {
            "action": "upsert",
            "url": SITE.root_url,
            "alternates": [
                {"hreflang": "de", "href": SITE.root_url},
                {"hreflang": value, "href": SITE.root_url},
            ],
        },
    )
    assert isinstance(rejection, Rejection)
    assert (rejection.field, rejection.value) == ("alternates[1].hreflang", value)
    assert "BCP 47 language tag whose language is registered" in rejection.rule


def test_an_unregistered_language_is_named_in_the_rule() -> None:
    with pytest.raises(SitemapError) as info:
        make_page(
            SITE, url=SITE.root_url, alternates=[{"hreflang": "english", "href": SITE.root_url}]
        )
    assert info.value.field == "alternates[0].hreflang"
    assert info.value.rule.startswith("language 'english' is not a registered language subtag")


def test_the_committed_table_is_the_registry_langcodes_ships() -> None:
    with open(registry_path(), encoding="utf-8") as source:
        expected = table_text(source)
    table = Path(tags.__file__).with_name("subtags.txt")
    assert table.read_text(encoding="ascii") == expected, (
        "protocol/languages/subtags.txt is out of date: run "
        "python -m sitemap_updater_local.language_subtags > that file"
    )
