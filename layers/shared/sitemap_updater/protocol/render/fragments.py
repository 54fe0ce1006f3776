"""Fragments: the ``<url>`` elements of a urlset, one each, as bytes.

A urlset is its opening (``urlset_open``: the prologue, with or without the stylesheet's
instruction, and the root element), its fragments in order, and :data:`URLSET_CLOSE`, so a file
is taken apart into fragments (:func:`fragments_of`), and fragments are joined into a file
(:func:`urlset_of`) without rendering any entry again; compressing the joined text gives the
bytes the writer writes for the same entries, because the writer's output depends only on the
text (see ``gzipio``). A fragment is rendered by the one ``<url>`` renderer (``element``, or for
a block ``chunk``), with all of its checks, under the byte cap of the file it goes into.

The fragments of a file take at most its byte cap minus :data:`URLSET_FRAME_BYTES`, the frame
*with* the stylesheet's instruction, whether the file carries it or not: so turning the
stylesheet on or off never moves where a file is full or splits, and an entry refused here is
the one the writer refuses with the stylesheet.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import batched
from typing import Final

from sitemap_updater.protocol.entry import Entry, PlainFields
from sitemap_updater.protocol.errors import EntryTooLargeError, SitemapError
from sitemap_updater.protocol.gzipio import InflateError, inflate
from sitemap_updater.protocol.limits import MAX_READ_BACK_BYTES
from sitemap_updater.protocol.render.chunk import ChunkRenderer
from sitemap_updater.protocol.render.element import EntryRenderer, plain_fragment, too_large_reason
from sitemap_updater.protocol.stylesheet import STYLESHEET_INSTRUCTION_BYTES, XML_DECLARATION
from sitemap_updater.protocol.urls import Site
from sitemap_updater.protocol.urlset import (
    CHUNK_SIZE,
    LEGACY_URLSET_ROOT,
    URLSET_CLOSE,
    URLSET_ROOT,
    urlset_open,
)

#: The opening of a urlset without and with the stylesheet's instruction (index: ``stylesheet``).
_OPENINGS: Final = (urlset_open(False).encode("utf-8"), urlset_open(True).encode("utf-8"))
_DECLARATION: Final = XML_DECLARATION.encode("ascii")
#: The root elements a published file may open with: this writer's, and the legacy one.
_ROOTS: Final = (URLSET_ROOT.encode("utf-8"), LEGACY_URLSET_ROOT.encode("utf-8"))
URLSET_CLOSE_BYTES: Final = URLSET_CLOSE.encode("utf-8")
URL_END: Final = b"</url>\n"
_LOC_START: Final = b"<url><loc>"
#: The most bytes a urlset adds around its fragments (its frame with the stylesheet's
#: instruction): the room fragments leave in a file, whether it carries the instruction or not.
URLSET_FRAME_BYTES: Final = max(map(len, _OPENINGS)) + len(URLSET_CLOSE_BYTES)
#: The five entities the writer's ``escape`` produces, undone in the reverse order.
_ENTITIES: Final = (("&apos;", "'"), ("&quot;", '"'), ("&gt;", ">"), ("&lt;", "<"), ("&amp;", "&"))


class PublishedFormatError(ValueError):
    """A published file that is not a urlset in the form this project's writer produces."""


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


def urlset_opening(stylesheet: bool) -> bytes:
    """The bytes of a urlset before its first fragment (``urlset_open``), with the stylesheet's
    instruction when ``stylesheet``."""
    return _OPENINGS[stylesheet]


def _fragments_start(text: bytes) -> int:
    """Where the fragments of a urlset's ``text`` start: after the XML declaration, the
    stylesheet's instruction if the file has it, and one of the root elements the writer ever
    wrote; raises :class:`PublishedFormatError` when the text does not open so."""
    if text.startswith(_DECLARATION):
        start = len(_DECLARATION)
        if text.startswith(STYLESHEET_INSTRUCTION_BYTES, start):
            start += len(STYLESHEET_INSTRUCTION_BYTES)
        for root in _ROOTS:
            if text.startswith(root, start):
                return start + len(root)
    raise PublishedFormatError("the file does not have the urlset header and footer")


def urlset_text(body: bytes) -> tuple[bytes, int, int]:
    """The text of a gzipped urlset the writer wrote (with or without the stylesheet's
    instruction), and where its fragments start and end in it; raises
    :class:`PublishedFormatError` for any other file, one that inflates past
    :data:`MAX_READ_BACK_BYTES` included. No XML parser reads the file: it is cut at the
    writer's fixed markup, so a DTD or an entity is never expanded; one in a file makes it
    not the writer's format (the frame or a fragment's form does not match)."""
    try:
        text = inflate(body, MAX_READ_BACK_BYTES)
    except InflateError as error:
        raise PublishedFormatError(str(error)) from error
    start = _fragments_start(text)
    if not text.endswith(URLSET_CLOSE_BYTES):
        raise PublishedFormatError("the file does not have the urlset header and footer")
    end = len(text) - len(URLSET_CLOSE_BYTES)
    if end > start and not text.endswith(URL_END, start, end):
        raise PublishedFormatError("the last <url> element is not closed")
    return text, start, end


def fragments_of(body: bytes) -> list[bytes]:
    """The ``<url>`` fragments of a gzipped urlset the writer wrote, in order (see
    :func:`urlset_text` for what it refuses)."""
    text, start, end = urlset_text(body)
    if start == end:
        return []
    return [piece + URL_END for piece in text[start : end - len(URL_END)].split(URL_END)]


def urlset_of(fragments: Sequence[bytes], *, stylesheet: bool) -> bytes:
    """The uncompressed urlset that holds ``fragments`` in order, with the stylesheet's
    instruction when ``stylesheet``."""
    return b"".join([urlset_opening(stylesheet), *fragments, URLSET_CLOSE_BYTES])


def too_large(loc: str, max_bytes: int) -> str:
    """The ``loc: reason`` of an entry alone over ``max_bytes``."""
    return f"{loc}: {EntryTooLargeError('bytes', too_large_reason(loc, max_bytes))}"


def entry_fragment(entry: Entry, site: Site, *, max_bytes: int) -> bytes:
    """The ``<url>`` fragment of ``entry`` in a file of at most ``max_bytes``, with every check
    of the writer; raises the :class:`SitemapError` of an entry it refuses."""
    fragment = EntryRenderer(site).text(entry).encode("utf-8")
    if len(fragment) > max_bytes - URLSET_FRAME_BYTES:
        raise EntryTooLargeError("bytes", too_large_reason(entry.loc, max_bytes))
    return fragment


def recognized_fragment(fields: PlainFields, *, max_bytes: int) -> bytes | str:
    """The ``<url>`` fragment of an entry's plain values that the recognizer of normalized form
    recognized (``render.element.plain_fragment``) in a file of at most ``max_bytes``, or the
    ``loc: reason`` of an entry alone over that cap."""
    fragment = plain_fragment(fields).encode()
    if len(fragment) > max_bytes - URLSET_FRAME_BYTES:
        return too_large(fields[0], max_bytes)
    return fragment


def _fragment_or_reason(
    renderer: EntryRenderer, entry: Entry, room: int, max_bytes: int
) -> bytes | str:
    try:
        fragment = renderer.text(entry).encode("utf-8")
    except SitemapError as error:
        return f"{entry.loc}: {error}"
    return fragment if len(fragment) <= room else too_large(entry.loc, max_bytes)


def entry_fragments(entries: Iterable[Entry], site: Site, *, max_bytes: int) -> list[bytes | str]:
    """The ``<url>`` fragment of each entry in a file of at most ``max_bytes``, or, for an
    entry refused there (alone over the byte cap, or a rule), its ``loc: reason``.

    Blocks the block renderer takes (the common case: normalized entries without videos or
    news) are rendered at once and cut at each ``</url>``, which no escaped value holds; any
    other block is rendered entry by entry.
    """
    blocks = ChunkRenderer(site)
    renderer = EntryRenderer(site)
    room = max_bytes - URLSET_FRAME_BYTES
    result: list[bytes | str] = []
    for block in batched(entries, CHUNK_SIZE):
        rendered = blocks.render(block)
        if rendered is None:
            result += [_fragment_or_reason(renderer, e, room, max_bytes) for e in block]
        else:
            result += _cut(rendered[0].encode("utf-8"), block, room, max_bytes)
    return result


def _cut(text: bytes, block: Sequence[Entry], room: int, max_bytes: int) -> list[bytes | str]:
    """The fragments of a block's text, an entry over ``room`` bytes replaced by its reason."""
    # each element is one line (no value in the block holds a line break); cut at </url>\n
    # if that ever were not so
    pieces: list[bytes | str] = list(text.splitlines(keepends=True))
    if len(pieces) != len(block) or text.count(URL_END) != len(block):
        pieces = [piece + URL_END for piece in text.split(URL_END)[: len(block)]]
    if max(map(len, pieces)) > room:
        pieces = [
            piece if len(piece) <= room else too_large(entry.loc, max_bytes)
            for entry, piece in zip(block, pieces, strict=True)
        ]
    return pieces
