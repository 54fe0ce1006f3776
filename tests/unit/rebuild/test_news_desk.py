"""The news files of one run: the 1,000-URL cap, stable names, the window by the given clock."""

from __future__ import annotations

import gzip
from datetime import UTC, datetime

import msgspec
import pytest

from sitemap_updater.page.model import News, Page, Publication
from sitemap_updater.protocol.stylesheet import STYLESHEET_INSTRUCTION
from sitemap_updater.protocol.urls import Site
from sitemap_updater.rebuild.news import NewsDesk, is_news_key, news_file_key
from sitemap_updater.sites import Sites
from sitemap_updater.store.items import live_item, tombstone_item
from sitemap_updater.store.keys import url_hash
from tests.helpers.xsd import assert_valid_urlset

SITE = Site.parse("https://www.example.com")
NOW = datetime(2026, 11, 20, 12, tzinfo=UTC).timestamp()


def article(n: int, date: str = "2026-11-20T11:00:00Z") -> Page:
    return Page(
        url=f"https://www.example.com/a/{n}", news=News(Publication("T", "en"), date, f"#{n}")
    )


def desk(now: float = NOW, max_bytes: int = 10_000_000, *, stylesheet: bool = True) -> NewsDesk:
    return NewsDesk(
        Sites((SITE,)), window_hours=48, now=now, max_bytes=max_bytes, stylesheet=stylesheet
    )


def test_more_than_1000_articles_are_split_over_numbered_files() -> None:
    news = desk()
    news.apply({url_hash(e.url): live_item(e, "e", "d") for e in map(article, range(2_001))})

    files = news.render()

    assert [f.key for f in files] == [news_file_key(n) for n in (1, 2, 3)]
    assert [f.url_count for f in files] == [1_000, 1_000, 1]
    locs = [loc for f in files for loc in assert_valid_urlset(f.body)]
    assert len(set(locs)) == 2_001
    assert [url_hash(loc) for loc in locs] == sorted(url_hash(loc) for loc in locs)


def test_a_removed_article_keeps_the_file_names_and_the_last_file_goes() -> None:
    first = desk()
    pages = list(map(article, range(1_001)))
    first.apply({url_hash(e.url): live_item(e, "e", "d") for e in pages})
    published = {f.key: f.body for f in first.render()}
    assert list(published) == ["sitemap-news-1.xml.gz", "sitemap-news-2.xml.gz"]

    second = desk()
    for key, body in published.items():
        second.load(key, body)
    gone = pages[7]
    second.apply({url_hash(gone.url): tombstone_item(gone.url, "e", "d", 1)})

    assert [f.key for f in second.render()] == ["sitemap-news-1.xml.gz"]
    assert second.published.keys() == published.keys()


def test_the_byte_cap_splits_a_file_before_1000_articles() -> None:
    news = desk(max_bytes=2_000)
    news.apply({url_hash(e.url): live_item(e, "e", "d") for e in map(article, range(20))})
    files = news.render()
    assert len(files) > 1
    assert all(len(gzip.decompress(f.body)) <= 2_000 for f in files)
    assert sum(f.url_count for f in files) == 20


def test_the_window_is_the_clock_minus_the_hours() -> None:
    news = desk()
    edge = article(1, "2026-11-18T12:00:00Z")  # exactly 48 hours before the clock
    past = article(2, "2026-11-18T11:59:59Z")
    news.apply({url_hash(e.url): live_item(e, "e", "d") for e in (edge, past)})
    (only,) = news.render()
    assert assert_valid_urlset(only.body) == [edge.url]


def test_news_keys_are_recognized() -> None:
    assert is_news_key(news_file_key(12))
    assert not is_news_key("sitemap-r01.xml.gz")


@pytest.mark.parametrize(("before", "now"), [(False, True), (True, False), (True, True)])
def test_news_files_follow_the_stylesheet_setting_whatever_was_published(
    before: bool, now: bool
) -> None:
    pages = list(map(article, range(5)))
    first = desk(stylesheet=before)
    first.apply({url_hash(e.url): live_item(e, "e", "d") for e in pages})
    [published] = first.render()
    second = desk(stylesheet=now)
    second.load(published.key, published.body)
    [again] = second.render()
    assert assert_valid_urlset(again.body) == assert_valid_urlset(published.body)
    assert (STYLESHEET_INSTRUCTION.encode() in gzip.decompress(again.body)) is now
    assert (again.body == published.body) is (before == now)


def test_an_article_alone_over_the_byte_cap_is_left_out_and_named() -> None:
    news = desk(max_bytes=1024)
    big = msgspec.structs.replace(article(1), url="https://www.example.com/" + "b" * 1500)
    news.apply({url_hash(big.url): live_item(big, "e", "d")})
    assert news.render() == []
    assert news.skipped[0].startswith(big.url)
