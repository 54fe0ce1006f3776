"""With media hosts set, a change whose images and videos live on any kind of host is either
taken with every media URL on the site's host or a media host, or refused naming a media field;
and a change is refused for a host only when one of its media URLs is on another host."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from sitemap_updater.ingest.judge import Change, judge_message
from sitemap_updater.ingest.rejection import Rejection
from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.protocol.urls import Site, host_of, normalize_url
from sitemap_updater.sites import sites_of
from tests.property.strategies import NOW, SETTINGS, SITE, url_tail, urls

MEDIA_SITE = sites_of(Site.parse(SITE.origin, frozenset({"cdn.example.net"})))
ALLOWED = {"www.example.com", "cdn.example.net"}
media_urls = (
    urls
    | url_tail.map(lambda t: "https://evil.example.org/" + t)
    | st.sampled_from(["https://CDN.example.net/a.jpg", "https://www.example.com:8443/b.jpg"])
)


@st.composite
def media_changes(draw: st.DrawFn) -> dict[str, Any]:
    obj: dict[str, Any] = {"action": "upsert", "url": SITE.root_url + draw(st.sampled_from("ab"))}
    if draw(st.booleans()):
        obj["images"] = draw(st.lists(st.fixed_dictionaries({"loc": media_urls}), max_size=3))
    if draw(st.booleans()):
        obj["videos"] = draw(
            st.lists(
                st.fixed_dictionaries(
                    {
                        "thumbnail_loc": media_urls,
                        "title": st.just("t"),
                        "description": st.just("d"),
                        "content_loc": media_urls,
                    },
                    optional={"player_loc": media_urls},
                ),
                max_size=2,
            )
        )
    return obj


def _media(obj: dict[str, Any]) -> list[str]:
    """Every media URL a change names, as sent."""
    return [image["loc"] for image in obj.get("images", ())] + [
        video[name]
        for video in obj.get("videos", ())
        for name in ("thumbnail_loc", "content_loc", "player_loc")
        if name in video
    ]


def _host_allowed(url: str) -> bool:
    try:
        return host_of(normalize_url(url)) in ALLOWED
    except SitemapError:
        return True  # not a URL: refused for that, not for its host


@SETTINGS
@given(media_changes())
def test_media_are_kept_on_the_allowed_hosts_or_the_change_is_refused(obj: dict[str, Any]) -> None:
    body = json.dumps(obj)
    (judged,) = judge_message(
        body, sent_at=NOW - timedelta(seconds=1), sites=MEDIA_SITE, now=NOW
    ).items
    if isinstance(judged, Change):
        assert judged.page is not None
        kept = [image.loc for image in judged.page.images] + [
            url
            for video in judged.page.videos
            for url in (video.thumbnail_loc, video.content_loc, video.player_loc)
            if url is not None
        ]
        assert {host_of(url) for url in kept} <= ALLOWED
        assert all(_host_allowed(url) for url in _media(obj))
        return
    assert isinstance(judged, Rejection)
    assert judged.field.startswith(("images[", "videos[")), judged
    if "MEDIA_HOSTS" in judged.rule:
        assert not all(_host_allowed(url) for url in _media(obj))
