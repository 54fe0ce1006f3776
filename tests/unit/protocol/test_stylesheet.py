"""The stylesheet the files name: shipped in the package, XSLT 1.0 that turns an index and a
urlset into one table row per child (run here with libxslt, the XSLT engine of Chromium too;
``tests/browser`` shows it in the browser), and the setting that turns it on and off."""

from __future__ import annotations

import gzip

import pytest
from lxml import etree

from sitemap_updater.config import ConfigError, RebuildConfig
from sitemap_updater.protocol.index import render_index
from sitemap_updater.protocol.stylesheet import (
    STYLESHEET_INSTRUCTION,
    STYLESHEET_NAME,
    XML_DECLARATION,
    prologue,
    stylesheet_body,
)
from sitemap_updater.protocol.urls import Site
from tests.helpers.files import urlset_file
from tests.helpers.pages import make_page

SITE = Site.parse("https://www.example.com")
BASE = {"TABLE_NAME": "t", "SITE_URL": SITE.origin, "BUCKET_NAME": "b", "TABLE_STREAM_ARN": "a"}


def transform(document: bytes) -> etree._Element:
    sheet = etree.XSLT(etree.fromstring(stylesheet_body()))
    return sheet(etree.fromstring(document)).getroot()


def _found(element: etree._Element, path: str) -> etree._Element:
    found = element.find(path)
    assert found is not None, path
    return found


def _text(element: etree._Element) -> str:
    return "".join(str(part) for part in element.itertext()).strip()


def test_the_instruction_names_the_shipped_stylesheet_right_after_the_declaration() -> None:
    assert prologue(False) == XML_DECLARATION
    assert prologue(True) == XML_DECLARATION + STYLESHEET_INSTRUCTION
    assert f'href="{STYLESHEET_NAME}"' in STYLESHEET_INSTRUCTION
    sheet = etree.fromstring(stylesheet_body())
    assert sheet.tag == "{http://www.w3.org/1999/XSL/Transform}stylesheet"
    assert sheet.get("version") == "1.0"


def test_an_index_becomes_a_row_per_file_with_its_section() -> None:
    names = ["sitemap-products-r01.xml.gz", "sitemap-news-2.xml.gz", "sitemap-r0101.xml.gz"]
    index, _ = render_index([(f"{SITE.origin}/{n}", "2026-11-20") for n in names], stylesheet=True)
    page = transform(index)
    rows = page.findall(".//table[@id='files']/tbody/tr")
    assert [_found(r, "td/a").get("href") for r in rows] == [f"{SITE.origin}/{n}" for n in names]
    assert [_text(r.findall("td")[1]) for r in rows] == [
        "products",
        "news",
        "—",
    ]
    assert _found(page, ".//*[@id='count']").text == "3"


def test_a_urlset_becomes_a_row_per_url_with_alternates_and_images() -> None:
    pages = [
        make_page(SITE, url=f"{SITE.origin}/a", lastmod="2026-11-20"),
        make_page(
            SITE,
            url=f"{SITE.origin}/b",
            alternates=[{"hreflang": "de", "href": f"{SITE.origin}/de/b"}],
            images=[
                {"loc": "https://cdn.example.net/1.jpg"},
                {"loc": "https://cdn.example.net/2.jpg"},
            ],
        ),
    ]
    body = urlset_file(pages, stylesheet=True)
    page = transform(gzip.decompress(body))
    rows = page.findall(".//table[@id='urls']/tbody/tr")
    assert [_found(r, "td/a").get("href") for r in rows] == [e.url for e in pages]
    alternates = rows[1].findall("td")[2]
    assert [a.get("href") for a in alternates.iter("a")] == [f"{SITE.origin}/de/b"]
    images = rows[1].findall("td")[3]
    assert [a.get("href") for a in images.iter("a")] == [i.loc for i in pages[1].images]
    assert _found(page, ".//*[@id='count']").text == "2"


@pytest.mark.parametrize(
    ("raw", "on"), [(None, True), ("true", True), ("false", False), ("0", False)]
)
def test_the_setting_is_on_unless_turned_off(raw: str | None, on: bool) -> None:
    env = BASE if raw is None else {**BASE, "STYLESHEET": raw}
    assert RebuildConfig.from_env(env).stylesheet is on


def test_a_bad_setting_names_the_variable_and_the_value() -> None:
    with pytest.raises(ConfigError, match="STYLESHEET='maybe' must be true or false"):
        RebuildConfig.from_env({**BASE, "STYLESHEET": "maybe"})


def test_the_table_has_nothing_inline_that_the_content_security_policy_would_block() -> None:
    index, _ = render_index([(f"{SITE.origin}/sitemap-pages-r.xml.gz", None)], stylesheet=True)
    page = transform(index)
    assert page.findall(".//style") == [] and page.findall(".//script") == []
    assert [e for e in page.iter() if isinstance(e.tag, str) and e.get("style")] == []
    [sheet] = page.findall(".//link[@rel='stylesheet']")
    assert sheet.get("href") == "sitemap.css"  # the view's, published beside it
    assert page.find(".//a[@href='sitemap.html']") is not None
