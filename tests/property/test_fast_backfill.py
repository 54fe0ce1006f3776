"""``backfill``'s fast paths agree with its careful paths on arbitrary input.

- An entry's upsert line: the fast path (values already in normalized form, the line put
  together directly) gives the very line ``make_entry`` + ``json.dumps`` give, or steps aside;
  the line the command writes (fast, else careful) is always the careful path's line or problem.
- CSV: the block reader that cuts quote-free lines at commas gives the rows, line numbers and
  problems ``csv.reader`` gives, for any bytes and any block size.
- Sitemap XML: the reader that has lxml report only ``<url>`` and ``<sitemap>`` ends gives
  what a reader of every start and end event gives (the reference below), bad XML included.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import IO

from hypothesis import given
from hypothesis import strategies as st
from lxml import etree

from sitemap_updater_local.inputs.csv_rows import BLOCK, iter_csv_rows
from sitemap_updater_local.inputs.opening import child_location
from sitemap_updater_local.inputs.records import Note, Problem, Row, SourceError
from sitemap_updater_local.inputs.sitemaps.sitemap_rows import (
    RELEASE_EVERY,
    ROOTS,
    ChildSitemap,
    iter_sitemap_items,
    release,
)
from sitemap_updater_local.inputs.sitemaps.url_elements import url_record
from sitemap_updater_local.inputs.sitemaps.xml_guard import XML_OPTIONS, local_name
from sitemap_updater_local.pipeline.upsert_lines import UpsertLines
from tests.property.strategies import NOW, SETTINGS, SITE, lastmods, urls

#: URLs in normalized form on the site (the fast path's case), often enough to meet every rule
good_urls = st.from_regex(
    r"https://www\.example\.com/([a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-F]{2}){0,30}", fullmatch=True
)
changefreqs = st.sampled_from(["daily", "weekly", "never", "Daily", "often", ""]) | st.text(
    max_size=8
)
priorities = st.one_of(
    st.sampled_from(["0.5", "1", "1.0", "0", "-0.0", "0.55", "0.25", "2", "nan", "inf", "1e-1"]),
    st.floats(-0.5, 1.5).map(repr),
    st.text(max_size=6),
)
hreflangs = st.sampled_from(["de", "en-GB", "x-default", "zh-Hant-TW", "d e", "", "e"]) | st.text(
    max_size=6
)


good_lastmods = st.dates(max_value=NOW.date()).map(lambda d: d.isoformat()) | st.datetimes(
    max_value=NOW.replace(tzinfo=None)
).map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ"))


def mostly[T](good: st.SearchStrategy[T], any_value: st.SearchStrategy[T]) -> st.SearchStrategy[T]:
    """``good`` three times in four: a bad value then is most often the only one."""
    return st.integers(0, 3).flatmap(lambda n: any_value if n == 0 else good)


@st.composite
def rows(draw: st.DrawFn) -> Row:
    return Row(
        "sitemap.xml",
        draw(st.integers(1, 10**6)),
        draw(mostly(good_urls, urls)),
        draw(st.none() | mostly(good_lastmods, lastmods)),
        draw(st.none() | mostly(st.sampled_from(["daily", "never"]), changefreqs)),
        draw(st.none() | mostly(st.sampled_from(["0.0", "0.3", "1.0"]), priorities)),
        tuple(
            draw(
                st.lists(
                    st.tuples(
                        mostly(st.sampled_from(["de", "x-default"]), hreflangs),
                        mostly(good_urls, urls),
                    ),
                    max_size=3,
                )
            )
        ),
        tuple(draw(st.lists(mostly(good_urls, urls), max_size=3))),
    )


@SETTINGS
@given(rows())
def test_a_fast_line_is_the_careful_line(row: Row) -> None:
    lines = UpsertLines(SITE, NOW)
    fast = lines.fast(row)
    if fast is None:
        return
    assert lines.careful(row) == (row.loc, fast)


@SETTINGS
@given(rows())
def test_every_entry_gets_the_careful_paths_line_or_problem(row: Row) -> None:
    # the lastmod cache is shared between entries, as in a run
    lines = UpsertLines(SITE, NOW)
    assert lines.line(row) == UpsertLines(SITE, NOW).careful(row)
    assert lines.line(row) == lines.careful(row)


def test_many_images_take_the_careful_path() -> None:
    images = tuple(f"https://c.d/i{n}" for n in range(1001))
    row = Row("s", 1, "https://www.example.com/", images=images)
    warnings: list[Problem] = []
    lines = UpsertLines(SITE, NOW, warnings.append)
    assert lines.fast(row) is None
    line = lines.line(row)
    assert not isinstance(line, Problem)
    assert json.loads(line[1])["images"] == [{"loc": loc} for loc in images[:1000]]
    assert [w.where for w in warnings] == ["s:1"] and "at most 1000 images" in warnings[0].reason


def test_an_image_listed_again_takes_the_careful_path_and_is_listed_once() -> None:
    row = Row("s", 1, "https://www.example.com/", images=("https://c.d/i",) * 1000)
    lines = UpsertLines(SITE, NOW)
    assert lines.fast(row) is None
    line = lines.line(row)
    assert not isinstance(line, Problem)
    assert line[1].count("https://c.d/i") == 1


# --- CSV ----------------------------------------------------------------------------------

csv_pieces = st.sampled_from([
    "url", "lastmod", "loc", "location", "x", ",", "\n", "\r\n", "\r", '"', '""', " ", "\t",
    "https://www.example.com/a", "2024-01-01", "\ufeff", "\x00", "é", "\u2028", "\x1c",
    ";", "|", "id", "modified", "updated_at", "page",
])  # fmt: skip


def _csv_outcome(read: Iterator[Row | Problem]) -> list[object]:
    out: list[object] = []
    try:
        out.extend(read)
    except SourceError as exc:
        out.append(("SourceError", str(exc)))
    return out


@SETTINGS
@given(
    st.lists(csv_pieces, max_size=40).map("".join),
    st.sampled_from([b"", b"\xff", b"\xc3"]),
    st.integers(0, 40),
    st.sampled_from([1, 2, 5, 16, BLOCK]),
)
def test_csv_blocks_give_what_csv_reader_gives(text: str, bad: bytes, at: int, block: int) -> None:
    data = text.encode("utf-8")
    data = data[:at] + bad + data[at:]
    fast = _csv_outcome(iter_csv_rows(io.BytesIO(data), "e.csv", block=block))
    careful = _csv_outcome(iter_csv_rows(io.BytesIO(data), "e.csv", careful=True))
    assert fast == careful


def test_a_line_over_the_field_limit_is_csvs_error() -> None:
    data = b"url,lastmod\nhttps://www.example.com/" + b"a" * 140_000 + b",2024-01-01\n"
    fast = _csv_outcome(iter_csv_rows(io.BytesIO(data), "e.csv"))
    assert fast == _csv_outcome(iter_csv_rows(io.BytesIO(data), "e.csv", careful=True))
    assert isinstance(fast[0], Problem) and "field larger than field limit" in fast[0].reason


# --- sitemap XML --------------------------------------------------------------------------


def reference_items(stream: IO[bytes], location: str) -> Iterator[Row | Problem | ChildSitemap]:
    """Every start and end event of the document, read as the reader did before it asked
    lxml for the ends of ``<url>`` and ``<sitemap>`` alone (children are not followed), each
    ``<url>`` read from its whole element (a ``<url>`` inside another takes nothing from it)."""
    parser = etree.iterparse(stream, events=("start", "end"), **XML_OPTIONS)
    root_kind = ""
    seen = {location}
    try:
        for event, element in parser:
            name = local_name(element.tag)[1]
            if event == "start":
                if not root_kind:
                    root_kind = name
                    if name not in ROOTS:
                        yield Problem(
                            f"{location}:{element.sourceline}",
                            f"root element: <{name}> is not a sitemap: "
                            "must be <urlset> or <sitemapindex>",
                        )
                        return
                continue
            if root_kind == "urlset" and name == "url":
                yield url_record(element, location)  # each read whole, nothing freed
            elif root_kind == "sitemapindex" and name == "sitemap":
                where = f"{location}:{element.sourceline}"
                locs = [c for c in element if local_name(c.tag)[1] == "loc"]
                text = (locs[0].text or "").strip() or None if locs else None
                release(element)
                if text is None:
                    yield Problem(where, "loc: missing: every <sitemap> needs a <loc>")
                elif len(locs) > 1:
                    yield Problem(
                        where,
                        f"loc: {len(locs)} <loc> elements in one <sitemap>: it must hold one; "
                        "not followed",
                    )
                elif child_location(location, text) not in seen:
                    seen.add(child_location(location, text))
                    yield ChildSitemap(child_location(location, text), 1)
    except etree.XMLSyntaxError as exc:
        line = f":{exc.lineno}" if exc.lineno else ""
        yield Problem(f"{location}{line}", f"not well-formed XML, rest skipped: {exc.msg}")


NS = (
    'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
    'xmlns:xhtml="http://www.w3.org/1999/xhtml" '
    'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'
)
xml_pieces = st.sampled_from([
    "<url>", "</url>", "<loc>", "</loc>", "<lastmod>", "</lastmod>", "<changefreq>daily",
    "</changefreq>", "<priority>0.5</priority>", "https://www.example.com/a", " x ", "\n",
    '<xhtml:link rel="alternate" hreflang="de" href="https://www.example.com/de"/>',
    '<xhtml:link rel="next" href="https://www.example.com/2"/>',
    "<image:image><image:loc>https://c.d/i.jpg</image:loc></image:image>", "<image:loc>",
    "<sitemap>", "</sitemap>", "<sitemapindex>", "</sitemapindex>", "<urlset>", "</urlset>",
    "<!-- c -->", "<?pi x?>", "&amp;", "&bad;", "<", ">", "<foo>", "</foo>", "<![CDATA[x]]>",
    "<url/>", "<loc/>", "é", "<x:url xmlns:x='q'>", "</x:url>", "<xhtml:loc>", "</xhtml:loc>",
])  # fmt: skip
roots = st.sampled_from([
    f"<urlset {NS}>", "<urlset>", f"<sitemapindex {NS}>", "<sitemapindex>", "<foo>", "",
    "<?xml version='1.0'?>\n<!-- c -->\n<urlset>", f"<x:urlset xmlns:x='q' {NS}>",
])  # fmt: skip
ends = st.sampled_from(["</urlset>", "</sitemapindex>", "</foo>", "</x:urlset>", ""])


@SETTINGS
@given(roots, st.lists(xml_pieces, max_size=30).map("".join), ends)
def test_sitemap_reader_gives_what_every_event_gives(root: str, body: str, end: str) -> None:
    data = (root + body + end).encode("utf-8")
    # notes (a root outside the sitemap namespace, tags dropped) are not records
    items = [
        i for i in iter_sitemap_items(io.BytesIO(data), "/maps/s.xml") if not isinstance(i, Note)
    ]
    assert items == list(reference_items(io.BytesIO(data), "/maps/s.xml"))


@SETTINGS
@given(st.lists(xml_pieces, max_size=12).map("".join), st.integers(0, 3 * RELEASE_EVERY))
def test_what_is_freed_on_the_way_takes_nothing_from_any_entry(body: str, before: int) -> None:
    # enough entries before ``body`` that the reader frees what it read inside it
    plain = "<url><loc>https://www.example.com/p</loc></url>\n" * before
    data = f"<urlset {NS}>{plain}{body}{plain}</urlset>".encode()
    items = [
        i for i in iter_sitemap_items(io.BytesIO(data), "/maps/s.xml") if not isinstance(i, Note)
    ]
    assert items == list(reference_items(io.BytesIO(data), "/maps/s.xml"))
