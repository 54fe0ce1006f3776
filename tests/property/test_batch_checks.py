"""The checks the fast path makes for a whole column agree with the checks of one value.

``build`` and array bodies ask many URLs, lastmods, alternates and images at once
(``protocol.urls.batch``, ``protocol.normalized``, ``protocol.lastmod``); each answer must be
what asking that value alone gives, or "not sure" where the single check would say no.
"""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from sitemap_updater.ingest.ordering import content_digest, plain_digest
from sitemap_updater.protocol.entry import plain_entry, plain_fields
from sitemap_updater.protocol.lastmod import all_normalized_lastmods, is_normalized_lastmod
from sitemap_updater.protocol.normalized import (
    images_normalized,
    images_normalized_each,
    normal_form,
    recognize,
)
from sitemap_updater.protocol.urls import already_normalized
from sitemap_updater.protocol.urls.batch import plain_each
from sitemap_updater.sections import is_section
from tests.property.strategies import NOW, SETTINGS, SITE, lastmods, urls

#: columns of URLs, often all in normalized form, as a block of a producer's lines is
some_urls = st.lists(
    st.one_of(urls, st.builds(lambda n: f"{SITE.origin}/p/{n}", st.integers(0, 99))), max_size=12
)
hreflangs = st.sampled_from(["de", "en-GB", "1", "english", "x-default", "DE"])


@SETTINGS
@given(some_urls)
def test_a_plain_url_is_in_normalized_form(column: list[str]) -> None:
    for url, plain in zip(column, plain_each(column), strict=True):
        assert not plain or already_normalized(url)
    on_site = normal_form(SITE, NOW).on_site
    for url, plain in zip(column, plain_each(column, re.escape(SITE.origin)), strict=True):
        assert not plain or on_site(url)


@SETTINGS
@given(some_urls)
def test_the_urls_of_a_column_are_on_the_site_as_each_alone(column: list[str]) -> None:
    form = normal_form(SITE, NOW)
    assert form.on_site_each(column) == [form.on_site(url) for url in column]


@SETTINGS
@given(
    st.lists(
        st.lists(st.tuples(hreflangs, some_urls.map(lambda c: c[0] if c else "")), max_size=3),
        max_size=6,
    )
)
def test_the_alternates_of_a_column_are_judged_as_each_list_alone(
    lists: list[list[tuple[str, str]]],
) -> None:
    form = normal_form(SITE, NOW)
    assert form.alternates_each(lists) == [not pairs or form.alternates(pairs) for pairs in lists]


@SETTINGS
@given(st.lists(some_urls.map(lambda c: c[:3]), max_size=6))
def test_the_images_of_a_column_are_judged_as_each_list_alone(lists: list[list[str]]) -> None:
    expected = [not locs or images_normalized(locs, SITE) for locs in lists]
    assert images_normalized_each(lists, SITE) == expected


@SETTINGS
@given(st.sets(lastmods | st.text(max_size=12), max_size=8))
def test_a_column_of_lastmods_is_recognized_only_when_each_is(values: set[str]) -> None:
    each = all(is_normalized_lastmod(value, NOW) for value in values)
    assert all_normalized_lastmods(values, NOW) == each


@SETTINGS
@given(
    some_urls.filter(bool).map(lambda c: c[0]),
    lastmods | st.none(),
    st.sampled_from(["daily", "never", None]),
    st.sampled_from([0.0, 0.5, 1.0, None]),
    st.lists(st.tuples(hreflangs, st.sampled_from([f"{SITE.origin}/de", f"{SITE.origin}/a"]))),
    st.lists(st.sampled_from([f"{SITE.origin}/i.jpg", "https://cdn.example.net/j.png"])),
    st.sampled_from([None, "products", "blog-2"]),
)
def test_the_plain_digest_is_the_content_digest(
    loc: str,
    lastmod: str | None,
    changefreq: str | None,
    priority: float | None,
    pairs: list[tuple[str, str]],
    images: list[str],
    section: str | None,
) -> None:
    """For every entry the recognizer of normalized form accepts (the only ones the batch
    digests), the canonical JSON written straight hashes as the one orjson writes."""
    form = normal_form(SITE, NOW)
    if recognize(form, loc, lastmod, changefreq, priority, pairs, images) is None:
        return
    assert section is None or is_section(section)
    entry = plain_entry(loc, lastmod, changefreq, priority, pairs, images)
    assert plain_digest(plain_fields(entry), section) == content_digest(entry, section)
