"""noindex and the canonical link read from a page's head and its X-Robots-Tag header."""

from __future__ import annotations

import pytest

from sitemap_updater.engines.page_signals import directives_noindex, header_noindex, html_signals


@pytest.mark.parametrize(
    ("head", "noindex"),
    [
        ('<meta name="robots" content="noindex">', True),
        ('<META NAME="Robots" CONTENT="NoIndex, NoFollow">', True),
        ('<meta name="robots" content="none">', True),
        ('<meta name="googlebot" content="noindex">', True),
        ('<meta name="bingbot" content="noindex">', True),
        ('<meta name="otherbot" content="noindex">', False),
        ('<meta name="robots" content="nofollow, max-snippet:20">', False),
        ('<meta name="description" content="noindex">', False),
        ("", False),
    ],
)
def test_robots_meta(head: str, noindex: bool) -> None:
    page = f"<html><head><title>t</title>{head}</head><body>x</body></html>".encode()
    assert html_signals(page).noindex is noindex


def test_only_the_head_counts() -> None:
    page = b'<html><head></head><body><meta name="robots" content="noindex"></body></html>'
    assert not html_signals(page).noindex
    page = b'<html><body><link rel="canonical" href="/b"></body></html>'
    assert html_signals(page).canonical is None


def test_the_first_canonical_link() -> None:
    page = (
        b'<head><link rel="stylesheet" href="/s.css"><link rel="Canonical" href=" /a?x=1&amp;y=2 ">'
        b'<link rel="canonical" href="/b"></head>'
    )
    assert html_signals(page).canonical == "/a?x=1&y=2"


def test_a_head_cut_short_is_read_as_far_as_it_goes() -> None:
    page = b'<html><head><meta name="robots" content="noindex"><link rel="canon'
    assert html_signals(page).noindex


def test_the_charset_of_the_answer_is_used() -> None:
    page = '<head><link rel="canonical" href="/caf\u00e9"></head>'.encode("latin-1")
    assert html_signals(page, "iso-8859-1").canonical == "/caf\u00e9"
    assert html_signals(page, "no-such-charset").canonical is not None


@pytest.mark.parametrize(
    ("values", "noindex"),
    [
        (["noindex"], True),
        (["noindex, nofollow"], True),
        (["NONE"], True),
        (["googlebot: noindex"], True),
        (["otherbot: noindex"], False),
        (["otherbot: noindex, googlebot: nofollow"], False),
        (["otherbot: nofollow", "googlebot: noindex"], True),
        (["unavailable_after: 25 Jun 2010 15:00:00 PST"], False),
        (["max-snippet: 0, noindex"], True),
        ([], False),
    ],
)
def test_x_robots_tag(values: list[str], noindex: bool) -> None:
    assert header_noindex(values) is noindex


def test_a_crawler_name_switches_the_directives_that_follow() -> None:
    assert directives_noindex("otherbot: nofollow, googlebot: noindex")
    assert not directives_noindex("googlebot: nofollow, otherbot: noindex")


@pytest.mark.parametrize("charset", ["undefined", "idna", "x-no-such-charset"])
def test_a_charset_python_cannot_decode_with_is_read_as_utf8(charset: str) -> None:
    signals = html_signals(b'<head><meta name="robots" content="noindex"></head>', charset)
    assert signals.noindex


def test_markup_the_parser_refuses_ends_the_reading_with_what_came_before() -> None:
    page = b'<head><link rel="canonical" href="/a"><![FOR]><meta name="robots" content="noindex">'
    signals = html_signals(page)
    assert signals.canonical == "/a" and not signals.noindex
