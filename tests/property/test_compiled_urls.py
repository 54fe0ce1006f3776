"""The compiled URL parser (``protocol.urls.compiled``) never changes an identity: wherever it
gives a result, the careful normalizer gives the same one, on arbitrary spellings of IRIs, IDN
hosts, percent-encoding in any case (lone ``%`` too), dot segments, ports, credentials,
numeric hosts and the characters on which WHATWG and RFC 3986 differ."""

from __future__ import annotations

from hypothesis import event, given
from hypothesis import strategies as st

from sitemap_updater.protocol.errors import InvalidUrlError
from sitemap_updater.protocol.urls import careful_normalize_url, normalize_url
from sitemap_updater.protocol.urls.careful import check_text
from sitemap_updater.protocol.urls.compiled import compiled_normalize
from tests.property.strategies import SETTINGS

SCHEMES = ["http", "https", "HTTPS", "hTTp", "ftp", "https:", "https:/", "https:///"]
LABELS = [
    "www", "example", "EXAMPLE", "com", "de", "a_b", "a-b", "-a", "b-", "xn--bcher-kva",
    "xn--zz", "café", "bücher", "straße", "пример", "例え", "ＥＸＡＭＰＬＥ", "☃", "01", "1",
    "255", "0x7f", "1234", "%41", "", "a b",
]  # fmt: skip
USERS = ["", "", "", "", "", "@", "user@", "user:pw@", ":@"]
PORTS = ["", "", "", ":", ":80", ":443", ":0443", ":00080", ":8080", ":65535", ":65536", ":x"]
#: path and query material: plain, reserved, escapes in either case, lone ``%``, the characters
#: WHATWG and RFC 3986 treat apart, whitespace, IRIs
PIECES = [
    "a", "Z", "0", "-", ".", "_", "~", "!", "$", "&", "'", "(", ")", "*", "+", ",", ";", "=",
    ":", "@", "/", "%", "%2e", "%2E", "%7e", "%7E", "%41", "%2F", "%2f", "%C3%A9", "%c3%a9",
    "%zz", "%2", "|", "[", "]", "^", "{", "}", "`", "\\", " ", '"', "<", ">", "\u00a0",
    "\u3000", "é", "ß", "й", "中", "😀", "\ufffe", "\t", "a", "é", "/", "%C3%A9",
]  # fmt: skip
#: the material of URLs that need normalizing where the two standards agree
KIND = [
    "a", "Z", "0", "-", ".", "_", "~", "!", "$", "&", "(", ")", "*", "+", ",", ";", "=", ":",
    "@", "/", "%2F", "%20", "%C3%A9", "é", "ß", "中", "😀", " ", "\u00a0", '"', "<", ">",
]  # fmt: skip
DOTS = [".", "..", "%2e", "%2E%2e", ".%2e", "x/.."]

#: hosts the compiled parser takes, and arbitrary ones
host = st.one_of(
    st.sampled_from(["www.example.com", "WWW.Example.COM", "shop.example.de", "a_b.c-d.example"]),
    st.lists(st.sampled_from(LABELS), min_size=1, max_size=4).map(".".join),
)
text = st.one_of(
    st.lists(st.sampled_from(PIECES), max_size=8).map("".join),
    st.lists(st.sampled_from(KIND), max_size=8).map("".join),
)
segment = st.one_of(text, st.sampled_from(DOTS))
path = st.lists(segment, max_size=5).map(lambda s: "".join("/" + p for p in s))
tail = st.tuples(
    path,
    st.one_of(st.just(""), text.map(lambda q: "?" + q)),
    st.one_of(st.just(""), text.map(lambda f: "#" + f)),
).map("".join)


@st.composite
def spelled_urls(draw: st.DrawFn) -> str:
    scheme = draw(st.sampled_from(SCHEMES))
    separator = "" if scheme.endswith((":", ":/", ":///")) else "://"
    authority = draw(st.sampled_from(USERS)) + draw(host) + draw(st.sampled_from(PORTS))
    return scheme + separator + authority + draw(tail)


@st.composite
def kind_urls(draw: st.DrawFn) -> str:
    """A URL that needs normalizing where the two standards agree (most of what producers send
    that is not in normalized form)."""
    scheme = draw(st.sampled_from(["http", "https", "HTTPS"]))
    name = draw(st.sampled_from(["www.example.com", "WWW.Example.COM", "a_b.c-d.example"]))
    port = draw(st.sampled_from(["", {"http": ":80"}.get(scheme, ":443")]))
    dots = st.sampled_from([".", "..", "x/.."])
    pieces = st.lists(st.one_of(st.sampled_from(KIND), dots), max_size=10)
    query = draw(st.one_of(st.just(""), pieces.map(lambda q: "?" + "".join(q))))
    return f"{scheme}://{name}{port}/" + "".join(draw(pieces)) + query


def _careful(url: str) -> str | None:
    try:
        return careful_normalize_url(url)
    except InvalidUrlError:
        return None


@SETTINGS
@given(st.one_of(spelled_urls(), kind_urls()))
def test_the_compiled_parser_agrees_with_the_careful_normalizer(url: str) -> None:
    careful = _careful(url)
    try:
        check_text(url, "loc")
    except InvalidUrlError:
        assert careful is None
        return
    compiled = compiled_normalize(url)
    event("compiled" if compiled is not None else "careful")
    if compiled is not None:
        assert compiled == careful
    if careful is None:
        try:
            normalize_url(url)
        except InvalidUrlError:
            return
        raise AssertionError(f"{url!r} accepted, but the careful normalizer rejects it")
    assert normalize_url(url) == careful


def test_urls_that_need_normalizing_take_the_compiled_path() -> None:
    for url, normal in [
        ("https://www.example.com/café-größe", "https://www.example.com/caf%C3%A9-gr%C3%B6%C3%9Fe"),
        ("https://WWW.Example.COM/a/b", "https://www.example.com/a/b"),
        ("https://www.example.com:443/a/./b/../c", "https://www.example.com/a/c"),
        ("http://www.example.com:80/a b?x=1&y=é#top", "http://www.example.com/a%20b?x=1&y=%C3%A9"),
    ]:
        assert compiled_normalize(url) == normal == careful_normalize_url(url)


def test_shapes_where_the_standards_differ_go_to_the_careful_normalizer() -> None:
    for url in [
        "https://www.example.com/x?it's",  # WHATWG: %27
        "https://www.example.com/a\\b",  # WHATWG: /a/b
        "http://01.2.3.4/x",  # WHATWG: 1.2.3.4
        "https://@www.example.com/x",  # WHATWG: no credentials
        "https:www.example.com/x",  # WHATWG: https://www.example.com/x
        "https://bücher.example/x y",  # an IDN: IDNA 2008 decides
        "https://www.example.com/%7euser",  # WHATWG keeps the escape
        "https://www.example.com/a|b",  # WHATWG keeps '|'
    ]:
        assert compiled_normalize(url) is None
