"""Media hosts: with hosts set, every image and video URL of a page must be on the site's host
or one of them; ``*`` (no set) takes any host."""

from __future__ import annotations

from typing import Any

import pytest

from sitemap_updater.config import ConfigError, IngestConfig
from sitemap_updater.ingest.judge import Change
from sitemap_updater.ingest.rejection import Rejection
from sitemap_updater.protocol.urls import Site
from sitemap_updater.sites import media_hosts_of
from tests.helpers.pages import judge_sent

ORIGIN = "https://www.example.com"
SITE = Site.parse(ORIGIN, media_hosts_of("cdn.example.net"))


def judged(site: Site, **fields: Any) -> Change | Rejection:
    return judge_sent(site, {"action": "upsert", "url": ORIGIN + "/a", **fields})


def video(**urls: str) -> dict[str, str]:
    return {
        "thumbnail_loc": "https://cdn.example.net/t.jpg",
        "title": "t",
        "description": "d",
        "content_loc": "https://cdn.example.net/v.mp4",
        **urls,
    }


def test_media_on_the_site_or_a_media_host_are_taken() -> None:
    change = judged(
        SITE,
        images=[
            {"loc": "https://CDN.example.net/a.jpg"},
            {"loc": ORIGIN + ":8443/b.jpg"},
            {"loc": "https://cdn.example.net/no-extension"},
        ],
        videos=[video(player_loc=ORIGIN + "/player")],
    )
    assert isinstance(change, Change) and change.page is not None
    assert [image.loc for image in change.page.images] == [
        "https://cdn.example.net/a.jpg",
        ORIGIN + ":8443/b.jpg",
        "https://cdn.example.net/no-extension",
    ]


@pytest.mark.parametrize(
    ("fields", "field", "value"),
    [
        (
            {"images": [{"loc": ORIGIN + "/ok.jpg"}, {"loc": "https://evil.example.org/x.jpg"}]},
            "images[1].loc",
            "https://evil.example.org/x.jpg",
        ),
        (
            {"videos": [video(thumbnail_loc="https://evil.example.org/t.jpg")]},
            "videos[0].thumbnail_loc",
            "https://evil.example.org/t.jpg",
        ),
        (
            {"videos": [video(), video(content_loc="https://cdn.example.net.evil.org/v.mp4")]},
            "videos[1].content_loc",
            "https://cdn.example.net.evil.org/v.mp4",
        ),
        (
            {"videos": [video(player_loc="https://evil.example.org/p")]},
            "videos[0].player_loc",
            "https://evil.example.org/p",
        ),
    ],
    ids=["image", "thumbnail", "content-lookalike", "player"],
)
def test_media_elsewhere_are_refused_naming_field_value_and_hosts(
    fields: dict[str, object], field: str, value: str
) -> None:
    rejection = judged(SITE, **fields)
    assert isinstance(rejection, Rejection)
    assert (rejection.field, rejection.value) == (field, value)
    assert rejection.rule == (
        "must be on the site's host or a media host (MEDIA_HOSTS): cdn.example.net, www.example.com"
    )


def test_no_media_hosts_means_the_site_host_alone_and_star_means_any() -> None:
    alone = Site.parse(ORIGIN, media_hosts_of(""))
    refused = judged(alone, images=[{"loc": "https://cdn.example.net/a.jpg"}])
    assert isinstance(refused, Rejection)
    assert (
        refused.rule == "must be on the site's host or a media host (MEDIA_HOSTS): www.example.com"
    )
    anywhere = Site.parse(ORIGIN, media_hosts_of("*"))
    change = judged(anywhere, images=[{"loc": "https://e.example/a.jpg"}])
    assert isinstance(change, Change) and change.page is not None
    assert change.page.images[0].loc == "https://e.example/a.jpg"


REQUIRED = {"TABLE_NAME": "t", "SITE_URL": ORIGIN, "DLQ_URL": "q"}


def test_the_setting_is_read_from_media_hosts() -> None:
    assert IngestConfig.from_env(REQUIRED).media_hosts is None
    config = IngestConfig.from_env({**REQUIRED, "MEDIA_HOSTS": " CDN.Example.net ,bücher.example"})
    assert config.media_hosts == frozenset({"cdn.example.net", "xn--bcher-kva.example"})
    assert IngestConfig.from_env({**REQUIRED, "MEDIA_HOSTS": ""}).media_hosts == frozenset()
    with pytest.raises(ConfigError, match=r"MEDIA_HOSTS='cdn\.example\.net/x'.*host name alone"):
        IngestConfig.from_env({**REQUIRED, "MEDIA_HOSTS": "cdn.example.net/x"})
