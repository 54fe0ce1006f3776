"""The News files: published beside the regular sitemap, listed in the index, kept to the news
window by the run's clock (even when no change arrives), updated in place, and read back only
when the publish record lists them. Every clock here is set by the test (none is the wall time).
"""

from __future__ import annotations

import gzip
from datetime import UTC, datetime, timedelta

import pytest
from lxml import etree

from sitemap_updater.page.model import News, Page, Publication
from tests.integration.rebuild.conftest import Aws, page
from tests.integration.rebuild.test_publish_economy import service

SITE = "https://www.example.com"
NEWS_NS = {"n": "http://www.google.com/schemas/sitemap-news/0.9"}
SM = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}
#: the runs' clock: 2026-11-20T12:00:00Z
T0 = datetime(2026, 11, 20, 12, 0, tzinfo=UTC).timestamp()
HOUR = 3_600.0


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def article(slug: str, published: float, title: str = "Markets <rise> & fall") -> Page:
    return Page(
        url=f"{SITE}/news/{slug}",
        lastmod=iso(published)[:10],
        news=News(
            publication=Publication(name="The Example Times", language="en"),
            publication_date=iso(published),
            title=title,
        ),
    )


def news_titles(aws: Aws, key: str) -> dict[str, str]:
    """loc -> news title of the articles in the news file ``key``."""
    root = etree.fromstring(gzip.decompress(aws.object(key)["Body"].read()))
    return {
        url.findtext("sm:loc", namespaces=SM) or "": url.findtext(
            "n:news/n:title", namespaces=NEWS_NS
        )
        or ""
        for url in root.findall("sm:url", SM)
    }


def test_articles_are_in_a_news_file_and_in_the_regular_sitemap(aws: Aws) -> None:
    clock = [T0]
    aws.upsert(article("a", T0 - HOUR), article("b", T0 - 2 * HOUR), page(1))

    report = service(clock).run()

    files = aws.crawl()  # validates the index and every file it lists against the XSDs
    assert report.news_files == ["sitemap-news-1.xml.gz"] and report.news_urls == 2
    assert sorted(files["sitemap-news-1.xml.gz"]) == [f"{SITE}/news/a", f"{SITE}/news/b"]
    regular = [loc for key, locs in files.items() if key != "sitemap-news-1.xml.gz" for loc in locs]
    assert sorted(regular) == [f"{SITE}/news/a", f"{SITE}/news/b", f"{SITE}/page/1"]
    assert news_titles(aws, "sitemap-news-1.xml.gz")[f"{SITE}/news/a"] == "Markets <rise> & fall"
    regular_file = next(k for k in files if k != "sitemap-news-1.xml.gz")
    assert b"news:news" not in gzip.decompress(aws.object(regular_file)["Body"].read())


def test_a_scheduled_run_without_changes_expires_articles_on_time(aws: Aws) -> None:
    clock = [T0]
    aws.upsert(article("old", T0 - 47 * HOUR), article("new", T0 - HOUR))
    service(clock).run()
    assert set(news_titles(aws, "sitemap-news-1.xml.gz")) == {
        f"{SITE}/news/old",
        f"{SITE}/news/new",
    }

    clock[0] = T0 + 2 * HOUR  # "old" is now 49 hours old; no event arrives
    report = service(clock).run()

    assert report.feed_records == 0
    # the same name, updated in place; the index carries its new lastmod
    assert report.objects_written == ["sitemap-news-1.xml.gz", "sitemap.xml"]
    assert aws.index_lastmods()["sitemap-news-1.xml.gz"] == iso(clock[0])
    assert set(news_titles(aws, "sitemap-news-1.xml.gz")) == {f"{SITE}/news/new"}
    assert f"{SITE}/news/old" in [loc for locs in aws.crawl().values() for loc in locs]

    clock[0] = T0 + 48 * HOUR  # "new" is exactly 49 hours old too
    report = service(clock).run()
    assert report.news_files == []
    assert "sitemap-news-1.xml.gz" not in aws.index_lastmods()
    assert sorted(loc for locs in aws.crawl().values() for loc in locs) == [
        f"{SITE}/news/new",
        f"{SITE}/news/old",
    ]


def test_the_window_follows_the_configured_hours(aws: Aws) -> None:
    clock = [T0]
    aws.upsert(article("three-hours", T0 - 3 * HOUR), article("one-hour", T0 - HOUR))

    report = service(clock, NEWS_WINDOW_HOURS="2").run()

    assert report.news_urls == 1
    assert set(news_titles(aws, "sitemap-news-1.xml.gz")) == {f"{SITE}/news/one-hour"}


def test_an_article_that_loses_its_news_or_is_deleted_leaves_the_news_file(aws: Aws) -> None:
    clock = [T0]
    aws.upsert(article("a", T0 - HOUR), article("b", T0 - HOUR), article("c", T0 - HOUR))
    service(clock).run()

    clock[0] += 60
    aws.upsert(Page(url=f"{SITE}/news/a"), article("b", T0 - HOUR, title="Corrected"))
    aws.delete(f"{SITE}/news/c")
    service(clock).run()

    assert news_titles(aws, "sitemap-news-1.xml.gz") == {f"{SITE}/news/b": "Corrected"}


def test_a_site_without_news_reads_and_writes_no_news_file(aws: Aws) -> None:
    clock = [T0]
    aws.upsert(page(1), page(2))
    first = service(clock).run()
    clock[0] += 60
    aws.upsert(page(3))
    second = service(clock).run()

    for report in (first, second):
        assert report.news_files == []
        assert not [k for k in report.s3_objects_read + report.objects_written if "news" in k]


def test_an_old_article_is_published_in_the_regular_sitemap_only(aws: Aws) -> None:
    clock = [T0]
    aws.upsert(article("archive", T0 - 72 * HOUR))

    report = service(clock).run()

    assert report.news_files == []
    assert [loc for locs in aws.crawl().values() for loc in locs] == [f"{SITE}/news/archive"]


def test_a_full_rebuild_publishes_the_news_files_the_incremental_runs_left(aws: Aws) -> None:
    clock = [T0]
    aws.upsert(*(article(f"a{i}", T0 - i * HOUR) for i in range(12)), page(1))
    service(clock).run()
    clock[0] += 60
    aws.upsert(article("late", T0), Page(url=f"{SITE}/news/a3"))
    service(clock).run()
    clock[0] += 30 * HOUR  # a0..a11 are 30 to 41 hours old; a3 lost its news object
    service(clock).run()
    incremental = aws.object("sitemap-news-1.xml.gz")["Body"].read()

    full = service(clock).run(full=True)

    assert full.mode == "full" and full.news_urls == 12
    assert aws.object("sitemap-news-1.xml.gz")["Body"].read() == incremental


def test_publication_dates_are_compared_as_instants(aws: Aws) -> None:
    clock = [datetime(2026, 11, 22, 0, 0, tzinfo=UTC).timestamp()]
    day = datetime(2026, 11, 20, tzinfo=UTC)
    inside = Page(
        url=f"{SITE}/news/dated",
        news=News(
            publication=Publication(name="T", language="en"),
            publication_date="2026-11-20",
            title="Dated",
        ),
    )
    aws.upsert(inside)
    assert service(clock).run().news_urls == 1  # midnight of the date: exactly 48 hours ago

    clock[0] = (day + timedelta(hours=48, seconds=1)).timestamp()
    assert service(clock).run().news_urls == 0


def test_a_run_that_dies_before_the_index_is_repaired_by_the_next(aws: Aws) -> None:
    clock = [T0]
    aws.upsert(article("a", T0 - HOUR))
    service(clock).run()
    clock[0] += 60
    aws.upsert(article("b", T0 - HOUR))
    dying = service(clock)

    def crash(params: dict[str, object], **_: object) -> None:
        if params.get("Key") == "sitemap.xml":
            raise RuntimeError("the run dies before it writes the index")

    dying.publisher._s3.meta.events.register("before-parameter-build.s3.PutObject", crash)
    with pytest.raises(RuntimeError):
        dying.run()
    assert set(news_titles(aws, "sitemap-news-1.xml.gz")) == {
        f"{SITE}/news/a",
        f"{SITE}/news/b",
    }

    clock[0] += 60
    repaired = service(clock).run()

    assert repaired.news_files == ["sitemap-news-1.xml.gz"] and repaired.news_urls == 2
    assert sorted(aws.crawl()["sitemap-news-1.xml.gz"]) == [f"{SITE}/news/a", f"{SITE}/news/b"]
