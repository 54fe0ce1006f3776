"""The validator knows the video and news namespaces and the rules their XSDs cannot say, and
warns of an extension element ``backfill`` would leave out (or repair), in its words, passing
the file."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from sitemap_updater_local.inputs.opening import SourcePolicy
from sitemap_updater_local.inputs.sources import iter_source_items
from sitemap_updater_local.pipeline.backfill_events import Backfill
from sitemap_updater_local.validation.document import validate_document

HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
    'xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" '
    'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">\n'
)
VIDEO = (
    "<video:video><video:thumbnail_loc>https://cdn.example.net/t.jpg</video:thumbnail_loc>"
    "<video:title>T</video:title><video:description>D</video:description>{locs}{extra}"
    "</video:video>"
)
NEWS = (
    "<news:news><news:publication><news:name>N</news:name><news:language>{lang}</news:language>"
    "</news:publication><news:publication_date>2026-11-20</news:publication_date>"
    "<news:title>T</news:title></news:news>"
)


def doc(*urls: str) -> bytes:
    return (HEAD + "".join(urls) + "</urlset>\n").encode()


def url(n: int, inner: str) -> str:
    return f"<url><loc>https://www.example.com/{n}</loc>{inner}</url>\n"


def test_a_valid_video_and_news_entry_pass() -> None:
    video = VIDEO.format(
        locs="<video:player_loc>https://p.example.net/1</video:player_loc>", extra=""
    )
    report = validate_document(doc(url(1, video + NEWS.format(lang="zh-cn"))), source="x")
    assert report.ok, report.lines()


def test_a_video_without_content_or_player_loc_is_a_warning_and_the_file_passes() -> None:
    report = validate_document(doc(url(1, VIDEO.format(locs="", extra=""))), source="x")
    assert report.ok, report.lines()
    assert report.warnings == [
        "line 3: videos[0]: None is invalid: needs content_loc or player_loc (or both); "
        "left out, the page is kept"
    ]


def test_out_of_range_video_values_leave_the_video_out_with_a_warning() -> None:
    locs = "<video:content_loc>https://c.example.net/v.mp4</video:content_loc>"
    for extra, field in (
        ("<video:duration>28801</video:duration>", "videos[0].duration: 28801"),
        ("<video:live>maybe</video:live>", "videos[0].live: 'maybe'"),
        ("<video:tag>t</video:tag>" * 33, "videos[0].tag: '33 tags'"),
    ):
        report = validate_document(doc(url(1, VIDEO.format(locs=locs, extra=extra))), source="x")
        assert report.ok, report.lines()
        [warning] = report.warnings
        assert warning.startswith(f"line 3: {field} is invalid: "), warning
        assert warning.endswith("; left out, the page is kept")


def test_deprecated_tags_are_one_warning_each_and_the_file_stays_ok() -> None:
    locs = (
        '<video:player_loc allow_embed="yes">https://p.example.net/1</video:player_loc>'
        "<video:category>cooking</video:category><video:price currency='EUR'>1</video:price>"
    )
    news = NEWS.format(lang="en").replace(
        "</news:publication>", "</news:publication><news:keywords>a, b</news:keywords>"
    )
    entries = [url(n, VIDEO.format(locs=locs, extra="") + news) for n in range(3)]
    report = validate_document(doc(*entries), source="x")
    assert report.ok, report.lines()
    assert [w.split(" in ")[0] for w in report.warnings] == [
        "news:keywords",
        "video:category",
        "video:player_loc@allow_embed",
        "video:price",
    ]
    assert all(" in 3 places: Google deprecated it in 2022" in w for w in report.warnings)
    assert sum(": warning: " in line for line in report.lines()) == 4


def test_a_news_language_tag_is_read_as_its_code_and_more_than_1000_articles_fail() -> None:
    report = validate_document(doc(url(1, NEWS.format(lang="en-GB"))), source="x")
    assert report.ok, report.lines()
    [warning] = report.warnings
    assert warning.startswith("line 3: news.publication.language: 'en-GB' is invalid: ")
    assert warning.endswith("; read as 'en', the page is kept")
    many = doc(*(url(n, NEWS.format(lang="en")) for n in range(1_001)))
    report = validate_document(many, source="x")
    assert any("over Google's limit of 1000" in p for p in report.problems), report.lines()


def test_optional_video_tags_in_either_order_pass_and_each_counts_once() -> None:
    locs = "<video:content_loc>https://c.example.net/v.mp4</video:content_loc>"
    # Google's current example puts platform before requires_subscription and tag last
    current = (
        "<video:rating>4.2</video:rating><video:view_count>12345</video:view_count>"
        '<video:platform relationship="allow">web tv</video:platform>'
        "<video:requires_subscription>yes</video:requires_subscription><video:live>no</video:live>"
        "<video:tag>steak</video:tag>"
    )
    report = validate_document(doc(url(1, VIDEO.format(locs=locs, extra=current))), source="x")
    assert report.problems == []
    twice = "<video:duration>60</video:duration><video:duration>61</video:duration>"
    report = validate_document(doc(url(1, VIDEO.format(locs=locs, extra=twice))), source="x")
    assert any("video:duration appears 2 times: at most 1" in p for p in report.problems)


IMAGE_AND_LINK_HEAD = HEAD.replace(
    "<urlset ",
    '<urlset xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
    'xmlns:xhtml="http://www.w3.org/1999/xhtml" ',
)
GOOD_VIDEO = VIDEO.format(
    locs="<video:content_loc>https://c.example.net/v.mp4</video:content_loc>", extra=""
)
#: Extension elements, each good or breaking one rule of the layer (and of the XSDs).
ELEMENTS = {
    "good link": '<xhtml:link rel="alternate" hreflang="de" href="https://www.example.com/de/1"/>',
    "link en_US": '<xhtml:link rel="alternate" hreflang="en_US" href="https://www.example.com/u"/>',
    "good image": "<image:image><image:loc>https://cdn.example.net/i.jpg</image:loc></image:image>",
    "ftp image": "<image:image><image:loc>ftp://cdn.example.net/i.jpg</image:loc></image:image>",
    "good video": GOOD_VIDEO,
    "video without thumbnail": GOOD_VIDEO.replace(
        "<video:thumbnail_loc>https://cdn.example.net/t.jpg</video:thumbnail_loc>", ""
    ),
    "video too long": GOOD_VIDEO.replace(
        "</video:video>", "<video:duration>28801</video:duration></video:video>"
    ),
}
NEWS_ELEMENTS = {
    "en": NEWS.format(lang="en"),
    "en-US": NEWS.format(lang="en-US"),
    "empty name": NEWS.format(lang="en").replace("<news:name>N<", "<news:name><"),
}  # fmt: skip


def extended(*urls: str) -> bytes:
    return (IMAGE_AND_LINK_HEAD + "".join(urls) + "</urlset>\n").encode()


def backfill_warnings(path: Path) -> list[str]:
    """What ``backfill`` says of each element it leaves out or repairs, without where."""
    lines: list[str] = []
    run = Backfill(lambda url, line: None, on_problem=lambda p: lines.append(str(p)))
    run.run(iter_source_items(str(path), SourcePolicy()))
    return [line.split(": warning: ", 1)[1] for line in lines if ": warning: " in line]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from(sorted(ELEMENTS)), max_size=5),
    st.none() | st.sampled_from(sorted(NEWS_ELEMENTS)),
)
def test_validate_warns_of_what_backfill_leaves_out_in_its_words_and_passes(
    elements: list[str], news: str | None
) -> None:
    inner = "".join(ELEMENTS[name] for name in elements)
    inner += NEWS_ELEMENTS[news] if news is not None else ""
    data = extended(url(1, inner))
    report = validate_document(data, source="x")
    assert report.ok, report.lines()
    with tempfile.TemporaryDirectory() as held:
        path = Path(held) / "sitemap.xml"
        path.write_bytes(data)
        said = backfill_warnings(path)
    assert [w.split(": ", 1)[1] for w in report.warnings] == said
    assert all(w.startswith("line 3: ") for w in report.warnings)  # the <url>'s one line


def test_each_warning_names_the_line_of_its_element_and_the_file_passes() -> None:
    inner = "\n" + ELEMENTS["good image"] + "\n" + ELEMENTS["ftp image"] + "\n"
    inner += NEWS_ELEMENTS["empty name"] + "\n"
    report = validate_document(extended(url(1, inner)), source="news.xml")
    assert report.ok, report.lines()
    assert [line.split(" is invalid: ")[0] for line in report.lines()[:2]] == [
        "news.xml: warning: line 5: images[1].loc: 'ftp://cdn.example.net/i.jpg'",
        "news.xml: warning: line 6: news.publication.name: ''",
    ]


def test_the_warnings_of_a_file_are_capped_then_counted_by_rule() -> None:
    bad = ELEMENTS["ftp image"]
    report = validate_document(extended(*(url(n, bad) for n in range(25))), source="x")
    assert report.ok and len(report.warnings) == 21
    assert report.warnings[-1] == (
        "... and 5 more element(s) left out or repaired: images[0].loc: scheme 'ftp' is not "
        "allowed: must be http or https"
    )


def test_the_page_rules_stay_errors_beside_an_extension_warning() -> None:
    inner = "<lastmod>27/11/2026</lastmod>" + NEWS_ELEMENTS["en-US"]
    report = validate_document(
        extended(url(1, inner), "<url><loc>ftp://www.example.com/2</loc></url>\n"), source="x"
    )
    assert not report.ok
    assert any("lastmod" in p for p in report.problems)
    assert any("ftp://www.example.com/2" in p for p in report.problems)
    assert [w.split(": ")[1] for w in report.warnings] == ["news.publication.language"]
