"""Each ``<url>`` is judged by the one judge: what ingest refuses of a page, its alternates,
images, videos or News article fails the file, in the words ``backfill`` uses for the element it
leaves out, at the element's line, and only once (the XSDs do not repeat it); a tag Google
deprecated is a warning and the file passes."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from sitemap_updater.ingest.listing import judge_listing
from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.protocol.urls import Site
from sitemap_updater.sites import Sites
from sitemap_updater_local import cli
from sitemap_updater_local.inputs.sitemaps.url_elements import url_listing
from sitemap_updater_local.inputs.source_records import Listing
from sitemap_updater_local.pipeline.judging import dropped, invalid
from sitemap_updater_local.validation.document import validate_document

HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
    'xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" '
    'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9" '
    'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
    'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'
)
VIDEO = (
    "<video:video><video:thumbnail_loc>https://cdn.example.net/t.jpg</video:thumbnail_loc>"
    "<video:title>T</video:title><video:description>D</video:description>{locs}{extra}"
    "</video:video>"
)
CONTENT = "<video:content_loc>https://c.example.net/v.mp4</video:content_loc>"
NEWS = (
    "<news:news><news:publication><news:name>{name}</news:name>"
    "<news:language>{lang}</news:language></news:publication>"
    "<news:publication_date>2026-01-20</news:publication_date>"
    "<news:title>T</news:title></news:news>"
)
IMAGE = "<image:image><image:loc>{loc}</image:loc></image:image>"


def doc(*urls: str) -> bytes:
    return (HEAD + "".join(urls) + "</urlset>\n").encode()


def url(n: int, inner: str) -> str:
    return f"<url><loc>https://www.example.com/{n}</loc>{inner}</url>\n"


def check(data: bytes) -> list[str]:
    """The problems of a file, ``LINE: text``."""
    return [str(p) for p in validate_document(data, source="x").problems]


def test_a_valid_video_news_image_and_alternate_pass() -> None:
    inner = (
        VIDEO.format(locs="<video:player_loc>https://p.example.net/1</video:player_loc>", extra="")
        + NEWS.format(name="N", lang="zh-cn")
        + IMAGE.format(loc="https://cdn.example.net/i.jpg")
        + '<xhtml:link rel="alternate" hreflang="de" href="https://www.example.de/1"/>'
    )
    report = validate_document(doc(url(1, inner)), source="x")
    assert report.ok, report.lines()


@pytest.mark.parametrize(
    ("inner", "said"),
    [
        (IMAGE.format(loc="https://cdn.example.net/i.jpg") * 1_100,
         "images: 1,100 items is invalid: must have at most 1000 items"),
        (NEWS.format(name="N", lang="en-US"),
         "news.publication.language: 'en-US' is invalid: must be an ISO 639 language code such "
         "as 'en' or 'fra', or zh-cn or zh-tw (write 'en')"),
        (VIDEO.format(locs=CONTENT, extra="").replace(
            "<video:thumbnail_loc>https://cdn.example.net/t.jpg</video:thumbnail_loc>", ""),
         "videos[0].thumbnail_loc: missing: is required"),
        (NEWS.format(name=" ", lang="en"),
         "news.publication.name: ' ' is invalid: must not be empty or blank (whitespace and "
         "invisible characters only)"),
        (NEWS.format(name="", lang="en"),
         "news.publication.name: '' is invalid: must have at least 1 character"),
    ],
)  # fmt: skip
def test_what_google_rejects_of_an_element_fails_the_file_in_one_line(
    inner: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sitemap.xml"
    path.write_bytes(doc(url(1, inner)))
    assert cli.main(["validate", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f"{path}:3: {said}",
        "sitemap-updater validate: 1 file(s), 1 URL(s): 1 problem(s), 0 warning(s)",
    ]


def test_a_video_without_content_or_player_loc_fails_and_out_of_range_values_too() -> None:
    assert check(doc(url(1, VIDEO.format(locs="", extra="")))) == [
        "3: videos[0]: None is invalid: needs content_loc or player_loc (or both)"
    ]
    for extra, field in (
        ("<video:duration>28801</video:duration>", "videos[0].duration: 28801"),
        ("<video:live>maybe</video:live>", "videos[0].live: 'maybe'"),
        ("<video:tag>t</video:tag>" * 33, "videos[0].tag: 33 items"),
    ):
        [problem] = check(doc(url(1, VIDEO.format(locs=CONTENT, extra=extra))))
        assert problem.startswith(f"3: {field} is invalid: "), problem


def test_each_problem_names_the_line_of_its_element_and_the_xsd_does_not_repeat_it() -> None:
    inner = (
        "\n<lastmod>2026-13-01</lastmod>\n"
        + IMAGE.format(loc="https://cdn.example.net/i.jpg")
        + "\n"
        + IMAGE.format(loc="ftp://cdn.example.net/i.jpg")
        + "\n"
        + NEWS.format(name="N", lang="english")
        + "\n"
        + VIDEO.format(locs=CONTENT, extra="<video:duration>0</video:duration>")
        + "\n"
        + '<xhtml:link rel="alternate" hreflang="en_US" href="https://www.example.com/u"/>'
        + "\n"
    )
    found = check(doc(url(1, inner)))
    # the XSD refuses the date, the language, the duration and the hreflang too: once each
    assert [p.split(" is invalid: ")[0] for p in found] == [
        "4: lastmod: '2026-13-01'",
        "6: images[1].loc: 'ftp://cdn.example.net/i.jpg'",
        "7: news.publication.language: 'english'",
        "8: videos[0].duration: 0",
        "9: alternates[0].hreflang: 'en_US'",
    ]


def test_deprecated_tags_are_one_warning_each_and_the_file_passes() -> None:
    locs = (
        '<video:player_loc allow_embed="yes">https://p.example.net/1</video:player_loc>'
        "<video:category>cooking</video:category><video:price currency='EUR'>1</video:price>"
    )
    # an access value the News XSD refuses: the tag is not checked at all
    news = NEWS.format(name="N", lang="en").replace(
        "</news:publication>", "</news:publication><news:access>Paid</news:access>"
    )
    image = IMAGE.format(loc="https://cdn.example.net/i.jpg").replace(
        "</image:loc>", "</image:loc><image:caption>C</image:caption>"
    )
    entries = [url(n, VIDEO.format(locs=locs, extra="") + news + image) for n in range(3)]
    report = validate_document(doc(*entries), source="x")
    assert report.ok, report.lines()
    assert [w.text.split(" in ")[0] for w in report.warnings] == [
        "image:caption",
        "news:access",
        "video:category",
        "video:player_loc@allow_embed",
        "video:price",
    ]
    assert all(" in 3 places: Google deprecated it in 2022" in w.text for w in report.warnings)
    assert {w.line for w in report.warnings} == {3}
    assert sum(": warning: " in line for line in report.lines()) == 5


def test_more_than_1000_articles_fail_a_news_file() -> None:
    assert check(doc(*(url(n, NEWS.format(name="N", lang="en")) for n in range(1_000)))) == []
    many = doc(*(url(n, NEWS.format(name="N", lang="en")) for n in range(1_001)))
    assert check(many) == ["1,001 news:news elements is over Google's limit of 1,000 per News "
                           "sitemap"]  # fmt: skip


def test_optional_video_tags_in_either_order_pass_and_each_counts_once() -> None:
    # Google's current example puts platform before requires_subscription and tag last
    current = (
        "<video:rating>4.2</video:rating><video:view_count>12345</video:view_count>"
        '<video:platform relationship="allow">web tv</video:platform>'
        "<video:requires_subscription>yes</video:requires_subscription><video:live>no</video:live>"
        "<video:tag>steak</video:tag>"
    )
    assert check(doc(url(1, VIDEO.format(locs=CONTENT, extra=current)))) == []
    twice = "<video:duration>60</video:duration><video:duration>61</video:duration>"
    assert check(doc(url(1, VIDEO.format(locs=CONTENT, extra=twice)))) == [
        "3: video:duration appears 2 times in one video: at most once"
    ]


#: Page fields, each good or breaking one rule of the judge (written before the extensions).
FIELDS = {
    "bad lastmod": "<lastmod>soon</lastmod>",
    "good lastmod": "<lastmod>2026-01-01</lastmod>",
    "bad changefreq": "<changefreq>often</changefreq>",
    "good priority": "<priority>0.5</priority>",
}


def _order(name: str) -> int:
    """A page field's place in a ``<url>`` (sitemap.xsd's sequence), by its name's last word."""
    return ("lastmod", "changefreq", "priority").index(name.split()[1])


#: Extension elements, each good or breaking one rule of the judge.
ELEMENTS = {
    "good link": '<xhtml:link rel="alternate" hreflang="de" href="https://www.example.com/de/1"/>',
    "link en_US": '<xhtml:link rel="alternate" hreflang="en_US" href="https://www.example.com/u"/>',
    "link de again": '<xhtml:link rel="alternate" hreflang="DE" href="https://www.example.com/d"/>',
    "link without href": '<xhtml:link rel="alternate" hreflang="fr"/>',
    "good image": IMAGE.format(loc="https://cdn.example.net/i.jpg"),
    "ftp image": IMAGE.format(loc="ftp://cdn.example.net/i.jpg"),
    "good video": VIDEO.format(locs=CONTENT, extra=""),
    "video without thumbnail": VIDEO.format(locs=CONTENT, extra="").replace(
        "<video:thumbnail_loc>https://cdn.example.net/t.jpg</video:thumbnail_loc>", ""
    ),
    "video too long": VIDEO.format(locs=CONTENT, extra="<video:duration>28801</video:duration>"),
    "video of the page itself": VIDEO.format(
        locs="<video:player_loc>https://www.example.com/1</video:player_loc>", extra=""
    ),
}
#: News articles (a page has one at most), each good or breaking one rule of the judge.
ARTICLES = {
    "good news": NEWS.format(name="N", lang="en"),
    "news en-US": NEWS.format(name="N", lang="en-US"),
    "news without name": NEWS.format(name="", lang="en"),
    "news in English": NEWS.format(name="N", lang="english"),
}
SITES = Sites([Site("https://www.example.com", None, None)])
#: A page's fields (in the order sitemap.xsd wants them), extension elements and article.
PAGES = st.tuples(
    st.lists(st.sampled_from(sorted(FIELDS)), max_size=3, unique_by=lambda n: n.split()[1]),
    st.lists(st.sampled_from(sorted(ELEMENTS)), max_size=6),
    st.lists(st.sampled_from(sorted(ARTICLES)), max_size=1),
).map(
    lambda p: "".join(
        [
            *(FIELDS[n] for n in sorted(p[0], key=_order)),
            *(ELEMENTS[n] for n in p[1]),
            *(ARTICLES[n] for n in p[2]),
        ]
    )
)


def _listing(data: bytes) -> Listing:
    listing = url_listing(etree.fromstring(data)[0], "x")
    assert isinstance(listing, Listing)
    return listing


@settings(max_examples=80, deadline=None)
@given(PAGES)
def test_validate_fails_a_page_exactly_when_the_strict_judge_refuses_it(inner: str) -> None:
    data = doc(url(1, inner))
    try:
        judge_listing(_listing(data).fields, sites=SITES, now=datetime.now(UTC), drops=None)
        strict = None
    except SitemapError as error:
        strict = invalid(error.field, error.value, error.rule)
    report = validate_document(data, source="x")
    assert "(XSD)" not in "".join(p.text for p in report.problems)
    assert report.ok == (strict is None)
    if strict is not None:
        assert strict in [p.text.split(" (write ")[0] for p in report.problems]


@settings(max_examples=60, deadline=None)
@given(PAGES)
def test_validate_says_what_build_and_backfill_leave_out_in_their_words(inner: str) -> None:
    data = doc(url(1, inner))
    drops: list[SitemapError] = []
    judge_listing(_listing(data).fields, sites=SITES, now=datetime.now(UTC), drops=drops)
    # the warning lines build and backfill print for what they leave out, keeping the page
    warned = [dropped(error, "x:3", error.field).reason for error in drops]
    report = validate_document(data, source="x")
    # validate fails the file for each of them, once, and for nothing else
    assert sorted(warned) == sorted(p.text.split(" (write ")[0] for p in report.problems)
