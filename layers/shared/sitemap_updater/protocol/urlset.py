"""A urlset file: its frame around the ``<url>`` fragments, joined and taken apart again.

A urlset is its opening (the prologue, with or without the stylesheet's instruction, and the root
element, which declares the xhtml, image, video and news namespaces up front), its fragments in
order (one ``<url>`` element a line, ``page.render``), and :data:`URLSET_CLOSE`. So a published
file is taken apart into fragments (:func:`fragments_of`) and fragments are joined into a file
(:func:`urlset_of`) without rendering any page again; compressing the joined text gives the bytes
a full rendering gives, because gzip's output depends only on the text (``gzipio``).

The fragments of a file take at most its byte cap minus :data:`URLSET_FRAME_BYTES`, the frame
*with* the stylesheet's instruction, whether the file carries it or not: so turning the
stylesheet on or off never moves where a file is full or splits.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from sitemap_updater.protocol.gzipio import InflateError, inflate
from sitemap_updater.protocol.limits import (
    IMAGE_NS,
    MAX_READ_BACK_BYTES,
    NEWS_NS,
    SITEMAP_NS,
    VIDEO_NS,
    XHTML_NS,
)
from sitemap_updater.protocol.stylesheet import (
    STYLESHEET_INSTRUCTION_BYTES,
    XML_DECLARATION,
    prologue,
)

URLSET_ROOT: Final = (
    f'<urlset xmlns="{SITEMAP_NS}" xmlns:xhtml="{XHTML_NS}" '
    f'xmlns:image="{IMAGE_NS}" xmlns:video="{VIDEO_NS}" xmlns:news="{NEWS_NS}">\n'
)
URLSET_CLOSE: Final = "</urlset>\n"
#: The opening of a urlset without and with the stylesheet's instruction (index: ``stylesheet``).
_OPENINGS: Final = (
    (prologue(False) + URLSET_ROOT).encode("utf-8"),
    (prologue(True) + URLSET_ROOT).encode("utf-8"),
)
_DECLARATION: Final = XML_DECLARATION.encode("ascii")
_ROOT: Final = URLSET_ROOT.encode("utf-8")
URLSET_CLOSE_BYTES: Final = URLSET_CLOSE.encode("utf-8")
URL_END: Final = b"</url>\n"
_LOC_START: Final = b"<url><loc>"
#: The most bytes a urlset adds around its fragments: the room fragments leave in a file.
URLSET_FRAME_BYTES: Final = max(map(len, _OPENINGS)) + len(URLSET_CLOSE_BYTES)
#: The five entities the renderer's ``escape`` produces, undone in the reverse order.
_ENTITIES: Final = (("&apos;", "'"), ("&quot;", '"'), ("&gt;", ">"), ("&lt;", "<"), ("&amp;", "&"))
_LASTMOD: Final = re.compile(rb"<lastmod>([^<]*)</lastmod>")


class PublishedFormatError(ValueError):
    """A published file that is not a urlset in the form this project writes."""


def urlset_opening(stylesheet: bool) -> bytes:
    """The bytes of a urlset before its first fragment, with the stylesheet's instruction when
    ``stylesheet``."""
    return _OPENINGS[stylesheet]


def urlset_of(fragments: Sequence[bytes], *, stylesheet: bool) -> bytes:
    """The uncompressed urlset that holds ``fragments`` in order."""
    return b"".join([urlset_opening(stylesheet), *fragments, URLSET_CLOSE_BYTES])


def fragment_loc(fragment: bytes) -> str:
    """The loc of a fragment, unescaped."""
    end = fragment.find(b"</loc>")
    if not fragment.startswith(_LOC_START) or end < 0:
        raise PublishedFormatError(
            f"a <url> element does not start with its loc: {fragment[:80]!r}"
        )
    try:
        loc = fragment[len(_LOC_START) : end].decode("utf-8")
    except UnicodeDecodeError as error:
        raise PublishedFormatError(f"a loc is not UTF-8: {fragment[:80]!r}") from error
    if "&" in loc:
        for entity, char in _ENTITIES:
            loc = loc.replace(entity, char)
    return loc


def urlset_text(body: bytes) -> tuple[bytes, int, int]:
    """The text of a gzipped urlset this project wrote (with or without the stylesheet's
    instruction), and where its fragments start and end in it; :class:`PublishedFormatError` for
    any other file, one that inflates past :data:`MAX_READ_BACK_BYTES` included. No XML parser
    reads it: it is cut at the fixed markup, so a DTD or an entity is never expanded; one in a
    file makes it not this project's format."""
    try:
        text = inflate(body, MAX_READ_BACK_BYTES)
    except InflateError as error:
        raise PublishedFormatError(str(error)) from error
    start = len(_DECLARATION)
    if text.startswith(STYLESHEET_INSTRUCTION_BYTES, start):
        start += len(STYLESHEET_INSTRUCTION_BYTES)
    if not (
        text.startswith(_DECLARATION)
        and text.startswith(_ROOT, start)
        and text.endswith(URLSET_CLOSE_BYTES)
    ):
        raise PublishedFormatError("the file does not have the urlset header and footer")
    start += len(_ROOT)
    end = len(text) - len(URLSET_CLOSE_BYTES)
    if end > start and not text.endswith(URL_END, start, end):
        raise PublishedFormatError("the last <url> element is not closed")
    return text, start, end


def fragments_of(body: bytes) -> list[bytes]:
    """The ``<url>`` fragments of a gzipped urlset this project wrote, in order."""
    text, start, end = urlset_text(body)
    if start == end:
        return []
    return [piece + URL_END for piece in text[start : end - len(URL_END)].split(URL_END)]


def newest_lastmod(text: bytes) -> str | None:
    """The newest ``<lastmod>`` in a urlset's (or a fragment's) text, None if it has none."""
    found = _LASTMOD.findall(text)
    return max(found).decode("ascii") if found else None
