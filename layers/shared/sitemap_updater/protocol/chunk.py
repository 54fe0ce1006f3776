"""Renders a run of entries as one block of ``<url>`` text, checking each rule once per block.

:meth:`UrlsetWriter.add_many` hands blocks of entries to :meth:`ChunkRenderer.render`. Each check
that :meth:`UrlsetWriter.add` makes per entry is made here on all entries of the block at once,
with C-level string operations over the joined values:

- the locs are joined with ``\\n``, checked to be ASCII with no character XML 1.0 forbids
  (``isascii`` and one ``bytes.translate``; anything else is left to the per-entry path),
  escaped together (one ``str.replace`` per special character that occurs), and every
  ``"\\n" + prefix`` between two locs becomes a ``{}`` field of a ``str.format`` template; a
  line break left over means a loc off the site, so every loc is on the site;
- each entry's text after its loc (lastmod, changefreq, priority, extensions, the next
  ``<url><loc>`` and the prefix) is built once and put into the template by one ``format``;
- alternates and images are rendered unescaped while their values are collected; if any value
  holds a character to escape or to reject, the extensions are rendered the exact per-entry way;
- every ``lastmod`` has the normalized form (digits mapped to ``0``, then the set of shapes);
- changefreq and priority texts come from tables, so a value outside them is a ``KeyError``.

Any check that fails makes :meth:`render` return ``None``; the writer then adds the block entry by
entry, and that path raises the precise typed error at the precise entry. The output is byte for
byte what :meth:`UrlsetWriter.add` writes for the same entries.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from operator import attrgetter, is_not
from typing import Final

from sitemap_updater.protocol.entry import Entry
from sitemap_updater.protocol.escape import escape
from sitemap_updater.protocol.limits import CHANGEFREQS

#: ``<changefreq>`` text of each valid value; ``None`` (absent) writes nothing.
CHANGEFREQ_TEXT: Final[dict[str | None, str]] = {
    None: "",
    **{value: f"<changefreq>{value}</changefreq>" for value in CHANGEFREQS},
}
#: ``<priority>`` text of each valid value (one decimal place); ``None`` writes nothing.
PRIORITY_ELEMENT: Final[dict[float | None, str]] = {
    None: "",
    **{i / 10: f"<priority>{i / 10:.1f}</priority>" for i in range(11)},
}
#: Every ASCII character XML 1.0 allows, plus the ``\\n`` that separates joined values.
_XML_ASCII: Final = bytes([0x09, 0x0A, 0x0D, *range(0x20, 0x80)])
#: The same without the five characters XML escapes.
_PLAIN_ASCII: Final = bytes(c for c in _XML_ASCII if c not in b"&<>\"'")
#: Maps each ASCII digit to ``0``, so a normalized lastmod becomes one of two shapes.
_DIGITS_TO_ZERO: Final = str.maketrans("123456789", "000000000")
_LASTMOD_SHAPES: Final = frozenset({"0000-00-00", "0000-00-00T00:00:00Z"})
_URL_OPEN: Final = "<url><loc>"
_loc: Final = attrgetter("loc")
_lastmod: Final = attrgetter("lastmod")
_present: Final = partial(is_not, None)


class ChunkRenderer:
    """The block form of the per-entry checks and text of :class:`UrlsetWriter` for one site."""

    __slots__ = ("_extensions", "_newline_prefix", "_prefix")

    def __init__(self, prefix: str, extensions: Callable[[Entry], str]) -> None:
        """``prefix`` is the site origin plus ``/``; ``extensions`` renders (and checks) the
        alternates and images of one entry, raising a typed error on a bad value."""
        self._prefix = prefix
        self._newline_prefix = "\n" + prefix
        self._extensions = extensions

    def render(self, entries: Sequence[Entry]) -> tuple[str, str | None] | None:
        """The ``<url>`` elements of ``entries`` and their newest lastmod, or ``None`` if any
        entry breaks a rule (or might: the per-entry path decides)."""
        if not entries:
            return None
        try:
            template = self._loc_template(entries)
            if template is None:
                return None
            newest = _newest_lastmod(entries)
            values: list[str] = []
            text = self._fill(template, entries, partial(self._plain_extensions, values))
            if values and not _plain_ascii(values):
                # an extension value to escape or to reject: render them the exact way
                text = self._fill(template, entries, self._extensions)
        except (LookupError, TypeError, ValueError, AttributeError):
            # a value outside the tables, a wrong type, a bad extension (SitemapError is a
            # ValueError) or a loc holding a line break (IndexError from format): the
            # per-entry path raises the precise error at the right entry
            return None
        return text, newest

    def _loc_template(self, entries: Sequence[Entry]) -> str | None:
        """The escaped locs as one ``str.format`` template, each ``"\n" + prefix`` between
        two locs replaced by ``{}``; ``None`` unless every loc is on the site and printable
        ASCII."""
        joined = "\n".join(map(_loc, entries))
        if (
            not joined.startswith(self._prefix)
            or not joined.isascii()
            or joined.encode("ascii").translate(None, _XML_ASCII)
        ):
            return None
        joined = escape(joined)
        if "{" in joined or "}" in joined:
            joined = joined.replace("{", "{{").replace("}", "}}")
        template = joined.replace(self._newline_prefix, "{}")
        # A line break left over is not followed by the prefix: a loc off the site (or one
        # holding a line break). A loc holding "\n" + prefix adds a field, so format raises
        # IndexError; either way the block goes entry by entry.
        return None if "\n" in template else template + "{}"

    def _fill(
        self, template: str, entries: Sequence[Entry], extensions: Callable[[Entry], str]
    ) -> str:
        """Each entry's elements after its loc, put between the locs of ``template``."""
        changefreq = CHANGEFREQ_TEXT
        priority = PRIORITY_ELEMENT
        prefix = self._prefix
        tails = [
            f"</loc>{'' if (lastmod := e.lastmod) is None else f'<lastmod>{lastmod}</lastmod>'}"
            f"{changefreq[e.changefreq]}{priority[e.priority]}"
            f"{extensions(e) if e.alternates or e.images else ''}</url>\n<url><loc>{prefix}"
            for e in entries
        ]
        tails[-1] = tails[-1][: -len(_URL_OPEN) - len(prefix)]
        return _URL_OPEN + template.format(*tails)

    def _plain_extensions(self, values: list[str], entry: Entry) -> str:
        """The extensions of ``entry``, unescaped; their values are added to ``values`` to be
        checked for the block as a whole (see :func:`_plain_ascii`)."""
        parts = []
        prefix = self._prefix
        for alternate in entry.alternates:
            hreflang = alternate.hreflang
            href = alternate.href
            if not href.startswith(prefix):
                raise ValueError("foreign href")
            values.append(hreflang)
            values.append(href)
            parts.append(f'<xhtml:link rel="alternate" hreflang="{hreflang}" href="{href}"/>')
        for image in entry.images:
            loc = image.loc
            values.append(loc)
            parts.append(f"<image:image><image:loc>{loc}</image:loc></image:image>")
        return "".join(parts)


def _plain_ascii(values: list[str]) -> bool:
    """Whether every value is printable ASCII with nothing to escape (and no newline)."""
    joined = "\n".join(values)
    return (
        joined.count("\n") == len(values) - 1
        and joined.isascii()
        and not joined.encode("ascii").translate(None, _PLAIN_ASCII)
    )


def _newest_lastmod(entries: Sequence[Entry]) -> str | None:
    """The newest lastmod (``None`` if none); ``ValueError`` if one is not in normalized form."""
    lastmods: list[str] = list(filter(_present, map(_lastmod, entries)))
    if not lastmods:
        return None
    joined = "\n".join(lastmods)
    if joined.count("\n") != len(lastmods) - 1 or not _LASTMOD_SHAPES.issuperset(
        joined.translate(_DIGITS_TO_ZERO).split("\n")
    ):
        raise ValueError("a lastmod is not in normalized form")
    return max(lastmods)
