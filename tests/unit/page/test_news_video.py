"""The news and video extensions (``page.normalize``): normalized values, and the rule each bad
value breaks, named by its field."""

from __future__ import annotations

from typing import Any

import pytest

from sitemap_updater.ingest.judge import Change
from sitemap_updater.ingest.rejection import MISSING, Rejection
from sitemap_updater.page.model import (
    DEPRECATED_NEWS_TAGS,
    DEPRECATED_VIDEO_TAGS,
    News,
    Platform,
    Publication,
    Restriction,
    Uploader,
    Video,
)
from sitemap_updater.protocol.limits import (
    MAX_NEWS_TITLE_LENGTH,
    MAX_VIDEO_DESCRIPTION_LENGTH,
    MAX_VIDEO_DURATION,
    MAX_VIDEO_TAGS,
    MAX_VIDEO_UPLOADER_LENGTH,
    MAX_VIDEOS_PER_URL,
)
from sitemap_updater.protocol.urls import Site
from tests.helpers.pages import NOW, judge_sent

SITE = Site.parse("https://www.example.com")
U = "https://www.example.com/story"


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


def judged(**fields: Any) -> Change | Rejection:
    return judge_sent(SITE, {"action": "upsert", "url": U, **fields}, now=NOW)


def test_news_is_normalized() -> None:
    change = judged(
        news=news(
            publication={"name": "A & B", "language": "ZH-TW"},
            publication_date="2026-11-20T12:30+02:00",
        )
    )
    assert isinstance(change, Change) and change.page is not None
    assert change.page.news == News(Publication("A & B", "zh-tw"), "2026-11-20T10:30:00Z", "Title")


@pytest.mark.parametrize(
    ("value", "field", "rule"),
    [
        (news(title=""), "news.title", "must have at least 1 character"),
        (news(title=" \u200b"), "news.title", "must not be empty or blank"),
        (news(title="x" * (MAX_NEWS_TITLE_LENGTH + 1)), "news.title", "at most 1024 characters"),
        (news(title="a\x0bb"), "news.title", "U+000B at index 1 is not allowed in XML 1.0"),
        (news(title="a\u202eb"), "news.title", "bidi embeddings, overrides or isolates"),
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
        (news(publication_date="2026-11-21T12:00:01Z"), "news.publication_date", "future"),
        ({"publication": {"name": "N", "language": "en"}}, "news.publication_date", "required"),
        ("breaking", "news", "must be an object"),
    ],
)
def test_a_bad_news_value_names_its_field_and_rule(value: object, field: str, rule: str) -> None:
    rejection = judged(news=value)
    assert isinstance(rejection, Rejection)
    assert rejection.field == field
    assert rule in rejection.rule


@pytest.mark.parametrize("tag", DEPRECATED_NEWS_TAGS)
def test_a_deprecated_news_tag_is_refused_by_name(tag: str) -> None:
    rejection = judged(news=news(**{tag: "Blog"}))
    assert isinstance(rejection, Rejection)
    assert (rejection.field, rejection.value) == (f"news.{tag}", "Blog")
    assert "deprecated" in rejection.rule


def test_a_marked_right_to_left_title_is_kept() -> None:
    # the marks U+200E and U+200F are what right-to-left text needs; only the controls that
    # reorder what surrounds them are refused
    change = judged(news=news(title="\u05e9\u05dc\u05d5\u05dd\u200f 2026"))
    assert isinstance(change, Change) and change.page is not None and change.page.news
    assert change.page.news.title == "\u05e9\u05dc\u05d5\u05dd\u200f 2026"


def test_video_is_normalized() -> None:
    change = judged(
        videos=[
            video(
                content_loc="https://CDN.example.net/a b.mp4",
                expiration_date="2099-01-01",
                restriction={"relationship": "deny", "countries": ["gb", "IE", "GB"]},
                platform={"relationship": "allow", "platforms": ["web", "tv", "web"]},
                uploader={"name": "Me", "info": "https://www.example.com/me"},
                tag=["a", "b"],
                live=False,
            )
        ]
    )
    assert isinstance(change, Change) and change.page is not None
    assert change.page.videos == (
        Video(
            thumbnail_loc="https://cdn.example.net/t.jpg",
            title="T",
            description="D",
            content_loc="https://cdn.example.net/a%20b.mp4",
            expiration_date="2099-01-01",
            tag=("a", "b"),
            restriction=Restriction("deny", ("GB", "IE")),
            uploader=Uploader("Me", "https://www.example.com/me"),
            platform=Platform("allow", ("web", "tv")),
            live=False,
        ),
    )


@pytest.mark.parametrize(
    ("value", "field", "rule"),
    [
        (
            video(description="d" * (MAX_VIDEO_DESCRIPTION_LENGTH + 1)),
            "videos[0].description",
            "at most 2048 characters",
        ),
        (video(duration=0), "videos[0].duration", "must be at least 1"),
        (video(duration=MAX_VIDEO_DURATION + 1), "videos[0].duration", "must be at most 28800"),
        (video(duration=True), "videos[0].duration", "must be an integer (not true or false)"),
        (video(tag=["t"] * (MAX_VIDEO_TAGS + 1)), "videos[0].tag", "at most 32 items"),
        (video(tag=[""]), "videos[0].tag[0]", "must have at least 1 character"),
        (video(tag=["ok", "\x07"]), "videos[0].tag[1]", "U+0007"),
        (video(title=" "), "videos[0].title", "must not be empty or blank"),
        (video(content_loc=None), "videos[0]", "content_loc or player_loc"),
        (video(player_loc=U), "videos[0].player_loc", "page's own URL"),
        (video(content_loc=U + "#t=1"), "videos[0].content_loc", "page's own URL"),
        (video(thumbnail_loc="ftp://x.example/t"), "videos[0].thumbnail_loc", "scheme 'ftp'"),
        (video(family_friendly="yes"), "videos[0].family_friendly", "must be true or false"),
        (
            video(uploader={"name": "u" * (MAX_VIDEO_UPLOADER_LENGTH + 1)}),
            "videos[0].uploader.name",
            "at most 255 characters",
        ),
        (
            video(uploader={"name": "u", "info": "about"}),
            "videos[0].uploader.info",
            "absolute http or https URL",
        ),
        (
            video(restriction={"relationship": "block", "countries": ["GB"]}),
            "videos[0].restriction.relationship",
            "must be one of allow, deny",
        ),
        (
            video(restriction={"relationship": "deny", "countries": ["GBR"]}),
            "videos[0].restriction.countries[0]",
            "ISO 3166 two-letter country code",
        ),
        (
            video(restriction={"relationship": "deny", "countries": []}),
            "videos[0].restriction.countries",
            "must have at least 1 item",
        ),
        (
            video(platform={"relationship": "allow", "platforms": ["console"]}),
            "videos[0].platform.platforms[0]",
            "must be one of mobile, tv, web",
        ),
        (video(publication_date="2027-01-01"), "videos[0].publication_date", "future"),
        (video(expiration_date="2099-01-01T00:00"), "videos[0].expiration_date", "time zone"),
        ({"title": "T", "description": "D"}, "videos[0].thumbnail_loc", "is required"),
    ],
)
def test_a_bad_video_value_names_its_field_and_rule(value: object, field: str, rule: str) -> None:
    alone = judged(videos=[value])
    assert isinstance(alone, Rejection), alone
    assert alone.field == field
    assert rule in alone.rule
    # after a good video, the bad one is named at its own place
    second = judged(videos=[video(), value])
    assert isinstance(second, Rejection)
    assert second.field == "videos[1]" + field.removeprefix("videos[0]")


def test_a_missing_field_is_named_with_the_missing_value() -> None:
    rejection = judged(videos=[{"title": "T", "description": "D"}])
    assert isinstance(rejection, Rejection)
    assert (rejection.field, rejection.value) == ("videos[0].thumbnail_loc", MISSING)


@pytest.mark.parametrize("tag", DEPRECATED_VIDEO_TAGS)
def test_a_deprecated_video_tag_is_refused_by_name(tag: str) -> None:
    rejection = judged(videos=[video(**{tag: "yes"})])
    assert isinstance(rejection, Rejection)
    assert (rejection.field, rejection.value) == (f"videos[0].{tag}", "yes")
    assert "deprecated" in rejection.rule


def test_at_most_100_videos() -> None:
    rejection = judged(videos=[video()] * (MAX_VIDEOS_PER_URL + 1))
    assert isinstance(rejection, Rejection)
    assert (rejection.field, rejection.rule) == ("videos", "must have at most 100 items")
    change = judged(videos=[video()] * MAX_VIDEOS_PER_URL)
    assert isinstance(change, Change) and change.page is not None
    assert len(change.page.videos) == MAX_VIDEOS_PER_URL


def test_a_bound_of_one_is_named_in_the_singular() -> None:
    rejection = judged(news=news(title=""))
    assert isinstance(rejection, Rejection)
    assert rejection.rule == "must have at least 1 character"
    restricted = judged(videos=[video(restriction={"relationship": "deny", "countries": []})])
    assert isinstance(restricted, Rejection)
    assert restricted.rule == "must have at least 1 item"


@pytest.mark.parametrize(
    "extra",
    [
        {"duration": 1},
        {"duration": MAX_VIDEO_DURATION},
        {"tag": ["t" * 256] * MAX_VIDEO_TAGS},
        {"description": "d" * MAX_VIDEO_DESCRIPTION_LENGTH},
        {"uploader": {"name": "u" * MAX_VIDEO_UPLOADER_LENGTH}},
        {"publication_date": "2026-11-21T12:00:00Z"},  # a day ahead of the clock, no more
        {"expiration_date": "2999-12-31"},  # an expiration may lie far ahead
    ],
    ids=lambda extra: next(iter(extra)),
)
def test_a_video_value_at_its_bound_is_taken(extra: dict[str, Any]) -> None:
    change = judged(videos=[video(**extra)])
    assert isinstance(change, Change), change


def test_a_news_title_at_its_bound_is_taken() -> None:
    change = judged(news=news(title="t" * MAX_NEWS_TITLE_LENGTH))
    assert isinstance(change, Change), change
