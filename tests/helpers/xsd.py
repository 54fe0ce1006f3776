"""Schema checks every test uses on every file it produces (lxml + the bundled XSDs).

``assert_valid_urlset(data)`` / ``assert_valid_index(data)`` accept plain or gzipped bytes, fail
the test with lxml's messages if the document is not valid, and return the ``loc`` values in
document order, parsed independently of the code that wrote them.
"""

from __future__ import annotations

import functools
import gzip
from collections.abc import Iterable
from pathlib import Path
from typing import Any, cast

from lxml import etree

SCHEMAS = Path(__file__).resolve().parents[2] / "tooling" / "sitemap_updater_local" / "schemas"
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
_IMPORTS = {
    SITEMAP_NS: "sitemap.xsd",
    "http://www.google.com/schemas/sitemap-image/1.1": "sitemap-image.xsd",
    "http://www.w3.org/1999/xhtml": "xhtml-link.xsd",
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
    child = "url" if root_name == "urlset" else "sitemap"
    return [loc.text or "" for loc in root.iterfind(f"s:{child}/s:loc", {"s": SITEMAP_NS})]


def assert_valid_urlset(data: bytes) -> list[str]:
    """Fail unless ``data`` (plain or gzip) is a valid urlset; return its ``loc`` values."""
    return _assert_valid(data, _urlset_schema(), "urlset")


def assert_valid_index(data: bytes) -> list[str]:
    """Fail unless ``data`` (plain or gzip) is a valid sitemap index; return its ``loc`` values."""
    return _assert_valid(data, _index_schema(), "sitemapindex")
