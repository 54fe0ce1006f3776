"""``UrlsetWriter.add_many`` (block rendering) is byte for byte and error for error the same as
calling ``add`` for each entry, including limits reached inside a block."""

from __future__ import annotations

import gzip
import io
from collections.abc import Sequence
from itertools import chain

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from sitemap_updater.protocol import (
    Alternate,
    Entry,
    ForbiddenCharacterError,
    ForeignHostError,
    Image,
    InvalidChangefreqError,
    InvalidLastmodError,
    InvalidPriorityError,
    InvalidUrlError,
    Site,
    SitemapError,
    SitemapFullError,
    UrlsetWriter,
    normalize_url,
    render_urlset,
)
from sitemap_updater.protocol import urlset as urlset_module
from sitemap_updater.protocol.render.chunk import ChunkRenderer
from sitemap_updater.sites import Sites
from tests.helpers.xsd import WrittenSitemaps, assert_valid_urlset

SITE = Site.parse("https://www.example.com")
ORIGIN = SITE.origin
OTHER = "https://www.example.de"
#: the site as the first of a list, whose alternates may point to the others
LISTED = Sites.parse(f"{ORIGIN},{OTHER},http://shop.example.org:8080").primary
#: the site whose alternates may point to any host
ANYWHERE = Sites.parse(ORIGIN, alternates_any_host=True).primary
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
CLOSE = len("</urlset>\n")

Outcome = tuple[bytes | None, object, int, tuple[type[BaseException], str, str] | None]


def _one_by_one(
    entries: Sequence[Entry],
    *,
    seen: WrittenSitemaps | None = None,
    site: Site = SITE,
    **limits: int,
) -> Outcome:
    """Bytes, stats, URLs written and the first error, adding entries one at a time."""
    sink = io.BytesIO()
    writer = UrlsetWriter(sink, site, **limits)
    error = None
    for entry in entries:
        try:
            writer.add(entry)
        except (SitemapError, SitemapFullError, TypeError) as exc:
            error = (type(exc), getattr(exc, "field", getattr(exc, "limit", "")), str(exc))
            break
    return _finish(writer, sink, error, seen)


def _many(
    entries: Sequence[Entry],
    *,
    seen: WrittenSitemaps | None = None,
    site: Site = SITE,
    **limits: int,
) -> Outcome:
    sink = io.BytesIO()
    writer = UrlsetWriter(sink, site, **limits)
    error = None
    try:
        writer.add_many(entries)
    except (SitemapError, SitemapFullError, TypeError) as exc:
        error = (type(exc), getattr(exc, "field", getattr(exc, "limit", "")), str(exc))
    return _finish(writer, sink, error, seen)


def _finish(
    writer: UrlsetWriter,
    sink: io.BytesIO,
    error: tuple[type[BaseException], str, str] | None,
    seen: WrittenSitemaps | None,
) -> Outcome:
    """``seen`` (the record of the check every written file gets, see tests/conftest.py) is
    given by a test that hands the trusting writer raw URLs on purpose: a file holding one is
    checked by :func:`_check_file` for well-formedness instead of the XSD, and so dropped from
    that record."""
    count = writer.url_count
    if count == 0:
        return None, None, 0, error
    problems = None if seen is None else len(seen.problems)
    stats = writer.close()
    data = sink.getvalue()
    if not _check_file(data, count) and seen is not None:
        del seen.problems[problems:]
    return data, stats, count, error


def _check_file(data: bytes, count: int) -> bool:
    """XSD-valid when every URL in it is normalized; the strategies below also hand the
    (trusting) writer raw URLs that sitemap.xsd's anyURI refuses, and those files must still be
    well-formed XML holding ``count`` URLs. Whether the file was XSD-checked."""
    root = etree.fromstring(gzip.decompress(data))
    urls = [value for node in root.iter() for value in (node.text, node.get("href")) if value]
    if all(_normalized(url) for url in urls if url.startswith("http")):
        assert len(assert_valid_urlset(data)) == count
        return True
    assert len(root.findall(f"{{{SITEMAP_NS}}}url")) == count
    return False


def _normalized(url: str) -> bool:
    try:
        return normalize_url(url) == url
    except SitemapError:
        return False


def _good(n: int, start: int = 0) -> list[Entry]:
    return [
        Entry(
            loc=f"{ORIGIN}/p/{i}?a=1&b='{i}'" if i % 5 == 0 else f"{ORIGIN}/p/{i}",
            lastmod=f"2026-01-{1 + i % 28:02d}" if i % 3 else None,
            changefreq="daily" if i % 4 == 0 else None,
            priority=(i % 11) / 10 if i % 2 else None,
            alternates=(Alternate("de", f"{ORIGIN}/de/p/{i}"),) if i % 7 == 0 else (),
            images=(Image(f"https://cdn.example.net/{i}.jpg"),) if i % 9 == 0 else (),
        )
        for i in range(start, start + n)
    ]


# --- arbitrary mixes, with a small block size so that hypothesis reaches every path -----

_paths = st.one_of(
    st.sampled_from(["a", "a&b", "q?x=1&y='2'", "<>\"'&", "{x}", "}{", "%7B", "x\ny", "é"]),
    st.text(st.characters(codec="utf-8"), max_size=12),
)
_locs = st.one_of(
    _paths.map(lambda p: f"{ORIGIN}/{p}"),
    _paths.map(lambda p: f"{ORIGIN}/{p}\n{ORIGIN}/{p}"),
    st.sampled_from(["https://evil.example.org/x", ORIGIN, ORIGIN + "x/", f"{ORIGIN}/\x00"]),
)
_lastmods = st.one_of(
    st.none(),
    st.sampled_from(
        [
            "2026-01-02",
            "2026-01-02T03:04:05Z",
            "1999-12-31",
            "",
            "2026-1-02",
            "2026-01-02\n2026-01-03",
            "2026-01-02T03:04:05",
            "٢٠٢٦-01-02",
        ]
    ),
)
_changefreqs = st.one_of(st.none(), st.sampled_from(["daily", "never", "DAILY", ""]))
_priorities = st.one_of(
    st.none(), st.sampled_from([0.0, 0.5, 1.0, 1, 0.55, 1.5, float("nan"), True])
)
#: hrefs on the other listed sites, on hosts no list names, and slips of their form
_elsewhere = st.one_of(
    _paths.map(lambda p: f"{OTHER}/{p}"),
    _paths.map(lambda p: f"https://evil.example.org/{p}"),
    st.sampled_from(
        [
            "http://shop.example.org:8080/de",
            "http://shop.example.org/de",
            "https://WWW.example.de/x",
            "https://www.example.de:443/x",
            "http://www.example.de/x",
            "https://a.b/",
            "https://xn--bcher-kva.example/x",
            f"{OTHER}",
            "www.example.de/x",
        ]
    ),
)
_alternates = st.lists(
    st.builds(
        Alternate,
        st.sampled_from(["de", "en-GB", "x-default", "a\x01"]),
        st.one_of(_locs, _elsewhere),
    ),
    max_size=2,
)
_images = st.lists(
    st.builds(
        Image,
        st.one_of(_locs, _paths.map(lambda p: "https://cdn.example.net/" + p)),
    ),
    max_size=2,
)
_entries = st.builds(
    Entry,
    loc=_locs,
    lastmod=_lastmods,
    changefreq=_changefreqs,
    priority=_priorities,
    alternates=_alternates.map(tuple),
    images=_images.map(tuple),
)
_mostly_good = st.one_of(st.integers(0, 60).map(_good), st.lists(_entries, max_size=6))


@settings(
    max_examples=200,
    deadline=None,
    # the fixture only collects the files written; each example drops its own raw-URL files
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    st.lists(_mostly_good, min_size=1, max_size=4).map(lambda parts: list(chain(*parts))),
    st.sampled_from([1, 2, 3, 8, 1024]),
    st.one_of(st.none(), st.integers(1, 80)),
    st.one_of(st.none(), st.integers(300, 12_000)),
    st.sampled_from([SITE, LISTED, ANYWHERE]),
)
def test_add_many_equals_add_one_by_one(
    written_sitemaps: WrittenSitemaps,
    entries: list[Entry],
    chunk: int,
    max_urls: int | None,
    max_bytes: int | None,
    site: Site,
) -> None:
    limits = {}
    if max_urls is not None:
        limits["max_urls"] = max_urls
    if max_bytes is not None:
        limits["max_bytes"] = max_bytes
    expected = _one_by_one(entries, seen=written_sitemaps, site=site, **limits)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(urlset_module, "CHUNK_SIZE", chunk)
        assert _many(entries, seen=written_sitemaps, site=site, **limits) == expected


# --- the typed errors, raised at the same entry of a full block ---------------------------


@pytest.mark.parametrize(
    ("bad", "error", "field"),
    [
        (Entry(loc="https://evil.example.org/x"), ForeignHostError, "loc"),
        (Entry(loc=f"{ORIGIN}.evil.org/x"), ForeignHostError, "loc"),
        (Entry(loc=f"{ORIGIN}/a\x00b"), ForbiddenCharacterError, "loc"),
        (Entry(loc=f"{ORIGIN}/a\ud800b"), ForbiddenCharacterError, "loc"),
        (Entry(loc=f"{ORIGIN}/a", lastmod="2026-01-01</lastmod>"), InvalidLastmodError, "lastmod"),
        (Entry(loc=f"{ORIGIN}/a", lastmod="2026-01-01T00:00Z"), InvalidLastmodError, "lastmod"),
        (Entry(loc=f"{ORIGIN}/a", changefreq="DAILY"), InvalidChangefreqError, "changefreq"),
        (Entry(loc=f"{ORIGIN}/a", priority=0.55), InvalidPriorityError, "priority"),
        (
            Entry(loc=f"{ORIGIN}/a", alternates=(Alternate("de", "https://evil.example.org/"),)),
            ForeignHostError,
            "alternates[0].href",
        ),
        (
            Entry(loc=f"{ORIGIN}/a", alternates=(Alternate("d\x01e", ORIGIN + "/de"),)),
            ForbiddenCharacterError,
            "alternates[0].hreflang",
        ),
        (
            Entry(loc=f"{ORIGIN}/a", images=(Image("https://cdn.example.net/\x0b"),)),
            ForbiddenCharacterError,
            "images[0].loc",
        ),
    ],
)
def test_bad_entry_inside_a_block_raises_the_same_error_at_the_same_entry(
    bad: Entry, error: type[SitemapError], field: str
) -> None:
    entries = [*_good(700), bad, *_good(700, start=700)]
    sink = io.BytesIO()
    writer = UrlsetWriter(sink, SITE)
    with pytest.raises(error) as info:
        writer.add_many(entries)
    assert info.value.field == field
    assert writer.url_count == 700  # every entry before the bad one, none after
    writer.add(Entry(loc=f"{ORIGIN}/after"))
    stats = writer.close()
    locs = assert_valid_urlset(sink.getvalue())
    assert locs == [e.loc for e in entries[:700]] + [f"{ORIGIN}/after"]
    assert stats.url_count == 701
    expected = _one_by_one(entries)
    assert expected[2] == 700 and expected[3] is not None
    assert (expected[3][0], expected[3][1]) == (error, field)


# --- limits reached inside a block --------------------------------------------------------


def test_url_limit_inside_a_block_is_exact() -> None:
    entries = _good(3000)
    sink = io.BytesIO()
    writer = UrlsetWriter(sink, SITE, max_urls=1500)
    with pytest.raises(SitemapFullError) as info:
        writer.add_many(entries)
    assert info.value.limit == "urls"
    assert writer.url_count == 1500
    writer.close()
    assert assert_valid_urlset(sink.getvalue()) == [e.loc for e in entries[:1500]]


def _size_after(entries: Sequence[Entry]) -> int:
    """Uncompressed bytes of a file holding ``entries``, closing tag included."""
    writer = UrlsetWriter(io.BytesIO(), SITE)
    for entry in entries:
        writer.add(entry)
    return writer.uncompressed_bytes + CLOSE


@pytest.mark.parametrize("fits", [1, 1023, 1024, 1025, 2999])
def test_byte_limit_inside_a_block_is_exact(fits: int) -> None:
    entries = _good(3000)
    cap = _size_after(entries[:fits])
    sink = io.BytesIO()
    writer = UrlsetWriter(sink, SITE, max_bytes=cap)
    with pytest.raises(SitemapFullError) as info:
        writer.add_many(entries)
    assert info.value.limit == "bytes"
    assert writer.url_count == fits
    stats = writer.close()
    assert stats.uncompressed_bytes == cap == len(gzip.decompress(sink.getvalue()))
    assert assert_valid_urlset(sink.getvalue()) == [e.loc for e in entries[:fits]]

    one_under = UrlsetWriter(io.BytesIO(), SITE, max_bytes=cap - 1)
    with pytest.raises(SitemapFullError):
        one_under.add_many(entries[:fits])
    assert one_under.url_count == fits - 1


def test_exactly_full_file_through_add_many_and_render_urlset() -> None:
    entries = _good(2500)
    cap = _size_after(entries)
    data, stats = render_urlset(entries, SITE, max_bytes=cap, max_urls=2500)
    assert stats.uncompressed_bytes == cap
    assert stats.url_count == 2500
    assert data == _one_by_one(entries, max_bytes=cap, max_urls=2500)[0]
    assert len(assert_valid_urlset(data)) == 2500


def test_newest_lastmod_and_stats_across_blocks() -> None:
    entries = _good(2100)
    entries[1500] = Entry(loc=f"{ORIGIN}/newest", lastmod="2026-02-01T00:00:00Z")
    data, stats = render_urlset(entries, SITE)
    expected = _one_by_one(entries)
    assert (data, stats) == (expected[0], expected[1])
    assert stats.newest_lastmod == "2026-02-01T00:00:00Z"


# --- the block renderer takes the fast route for clean blocks and refuses the rest --------


def _renderer() -> ChunkRenderer:
    return UrlsetWriter(io.BytesIO(), SITE)._chunks


def test_clean_block_is_rendered_in_one_piece_like_add() -> None:
    entries = [
        *_good(300),
        Entry(loc=f"{ORIGIN}/%7Bbrace%7D%7D%7B", lastmod="2026-01-01"),
        Entry(
            loc=f"{ORIGIN}/q?a=1&b='2'",
            alternates=(Alternate("de", f"{ORIGIN}/de?x=1&y='z'"),),
            images=(Image("https://cdn.example.net/a.jpg?s=1&t='2'"),),
        ),
    ]
    rendered = _renderer().render(entries)
    assert rendered is not None
    text, newest = rendered
    plain = gzip.decompress(_one_by_one(entries)[0] or b"").decode("utf-8")
    assert plain.endswith(text + "</urlset>\n")
    assert newest == max(e.lastmod for e in entries if e.lastmod is not None)


@pytest.mark.parametrize(
    "odd",
    [
        Entry(loc=f"{ORIGIN}/é"),  # non-ASCII: the per-entry path decides
        Entry(loc=f"{ORIGIN}/a\n{ORIGIN}/b"),
        Entry(loc=f"{ORIGIN}/a\nb"),
        Entry(loc=ORIGIN),
        Entry(loc=f"{ORIGIN}/a", lastmod="2026-01-02\n2026-01-03"),
        Entry(loc=f"{ORIGIN}/a", priority=0.25),
        Entry(loc=f"{ORIGIN}/a<b>"),  # < > " are escaped by the per-entry path
        Entry(loc=f'{ORIGIN}/a"b'),
        Entry(loc=f"{ORIGIN}/a", alternates=(Alternate("de", f'{ORIGIN}/de"x'),)),
        Entry(loc=f"{ORIGIN}/a", alternates=(Alternate("de", f'{ORIGIN}/de" href="{ORIGIN}/x'),)),
        Entry(loc=f"{ORIGIN}/a", alternates=(Alternate("de", "https://evil.example.org/de"),)),
        Entry(loc=f"{ORIGIN}/a", images=(Image("https://cdn.example.net/<image:loc>"),)),
        Entry(loc=f"{ORIGIN}/a", images=(Image("https://cdn.example.net/é.jpg"),)),
    ],
)
def test_block_with_an_odd_entry_is_left_to_the_per_entry_path(odd: Entry) -> None:
    entries = [*_good(10), odd, *_good(10, start=10)]
    assert _renderer().render(entries) is None
    assert _many(entries) == _one_by_one(entries)


def test_value_of_the_wrong_type_in_a_block_raises_what_add_raises() -> None:
    odd = Entry(loc=f"{ORIGIN}/a", images=(Image(7),))  # type: ignore[arg-type]
    entries = [*_good(10), odd]
    assert _renderer().render(entries) is None
    with pytest.raises(AttributeError):
        UrlsetWriter(io.BytesIO(), SITE).add(odd)
    writer = UrlsetWriter(io.BytesIO(), SITE)
    with pytest.raises(AttributeError):
        writer.add_many(entries)
    assert writer.url_count == 10


@pytest.mark.parametrize("hreflang", ['d"e', "d<e", "d>e", "é", "d\x01e", 5])
def test_block_with_an_odd_hreflang_is_left_to_the_per_entry_path(hreflang: str) -> None:
    # (no file is written: the per-entry path would write these hreflangs escaped, which the
    # XSD's language-tag pattern refuses, and every written file is XSD-checked)
    odd = Entry(loc=f"{ORIGIN}/a", alternates=(Alternate(hreflang, f"{ORIGIN}/de"),))
    assert _renderer().render([*_good(10), odd, *_good(10, start=10)]) is None


# --- alternates on the other sites of a list, or on any host --------------------------------


def _with_alternates(hrefs: Sequence[str]) -> list[Entry]:
    own = Entry(
        loc=f"{ORIGIN}/shoes/42",
        alternates=(
            Alternate("en", f"{ORIGIN}/shoes/42"),  # the page itself, as Google asks
            *(Alternate("de", href) for href in hrefs),
        ),
    )
    return [*_good(10), own, *_good(10, start=10)]


@pytest.mark.parametrize("site", [LISTED, ANYWHERE])
def test_a_block_with_alternates_on_an_allowed_host_is_rendered_in_one_piece(site: Site) -> None:
    entries = _with_alternates([f"{OTHER}/schuhe/42?a=1&b='2'"])
    rendered = UrlsetWriter(io.BytesIO(), site)._chunks.render(entries)
    assert rendered is not None
    assert f'hreflang="de" href="{OTHER}/schuhe/42?a=1&amp;b=&apos;2&apos;"' in rendered[0]
    plain = gzip.decompress(_one_by_one(entries, site=site)[0] or b"").decode("utf-8")
    assert plain.endswith(rendered[0] + "</urlset>\n")


def test_alternates_on_another_site_are_refused_where_the_site_stands_alone() -> None:
    entries = _with_alternates([f"{OTHER}/schuhe/42"])
    assert _renderer().render(entries) is None
    (_, _, written, error) = _many(entries)
    assert written == 10
    assert error is not None
    assert error[:2] == (ForeignHostError, "alternates[1].href")
    assert "must be on https://www.example.com" in error[2]


def test_an_alternate_on_an_unlisted_host_names_the_listed_sites() -> None:
    entries = _with_alternates(["https://www.example.fr/chaussures/42"])
    assert UrlsetWriter(io.BytesIO(), LISTED)._chunks.render(entries) is None
    (_, _, written, error) = _many(entries, site=LISTED)
    assert written == 10
    assert error is not None
    assert error[:2] == (ForeignHostError, "alternates[1].href")
    assert (
        "http://shop.example.org:8080, https://www.example.com, https://www.example.de"
        in (error[2])
    )
    anywhere = _many(entries, site=ANYWHERE)
    assert anywhere[2] == len(entries)
    assert anywhere[3] is None


@pytest.mark.parametrize(
    "href",
    ["https://WWW.example.fr/x", "https://www.example.fr:443/x", "https://www.example.fr/a b"],
)
def test_an_alternate_on_any_host_must_still_be_normalized(href: str) -> None:
    entries = _with_alternates([href])
    assert UrlsetWriter(io.BytesIO(), ANYWHERE)._chunks.render(entries) is None
    (_, _, written, error) = _many(entries, site=ANYWHERE)
    assert written == 10
    assert error is not None
    assert issubclass(error[0], InvalidUrlError)
    assert error[1] == "alternates[1].href"
    assert "must be normalized" in error[2]
