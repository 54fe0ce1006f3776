"""Schema checks every test uses on every file it produces (lxml + the bundled XSDs).

``assert_valid_urlset(data)`` / ``assert_valid_index(data)`` accept plain or gzipped bytes, fail
the test with lxml's messages if the document is not valid, and return the ``loc`` values in
document order, parsed independently of the code that wrote them.

:func:`check_written_sitemaps` makes this hold for every file without a test having to ask:
``tests/conftest.py`` applies it to every test, so every urlset (``protocol.urlset.urlset_of``,
which joins the fragments of every leaf, News file and empty-site file) and every index
(``protocol.index.render_index``) made in the test process, wherever it goes (a file, an upload to
S3), has its bytes validated, and the test fails if one is not valid.
"""

from __future__ import annotations

import functools
import gzip
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pytest
from lxml import etree

from sitemap_updater.protocol import index, urlset

SCHEMAS = Path(__file__).resolve().parents[2] / "tooling" / "sitemap_updater_local" / "schemas"
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
_IMPORTS = {
    SITEMAP_NS: "sitemap.xsd",
    "http://www.google.com/schemas/sitemap-image/1.1": "sitemap-image.xsd",
    "http://www.w3.org/1999/xhtml": "xhtml-link.xsd",
    "http://www.google.com/schemas/sitemap-video/1.1": "sitemap-video.xsd",
    "http://www.google.com/schemas/sitemap-news/0.9": "sitemap-news.xsd",
}


@functools.cache
def _urlset_schema() -> etree.XMLSchema:
    imports = "".join(
        f'<xsd:import namespace="{ns}" schemaLocation="{(SCHEMAS / name).as_uri()}"/>'
        for ns, name in _IMPORTS.items()
    )
    wrapper = f'<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema">{imports}</xsd:schema>'
    return etree.XMLSchema(etree.fromstring(wrapper.encode()))


@functools.cache
def _index_schema() -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(SCHEMAS / "siteindex.xsd")))


def xml_bytes(data: bytes) -> bytes:
    """``data`` un-gzipped if it is gzip."""
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def _assert_valid(data: bytes, schema: etree.XMLSchema, root_name: str) -> list[str]:
    xml = xml_bytes(data)
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    root = etree.fromstring(xml, parser)
    assert root.tag == f"{{{SITEMAP_NS}}}{root_name}", f"root is {root.tag}, not {root_name}"
    if not schema.validate(root):
        log = cast(Iterable[Any], schema.error_log)
        messages = "\n".join(f"line {e.line}: {e.message}" for e in log)
        raise AssertionError(f"{root_name} is not valid against the XSD:\n{messages}")
    if root_name == "urlset":
        _assert_extension_rules(root)
    child = "url" if root_name == "urlset" else "sitemap"
    return [loc.text or "" for loc in root.iterfind(f"s:{child}/s:loc", {"s": SITEMAP_NS})]


_VIDEO = "http://www.google.com/schemas/sitemap-video/1.1"
_NEWS = "http://www.google.com/schemas/sitemap-news/0.9"


def _assert_extension_rules(root: etree._Element) -> None:
    """What the extension XSDs cannot say: each video has content_loc or player_loc; at most
    1,000 news articles per file (Google's documentation)."""
    for video in root.iter(f"{{{_VIDEO}}}video"):
        tags = {child.tag for child in video}
        assert tags & {f"{{{_VIDEO}}}content_loc", f"{{{_VIDEO}}}player_loc"}, (
            f"line {video.sourceline}: a video has neither content_loc nor player_loc"
        )
    news = sum(1 for _ in root.iter(f"{{{_NEWS}}}news"))
    assert news <= 1000, f"{news} news articles in one file (Google's limit is 1,000)"


def assert_valid_urlset(data: bytes) -> list[str]:
    """Fail unless ``data`` (plain or gzip) is a valid urlset; return its ``loc`` values."""
    return _assert_valid(data, _urlset_schema(), "urlset")


def assert_valid_index(data: bytes) -> list[str]:
    """Fail unless ``data`` (plain or gzip) is a valid sitemap index; return its ``loc`` values."""
    return _assert_valid(data, _index_schema(), "sitemapindex")


@dataclass
class WrittenSitemaps:
    """What :func:`check_written_sitemaps` saw: files validated, and one line per invalid one."""

    checked: int = 0
    problems: list[str] = field(default_factory=list)


def _watch(
    monkeypatch: pytest.MonkeyPatch,
    original: Callable[..., Any],
    check: Callable[[bytes], object],
    seen: WrittenSitemaps,
) -> None:
    """Wrap ``original`` wherever a module of the project holds it, so that each document it
    makes is checked."""

    def watched(*args: Any, **kwargs: Any) -> Any:
        made = original(*args, **kwargs)
        data = made[0] if isinstance(made, tuple) else made
        seen.checked += 1
        try:
            check(data)
        except (AssertionError, etree.XMLSyntaxError) as error:
            seen.problems.append(f"{original.__name__} made an invalid file: {error}")
        return made

    for name, module in list(sys.modules.items()):
        if not name.startswith(("sitemap_updater", "tests", "benchmarks")) or module is None:
            continue
        for attribute, value in list(vars(module).items()):
            if value is original:
                monkeypatch.setattr(module, attribute, watched)


def check_written_sitemaps(monkeypatch: pytest.MonkeyPatch) -> WrittenSitemaps:
    """Validate every urlset and index made from now on (until ``monkeypatch`` is undone);
    problems are collected in the returned record rather than raised, so code under test that
    catches exceptions cannot hide them."""
    seen = WrittenSitemaps()
    _watch(monkeypatch, urlset.urlset_of, assert_valid_urlset, seen)
    _watch(monkeypatch, index.render_index, assert_valid_index, seen)
    return seen
