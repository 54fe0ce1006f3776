"""Rendering a shard: one file when it fits, splits by count and by bytes, refusals named."""

from __future__ import annotations

import gzip

import pytest

from sitemap_updater.page.model import Page
from sitemap_updater.protocol.stylesheet import STYLESHEET_INSTRUCTION
from sitemap_updater.protocol.urls import Site
from sitemap_updater.rebuild.render import render_home, render_shard
from sitemap_updater.store.items import Item, live_item
from sitemap_updater.store.keys import hash_bits, url_hash
from tests.helpers.pages import make_page

SITE = Site.parse("https://www.example.com")


def _items(n: int, host: str = "https://www.example.com") -> list[Item]:
    items = [live_item(Page(url=f"{host}/p/{i}"), "ev", "d") for i in range(n)]
    return sorted(items, key=lambda i: i["sk"]["S"])


def _locs(body: bytes | None) -> int:
    assert body is not None
    return gzip.decompress(body).count(b"<url>")


def test_a_shard_that_fits_gives_one_file_with_every_url() -> None:
    [only] = render_shard("r", _items(5), SITE, max_urls=8, max_bytes=10_000, stylesheet=True)
    assert only.shard_id == "r"
    assert only.url_count == 5 == _locs(only.body)
    assert only.sha256 is not None and len(only.sha256) == 64


def test_the_same_items_give_the_same_bytes() -> None:
    a = render_shard("r", _items(5), SITE, max_urls=8, max_bytes=10_000, stylesheet=True)
    b = render_shard("r", _items(5), SITE, max_urls=8, max_bytes=10_000, stylesheet=True)
    assert [x.body for x in a] == [y.body for y in b]


def test_an_empty_shard_has_no_file() -> None:
    [empty] = render_shard("r01", [], SITE, max_urls=8, max_bytes=10_000, stylesheet=True)
    assert empty.body is None and empty.sha256 is None and empty.url_count == 0


def test_too_many_urls_split_the_shard_so_every_part_is_under_the_cap() -> None:
    items = _items(30)
    parts = render_shard("r", items, SITE, max_urls=8, max_bytes=10_000, stylesheet=True)
    assert len(parts) > 1
    assert sum(p.url_count for p in parts) == 30
    for part in parts:
        assert part.url_count <= 8
        assert part.shard_id.startswith("r") and len(part.shard_id) > 1


def test_too_many_bytes_split_the_shard_by_the_next_hash_bit() -> None:
    items = _items(6)
    [whole] = render_shard("r", items, SITE, max_urls=8, max_bytes=10_000, stylesheet=True)
    parts = render_shard(
        "r", items, SITE, max_urls=8, max_bytes=whole.uncompressed_bytes - 1, stylesheet=True
    )
    assert len(parts) >= 2
    assert sum(p.url_count for p in parts) == 6
    assert all(p.uncompressed_bytes < whole.uncompressed_bytes for p in parts)
    for part in parts:
        assert part.body is None or all(
            hash_bits(url_hash(f"https://www.example.com/p/{i}"), len(part.shard_id) - 1)
            == part.shard_id[1:]
            for i in range(6)
            if f"/p/{i}<".encode() in gzip.decompress(part.body)
        )


def test_a_url_the_writer_refuses_is_left_out_and_named_the_rest_is_published() -> None:
    items = sorted(
        _items(3) + _items(1, host="https://other.example.org"), key=lambda i: i["sk"]["S"]
    )
    [part] = render_shard("r", items, SITE, max_urls=8, max_bytes=10_000, stylesheet=True)
    assert part.url_count == 3
    assert len(part.skipped) == 1
    assert part.skipped[0].startswith("https://other.example.org/p/0: ")


def test_a_url_alone_over_the_byte_cap_is_left_out_and_named() -> None:
    big = live_item(Page(url="https://www.example.com/" + "a" * 1500), "ev", "d")
    parts = render_shard("r", [big], SITE, max_urls=8, max_bytes=1024, stylesheet=True)
    assert [p.body for p in parts] == [None]
    assert parts[0].skipped[0].startswith("https://www.example.com/aaa")


def test_the_empty_site_file_holds_only_the_root_url() -> None:
    xml = gzip.decompress(render_home(SITE, stylesheet=True))
    assert xml.count(b"<url>") == 1
    assert b"<loc>https://www.example.com/</loc>" in xml


@pytest.mark.parametrize("stylesheet", [False, True])
def test_every_file_names_the_stylesheet_as_the_setting_says(stylesheet: bool) -> None:
    parts = render_shard("r", _items(30), SITE, max_urls=8, max_bytes=10_000, stylesheet=stylesheet)
    home = render_home(SITE, stylesheet=stylesheet)
    bodies = [home, *(p.body for p in parts if p.body is not None)]
    instruction = STYLESHEET_INSTRUCTION.encode()
    assert [instruction in gzip.decompress(b) for b in bodies] == [stylesheet] * len(bodies)


def test_the_stylesheet_does_not_move_where_a_shard_splits() -> None:
    items = _items(40)
    [whole] = render_shard("r", items, SITE, max_urls=80, max_bytes=100_000, stylesheet=False)
    for cap in range(whole.uncompressed_bytes // 3, whole.uncompressed_bytes + 80, 7):
        plain, named = (
            render_shard("r", items, SITE, max_urls=80, max_bytes=cap, stylesheet=stylesheet)
            for stylesheet in (False, True)
        )
        assert [(p.shard_id, p.url_count) for p in plain] == [
            (n.shard_id, n.url_count) for n in named
        ]
        assert all(n.uncompressed_bytes <= cap for n in named)


def test_bytes_are_counted_as_utf_8() -> None:
    page = make_page(
        SITE,
        url="https://www.example.com/v",
        videos=[
            {
                "thumbnail_loc": "https://cdn.example.net/ü.jpg",
                "title": "ü€𝄞",
                "description": "日本",
                "player_loc": "https://cdn.example.net/p",
            }
        ],
    )
    [part] = render_shard(
        "r", [live_item(page, "ev", "d")], SITE, max_urls=8, max_bytes=10_000, stylesheet=True
    )
    assert part.body is not None
    assert part.uncompressed_bytes == len(gzip.decompress(part.body))
    assert part.uncompressed_bytes > len(gzip.decompress(part.body).decode())
