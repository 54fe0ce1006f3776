"""The one ``<url>`` renderer (``page.render``): every text escaped, the children in the order of
the XSDs, one line per element; the files made of its elements are valid (the autouse check of
tests/conftest.py validates each one against the official XSDs, and each is parsed here by lxml,
apart from the code that wrote it)."""

from __future__ import annotations

import gzip
from typing import Any

from lxml import etree

from sitemap_updater.page.model import Page
from sitemap_updater.page.render import news_element, url_element
from sitemap_updater.protocol.gzipio import gzip_bytes
from sitemap_updater.protocol.urls import Site
from sitemap_updater.protocol.urlset import urlset_of
from tests.helpers.files import urlset_file
from tests.helpers.pages import make_page
from tests.helpers.xsd import assert_valid_urlset

SITE = Site.parse("https://www.example.com")
ORIGIN = SITE.origin
NS = {
    "s": "http://www.sitemaps.org/schemas/sitemap/0.9",
    "x": "http://www.w3.org/1999/xhtml",
    "i": "http://www.google.com/schemas/sitemap-image/1.1",
    "v": "http://www.google.com/schemas/sitemap-video/1.1",
    "n": "http://www.google.com/schemas/sitemap-news/0.9",
}
NEWS = {
    "publication": {"name": 'The "Times"', "language": "en"},
    "publication_date": "2026-11-20T10:00:00Z",
    "title": "<b>A & B</b>",
}


def _video(**extra: Any) -> dict[str, Any]:
    return {
        "thumbnail_loc": "https://cdn.example.net/t.jpg",
        "title": "x'y",
        "description": "</video:description><x>",
        **extra,
    }


def _root(page: Page) -> etree._Element:
    return etree.fromstring(gzip.decompress(urlset_file([page])))


def _names(element: etree._Element) -> list[str]:
    return [etree.QName(child).localname for child in element]


def test_a_full_page_is_escaped_ordered_and_valid() -> None:
    page = make_page(
        SITE,
        url=ORIGIN + "/q?a=1&b='2'",
        lastmod="2026-01-02T03:04:05Z",
        changefreq="daily",
        priority=0.5,
        alternates=[{"hreflang": "de", "href": ORIGIN + "/de?a=1&b='2'"}],
        images=[{"loc": "https://cdn.example.net/a.jpg?x=1&y='z'"}],
        videos=[_video(content_loc="https://cdn.example.net/v.mp4?a=1&b=2")],
    )
    text = url_element(page)
    assert text.count("\n") == 1 and text.endswith("</url>\n")
    assert "&amp;b=&apos;2&apos;" in text
    body = urlset_file([page])
    assert assert_valid_urlset(body) == [page.url]
    url = _root(page).find("s:url", NS)
    assert url is not None
    assert _names(url) == ["loc", "lastmod", "changefreq", "priority", "link", "image", "video"]
    link = url.find("x:link", NS)
    assert link is not None
    assert (link.get("rel"), link.get("hreflang"), link.get("href")) == (
        "alternate",
        "de",
        ORIGIN + "/de?a=1&b='2'",
    )
    assert url.findtext("i:image/i:loc", namespaces=NS) == "https://cdn.example.net/a.jpg?x=1&y='z'"
    assert url.findtext("s:priority", namespaces=NS) == "0.5"


def test_a_page_of_its_url_alone_is_its_loc_alone() -> None:
    page = make_page(SITE, url=ORIGIN + "/a")
    assert url_element(page) == f"<url><loc>{ORIGIN}/a</loc></url>\n"


def test_a_video_keeps_the_order_of_google_s_schema_and_escapes_its_texts() -> None:
    page = make_page(
        SITE,
        url=ORIGIN + "/v",
        videos=[
            _video(
                content_loc="https://cdn.example.net/v.mp4",
                player_loc="https://cdn.example.net/p?a=1&b=2",
                duration=600,
                expiration_date="2099-01-01",
                publication_date="2026-11-01",
                tag=["<t>", "b"],
                family_friendly=True,
                restriction={"relationship": "deny", "countries": ["GB", "IE"]},
                requires_subscription=False,
                uploader={"name": "U & me", "info": "https://www.example.com/me?a=1&b=2"},
                platform={"relationship": "allow", "platforms": ["web", "tv"]},
                live=True,
            )
        ],
    )
    (element,) = _root(page).iter(f"{{{NS['v']}}}video")
    assert _names(element) == [
        "thumbnail_loc",
        "title",
        "description",
        "content_loc",
        "player_loc",
        "duration",
        "expiration_date",
        "publication_date",
        "tag",
        "tag",
        "family_friendly",
        "restriction",
        "requires_subscription",
        "uploader",
        "platform",
        "live",
    ]
    assert element.findtext("v:title", namespaces=NS) == "x'y"
    assert element.findtext("v:description", namespaces=NS) == "</video:description><x>"
    assert [t.text for t in element.findall("v:tag", NS)] == ["<t>", "b"]
    assert element.findtext("v:family_friendly", namespaces=NS) == "yes"
    assert element.findtext("v:requires_subscription", namespaces=NS) == "no"
    assert element.findtext("v:live", namespaces=NS) == "yes"
    restriction = element.find("v:restriction", NS)
    assert restriction is not None
    assert (restriction.get("relationship"), restriction.text) == ("deny", "GB IE")
    platform = element.find("v:platform", NS)
    assert platform is not None and (platform.get("relationship"), platform.text) == (
        "allow",
        "web tv",
    )
    uploader = element.find("v:uploader", NS)
    assert uploader is not None
    assert (uploader.get("info"), uploader.text) == ("https://www.example.com/me?a=1&b=2", "U & me")


def test_the_news_article_is_the_news_files_alone() -> None:
    page = make_page(SITE, url=ORIGIN + "/story", news=NEWS)
    assert "news:" not in url_element(page)
    text = news_element(page)
    assert text.count("\n") == 1 and text.endswith("</url>\n")
    body = gzip_bytes(urlset_of([text.encode()], stylesheet=False))
    assert assert_valid_urlset(body) == [page.url]
    root = etree.fromstring(gzip.decompress(body))
    url = root.find("s:url", NS)
    assert url is not None
    assert _names(url) == ["loc", "news"]
    article = url.find("n:news", NS)
    assert article is not None
    assert _names(article) == ["publication", "publication_date", "title"]
    assert article.findtext("n:publication/n:name", namespaces=NS) == 'The "Times"'
    assert article.findtext("n:publication/n:language", namespaces=NS) == "en"
    assert article.findtext("n:publication_date", namespaces=NS) == "2026-11-20T10:00:00Z"
    assert article.findtext("n:title", namespaces=NS) == "<b>A & B</b>"


def test_text_outside_ascii_is_written_as_utf_8() -> None:
    page = make_page(
        SITE,
        url=ORIGIN + "/caf\u00e9",
        videos=[_video(content_loc="https://cdn.example.net/v.mp4", title="ü€𝄞")],
    )
    text = url_element(page)
    assert page.url == ORIGIN + "/caf%C3%A9"
    assert "ü€𝄞" in text
    root = _root(page)
    assert root.findtext(".//v:title", namespaces=NS) == "ü€𝄞"


def test_the_same_page_always_gives_the_same_bytes() -> None:
    fields: dict[str, Any] = {
        "url": ORIGIN + "/a",
        "lastmod": "2026-11-01",
        "images": [{"loc": ORIGIN + "/i"}],
    }
    assert url_element(make_page(SITE, **fields)) == url_element(make_page(SITE, **fields))
