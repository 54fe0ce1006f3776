"""A URL's identity (RFC 3986 section 6.2.2): every spelling of a URL normalizes to one URL, and
different URLs stay different; the cheap check and the full parse agree.

A URL in normalized form is generated from its parts; its spellings then change what RFC 3986
makes equivalent: the case of the scheme, the host and the hex digits of an escape, an escaped
unreserved character, a default port, ``.`` and ``x/..`` segments, a fragment.
"""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st

from sitemap_updater.protocol.urls import (
    already_normalized,
    normal_url,
    normalize_url,
)
from tests.property.strategies import SETTINGS, urls

UNRESERVED = "abcXYZ019-._~"
#: characters a path segment keeps as they are, and escapes it keeps (upper-case, reserved or
#: not ASCII)
PLAIN = UNRESERVED + "!$&'()*+,;=:@"
ESCAPES = ["%2F", "%20", "%25", "%3F", "%23", "%E2%82%AC", "%C3%A9", "%7F"]

segment = st.lists(st.one_of(st.sampled_from(PLAIN), st.sampled_from(ESCAPES)), max_size=6).map(
    "".join
)
#: ``.`` and ``..`` are dot segments: a normalized path has none (``...`` is a plain segment)
plain_segment = segment.filter(lambda s: s not in {".", ".."})
query = st.lists(st.one_of(st.sampled_from(PLAIN + "/?"), st.sampled_from(ESCAPES)), max_size=8)


@st.composite
def normal_urls(draw: st.DrawFn) -> str:
    scheme = draw(st.sampled_from(["http", "https"]))
    host = draw(st.sampled_from(["www.example.com", "shop.example.de", "a.b"]))
    path = "/" + "/".join(draw(st.lists(plain_segment, max_size=5)))
    tail = "?" + "".join(draw(query)) if draw(st.booleans()) else ""
    return f"{scheme}://{host}{path}{tail}"


def _respell_char(draw: st.DrawFn, char: str) -> str:
    if char in UNRESERVED and draw(st.integers(0, 3)) == 0:
        hex_digits = f"{ord(char):02X}"
        return "%" + (hex_digits.lower() if draw(st.booleans()) else hex_digits)
    return char


def _respell_text(draw: st.DrawFn, text: str) -> str:
    out, i = [], 0
    while i < len(text):
        if text[i] == "%":
            escape = text[i : i + 3]
            out.append(escape.lower() if draw(st.booleans()) else escape)
            i += 3
        else:
            out.append(_respell_char(draw, text[i]))
            i += 1
    return "".join(out)


@st.composite
def spellings(draw: st.DrawFn, url: str) -> str:
    """Another spelling of the normalized ``url``."""
    scheme, rest = url.split("://", 1)
    host, _, tail = rest.partition("/")
    path, question, query_text = tail.partition("?")
    segments = []
    for part in path.split("/"):
        for _ in range(draw(st.integers(0, 2))):
            segments.append(draw(st.sampled_from([".", "%2e", "x/..", "%41%2E/%2E%2e"])))
        segments.append(_respell_text(draw, part))
    scheme = scheme.upper() if draw(st.booleans()) else scheme
    host = host.upper() if draw(st.booleans()) else host
    port = {"http": ":80", "https": ":443"}[scheme.lower()] if draw(st.booleans()) else ""
    fragment = "#" + draw(segment) if draw(st.booleans()) else ""
    spelled = f"{scheme}://{host}{port}/" + "/".join(segments)
    if question:
        spelled += "?" + _respell_text(draw, query_text)
    return spelled + fragment


@SETTINGS
@given(st.data())
def test_every_spelling_of_a_url_has_its_identity(data: st.DataObject) -> None:
    url = data.draw(normal_urls())
    assume(len(url) >= 12)
    assert already_normalized(url) and normalize_url(url) == url
    spelled = data.draw(spellings(url))
    assert normalize_url(spelled) == url
    assert normal_url(spelled) == url
    assert already_normalized(spelled) == (spelled == url)


@SETTINGS
@given(st.data())
def test_different_urls_keep_different_identities(data: st.DataObject) -> None:
    first, second = data.draw(normal_urls()), data.draw(normal_urls())
    assume(first != second and min(len(first), len(second)) >= 12)
    one = normalize_url(data.draw(spellings(first)))
    other = normalize_url(data.draw(spellings(second)))
    assert one != other


@SETTINGS
@given(urls)
def test_the_cheap_check_takes_only_what_the_full_parse_keeps(url: str) -> None:
    try:
        normal = normal_url(url)
    except ValueError:
        assert not already_normalized(url)
        return
    assert normalize_url(url) == normal
    if already_normalized(url):  # "False" only means "not sure" (a port, an IPv6 host)
        assert url == normal
    assert normal_url(normal) == normal  # an identity is its own identity
