"""The official XSDs bundled in ``schemas/``, loaded once: a urlset's with the image, xhtml,
video and news extension schemas, and the index's."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Final

from lxml import etree

from sitemap_updater.protocol.limits import (
    IMAGE_NS,
    NEWS_NS,
    SITEMAP_NS,
    VIDEO_NS,
    XHTML_NS,
)

SCHEMA_DIR: Final = Path(__file__).resolve().parents[1] / "schemas"
#: Problems reported per rule and file before the rest are summed up in one line.
#: XML's whitespace characters, which the XSD types of loc, href and lastmod collapse.


def _wrapper_schema(imports: dict[str, str]) -> etree.XMLSchema:
    lines = ['<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema">']
    for namespace, file_name in imports.items():
        location = (SCHEMA_DIR / file_name).as_uri()
        lines.append(f'<xsd:import namespace="{namespace}" schemaLocation="{location}"/>')
    lines.append("</xsd:schema>")
    return etree.XMLSchema(etree.fromstring("\n".join(lines).encode()))


@functools.cache
def urlset_schema() -> etree.XMLSchema:
    """sitemap.xsd together with the image, xhtml, video and news extension schemas."""
    return _wrapper_schema(
        {
            SITEMAP_NS: "sitemap.xsd",
            IMAGE_NS: "sitemap-image.xsd",
            XHTML_NS: "xhtml-link.xsd",
            VIDEO_NS: "sitemap-video.xsd",
            NEWS_NS: "sitemap-news.xsd",
        }
    )


@functools.cache
def index_schema() -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(SCHEMA_DIR / "siteindex.xsd")))
