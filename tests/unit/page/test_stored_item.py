"""The stored item of a page (``store.items``): the page's plain form beside the item's own
attributes, read back as the same page; an item written before 0.1.0 (its URL as ``loc``, images
as their URLs, a flat news article, the old video fields) reads back as the page it recorded;
and its size measured by DynamoDB's published rules."""

from __future__ import annotations

from typing import Any

import pytest

from sitemap_updater.page.order import event_key, page_digest
from sitemap_updater.page.render import url_element
from sitemap_updater.protocol.urls import Site
from sitemap_updater.store.items import (
    has_news,
    is_live,
    item_size,
    live_item,
    page_of_item,
    plain,
    section_of_item,
    to_attribute,
    tombstone_item,
    url_of,
    value_size,
)
from sitemap_updater.store.keys import key_attributes, url_hash, url_key
from tests.helpers.pages import NOW, make_page

SITE = Site.parse("https://www.example.com")
URL = "https://www.example.com/story/1"
VIDEO = {
    "thumbnail_loc": "https://cdn.example.net/t.jpg",
    "title": "T & t",
    "description": "D",
    "content_loc": "https://cdn.example.net/v.mp4",
    "duration": 600,
    "tag": ["a", "b"],
    "family_friendly": True,
    "restriction": {"relationship": "deny", "countries": ["GB", "IE"]},
    "uploader": {"name": "Me", "info": "https://www.example.com/me"},
    "platform": {"relationship": "allow", "platforms": ["web", "tv"]},
    "live": False,
}
NEWS = {
    "publication": {"name": "The Paper", "language": "en"},
    "publication_date": "2026-11-20T10:00:00Z",
    "title": "A & B",
}
FIELDS: dict[str, Any] = {
    "url": URL,
    "lastmod": "2026-11-19T09:00:00Z",
    "changefreq": "daily",
    "priority": 0.5,
    "alternates": [{"hreflang": "de", "href": "https://www.example.com/de/story/1"}],
    "images": [{"loc": "https://cdn.example.net/1.jpg"}, {"loc": "https://cdn.example.net/2.jpg"}],
    "videos": [VIDEO],
    "news": NEWS,
}


def _key(page: Any) -> tuple[str, str]:
    digest = page_digest(page, "stories")
    return event_key(NOW, "upsert", digest), digest


def test_a_live_item_reads_back_as_its_page() -> None:
    page = make_page(SITE, **FIELDS)
    key, digest = _key(page)
    item = live_item(page, key, digest, "stories")
    assert page_of_item(item) == page
    assert (url_of(item), section_of_item(item), is_live(item), has_news(item)) == (
        URL,
        "stories",
        True,
        True,
    )
    assert item["ev"] == {"S": key} and item["digest"] == {"S": digest}
    assert item["sk"] == {"S": url_hash(URL)}


def test_an_absent_field_is_left_out_of_the_item() -> None:
    page = make_page(SITE, url=URL)
    item = live_item(page, *_key(page))
    assert {
        "lastmod",
        "changefreq",
        "priority",
        "alternates",
        "images",
        "videos",
        "news",
    }.isdisjoint(item)
    assert section_of_item(item) is None and not has_news(item)
    assert page_of_item(item) == page


def test_a_tombstone_holds_the_url_alone() -> None:
    item = tombstone_item(URL, "k", "d", 1_800_000_000)
    assert url_of(item) == URL
    assert not is_live(item)
    assert item["ttl"] == {"N": "1800000000"}


@pytest.mark.parametrize(
    "value", ["x", "", True, False, 0, 600, 0.5, 1.0, [], ["a", 1], {"a": {"b": [0.1]}}]
)
def test_a_plain_value_survives_its_attribute_form(value: object) -> None:
    assert plain(to_attribute(value)) == value
    assert type(plain(to_attribute(value))) is type(value)


def test_an_unstorable_value_is_refused() -> None:
    with pytest.raises(TypeError):
        to_attribute(None)


def _pre_0_1_0_item() -> dict[str, Any]:
    """The item the writer before 0.1.0 stored for :data:`FIELDS`: the URL as ``loc``, each
    image as its URL, the news article's publication flattened into it, and a video's tags,
    uploader and restrictions in the fields of that writer."""
    item: dict[str, Any] = key_attributes(url_key(url_hash(URL)))
    item.update(
        {
            "loc": {"S": URL},
            "st": {"S": "live"},
            "ev": {"S": "20261120T120000.000000Z#0#" + "0" * 64},
            "digest": {"S": "0" * 64},
            "wt": {"N": "1795176000000"},
            "sec": {"S": "stories"},
            "lastmod": {"S": "2026-11-19T09:00:00Z"},
            "changefreq": {"S": "daily"},
            "priority": {"N": "0.5"},
            "alternates": to_attribute(FIELDS["alternates"]),
            "images": {"L": [{"S": image["loc"]} for image in FIELDS["images"]]},
            "news": to_attribute(
                {
                    "name": "The Paper",
                    "language": "en",
                    "publication_date": "2026-11-20T10:00:00Z",
                    "title": "A & B",
                }
            ),
            "videos": to_attribute(
                [
                    {
                        "thumbnail_loc": VIDEO["thumbnail_loc"],
                        "title": VIDEO["title"],
                        "description": VIDEO["description"],
                        "content_loc": VIDEO["content_loc"],
                        "duration": 600,
                        "tags": ["a", "b"],
                        "family_friendly": True,
                        "restriction": {"relationship": "deny", "values": ["GB", "IE"]},
                        "uploader": "Me",
                        "uploader_info": "https://www.example.com/me",
                        "platform": {"relationship": "allow", "values": ["web", "tv"]},
                        "live": False,
                    }
                ]
            ),
        }
    )
    return item


def test_an_item_written_before_0_1_0_reads_back_as_the_same_page() -> None:
    old = _pre_0_1_0_item()
    page = page_of_item(old)
    assert page == make_page(SITE, **FIELDS)
    assert (url_of(old), section_of_item(old), is_live(old), has_news(old)) == (
        URL,
        "stories",
        True,
        True,
    )
    # rendered as the page judged today, and stored again in today's form
    assert url_element(page) == url_element(make_page(SITE, **FIELDS))
    again = live_item(page, old["ev"]["S"], old["digest"]["S"], "stories")
    assert "loc" not in again and again["url"] == {"S": URL}
    assert page_of_item(again) == page


def test_a_plain_item_written_before_0_1_0_reads_back_too() -> None:
    old = {**key_attributes(url_key(url_hash(URL))), "loc": {"S": URL}, "st": {"S": "live"}}
    assert page_of_item(old) == make_page(SITE, url=URL)
    uploader_alone = _pre_0_1_0_item()
    (video,) = uploader_alone["videos"]["L"]
    del video["M"]["uploader_info"]
    (read,) = page_of_item(uploader_alone).videos
    assert read.uploader is not None and (read.uploader.name, read.uploader.info) == ("Me", None)


@pytest.mark.parametrize(
    ("value", "size"),
    [
        ({"S": "abc"}, 3),
        ({"S": "é"}, 2),  # UTF-8 bytes
        ({"N": "123"}, 3),  # one byte per two significant digits, plus one
        ({"N": "600"}, 2),  # leading and trailing zeros are trimmed
        ({"N": "0.5"}, 2),
        ({"N": "-12345"}, 4),
        ({"BOOL": True}, 1),
        ({"NULL": True}, 1),
        ({"L": []}, 3),
        ({"L": [{"S": "ab"}, {"S": "c"}]}, 3 + (1 + 2) + (1 + 1)),
        ({"M": {"ab": {"S": "c"}}}, 3 + 1 + 2 + 1),
    ],
)
def test_a_value_s_size_follows_dynamodb_s_rules(value: dict[str, Any], size: int) -> None:
    assert value_size(value) == size


def test_an_item_s_size_counts_every_name_and_value() -> None:
    page = make_page(SITE, **FIELDS)
    item = live_item(page, *_key(page))
    assert item_size(item) == sum(len(name) + value_size(v) for name, v in item.items())
    bigger = make_page(SITE, **{**FIELDS, "images": [*FIELDS["images"], {"loc": URL + ".jpg"}]})
    assert item_size(live_item(bigger, *_key(bigger))) > item_size(item)
