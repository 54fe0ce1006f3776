"""``build`` and ``backfill`` of sitemaps with elements search engines would read as wrong: the
bad alternate, video or news object is left out with one warning line naming file, line,
field, value and rule; the page is kept, and a repeated image is listed once."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest
from lxml import etree

from sitemap_updater_local.cli import main
from tests.integration.cli.support import SITE, published

NAMESPACES = (
    'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
    'xmlns:xhtml="http://www.w3.org/1999/xhtml" '
    'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
    'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9" '
    'xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"'
)
NS = {
    "sm": "http://www.sitemaps.org/schemas/sitemap/0.9",
    "xhtml": "http://www.w3.org/1999/xhtml",
    "image": "http://www.google.com/schemas/sitemap-image/1.1",
    "video": "http://www.google.com/schemas/sitemap-video/1.1",
}


def _news(name: str, title: str) -> str:
    return (
        "<news:news><news:publication>"
        f"<news:name>{name}</news:name><news:language>en</news:language>"
        "</news:publication><news:publication_date>2026-11-26</news:publication_date>"
        f"<news:title>{title}</news:title></news:news>"
    )


def _video(title: str, description: str = "The workshop") -> str:
    return (
        f"<video:video><video:thumbnail_loc>{SITE}/t.jpg</video:thumbnail_loc>"
        f"<video:title>{title}</video:title><video:description>{description}"
        f"</video:description><video:content_loc>{SITE}/v.mp4</video:content_loc></video:video>"
    )


#: (the <url> of a page, one a line; the warning its line gets: field, value, rule, or None)
PAGES = [
    (
        f"<url><loc>{SITE}/shoes</loc>"
        f'<xhtml:link rel="alternate" hreflang="en" href="{SITE}/shoes"/>'
        f'<xhtml:link rel="alternate" hreflang="EN" href="{SITE}/shoes-uk"/>'
        f'<xhtml:link rel="alternate" hreflang="de" href="{SITE}/schuhe"/>'
        + f"<image:image><image:loc>{SITE}/a.jpg</image:loc></image:image>" * 3
        + "</url>",
        ("alternates[1].hreflang", "'EN'", "must name a language once"),
    ),
    (
        f"<url><loc>{SITE}/news/blank-name</loc>{_news('&#x200B;', 'Shoes')}</url>",
        ("news.publication.name", "'\\u200b'", "must not be empty or blank"),
    ),
    (
        f"<url><loc>{SITE}/news/reversed</loc>{_news('Times', '&#x202E;sinned')}</url>",
        ("news.title", "'\\u202esinned'", "bidi"),
    ),
    (
        f"<url><loc>{SITE}/video/blank</loc>{_video('&#x200B;&#x2060;')}</url>",
        ("videos[0].title", "'\\u200b\\u2060'", "must not be empty or blank"),
    ),
    (
        f"<url><loc>{SITE}/video/isolate</loc>{_video('Made', 'a&#x2067;b')}</url>",
        ("videos[0].description", "'a\\u2067b'", "U+2067"),
    ),
    (
        f"<url><loc>{SITE}/video/rtl</loc>{_video('&#x5e0;&#x200F; (2026)')}</url>",
        None,
    ),
]


def write_sitemap(path: Path, pages: list[str]) -> Path:
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', f"<urlset {NAMESPACES}>", *pages]
    path.write_text("\n".join([*lines, "</urlset>"]) + "\n", encoding="utf-8")
    return path


def assert_warnings(err: str, source: Path) -> None:
    warnings = [line for line in err.splitlines() if ": warning: " in line]
    expected = [(n, want) for n, (_, want) in enumerate(PAGES, 3) if want is not None]
    assert len(warnings) == len(expected)
    for line, (number, (field, value, rule)) in zip(warnings, expected, strict=True):
        assert line.startswith(f"{source}:{number}: warning: {field}: {value} is invalid: ")
        assert rule in line and line.endswith("left out, the page is kept")
    assert f"{len(expected)} invalid element(s) or field(s) left out, their pages kept" in err


def test_build_leaves_out_the_bad_element_and_keeps_the_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write_sitemap(tmp_path / "in.xml", [url for url, _ in PAGES])
    out = tmp_path / "out"

    code = main(["build", "--from", str(source), "--site", SITE, "--out", str(out)])

    err = capsys.readouterr().err
    assert code == 0
    assert_warnings(err, source)
    ((name, locs),) = published(out).items()
    assert sorted(locs) == sorted(re.findall("<loc>(.*?)</loc>", "".join(u for u, _ in PAGES)))
    root = etree.fromstring(gzip.decompress((out / name).read_bytes()))
    shoes = root.xpath("sm:url[sm:loc='https://www.example.com/shoes']", namespaces=NS)[0]
    links = shoes.xpath("xhtml:link/@hreflang", namespaces=NS)
    assert links == ["en", "de"]
    assert shoes.xpath("image:image/image:loc/text()", namespaces=NS) == [f"{SITE}/a.jpg"]
    titles = root.xpath("//video:title/text()", namespaces=NS)
    assert titles == ["\u05e0\u200f (2026)"]  # the right-to-left mark is kept


def test_backfill_writes_each_page_without_its_bad_element(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write_sitemap(tmp_path / "in.xml", [url for url, _ in PAGES])
    out = tmp_path / "changes.jsonl"

    code = main(["backfill", "--from", str(source), "--out", str(out), "--no-progress"])

    err = capsys.readouterr().err
    assert code == 0
    assert [line for line in err.splitlines() if ": warning: " in line]
    changes = {c["url"]: c for c in map(json.loads, out.read_text().splitlines())}
    assert len(changes) == len(PAGES)
    shoes = changes[f"{SITE}/shoes"]
    assert [a["hreflang"] for a in shoes["alternates"]] == ["en", "de"]
    assert shoes["images"] == [{"loc": f"{SITE}/a.jpg"}]
    assert "news" not in changes[f"{SITE}/news/blank-name"]
    assert "news" not in changes[f"{SITE}/news/reversed"]
    assert "videos" not in changes[f"{SITE}/video/isolate"]
    assert changes[f"{SITE}/video/rtl"]["videos"][0]["title"] == "\u05e0\u200f (2026)"


def test_a_lastmod_before_1970_is_left_out_and_the_page_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = f"<url><loc>{SITE}/old</loc><lastmod>0001-01-01</lastmod></url>"
    source = write_sitemap(tmp_path / "in.xml", [page, f"<url><loc>{SITE}/new</loc></url>"])

    code = main(["build", "--from", str(source), "--site", SITE, "--out", str(tmp_path / "o")])

    err = capsys.readouterr().err
    assert code == 0
    assert (
        f"{source}:3: warning: lastmod: '0001-01-01' is invalid: must not be before 1970-01-01"
        in err
    )
    assert sorted(*published(tmp_path / "o").values()) == [f"{SITE}/new", f"{SITE}/old"]

    strict = ["--strict-fields", "--out", str(tmp_path / "s")]
    code = main(["build", "--from", str(source), "--site", SITE, *strict])

    err = capsys.readouterr().err
    assert code == 1
    assert f"{source}:3: lastmod: '0001-01-01' is invalid: must not be before 1970-01-01" in err
    assert [locs for locs in published(tmp_path / "s").values()] == [[f"{SITE}/new"]]
