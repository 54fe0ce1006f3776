"""The news and video extensions: normalized values, the rule each bad value breaks (named by its
field), and the elements the writer produces (escaped, in the schema's order, XSD-valid)."""

from __future__ import annotations

import gzip
from datetime import UTC, datetime
from typing import Any

import pytest
from lxml import etree

from sitemap_updater.page.model import Page
from sitemap_updater.protocol.urls import Site
from sitemap_updater.protocol import make_entry, render_urlset  # GONE
from sitemap_updater.protocol.errors import (
    ForbiddenCharacterError,
    InvalidNewsError,
    InvalidVideoError,
)
from sitemap_updater.page.model import News, Publication
from sitemap_updater.page.model import Video
from sitemap_updater.protocol.extensions.video import Relationship  # GONE

SITE = Site.parse("https://www.example.com")
NOW = datetime(2026, 11, 20, 12, tzinfo=UTC)
U = "https://www.example.com/story"
VIDEO_NS = "http://www.google.com/schemas/sitemap-video/1.1"
NEWS_NS = "http://www.google.com/schemas/sitemap-news/0.9"


def news(**extra: Any) -> dict[str, Any]:
    return {
        "publication": {"name": "The Example Times", "language": "en"},
        "publication_date": "2026-11-20T10:00:00Z",
        "title": "Title",
        **extra,
    }


def video(**extra: Any) -> dict[str, Any]:
    return {
        "thumbnail_loc": "https://cdn.example.net/t.jpg",
        "title": "T",
        "description": "D",
        "content_loc": "https://cdn.example.net/v.mp4",
        **extra,
    }


def test_news_is_normalized() -> None:
    entry = make_entry(
        SITE,
        loc=U,
        news=news(
            publication={"name": "A & B", "language": "ZH-TW"},
            publication_date="2026-11-20T12:30+02:00",
        ),
        now=NOW,
    )
    assert entry.news == News("A & B", "zh-tw", "2026-11-20T10:30:00Z", "Title")


@pytest.mark.parametrize(
    ("value", "field", "rule"),
    [
        (news(title=""), "news.title", "must not be empty or blank"),
        (news(title="x" * 1025), "news.title", "at most 1,024 characters"),
        (news(title="a\x0bb"), "news.title", "U+000B"),
        (
            news(publication={"name": " ", "language": "en"}),
            "news.publication.name",
            "must not be empty",
        ),
        (
            news(publication={"name": "N", "language": "en-GB"}),
            "news.publication.language",
            "ISO 639",
        ),
        (news(publication_date="2026-11-20T10:00:00"), "news.publication_date", "time zone"),
        (news(publication_date="1969-12-31"), "news.publication_date", "before 1970"),
        (news(publication_date="2026-11-22T12:00:01Z"), "news.publication_date", "future"),
        (news(genres="Blog"), "news.genres", "deprecated"),
        ({"publication": {"name": "N", "language": "en"}}, "news.publication_date", "required"),
        ("breaking", "news", "must be an object"),
    ],
)
def test_a_bad_news_value_names_its_field_and_rule(value: object, field: str, rule: str) -> None:
    with pytest.raises(InvalidNewsError) as caught:
        make_entry(SITE, loc=U, news=value, now=NOW)
    assert caught.value.field == field
    assert rule in caught.value.rule


def test_video_is_normalized() -> None:
    entry = make_entry(
        SITE,
        loc=U,
        videos=[
            video(
                content_loc="https://CDN.example.net/a b.mp4",
                expiration_date="2099-01-01",
                restriction={"relationship": "deny", "countries": ["gb", "IE", "GB"]},
                platform={"relationship": "allow", "platforms": ["WEB", "tv"]},
                uploader={"name": "Me", "info": "https://www.example.com/me"},
                tag=["a", "b"],
                live=False,
            )
        ],
        now=NOW,
    )
    assert entry.videos == (
        Video(
            thumbnail_loc="https://cdn.example.net/t.jpg",
            title="T",
            description="D",
            content_loc="https://cdn.example.net/a%20b.mp4",
            expiration_date="2099-01-01",
            tags=("a", "b"),
            restriction=Relationship("deny", ("GB", "IE")),
            uploader="Me",
            uploader_info="https://www.example.com/me",
            platform=Relationship("allow", ("web", "tv")),
            live=False,
        ),
    )


@pytest.mark.parametrize(
    ("value", "field", "rule"),
    [
        (video(description="d" * 2049), "videos[0].description", "2,048"),
        (video(duration=0), "videos[0].duration", "1 to 28,800"),
        (video(duration=28_801), "videos[0].duration", "1 to 28,800"),
        (video(duration=True), "videos[0].duration", "whole number"),
        (video(tag=["t"] * 33), "videos[0].tag", "at most 32 tags"),
        (video(tag=[""]), "videos[0].tag[0]", "empty"),
        (video(content_loc=None), "videos[0]", "content_loc or player_loc"),
        (video(player_loc=U), "videos[0].player_loc", "page's own URL"),
        (video(thumbnail_loc="ftp://x.example/t"), "videos[0].thumbnail_loc", "http"),
        (video(family_friendly="yes"), "videos[0].family_friendly", "JSON boolean"),
        (video(uploader={"name": "u" * 256}), "videos[0].uploader.name", "255"),
        (
            video(restriction={"relationship": "block", "countries": ["GB"]}),
            "videos[0].restriction.relationship",
            "allow",
        ),
        (
            video(platform={"relationship": "allow", "platforms": ["console"]}),
            "videos[0].platform.platforms[0]",
            "web, mobile, tv",
        ),
        (video(publication_date="2027-01-01"), "videos[0].publication_date", "future"),
        (video(category="cooking"), "videos[0].category", "deprecated"),
        (video(allow_embed="yes"), "videos[0].allow_embed", "deprecated"),
    ],
)
def test_a_bad_video_value_names_its_field_and_rule(value: object, field: str, rule: str) -> None:
    with pytest.raises(InvalidVideoError) as caught:
        make_entry(SITE, loc=U, videos=[value], now=NOW)
    assert caught.value.field == field
    assert rule in caught.value.rule


def test_too_many_videos_are_refused() -> None:
    with pytest.raises(InvalidVideoError, match="at most 100 videos"):
        make_entry(SITE, loc=U, videos=[video()] * 101, now=NOW)


def test_the_writer_escapes_every_text_and_keeps_the_schema_order() -> None:
    entry = make_entry(
        SITE,
        loc=U,
        news=news(title="<b>A & B</b>", publication={"name": 'The "Times"', "language": "en"}),
        videos=[
            video(
                title="x'y",
                description="</video:description><x>",
                player_loc="https://cdn.example.net/p?a=1&b=2",
                duration=600,
                publication_date="2026-11-01",
                tag=["<t>"],
                family_friendly=True,
                uploader={"name": "U & me", "info": "https://www.example.com/me?a=1&b=2"},
                live=True,
            )
        ],
        now=NOW,
    )
    body, _ = render_urlset([entry], SITE)  # the autouse fixture validates it against the XSDs
    root = etree.fromstring(gzip.decompress(body))
    (element,) = root.iter(f"{{{VIDEO_NS}}}video")
    assert [child.tag.split("}")[1] for child in element] == [
        "thumbnail_loc",
        "title",
        "description",
        "content_loc",
        "player_loc",
        "duration",
        "publication_date",
        "tag",
        "family_friendly",
        "uploader",
        "live",
    ]
    assert element.findtext(f"{{{VIDEO_NS}}}description") == "</video:description><x>"
    assert element.findtext(f"{{{VIDEO_NS}}}family_friendly") == "yes"
    uploader = element.find(f"{{{VIDEO_NS}}}uploader")
    assert uploader is not None and uploader.get("info") == "https://www.example.com/me?a=1&b=2"
    assert root.findtext(f".//{{{NEWS_NS}}}title") == "<b>A & B</b>"
    assert root.findtext(f".//{{{NEWS_NS}}}name") == 'The "Times"'


def test_the_writer_refuses_a_stored_value_xml_forbids() -> None:
    bad = Page(url=U, news=News("N", "en", "2026-11-20", "bell\x07"))
    with pytest.raises(ForbiddenCharacterError) as caught:
        render_urlset([bad], SITE)
    assert caught.value.field == "news.title"
    worse = Page(url=U, videos=(Video("https://cdn.example.net/t.jpg", "T", "D"),))
    with pytest.raises(InvalidVideoError, match="content_loc or player_loc"):
        render_urlset([worse], SITE)


def test_blocks_with_and_without_extensions_write_what_add_writes() -> None:
    plain = [Page(url=f"{U}/{i}", lastmod="2026-11-01") for i in range(5)]
    rich = make_entry(SITE, loc=f"{U}/v", videos=[video(tag=["&"])], news=news(), now=NOW)
    entries = [*plain[:2], rich, *plain[2:]]
    many, _ = render_urlset(entries, SITE)
    from io import BytesIO

    from sitemap_updater.protocol import UrlsetWriter  # GONE

    sink = BytesIO()
    with UrlsetWriter(sink, SITE) as writer:
        for entry in entries:
            writer.add(entry)
    assert gzip.decompress(many) == gzip.decompress(sink.getvalue())
