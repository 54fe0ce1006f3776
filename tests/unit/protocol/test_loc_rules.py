"""The ``loc`` rules of issue 2 at their edges: the length counts the normalized and XML-escaped
form, and whitespace inside a URL is percent-encoded while control characters are refused."""

from __future__ import annotations

import re
from xml.sax.saxutils import escape as sax_escape

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sitemap_updater.ingest.rejection import Rejection
from sitemap_updater.page.model import Page
from sitemap_updater.protocol.errors import InvalidUrlError, UrlLengthError
from sitemap_updater.protocol.index import render_index
from sitemap_updater.protocol.urls import Site, normalize_url
from tests.helpers.files import urlset_file
from tests.helpers.pages import judge_sent, make_page
from tests.helpers.xsd import assert_valid_index, assert_valid_urlset, xml_bytes

SITE = Site.parse("https://www.example.com")
HEAD = SITE.origin + "/p?"


def _written_length(url: str) -> int:
    """Characters of ``url`` as it appears in XML text (the standard library's escaping)."""
    return len(sax_escape(url, {"'": "&apos;", '"': "&quot;"}))


def _url_escaping_to(length: int, special: str) -> str:
    """A URL on the site whose XML-escaped form has exactly ``length`` characters, made mostly
    of ``special`` (``&`` or ``'``)."""
    extra = _written_length(special) - 1
    count = (length - len(HEAD) - 1) // (extra + 1)
    url = HEAD + special * count
    return url + "a" * (length - _written_length(url))


@pytest.mark.parametrize("special", ["&", "'"])
def test_length_edge_counts_the_escaped_form(special: str) -> None:
    fits = _url_escaping_to(2048, special)
    assert len(fits) < 2048 / 2  # far shorter than the limit before escaping
    assert normalize_url(fits) == fits

    over = _url_escaping_to(2049, special)
    with pytest.raises(UrlLengthError) as info:
        normalize_url(over, field="alternates[0].href")
    error = info.value
    assert (error.field, error.value) == ("alternates[0].href", over)
    assert "2048" in error.rule and "XML-escaped" in error.rule
    assert f"it has 2049, {len(over)} before XML escaping" in error.rule


def test_a_2047_character_url_full_of_ampersands_is_refused() -> None:
    url = HEAD + "&" * (2047 - len(HEAD))
    assert len(url) == 2047
    rejection = judge_sent(SITE, {"action": "upsert", "url": url})
    assert isinstance(rejection, Rejection)
    assert (rejection.field, rejection.value) == ("url", url)
    assert "XML-escaped" in rejection.rule


def test_longest_escaped_loc_is_written_at_2048_characters() -> None:
    loc = _url_escaping_to(2048, "&")
    data = urlset_file([make_page(SITE, url=loc)])
    [written] = re.findall(rb"<loc>(.*?)</loc>", xml_bytes(data))
    assert len(written) == 2048
    assert assert_valid_urlset(data) == [loc]

    with pytest.raises(UrlLengthError):
        render_index([(_url_escaping_to(2049, "'"), None)])
    index, _ = render_index([(_url_escaping_to(2048, "'"), None)])
    assert assert_valid_index(index) == [_url_escaping_to(2048, "'")]


@pytest.mark.parametrize("special", ["<", ">", '"'])
def test_normalization_percent_encodes_what_only_xml_escaping_would_lengthen(
    special: str,
) -> None:
    url = normalize_url(f"{HEAD}a{special}b#{special}")
    assert special not in url
    assert url == f"{HEAD}a%{ord(special):02X}b"


@given(st.text(max_size=300))
def test_normalized_url_holds_only_ampersand_and_apostrophe_to_escape(tail: str) -> None:
    try:
        url = normalize_url(SITE.origin + "/" + tail)
    except InvalidUrlError:
        return
    assert not set(url) & set('<>"')
    assert 12 <= _written_length(url) <= 2048
    assert url.isascii() and " " not in url


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("/a b", "/a%20b"),
        ("/a\u00a0b", "/a%C2%A0b"),
        ("/a\u3000b", "/a%E3%80%80b"),
        ("/a\u2028b", "/a%E2%80%A8b"),
        ("/?q=a b&r=\u00a0x", "/?q=a%20b&r=%C2%A0x"),
        ("/%20already encoded", "/%20already%20encoded"),
    ],
)
def test_whitespace_inside_is_percent_encoded_once(raw: str, expected: str) -> None:
    url = normalize_url(SITE.origin + raw)
    assert url == SITE.origin + expected
    assert normalize_url(url) == url
    # the page written with a space and written encoded is one identity
    assert make_page(SITE, url=SITE.origin + raw).url == make_page(SITE, url=url).url


def test_encoded_whitespace_round_trips_through_the_writer() -> None:
    page = make_page(SITE, url=SITE.origin + "/caf\u00e9 au lait\u3000menu")
    data = urlset_file([page])
    assert assert_valid_urlset(data) == [SITE.origin + "/caf%C3%A9%20au%20lait%E3%80%80menu"]
    assert page == Page(url=SITE.origin + "/caf%C3%A9%20au%20lait%E3%80%80menu")


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("/a\tb", "U+0009 at index 25"),
        ("/a\rb", "U+000D at index 25"),
        ("/a\x00b", "U+0000 at index 25"),
        ("/a\x7fb", "U+007F at index 25"),
        ("/a\x9fb", "U+009F at index 25"),
        ("/a\ud834b", "U+D834 at index 25"),
    ],
)
def test_control_characters_and_lone_surrogates_are_refused(raw: str, shown: str) -> None:
    url = SITE.origin + raw
    with pytest.raises(InvalidUrlError) as info:
        normalize_url(url, field="url")
    assert (info.value.field, info.value.value) == ("url", url)
    assert "control characters or lone surrogates" in info.value.rule
    assert shown in info.value.rule
    if "\ud834" not in raw:  # JSON can carry every one of them but a lone surrogate
        rejection = judge_sent(SITE, {"action": "upsert", "url": url})
        assert isinstance(rejection, Rejection)
        assert (rejection.field, rejection.value, rejection.rule) == (
            "url",
            url,
            info.value.rule,
        )


@pytest.mark.parametrize("raw", [" https://www.example.com/a", "https://www.example.com/a\u00a0"])
def test_whitespace_around_the_url_is_refused(raw: str) -> None:
    with pytest.raises(InvalidUrlError) as info:
        normalize_url(raw)
    assert info.value.rule == "must not begin or end with whitespace"
