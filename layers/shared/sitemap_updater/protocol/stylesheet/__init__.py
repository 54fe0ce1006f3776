"""The stylesheet a browser applies to the sitemap files, and the text before their root element.

A file written with the stylesheet carries ``<?xml-stylesheet type="text/xsl"
href="sitemap.xsl"?>`` right after its XML declaration; the href is relative, so ``sitemap.xsl``
is published beside the index. A browser that opens the file shows a table (the index: its
files, section and lastmod; a urlset: its URLs, alternates, images, news and videos); a crawler
reads the same sitemap as without it. The instruction is outside the sitemap schemas, which
validate the root element only.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Final

#: The stylesheet's file name: its key beside the index, and the href of the instruction.
STYLESHEET_NAME: Final = "sitemap.xsl"
XML_DECLARATION: Final = '<?xml version="1.0" encoding="UTF-8"?>\n'
STYLESHEET_INSTRUCTION: Final = f'<?xml-stylesheet type="text/xsl" href="{STYLESHEET_NAME}"?>\n'
STYLESHEET_INSTRUCTION_BYTES: Final = STYLESHEET_INSTRUCTION.encode("ascii")


def prologue(stylesheet: bool) -> str:
    """What every index and urlset starts with: the XML declaration, then, with ``stylesheet``,
    the instruction that names :data:`STYLESHEET_NAME`."""
    return XML_DECLARATION + STYLESHEET_INSTRUCTION if stylesheet else XML_DECLARATION


@cache
def stylesheet_body() -> bytes:
    """The bytes of ``sitemap.xsl`` as the package ships it."""
    return files(__name__).joinpath(STYLESHEET_NAME).read_bytes()
