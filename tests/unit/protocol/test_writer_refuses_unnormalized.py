"""The writer never writes a value sitemap.xsd or xhtml-link.xsd would refuse, even from an
``Entry`` built by hand (one that never went through ``make_entry``): the per-entry path and
the block path raise the same typed error, naming the field and the value."""

from __future__ import annotations

import io

import pytest

from sitemap_updater.protocol import Alternate, Entry, Site, UrlsetWriter, normalize_url
from sitemap_updater.protocol.errors import (
    InvalidHreflangError,
    InvalidUrlError,
    SitemapError,
    UrlLengthError,
)
from sitemap_updater.protocol.limits import MAX_LOC_LENGTH

SITE = Site.parse("https://www.example.com")
ORIGIN = SITE.origin
LONG = ORIGIN + "/" + "a" * (MAX_LOC_LENGTH - len(ORIGIN))  # 2,049 characters
AMPERSANDS = ORIGIN + "/?" + "&" * 405  # 430 characters, 2,050 once escaped

CASES = [
    (Entry(loc=LONG), UrlLengthError, "loc"),
    (Entry(loc=AMPERSANDS), UrlLengthError, "loc"),
    (Entry(loc=ORIGIN + "/%zz"), InvalidUrlError, "loc"),
    (Entry(loc=ORIGIN + "/a#b#c"), InvalidUrlError, "loc"),
    (Entry(loc=ORIGIN + "/a b"), InvalidUrlError, "loc"),
    (Entry(loc=ORIGIN + "/{x}"), InvalidUrlError, "loc"),
    (
        Entry(loc=ORIGIN + "/a", alternates=(Alternate("en_US", ORIGIN + "/b"),)),
        InvalidHreflangError,
        "alternates[0].hreflang",
    ),
    (
        Entry(loc=ORIGIN + "/a", alternates=(Alternate("de\nfr", ORIGIN + "/b"),)),
        InvalidHreflangError,
        "alternates[0].hreflang",
    ),
    (
        Entry(loc=ORIGIN + "/a", alternates=(Alternate("de", ORIGIN + "/de b"),)),
        InvalidUrlError,
        "alternates[0].href",
    ),
    (
        Entry(loc=ORIGIN + "/a", alternates=(Alternate("de", LONG),)),
        UrlLengthError,
        "alternates[0].href",
    ),
]


def _good(n: int) -> list[Entry]:
    return [Entry(loc=f"{ORIGIN}/page/{i}") for i in range(n)]


@pytest.mark.parametrize(("entry", "error", "field"), CASES)
def test_add_refuses_a_value_that_was_never_normalized(
    entry: Entry, error: type[SitemapError], field: str
) -> None:
    writer = UrlsetWriter(io.BytesIO(), SITE)
    writer.add(Entry(loc=ORIGIN + "/first"))
    with pytest.raises(error) as caught:
        writer.add(entry)
    assert caught.value.field == field
    assert writer.url_count == 1
    writer.close()  # the file written so far is valid (the conftest check validates it)


@pytest.mark.parametrize(("entry", "error", "field"), CASES)
def test_add_many_refuses_it_at_the_same_entry(
    entry: Entry, error: type[SitemapError], field: str
) -> None:
    writer = UrlsetWriter(io.BytesIO(), SITE)
    with pytest.raises(error) as caught:
        writer.add_many([*_good(7), entry, *_good(3)])
    assert caught.value.field == field
    assert writer.url_count == 7
    writer.close()


def test_the_longest_normalized_loc_is_written() -> None:
    loc = ORIGIN + "/" + "a" * (MAX_LOC_LENGTH - len(ORIGIN) - 1)
    assert normalize_url(loc) == loc and len(loc) == MAX_LOC_LENGTH
    for add in ("add", "add_many"):
        writer = UrlsetWriter(io.BytesIO(), SITE)
        getattr(writer, add)(Entry(loc=loc) if add == "add" else [Entry(loc=loc)])
        assert writer.close().url_count == 1
