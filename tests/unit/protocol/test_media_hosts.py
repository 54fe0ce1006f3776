"""Media hosts: with hosts set, every image and video URL of an entry must be on the site's host
or one of them; ``*`` (no set) takes any host."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from sitemap_updater.config import ConfigError, IngestConfig
from sitemap_updater.ingest.events import decode_body
from sitemap_updater.ingest.judged import ChangeEvent, Rejection
from sitemap_updater.protocol.errors import ForeignHostError
from sitemap_updater.protocol.urls import Site
from sitemap_updater.protocol import make_entry  # GONE
from sitemap_updater.sites import media_hosts_of

ORIGIN = "https://www.example.com"
SITE = Site.parse(ORIGIN, media_hosts_of("cdn.example.net"))
NOW = datetime(2026, 11, 21, 12, tzinfo=UTC)


def video(**urls: str) -> dict[str, str]:
    return {
        "thumbnail_loc": "https://cdn.example.net/t.jpg",
        "title": "t",
        "description": "d",
        "content_loc": "https://cdn.example.net/v.mp4",
        **urls,
    }


def test_media_on_the_site_or_a_media_host_are_taken() -> None:
    entry = make_entry(
        SITE,
        loc=ORIGIN + "/a",
        images=[{"loc": "https://CDN.example.net/a.jpg"}, {"loc": ORIGIN + ":8443/b.jpg"}],
        videos=[video(player_loc=ORIGIN + "/player")],
    )
    assert [image.loc for image in entry.images] == [
        "https://cdn.example.net/a.jpg",
        ORIGIN + ":8443/b.jpg",
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
    with pytest.raises(ForeignHostError) as info:
        make_entry(SITE, loc=ORIGIN + "/a", **fields)  # type: ignore[arg-type]
    assert (info.value.field, info.value.value) == (field, value)
    assert info.value.rule == (
        "must be on the site's host or a media host (MEDIA_HOSTS): cdn.example.net, www.example.com"
    )


def test_no_media_hosts_means_the_site_host_alone_and_star_means_any() -> None:
    alone = Site.parse(ORIGIN, media_hosts_of(""))
    with pytest.raises(ForeignHostError):
        make_entry(alone, loc=ORIGIN + "/a", images=[{"loc": "https://cdn.example.net/a.jpg"}])
    anywhere = Site.parse(ORIGIN, media_hosts_of("*"))
    entry = make_entry(anywhere, loc=ORIGIN + "/a", images=[{"loc": "https://e.example/a.jpg"}])
    assert entry.images[0].loc == "https://e.example/a.jpg"


@pytest.mark.parametrize(
    "images", [["https://evil.example.org/x.jpg"], ["https://cdn.example.net/x"]]
)
def test_the_judge_decides_media_hosts_alike_on_its_fast_path(images: list[str]) -> None:
    body = json.dumps(
        {
            "action": "upsert",
            "url": ORIGIN + "/a",
            "occurred_at": "2026-11-21T11:00:00Z",
            "images": [{"loc": loc} for loc in images],
        }
    )
    (judged,) = decode_body(body, sent_at=NOW, site=SITE, now=NOW).items
    if "evil" in images[0]:
        assert isinstance(judged, Rejection)
        assert (judged.field, judged.value) == ("images[0].loc", images[0])
    else:
        assert isinstance(judged, ChangeEvent)


REQUIRED = {"TABLE_NAME": "t", "SITE_URL": ORIGIN, "DLQ_URL": "q"}


def test_the_setting_is_read_from_media_hosts() -> None:
    assert IngestConfig.from_env(REQUIRED).media_hosts is None
    config = IngestConfig.from_env({**REQUIRED, "MEDIA_HOSTS": " CDN.Example.net ,bücher.example"})
    assert config.media_hosts == frozenset({"cdn.example.net", "xn--bcher-kva.example"})
    assert IngestConfig.from_env({**REQUIRED, "MEDIA_HOSTS": ""}).media_hosts == frozenset()
    with pytest.raises(ConfigError, match=r"MEDIA_HOSTS='cdn\.example\.net/x'.*host name alone"):
        IngestConfig.from_env({**REQUIRED, "MEDIA_HOSTS": "cdn.example.net/x"})
