"""Renders a run of entries as one block of ``<url>`` text, checking each rule once per block.

:meth:`UrlsetWriter.add_many` hands blocks of entries to :meth:`ChunkRenderer.render`. Each check
that :meth:`UrlsetWriter.add` makes per entry is made here on all entries of the block at once,
with C-level string operations over the joined values:

- every ``loc`` starts with the site's origin and ``/`` (one ``count`` of ``"\\n" + prefix``);
- every ``loc`` is printable ASCII (``isascii`` and one ``bytes.translate``); anything else
  (non-ASCII, control characters) is left to the per-entry path;
- ``loc`` values are escaped together (one ``str.replace`` per special character that occurs);
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
#: Maps each ASCII digit to ``0``, so a normalized lastmod becomes one of two shapes.
_DIGITS_TO_ZERO: Final = str.maketrans("123456789", "000000000")
_LASTMOD_SHAPES: Final = frozenset({"0000-00-00", "0000-00-00T00:00:00Z"})
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
        count = len(entries)
        if not count:
            return None
        try:
            locs = self._locs(entries, count)
            if locs is None:
                return None
            newest = _check_lastmods(entries)
            if newest is False:
                return None
            extensions = self._extensions
            changefreq = CHANGEFREQ_TEXT
            priority = PRIORITY_ELEMENT
            text = "".join(
                [
                    f"<url><loc>{loc}</loc>"
                    f"{'' if (lastmod := e.lastmod) is None else f'<lastmod>{lastmod}</lastmod>'}"
                    f"{changefreq[e.changefreq]}{priority[e.priority]}"
                    f"{extensions(e) if e.alternates or e.images else ''}</url>\n"
                    for loc, e in zip(locs, entries, strict=True)
                ]
            )
        except (LookupError, TypeError, ValueError, AttributeError):
            # a value outside the tables, a wrong type or a bad extension (SitemapError is a
            # ValueError): the per-entry path raises the precise error at the right entry
            return None
        return text, newest

    def _locs(self, entries: Sequence[Entry], count: int) -> list[str] | None:
        """The escaped ``loc`` of each entry, if all are on the site and printable ASCII."""
        joined = "\n".join(map(_loc, entries))
        if (
            not joined.startswith(self._prefix)
            # no loc holds a newline, so the split below gives back exactly the entries' locs
            or joined.count("\n") != count - 1
            or joined.count(self._newline_prefix) != count - 1
            or not joined.isascii()
            or joined.encode("ascii").translate(None, _XML_ASCII)
        ):
            return None
        return escape(joined).split("\n")


def _check_lastmods(entries: Sequence[Entry]) -> str | None | bool:
    """The newest lastmod (``None`` if none), or ``False`` if one is not in normalized form."""
    lastmods: list[str] = list(filter(_present, map(_lastmod, entries)))
    if not lastmods:
        return None
    joined = "\n".join(lastmods)
    if joined.count("\n") != len(lastmods) - 1 or not _LASTMOD_SHAPES.issuperset(
        joined.translate(_DIGITS_TO_ZERO).split("\n")
    ):
        return False
    return max(lastmods)
