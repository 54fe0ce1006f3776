"""Reading published sitemap files back, independently of the code that wrote them."""

from __future__ import annotations

import gzip
from pathlib import Path

from lxml import etree

NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def published_urls(out: Path) -> list[str]:
    """Every <loc> of every regular urlset file the index in ``out`` lists, read independently
    (the News files, which list some of the same pages again, apart)."""
    index = etree.parse(str(out / "sitemap.xml")).getroot()
    urls: list[str] = []
    for loc in index.iter(f"{NS}loc"):
        name = str(loc.text).rsplit("/", 1)[-1]
        if name.startswith("sitemap-news-"):
            continue
        root = etree.fromstring(gzip.decompress((out / name).read_bytes()))
        urls += [str(u.text) for u in root.iter(f"{NS}loc") if u.getparent().tag == f"{NS}url"]
    return urls
