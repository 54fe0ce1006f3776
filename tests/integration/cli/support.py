"""Helpers for the build / send / backfill command tests: sitemap generators, XSD checks and
independent readers (lxml directly, not the code under test)."""

from __future__ import annotations

import gzip
import hashlib
from collections.abc import Iterator
from pathlib import Path

from lxml import etree

from tests.helpers.xsd import assert_valid_index, assert_valid_urlset, xml_bytes

NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}
SITE = "https://www.example.com"


def read_xml(path: Path) -> etree._Element:
    return etree.fromstring(xml_bytes(path.read_bytes()))


def published(out: Path) -> dict[str, list[str]]:
    """Validate the index and every file it lists (XSD); their URLs by file name.

    Also checks that the index lists exactly the sitemap files in ``out``.
    """
    listed = [
        loc.rsplit("/", 1)[-1] for loc in assert_valid_index((out / "sitemap.xml").read_bytes())
    ]
    on_disk = sorted(p.name for p in out.glob("sitemap-*.xml.gz"))
    assert sorted(listed) == on_disk
    return {name: assert_valid_urlset((out / name).read_bytes()) for name in listed}


def hash_bits_of(url: str, n: int) -> str:
    """The first ``n`` bits of a URL's identity hash, computed here from its definition
    (docs/architecture.md: sha256 of the normalized URL, first 128 bits)."""
    digest = hashlib.sha256(url.encode("utf-8")).digest()
    return "".join(format(byte, "08b") for byte in digest)[:n]


def write_gz(path: Path, text: str) -> Path:
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(text)
    return path


def page_urls(count: int, prefix: str = "page") -> Iterator[str]:
    for i in range(count):
        yield f"{SITE}/{prefix}/{i:05d}/item-{i * 7919 % 1000}"


URLSET_OPEN = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"\n'
    '        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">\n'
)


def _url_element(url: str, i: int) -> str:
    escaped = url.replace("&", "&amp;")
    parts = [f"  <url>\n    <loc>\n      {escaped}\n    </loc>"]  # whitespace around loc is fine
    if i % 3:
        parts.append(f"<lastmod>2024-0{1 + i % 9}-1{i % 10}</lastmod>")
    if i % 5 == 0:
        parts.append("<changefreq>weekly</changefreq><priority>0.7</priority>")
    if i % 7 == 0:
        parts.append(
            f"<image:image><image:loc>https://cdn.example.net/{i}.jpg</image:loc></image:image>"
        )
    return "".join(parts) + "</url>\n"


def urlset_xml(urls: list[str], start: int = 0) -> str:
    body = "".join(_url_element(u, start + i) for i, u in enumerate(urls))
    return URLSET_OPEN + "<!-- generated -->\n" + body + "</urlset>\n"


def index_xml(child_locs: list[str]) -> str:
    items = "".join(
        f"<sitemap><loc>{loc}</loc><lastmod>2024-05-01</lastmod></sitemap>\n" for loc in child_locs
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        f"{items}</sitemapindex>\n"
    )


def make_site_with_index(directory: Path, count: int = 250) -> tuple[Path, list[str]]:
    """A sitemap index and two gzipped children in ``directory``; returns (index, URLs)."""
    urls = list(page_urls(count))
    urls[3] = f"{SITE}/search?q=shoes&size=42"
    half = count // 2
    write_gz(directory / "sitemap-a.xml.gz", urlset_xml(urls[:half]))
    write_gz(directory / "sitemap-b.xml.gz", urlset_xml(urls[half:], half))
    index = directory / "sitemap_index.xml"
    index.write_text(
        index_xml([f"{SITE}/maps/sitemap-a.xml.gz", f"{SITE}/maps/sitemap-b.xml.gz"]),
        encoding="utf-8",
    )
    return index, urls
