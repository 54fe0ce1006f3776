"""Schema checks every test uses on every file it produces (lxml + the bundled XSDs).

``assert_valid_urlset(data)`` / ``assert_valid_index(data)`` accept plain or gzipped bytes, fail
the test with lxml's messages if the document is not valid, and return the ``loc`` values in
document order, parsed independently of the code that wrote them.

:func:`check_written_sitemaps` makes this hold for every file without a test having to ask:
``tests/conftest.py`` applies it to every test, so each :class:`UrlsetWriter` and
:class:`IndexWriter` closed in the test process, whatever its sink (a ``BytesIO``, a file, an
upload to S3), has its bytes validated, and the test fails if one is not valid.
"""

from __future__ import annotations

import functools
import gzip
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pytest
from lxml import etree

from sitemap_updater.protocol import FileStats, IndexWriter, UrlsetWriter

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


class _Copy:
    """A sink that passes every write on to the writer's real sink and keeps a copy."""

    __slots__ = ("chunks", "sink")

    def __init__(self, sink: Any) -> None:
        self.sink = sink
        self.chunks: list[bytes] = []

    def write(self, data: bytes, /) -> object:
        self.chunks.append(bytes(data))
        return self.sink.write(data)


def _watch(
    monkeypatch: pytest.MonkeyPatch,
    cls: type[UrlsetWriter] | type[IndexWriter],
    check: Callable[[bytes], object],
    seen: WrittenSitemaps,
) -> None:
    copies: weakref.WeakKeyDictionary[object, _Copy] = weakref.WeakKeyDictionary()
    init: Callable[..., None] = cls.__init__
    close: Callable[[Any], FileStats] = cls.close

    def watched_init(self: Any, sink: Any, *args: Any, **kwargs: Any) -> None:
        copy = _Copy(sink)
        copies[self] = copy
        init(self, copy, *args, **kwargs)

    def watched_close(self: Any) -> FileStats:
        stats = close(self)
        copy = copies.pop(self, None)
        if copy is not None:
            seen.checked += 1
            try:
                check(b"".join(copy.chunks))
            except (AssertionError, etree.XMLSyntaxError) as error:
                seen.problems.append(f"a {type(self).__name__} wrote an invalid file: {error}")
        return stats

    monkeypatch.setattr(cls, "__init__", watched_init)
    monkeypatch.setattr(cls, "close", watched_close)


def check_written_sitemaps(monkeypatch: pytest.MonkeyPatch) -> WrittenSitemaps:
    """Validate, on :meth:`close`, every file a urlset or index writer produces from now on
    (until ``monkeypatch`` is undone); problems are collected in the returned record rather
    than raised, so code under test that catches exceptions cannot hide them."""
    seen = WrittenSitemaps()
    _watch(monkeypatch, UrlsetWriter, assert_valid_urlset, seen)
    _watch(monkeypatch, IndexWriter, assert_valid_index, seen)
    return seen
