"""With media hosts set, the judge's two paths agree on changes with images and videos on
every kind of host, and an accepted change's media are all on the site's host or a media host."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from sitemap_updater.ingest.events import careful_decode_body, decode_body
from sitemap_updater.ingest.judged import ChangeEvent
from sitemap_updater.protocol.urls import Site
from sitemap_updater.protocol.urls import host_of
from tests.property.strategies import NOW, SETTINGS, SITE, url_tail, urls

MEDIA_SITE = Site.parse(SITE.origin, frozenset({"cdn.example.net"}))
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


@SETTINGS
@given(media_changes())
def test_both_paths_agree_and_keep_media_on_the_allowed_hosts(obj: dict[str, Any]) -> None:
    body = json.dumps(obj)
    sent_at = NOW - timedelta(seconds=1)
    fast = decode_body(body, sent_at=sent_at, site=MEDIA_SITE, now=NOW)
    careful = careful_decode_body(body, sent_at=sent_at, site=MEDIA_SITE, now=NOW)
    assert fast == careful
    (judged,) = careful.items
    if isinstance(judged, ChangeEvent) and judged.entry is not None:
        entry = judged.entry
        media = [image.loc for image in entry.images] + [
            url
            for video in entry.videos
            for url in (video.thumbnail_loc, video.content_loc, video.player_loc)
            if url is not None
        ]
        assert {host_of(url) for url in media} <= ALLOWED
