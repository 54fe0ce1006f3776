"""Helpers for the build / send / backfill command tests: XSD checks and independent readers.

The readers here use lxml directly (not the code under test) to list what a file holds.
"""

from __future__ import annotations

import gzip
import hashlib
from collections.abc import Iterator
from pathlib import Path

from lxml import etree

SCHEMAS = Path("/work/shared/schemas")
NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}
SITE = "https://www.example.com"


def load_schema(name: str) -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(SCHEMAS / name)))


def read_xml(path: Path) -> etree._Element:
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return etree.fromstring(data)


def assert_valid(path: Path, schema: etree.XMLSchema) -> etree._Element:
    root = read_xml(path)
    assert schema.validate(root), f"{path.name}: {schema.error_log}"
    return root


def locs(root: etree._Element) -> list[str]:
    return [str(t) for t in root.xpath("//sm:loc/text()", namespaces=NS)]


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
