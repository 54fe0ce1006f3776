"""The validator knows the video and news namespaces, and the two rules their XSDs cannot say."""

from __future__ import annotations

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


def test_a_video_without_content_or_player_loc_is_reported() -> None:
    report = validate_document(doc(url(1, VIDEO.format(locs="", extra=""))), source="x")
    assert any("content_loc or player_loc" in p for p in report.problems), report.lines()


def test_out_of_range_video_values_are_reported_by_the_schema() -> None:
    locs = "<video:content_loc>https://c.example.net/v.mp4</video:content_loc>"
    for extra in ("<video:duration>28801</video:duration>", "<video:live>maybe</video:live>"):
        report = validate_document(doc(url(1, VIDEO.format(locs=locs, extra=extra))), source="x")
        assert any("(XSD)" in p for p in report.problems), extra


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


def test_a_bad_news_language_and_more_than_1000_articles_are_reported() -> None:
    report = validate_document(doc(url(1, NEWS.format(lang="en-GB"))), source="x")
    assert any("(XSD)" in p for p in report.problems)
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
    tags = "<video:tag>t</video:tag>" * 33
    report = validate_document(doc(url(1, VIDEO.format(locs=locs, extra=tags))), source="x")
    assert any("video:tag appears 33 times: at most 32" in p for p in report.problems)
