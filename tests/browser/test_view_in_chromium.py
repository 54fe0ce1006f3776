"""What a person sees in the human view (``sitemap.html``), in headless Chromium with XSLT off,
as browsers have it now: a two-host, three-section ``build`` output with news, video, an IRI and
a 50,000-URL file, served on 127.0.0.1 by ``sitemap-updater serve`` itself, so with the headers
the distribution sends (its Content-Security-Policy among them).

Everything the page shows is compared with what lxml reads from the same files. The screenshots
of an index and of a file are written to ``test-artifacts/browser/`` (ignored by git). Without
Chromium the tests are skipped, except in CI (``CI`` set), where its absence is a failure.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from lxml import etree

from sitemap_updater.protocol.errors import InvalidUrlError
from sitemap_updater.protocol.urls import normalize_url
from sitemap_updater.sections import SectionRules
from sitemap_updater.sites import Sites
from sitemap_updater_local.commands.build import build_static
from sitemap_updater_local.commands.simulate import simulate
from tests.helpers.chromium import WITHOUT_XSLT, Browser, Page, browser, chromium_binary

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
FIRST, SECOND = "https://www.example.com", "https://www.example.de"
NS = {
    "sm": "http://www.sitemaps.org/schemas/sitemap/0.9",
    "xhtml": "http://www.w3.org/1999/xhtml",
    "image": "http://www.google.com/schemas/sitemap-image/1.1",
    "news": "http://www.google.com/schemas/sitemap-news/0.9",
    "video": "http://www.google.com/schemas/sitemap-video/1.1",
}
#: A page whose path people write in Cyrillic, and the same in CJK: the view shows them so.
IRIS = (f"{FIRST}/blog/привет-мир", f"{FIRST}/blog/東京-案内")
BIG = 50_000
RULES = "/p/=products,/blog/=articles,/about/=pages"
NOW = datetime(2026, 11, 20, 12, tzinfo=UTC)


def chromium() -> str:
    found = chromium_binary()
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed (.ci/run installs it: apt-get install chromium)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return found


def _changes() -> Iterator[dict[str, Any]]:
    for i in range(30):  # articles: alternates, images, and the IRIs
        yield {
            "action": "upsert",
            "url": f"{FIRST}/blog/post-{i}",
            "lastmod": f"2026-11-{1 + i % 19:02d}T08:00:00Z",
            "alternates": [{"hreflang": "de", "href": f"{FIRST}/de/blog/post-{i}"}]
            if i % 2
            else [],
            "images": [{"loc": f"https://cdn.example.net/{i}/{k}.jpg"} for k in range(i % 3)],
        }
    for iri in IRIS:
        yield {"action": "upsert", "url": iri, "lastmod": "2026-11-19"}
    yield {
        "action": "upsert",
        "url": f"{FIRST}/blog/markets",
        "news": {
            "publication": {"name": "The Example Times", "language": "en"},
            "publication_date": "2026-11-20T10:00:00Z",
            "title": "Markets <rise> & fall",
        },
    }
    yield {
        "action": "upsert",
        "url": f"{FIRST}/blog/talk",
        "videos": [
            {
                "thumbnail_loc": "https://cdn.example.net/t.jpg",
                "title": "A talk about sitemaps",
                "description": "How the files are split",
                "content_loc": "https://cdn.example.net/talk.mp4",
            }
        ],
    }
    for i in range(12):  # products and pages, and the second host's three sections
        yield {"action": "upsert", "url": f"{FIRST}/p/{i}", "lastmod": "2026-10-03"}
        yield {"action": "upsert", "url": f"{FIRST}/about/{i}", "lastmod": "2026-10-01"}
        for path in ("p", "blog", "about"):
            yield {"action": "upsert", "url": f"{SECOND}/{path}/{i}", "lastmod": "2026-10-02"}


@dataclass(frozen=True)
class Served:
    base: str
    root: Path

    def view(self, prefix: str = "") -> str:
        return f"{self.base}/{prefix}sitemap.html"


@contextmanager
def serving(out: Path) -> Iterator[Served]:
    """``out`` served by ``sitemap-updater serve`` on a free port of 127.0.0.1."""
    serve = subprocess.Popen(
        [sys.executable, "-m", "sitemap_updater_local.cli", "serve", str(out), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert serve.stdout is not None
    first = serve.stdout.readline()
    address = re.search(r"http://127\.0\.0\.1:\d+", first)
    try:
        assert address, first
        yield Served(address.group(0), out)
    finally:
        serve.terminate()
        serve.wait(timeout=30)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """What the deployed path publishes for the changes (two hosts, three sections, a News
    file and a video), on the local deployment (``simulate``)."""
    out = tmp_path_factory.mktemp("view") / "out"
    wave = [json.dumps(c, ensure_ascii=False) for c in _changes()]
    simulate([wave], out, site=f"{FIRST},{SECOND}", section_rules=RULES, start=NOW, wave_gap=0)
    with serving(out) as running:
        yield running


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A ``build`` whose products file holds 50,000 URLs."""
    work = tmp_path_factory.mktemp("big")
    source = work / "pages.csv"
    source.write_text(
        "url,lastmod\n" + "".join(f"{FIRST}/p/{i},2026-{1 + i % 11:02d}-01\n" for i in range(BIG))
    )
    out = work / "out"
    build_static(
        [str(source)],
        Sites.parse(FIRST),
        str(out),
        section_rules=SectionRules.parse(RULES),
        max_urls=BIG,
        now=NOW,
    )
    with serving(out) as running:
        yield running


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A ``build`` of 3,000 products in files of at most 400 URLs."""
    work = tmp_path_factory.mktemp("many")
    source = work / "pages.csv"
    source.write_text("url,lastmod\n" + "".join(f"{FIRST}/p/{i},2026-10-01\n" for i in range(3000)))
    out = work / "out"
    build_static(
        [str(source)], Sites.parse(FIRST), str(out), section_rules=SectionRules.parse(RULES),
        max_urls=400, now=NOW,
    )  # fmt: skip
    with serving(out) as running:
        yield running


@pytest.fixture(scope="module")
def chrome() -> Iterator[Browser]:
    with browser(chromium(), WITHOUT_XSLT) as running:
        yield running


@pytest.fixture
def page(chrome: Browser) -> Page:
    opened = chrome.page()
    # every Content-Security-Policy violation the page meets is kept, to be asserted away
    opened.call(
        "Page.addScriptToEvaluateOnNewDocument",
        {
            "source": "window.__violations = []; document.addEventListener("
            "'securitypolicyviolation', e => window.__violations.push(e.violatedDirective + ' ' "
            "+ e.blockedURI));"
        },
    )
    return opened


def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    data = page.screenshot(ARTIFACTS / name)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"


def urls_of(path: Path) -> list[etree._Element]:
    body = path.read_bytes()
    return etree.fromstring(gzip.decompress(body) if path.suffix == ".gz" else body).findall(
        "sm:url", NS
    )


def open_file(page: Page, served: Served, name: str, prefix: str = "") -> None:
    page.evaluate("delete document.documentElement.dataset.firstRowsMs")
    page.open(f"{served.view(prefix)}#file={name}")
    page.wait("document.documentElement.dataset.firstRowsMs")


def rows(page: Page) -> list[dict[str, Any]]:
    """The rows drawn, in order: the link's text and href, and each cell's text."""
    return list(
        page.evaluate(
            "[...document.querySelectorAll('#spacer .row')]"
            ".sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top))"
            ".map(r => ({index: r.getAttribute('aria-rowindex'),"
            " text: r.querySelector('a').textContent, href: r.querySelector('a').href,"
            " cells: [...r.children].map(c => c.textContent)}))"
        )
    )


def every_row(page: Page) -> list[dict[str, Any]]:
    """Every row of the list, scrolled into view a screenful at a time (only those are drawn)."""
    seen: dict[str, dict[str, Any]] = {}
    page.evaluate("document.getElementById('rows').scrollTop = 0")
    while True:
        page.evaluate(
            "new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"
        )
        for row in rows(page):
            seen.setdefault(row["index"], row)
        done = page.evaluate(
            "(() => { const b = document.getElementById('rows'); const end = b.scrollTop + "
            "b.clientHeight >= b.scrollHeight - 1; b.scrollTop += b.clientHeight; return end; })()"
        )
        if done:
            return [seen[k] for k in sorted(seen, key=int)]


def file_named(served: Served, section: str, prefix: str = "") -> str:
    (path,) = (served.root / prefix).glob(f"sitemap-{section}-*.xml.gz")
    return path.name


def test_each_index_lists_its_files_with_section_url_count_and_lastmod(
    page: Page, served: Served
) -> None:
    assert (served.root / "sitemap-news-1.xml.gz").is_file()
    for prefix, shown in (("", "index.png"), ("www.example.de/", "index-second-host.png")):
        page.open(served.view(prefix))
        page.wait("document.getElementById('status').textContent.includes('section(s)')")
        index = etree.parse(str(served.root / prefix / "sitemap.xml")).getroot()
        expected = []
        for entry in index.findall("sm:sitemap", NS):
            loc = entry.findtext("sm:loc", namespaces=NS)
            name = loc.rsplit("/", 1)[1]
            section = name.removeprefix("sitemap-").rsplit("-", 1)[0]
            count = f"{len(urls_of(served.root / prefix / name)):,}"
            expected.append(
                [name + " ↗", section, count, entry.findtext("sm:lastmod", namespaces=NS)]
            )
        got = page.evaluate(
            "[...document.querySelectorAll('#files tbody tr')]"
            ".map(r => [...r.cells].map(c => c.textContent.trim()))"
        )
        assert got == expected
        assert {row[1] for row in got} >= {"products", "articles", "pages"}
        assert page.evaluate("window.__violations") == []
        shot(page, shown)


def test_a_file_shows_each_url_decoded_linking_to_the_real_one(page: Page, served: Served) -> None:
    name = file_named(served, "articles")
    open_file(page, served, name)
    listed = urls_of(served.root / name)
    assert page.evaluate("document.getElementById('grid').getAttribute('aria-rowcount')") == str(
        len(listed) + 1
    )
    assert len(rows(page)) < len(listed)  # only the rows in view are drawn
    drawn = every_row(page)
    assert [r["href"] for r in drawn] == [u.findtext("sm:loc", namespaces=NS) for u in listed]
    real = {u.findtext("sm:loc", namespaces=NS) for u in listed}
    for iri in IRIS:
        (row,) = [r for r in drawn if r["text"] == iri]
        assert row["href"] in real
        assert "%" in row["href"] and "%" not in row["text"]
    for row, url in zip(drawn, listed, strict=True):
        lastmod = url.findtext("sm:lastmod", namespaces=NS) or "—"
        langs = ", ".join(a.get("hreflang") for a in url.findall("xhtml:link", NS)) or "—"
        images = str(len(url.findall("image:image", NS)) or "—")
        assert row["cells"][1:4] == [lastmod, langs, images]
    page.evaluate("document.getElementById('rows').scrollTop = 0")
    shot(page, "file.png")


def test_a_search_finds_a_url_and_its_news_and_video_are_shown(page: Page, served: Served) -> None:
    open_file(page, served, file_named(served, "articles"))
    page.press("/", "Slash")
    assert page.evaluate("document.activeElement.id") == "search"
    page.type("東京")
    (row,) = rows(page)
    assert row["text"] == IRIS[1]
    page.evaluate("document.getElementById('search').select()")
    page.type("sitemaps")  # a video's title
    (row,) = rows(page)
    assert row["href"] == f"{FIRST}/blog/talk"
    detail = page.evaluate("document.getElementById('detail').innerText")
    assert "A talk about sitemaps" in detail and "https://cdn.example.net/talk.mp4" in detail
    open_file(page, served, "sitemap-news-1.xml.gz")  # the News file holds the article
    page.press("/", "Slash")
    page.type("rise")  # a news title
    (row,) = rows(page)
    assert row["cells"][4] == "News: Markets <rise> & fall"
    assert "The Example Times" in page.evaluate("document.getElementById('detail').innerText")
    assert "#file=" in page.evaluate("location.hash") and "q=rise" in page.evaluate("location.hash")


def test_a_sort_from_the_keyboard_orders_the_rows(page: Page, served: Served) -> None:
    name = file_named(served, "articles")
    open_file(page, served, name)
    page.evaluate("document.querySelector('button[data-sort=lastmod]').focus()")
    for _ in range(2):  # Enter sorts ascending, then descending
        page.call("Input.dispatchKeyEvent", {"type": "keyDown", "key": "Enter", "text": "\r"})
        page.call("Input.dispatchKeyEvent", {"type": "keyUp", "key": "Enter"})
    sort = page.evaluate("document.querySelector('button[data-sort=lastmod]').parentNode.ariaSort")
    assert sort == "descending"
    listed = [u.findtext("sm:lastmod", namespaces=NS) for u in urls_of(served.root / name)]
    dated = sorted((t for t in listed if t), key=_instant, reverse=True)
    drawn = [r["cells"][1] for r in every_row(page)]
    assert [_instant(t) for t in drawn[: len(dated)]] == [_instant(t) for t in dated]
    assert drawn[len(dated) :] == ["—"] * (len(listed) - len(dated))  # undated last


def _instant(lastmod: str) -> datetime:
    return datetime.fromisoformat(lastmod if "T" in lastmod else lastmod + "T00:00:00+00:00")


def test_the_rows_are_reached_from_the_keyboard(page: Page, served: Served) -> None:
    name = file_named(served, "articles")
    open_file(page, served, name)
    listed = [u.findtext("sm:loc", namespaces=NS) for u in urls_of(served.root / name)]
    page.evaluate("document.getElementById('rows').focus()")
    page.press("ArrowDown", key_code=40)
    page.press("ArrowDown", key_code=40)
    assert page.evaluate("document.querySelector('#detail h2 a').href") == listed[2]
    page.press("End", key_code=35)
    assert page.evaluate("document.querySelector('#detail h2 a').href") == listed[-1]
    page.call("Input.dispatchKeyEvent", {"type": "keyDown", "key": "Enter", "text": "\r"})
    # the key reaches the page's handler on its own time: the focus is read once it has moved
    assert page.wait("document.activeElement.href") == listed[-1]


#: Scrolls the rows to the top and gives the focused element's link once the rows the scroll
#: brings into view are drawn (the page draws them on the next frame; this reads the one after).
SCROLL_TO_TOP_THEN_FOCUS = """new Promise((done) => {
    const box = document.getElementById('rows');
    const after = () => requestAnimationFrame(() => done(document.activeElement.href || null));
    box.addEventListener('scroll', () => requestAnimationFrame(after), { once: true });
    box.scrollTop = 0;
})"""


def test_a_scroll_of_the_rows_keeps_the_focus_in_the_detail(page: Page, big: Served) -> None:
    """Drawing the rows again (a scroll, or the one the End key sets off) leaves the detail pane
    of the same URL as it is, so a link focused in it keeps the focus."""
    name = file_named(big, "products")
    listed = [u.findtext("sm:loc", namespaces=NS) for u in urls_of(big.root / name)]
    open_file(page, big, name)
    page.evaluate("document.getElementById('rows').focus()")
    page.press("End", key_code=35)
    assert page.wait("document.querySelector('#detail h2 a').href") == listed[-1]
    page.evaluate("document.querySelector('#detail h2 a').focus()")
    assert page.evaluate(SCROLL_TO_TOP_THEN_FOCUS) == listed[-1]


def test_a_50000_url_file_draws_only_the_rows_in_view(page: Page, big: Served) -> None:
    name = file_named(big, "products")
    listed = [u.findtext("sm:loc", namespaces=NS) for u in urls_of(big.root / name)]
    assert len(listed) == BIG
    open_file(page, big, name)
    assert page.evaluate("document.getElementById('shown').textContent") == "50,000 URL(s)"
    assert len(rows(page)) < 100
    page.evaluate("document.getElementById('rows').focus()")
    page.press("End", key_code=35)
    page.wait("document.querySelector('#detail h2 a')")
    assert rows(page)[-1]["href"] == listed[-1]
    assert len(rows(page)) < 100
    page.press("/", "Slash")
    page.type("/p/4999")
    assert [r["href"] for r in rows(page)] == [u for u in listed if "/p/4999" in u]
    print(
        f"first rows of {BIG:,} URLs after",
        page.evaluate("document.documentElement.dataset.firstRowsMs"),
        "ms",
    )
    assert page.evaluate("window.__violations") == []


def listed_files(served: Served, prefix: str = "") -> list[str]:
    """The names of the files a host's index lists, in its order (read with lxml)."""
    index = etree.parse(str(served.root / prefix / "sitemap.xml")).getroot()
    return [str(loc.text).rsplit("/", 1)[1] for loc in index.findall("sm:sitemap/sm:loc", NS)]


#: The rows a search of every file drew: each URL's link and the file it names.
FOUND = (
    "[...document.querySelectorAll('#found tbody tr')]"
    ".map(r => [r.cells[0].querySelector('a').href, r.cells[1].textContent])"
)
SEARCH_DONE = "document.getElementById('results').dataset.state === 'done'"


def test_a_search_covers_every_file_of_a_host(page: Page, served: Served) -> None:
    for prefix in ("", "www.example.de/"):
        page.open(served.view(prefix))
        page.wait("document.getElementById('status').textContent.includes('section(s)')")
        page.press("/", "Slash")
        assert page.evaluate("document.activeElement.id") == "search-all"
        page.type("1")
        page.wait(SEARCH_DONE)
        # every URL of every file the host's index lists whose address holds the text (no
        # title here holds it), in the index's order and each file's
        expected = [
            [str(u.findtext("sm:loc", namespaces=NS)), name]
            for name in listed_files(served, prefix)
            for u in urls_of(served.root / prefix / name)
            if "1" in str(u.findtext("sm:loc", namespaces=NS)).lower()
        ]
        assert page.evaluate(FOUND) == expected
        assert len({name for _, name in expected}) >= 3
        assert page.evaluate("document.getElementById('found-status').textContent") == (
            f"{len(expected)} match(es) in {len(listed_files(served, prefix))} file(s)."
        )
        assert page.evaluate("location.hash") == "#q=1"
        shot(page, f"search-every-file{'-second-host' if prefix else ''}.png")
    # a match's file opens with the same search, its URL among the rows
    url, name = expected[-1]
    page.evaluate("document.querySelector('#found tbody tr:last-child td:nth-child(2) a').click()")
    page.wait(f"document.getElementById('title').textContent === {json.dumps(name)}")
    page.wait("document.documentElement.dataset.firstRowsMs")
    assert url in [r["href"] for r in rows(page)]
    assert page.evaluate("document.getElementById('search').value") == "1"
    # and from a file, the same search of every file is one link away
    assert page.evaluate("document.getElementById('everywhere').getAttribute('href')") == "#q=1"
    assert page.evaluate("window.__violations") == []


def test_a_search_of_every_file_stops_at_its_cap(page: Page, many: Served) -> None:
    files = listed_files(many)
    assert len(files) >= 6
    page.open(f"{many.view()}#q=/p/")  # every URL matches
    page.wait(SEARCH_DONE)
    found = page.evaluate(FOUND)
    assert len(found) == 500  # the cap docs/view.md gives
    said = page.evaluate("document.getElementById('found-status').textContent")
    assert said.startswith("The first 500 matches, from ")
    read = page.evaluate(
        "performance.getEntriesByType('resource').map(e => e.name.split('/').pop())"
        ".filter(n => n.endsWith('.xml.gz'))"
    )
    # the files read are those it needed (and at most the one read beside the last), no more
    assert set(read) <= set(files) and len(set(read)) < len(files)
    assert {name for _, name in found} <= set(read)
    # the files read were counted on the way; the others are not read until the search ends
    counted = page.evaluate(
        "[...document.querySelectorAll('#files tbody tr')]"
        ".filter(r => r.cells[2].textContent !== '…').length"
    )
    assert counted == len(set(read))


#: The width of a phone (an iPhone 12 to 15 in portrait) and its height, in CSS pixels.
PHONE = (390, 844)
#: Every element of a selector that sticks out of the page's width, or is not there at all.
OUT_OF_VIEW = """(selector) => [...document.querySelectorAll(selector)].filter((e) => {
    const r = e.getBoundingClientRect();
    return r.width <= 0 || r.left < 0 || r.right > document.documentElement.clientWidth + 0.5;
}).map((e) => e.textContent)"""
#: Every header whose label is wider than its column, and every cell of a drawn row whose text
#: is cut (a lastmod or an image count), by its text.
CUT = """[...document.querySelectorAll('.row.head > span')].filter((c) => {
    if (!c.firstElementChild) return c.scrollWidth > c.clientWidth;
    const r = c.getBoundingClientRect(), b = c.firstElementChild.getBoundingClientRect();
    const pad = parseFloat(getComputedStyle(c).paddingLeft);
    return b.left < r.left + pad - 0.5 || b.right > r.right - pad + 0.5;
}).map((c) => c.textContent).concat([...document.querySelectorAll('#spacer .row')].flatMap(
    (r) => [r.children[1], r.children[3]].filter((c) => c.scrollWidth > c.clientWidth)
        .map((c) => c.textContent)))"""


@pytest.fixture(scope="module")
def phone() -> Iterator[Browser]:
    with browser(chromium(), WITHOUT_XSLT, window=PHONE) as running:
        yield running


def test_at_a_phone_s_width_no_column_is_cut_off(phone: Browser, served: Served) -> None:
    page = phone.page()
    page.open(served.view())
    page.wait("document.getElementById('status').textContent.includes('section(s)')")
    fits = "document.scrollingElement.scrollWidth <= document.documentElement.clientWidth"
    assert page.evaluate(fits)
    assert page.evaluate(f"({OUT_OF_VIEW})('#files th, #files td')") == []
    shot(page, "index-phone.png")
    page.press("/", "Slash")
    page.type("blog")
    page.wait(SEARCH_DONE)
    assert page.evaluate(fits)
    assert page.evaluate(f"({OUT_OF_VIEW})('#found th, #found td')") == []

    name = file_named(served, "articles")
    open_file(page, served, name)
    assert page.evaluate(fits)
    assert page.evaluate(f"({OUT_OF_VIEW})('.row.head > span, #spacer .row > span')") == []
    assert page.evaluate(CUT) == []
    # the URL has a line of its own, across the list
    widths = page.evaluate(
        "[...document.querySelectorAll('#spacer .row > span.loc')]"
        ".map(c => c.clientWidth / document.getElementById('rows').clientWidth)"
    )
    assert widths and min(widths) > 0.9
    drawn = every_row(page)  # the list still scrolls a screenful at a time, two lines a row
    assert [r["href"] for r in drawn] == [
        u.findtext("sm:loc", namespaces=NS) for u in urls_of(served.root / name)
    ]
    tops = page.evaluate("[...document.querySelectorAll('#spacer .row')].map(r => r.offsetTop)")
    heights = page.evaluate(
        "[...document.querySelectorAll('#spacer .row')].map(r => r.offsetHeight)"
    )
    assert all(b - a >= h for a, b, h in zip(sorted(tops), sorted(tops)[1:], heights, strict=False))
    page.evaluate("document.getElementById('rows').scrollTop = 0")
    page.evaluate("document.getElementById('rows').focus()")
    page.press("ArrowDown", key_code=40)
    assert page.evaluate(fits)
    assert page.evaluate(f"({OUT_OF_VIEW})('#detail a, #detail dd')") == []
    shot(page, "file-phone.png")
    assert page.evaluate("window.__violations ?? []") == []


def test_the_xsl_view_holds_under_the_same_policy(served: Served) -> None:
    """Where a browser still runs XSLT, the files' own stylesheet shows them under the
    distribution's Content-Security-Policy: its style is the view's sitemap.css."""
    with browser(chromium(), "--enable-features=XSLT") as running:
        page = running.page()
        page.open(f"{served.base}/sitemap.xml")
        page.wait("document.getElementById('files')")
        index = etree.parse(str(served.root / "sitemap.xml")).getroot()
        shown = page.evaluate("document.querySelectorAll('#files tbody tr').length")
        assert shown == len(index.findall("sm:sitemap", NS)) > 3
        link = page.evaluate("document.querySelector('link[rel=stylesheet]').sheet.cssRules.length")
        assert link > 0
        assert page.evaluate("document.querySelector('a[href=\"sitemap.html\"]') !== null")


#: What the view leaves percent-encoded although it is valid UTF-8: characters that hide or
#: reorder text (controls, format and bidi characters, spaces, private use, unassigned).
HIDDEN = {"Cc", "Cf", "Zs", "Zl", "Zp", "Co", "Cn"}


def readable(url: str) -> str:
    """The rule the view's ``readable`` follows, written again in Python to compare with it."""

    def decode(run: re.Match[str]) -> str:
        data = bytes.fromhex(run.group(0).replace("%", ""))
        out, i = [], 0
        while i < len(data):
            lead = data[i]
            n = (
                2
                if 0xC2 <= lead <= 0xDF
                else 3
                if 0xE0 <= lead <= 0xEF
                else 4
                if 0xF0 <= lead <= 0xF4
                else 1
            )
            try:
                char = data[i : i + n].decode("utf-8") if n > 1 and i + n <= len(data) else ""
            except UnicodeDecodeError:
                char = ""
            if char and unicodedata.category(char) not in HIDDEN:
                out.append(char)
                i += n
            else:
                out.append(f"%{lead:02X}")
                i += 1
        return "".join(out)

    return re.sub(r"(?:%[0-9A-Fa-f]{2})+", decode, url)


@pytest.fixture(scope="module")
def view_page(chrome: Browser, served: Served) -> Page:
    opened = chrome.page()
    opened.open(served.view())
    opened.wait("globalThis.sitemapView")
    return opened


# any text but surrogates and unassigned code points (Python's and Chromium's Unicode versions
# may assign different ones), and percent signs with hex digits, valid escapes or not
PATHS = st.lists(
    st.text(
        st.characters(exclude_categories=("Cs", "Cn")) | st.sampled_from("%C3%A9%E2%82%ACF0"),
        max_size=24,
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=40, deadline=None)
@given(paths=PATHS)
# invalid UTF-8, a bidi override, an encoded slash, an overlong form, a space, Cyrillic, CJK
@example(paths=["%C3%28", "\u202eevil", "a%2Fb", "%C0%AF", "a b", "привет", "東京"])
def test_a_url_is_shown_decoded_and_what_is_shown_parses_back_to_it(
    view_page: Page, paths: list[str]
) -> None:
    urls = []
    for path in paths:
        try:
            urls.append(normalize_url(f"{FIRST}/{path}"))
        except InvalidUrlError:
            continue
    shown = view_page.evaluate(
        f"{json.dumps(urls)}.map(u => sitemapView.readable(u))"
        ".map(text => [text, new URL(text).href])"
    )
    for url, (text, parsed) in zip(urls, shown, strict=True):
        assert text == readable(url)
        assert parsed == url  # the text a person copies leads to the same page
