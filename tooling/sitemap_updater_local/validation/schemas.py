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
#: How an XSD message names an element of each namespace: ``{ns}name`` as ``prefix:name``.
PREFIXES: Final = {
    f"{{{SITEMAP_NS}}}": "",
    f"{{{IMAGE_NS}}}": "image:",
    f"{{{XHTML_NS}}}": "xhtml:",
    f"{{{VIDEO_NS}}}": "video:",
    f"{{{NEWS_NS}}}": "news:",
}


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


def schema_message(message: str) -> str:
    """An XSD error message on one line, each element named by its prefix."""
    text = " ".join(message.split())
    for namespace, prefix in PREFIXES.items():
        text = text.replace(namespace, prefix)
    return text
