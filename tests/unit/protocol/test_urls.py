from __future__ import annotations

import pytest

from sitemap_updater.ingest.rejection import Rejection
from sitemap_updater.protocol.errors import InvalidUrlError, UrlLengthError
from sitemap_updater.protocol.limits import MAX_LOC_LENGTH, MAX_URL_TEXT_LENGTH
from sitemap_updater.protocol.urls import Site, normalize_url
from tests.helpers.pages import judge_sent

SITE = Site.parse("https://www.example.com")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("HTTPS://WWW.Example.COM/Mixed/Case", "https://www.example.com/Mixed/Case"),
        ("https://www.example.com:443/port", "https://www.example.com/port"),
        ("http://www.example.com:80/port", "http://www.example.com/port"),
        ("https://www.example.com:8443/port", "https://www.example.com:8443/port"),
        ("https://www.example.com", "https://www.example.com/"),
        ("https://www.example.com?q=1", "https://www.example.com/?q=1"),
        ("https://www.example.com/a/#frag", "https://www.example.com/a/"),
        ("https://www.example.com/a/", "https://www.example.com/a/"),
        ("https://www.example.com/a", "https://www.example.com/a"),
        ("https://bücher.example/x", "https://xn--bcher-kva.example/x"),
        ("https://www.example.com/café", "https://www.example.com/caf%C3%A9"),
        ("https://www.example.com/a%2fb", "https://www.example.com/a%2Fb"),
        ("https://www.example.com/caf%C3%A9", "https://www.example.com/caf%C3%A9"),
        ("https://www.example.com/100%", "https://www.example.com/100%25"),
        ("https://www.example.com/%zz", "https://www.example.com/%25zz"),
        ("https://www.example.com/a<b>", "https://www.example.com/a%3Cb%3E"),
        ('https://www.example.com/q?a="x"', "https://www.example.com/q?a=%22x%22"),
        ("https://www.example.com/q?a=1&b='2'", "https://www.example.com/q?a=1&b='2'"),
        ("https://www.example.com/q?x=[1]|{2}", "https://www.example.com/q?x=%5B1%5D%7C%7B2%7D"),
        ("https://www.example.com/p?q=/a?b", "https://www.example.com/p?q=/a?b"),
        ("https://www.example.com/a/./b/../c", "https://www.example.com/a/c"),
        ("https://www.example.com/%7Euser", "https://www.example.com/~user"),
        ("https://www.example.com/%7euser", "https://www.example.com/~user"),
        ("https://www.example.com/%e2%82%ac", "https://www.example.com/%E2%82%AC"),
        ("https://www.example.com/a/b/../c/./d", "https://www.example.com/a/c/d"),
        ("https://www.example.com/p/%41BC", "https://www.example.com/p/ABC"),
        ("https://www.example.com/p?q=%41%2d%2f", "https://www.example.com/p?q=A-%2F"),
        ("https://www.example.com/p?q=./../x", "https://www.example.com/p?q=./../x"),
        ("https://www.example.com/a/%2E%2E/b", "https://www.example.com/b"),
        ("https://www.example.com/../../a", "https://www.example.com/a"),
        ("https://www.example.com/a/b/..", "https://www.example.com/a/"),
        ("https://www.example.com/a/.", "https://www.example.com/a/"),
        ("https://www.example.com/a//../b", "https://www.example.com/a/b"),
        ("https://www.example.com/.well-known/x", "https://www.example.com/.well-known/x"),
        ("https://www.example.com/a/.../b", "https://www.example.com/a/.../b"),
        ("https://www.example.com/a b?q=x y", "https://www.example.com/a%20b?q=x%20y"),
        ("https://www.example.com/a\u00a0b", "https://www.example.com/a%C2%A0b"),
        ("https://www.example.com/a\u3000b", "https://www.example.com/a%E3%80%80b"),
        ("https://www.example.com/a%20b c", "https://www.example.com/a%20b%20c"),
        ("http://[::1]:8080/x", "http://[::1]:8080/x"),
    ],
)
def test_normalize_url(raw: str, expected: str) -> None:
    assert normalize_url(raw) == expected


def test_normalization_is_idempotent() -> None:
    once = normalize_url("HTTPS://Bücher.Example:443/ä ö?q=<x>#f".replace(" ", "_"))
    assert normalize_url(once) == once


def test_same_page_written_two_ways_is_one_identity() -> None:
    assert normalize_url("HTTPS://WWW.EXAMPLE.COM:443/a?b=c#top") == normalize_url(
        "https://www.example.com/a?b=c"
    )


@pytest.mark.parametrize(
    ("raw", "rule_part"),
    [
        ("javascript:alert(1)", "scheme 'javascript'"),
        ("ftp://www.example.com/file", "scheme 'ftp'"),
        ("/relative/path", "absolute"),
        ("//www.example.com/x", "absolute"),
        ("mailto:a@example.com", "scheme 'mailto'"),
        ("", "empty"),
        ("https:///path", "host"),
        ("   ", "whitespace"),
        (" https://www.example.com/a", "begin or end with whitespace"),
        ("https://www.example.com/a ", "begin or end with whitespace"),
        ("https://www.example.com/a\u3000", "begin or end with whitespace"),
        ("https://www.example.com/a\nb", "control"),
        ("https://www.example.com/a\tb", "control"),
        ("https://www.example.com/a\x85b", "control"),
        ("https://www.exa mple.com/a", "labels"),
        ("https://www.example.com/a\x00b", "control"),
        ("https://www.example.com/a\ud800b", "surrogate"),
        ("https://user:pass@www.example.com/x", "user information"),
        ("https://@www.example.com/x", "user information"),
        ("https://www.example.com:99999/x", "port"),
        ("https://www.example.com:8o/x", "port"),
        ("http:www.example.com/x", "scheme://host"),
        ("https://exa%6dple.com/x", "labels"),
        ("https://a..b.com/x", "labels"),
    ],
)
def test_normalize_url_rejects(raw: str, rule_part: str) -> None:
    with pytest.raises(InvalidUrlError) as info:
        normalize_url(raw)
    err = info.value
    assert err.field == "loc"
    assert err.value == raw
    assert rule_part in err.rule
    assert str(err).startswith(f"loc: {raw!r}"[:40])


def test_non_string_url_is_rejected() -> None:
    with pytest.raises(InvalidUrlError, match="must be a string"):
        normalize_url(42)


def test_length_counts_the_percent_encoded_form() -> None:
    head = "https://www.example.com/"
    assert len(normalize_url(head + "a" * (2048 - len(head)))) == 2048
    with pytest.raises(UrlLengthError):
        normalize_url(head + "a" * (2049 - len(head)))
    # 'é' is 6 characters once encoded
    with pytest.raises(UrlLengthError, match="it has"):
        normalize_url(head + "é" * ((2048 - len(head)) // 2))
    with pytest.raises(UrlLengthError):
        normalize_url("http://a.b/")


@pytest.mark.parametrize(
    "tail",
    ["a" * (9 << 20), "%41" * (3 << 20), "a.b" * (3 << 20), "日" * (3 << 20)],
    ids=["letters", "escapes", "dots", "non-ascii"],
)
def test_a_url_of_megabytes_is_refused_by_its_length_as_given(tail: str) -> None:
    raw = "https://www.example.com/" + tail
    with pytest.raises(UrlLengthError) as info:
        normalize_url(raw)
    assert info.value.value is raw
    assert f"must be at most {MAX_URL_TEXT_LENGTH} characters as given" in info.value.rule
    assert f"(it has {len(raw)})" in info.value.rule


def test_the_as_given_bound_refuses_no_url_that_fits_once_normalized() -> None:
    # a default port and a fragment are what normalization drops: a URL that fits once
    # normalized and is longer as given needs a fragment of kilobytes
    head = "HTTPS://WWW.EXAMPLE.COM:443/"
    url = head + "a" * (MAX_LOC_LENGTH - len("https://www.example.com/")) + "#"
    raw = url + "f" * (MAX_URL_TEXT_LENGTH - len(url))
    assert len(raw) == MAX_URL_TEXT_LENGTH
    assert len(normalize_url(raw)) == MAX_LOC_LENGTH


def test_site_parse_and_owns() -> None:
    site = Site.parse("HTTPS://WWW.Example.COM:443/")
    assert site.origin == "https://www.example.com"
    assert site.root_url == "https://www.example.com/"
    assert site.owns("https://www.example.com/x")
    assert not site.owns("https://www.example.com.evil.org/x")
    assert not site.owns("https://www.example.com:8443/x")
    assert not site.owns("http://www.example.com/x")
    assert Site.parse("https://bücher.example").origin == "https://xn--bcher-kva.example"
    assert Site.parse("http://a.io").origin == "http://a.io"


@pytest.mark.parametrize("raw", ["https://www.example.com/path", "https://h.example/?q", "x"])
def test_site_must_be_an_origin(raw: str) -> None:
    with pytest.raises(InvalidUrlError) as info:
        Site.parse(raw)
    assert info.value.field == "site"


@pytest.mark.parametrize(
    "raw",
    [
        "https://evil.example.org/x",
        "https://www.example.com:8443/x",
        "http://www.example.com/x",
        "https://www.example.com.evil.org/x",
        "https://bücher.example/x",
    ],
)
def test_a_change_on_another_origin_is_refused(raw: str) -> None:
    rejection = judge_sent(SITE, {"action": "upsert", "url": raw})
    assert isinstance(rejection, Rejection)
    assert (rejection.field, rejection.value) == ("url", raw)
    assert (
        rejection.rule
        == "must be on https://www.example.com (same scheme, host and port as the site)"
    )
