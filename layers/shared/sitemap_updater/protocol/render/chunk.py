"""Renders a run of entries as one block of ``<url>`` text, checking each rule once per block.

:meth:`UrlsetWriter.add_many` and the fragment API hand blocks of entries to
:meth:`ChunkRenderer.render`. The text of each entry is ``element.url_element``'s; each check
that ``element.EntryRenderer`` makes per entry is made here on all entries of the block at once,
with C-level operations over the joined values:

- the locs are joined with ``\\n`` and checked together: only the characters of a normalized URL
  (one ``bytes.translate`` leaves only the line breaks; no ``<``, ``>``, ``"`` nor ``#``), ``%``
  only in ``%XX``, exactly one line break between two locs (so no loc holds one), each line break
  followed by the site's origin (so every loc is on the site), and 12 to 2,048 characters once
  XML-escaped;
- every ``lastmod`` has the normalized form: digits are mapped to ``0`` and any other
  character outside the two forms to ``?``, then each of the two shapes becomes ``D`` and the
  result must be one ``D`` per value (see :func:`_newest_lastmod`);
- changefreq and priority texts come from tables, so a value outside them is a ``KeyError``;
- alternates and images (on few entries) are rendered unescaped, and their text is checked as a
  whole: ASCII, no character XML 1.0 forbids, and exactly as many ``"``, ``<`` and ``>`` as their
  tags hold, so none in a value, which also makes every ``" href="`` a tag's: each must be
  followed by the site's origin (or, the few others, be in normalized form on an origin
  ``Site.alternate_ok`` lets alternates point to) and be in normalized form, and each hreflang
  a language tag with a registered language (see :meth:`_Extensions.are_plain`);
- entries with an extra field (videos, a news object, ...) are left to the per-entry path (the
  render of an extension sees them and gives up on the block), which checks and escapes each
  of their values;
- ``&`` and ``'``, the two special characters a value may still hold, appear in no tag, so the
  block is escaped for them at the end with one ``str.replace`` each.

Any check that fails makes :meth:`render` return ``None``; the writer then adds the block entry by
entry, and that path raises the precise typed error at the precise entry (or escapes the rare
image loc that holds ``<``, ``>`` or ``"``; locs and hrefs are normalized, so they never do).
The output is byte for byte what ``EntryRenderer`` (and so :meth:`UrlsetWriter.add`) writes for
the same entries.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from sitemap_updater.protocol.entry import NO_EXTRAS, Entry, extras_of
from sitemap_updater.protocol.languages.tags import is_hreflang
from sitemap_updater.protocol.limits import MAX_LOC_LENGTH, MIN_LOC_LENGTH
from sitemap_updater.protocol.render.element import (
    ALTERNATE_CLOSE,
    ALTERNATE_HREF,
    ALTERNATE_OPEN,
    IMAGE_CLOSE,
    IMAGE_OPEN,
    escape_plain,
    url_element,
)
from sitemap_updater.protocol.urls import Site, already_normalized, xml_length

#: Every ASCII character XML 1.0 allows.
_XML_ASCII: Final = bytes([0x09, 0x0A, 0x0D, *range(0x20, 0x80)])
#: The characters of a normalized URL (RFC 3986 unreserved, sub-delims, ``:@/?`` and ``%``);
#: ``#`` is not one, since normalization drops the fragment.
_URL_CHARS: Final = (
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?%"
)
#: At most how many times longer XML escaping makes a URL (``'`` becomes ``&apos;``).
_MOST_ESCAPED_GROWTH: Final = 6
#: A ``%`` that does not start a ``%XX`` escape.
_LONE_PERCENT: Final = re.compile(r"%(?![0-9A-Fa-f]{2})")
#: Maps each ASCII digit to ``0``, keeps ``-:TZ`` and ``\\n``, and every other byte to ``?``:
#: a normalized lastmod becomes one of the two shapes below, anything else does not.
_LASTMOD_SHAPE: Final = bytes(
    ord("0") if c in b"0123456789" else c if c in b"-:TZ\n" else ord("?") for c in range(256)
)
_DATETIME_SHAPE: Final = b"0000-00-00T00:00:00Z"
_DATE_SHAPE: Final = b"0000-00-00"


class ChunkRenderer:
    """The block form of the per-entry checks and text of :class:`UrlsetWriter` for one site."""

    __slots__ = ("_newline_prefix", "_prefix", "_site")

    def __init__(self, site: Site) -> None:
        self._site = site
        self._prefix = prefix = site.root_url
        self._newline_prefix = "\n" + prefix

    def render(self, entries: Sequence[Entry]) -> tuple[str, str | None] | None:
        """The ``<url>`` elements of ``entries`` and their newest lastmod, or ``None`` if any
        entry breaks a rule (or might, or needs more escaping: the per-entry path decides)."""
        if not entries:
            return None
        extensions = _Extensions()
        try:
            if not self._locs_are_plain([e.loc for e in entries]):
                return None
            newest = _newest_lastmod([m for e in entries if (m := e.lastmod) is not None])
            extension = extensions.render
            text = "".join(
                [
                    url_element(
                        e.loc,
                        e.lastmod,
                        e.changefreq,
                        e.priority,
                        extension(e)
                        if e.alternates or e.images or extras_of(e) != NO_EXTRAS
                        else "",
                    )
                    for e in entries
                ]
            )
            if extensions.texts and not extensions.are_plain(self._site):
                return None
        except (LookupError, TypeError, ValueError, AttributeError):
            # a value outside the tables, a wrong type or a value that is not ASCII: the
            # per-entry path raises the precise error at the right entry
            return None
        # no tag holds & or ': every one in the block is in a value, and is escaped as add does
        return escape_plain(text), newest

    def _locs_are_plain(self, locs: list[str]) -> bool:
        """Whether every loc is on the site and in normalized form (only the characters of a
        normalized URL, ``%`` only in ``%XX``, no fragment), and 12 to 2,048 characters long
        once XML-escaped."""
        joined = "\n".join(locs)
        return (
            joined.startswith(self._prefix)
            and joined.count(self._newline_prefix) == len(locs) - 1
            and _normalized(locs, joined, self._prefix)
        )


class _Extensions:
    """Renders the alternates and images of the entries of one block unescaped, keeping what
    :meth:`are_plain` needs to check them all at once."""

    __slots__ = ("counts", "hreflangs", "hrefs", "render", "texts")

    def __init__(self) -> None:
        texts: list[str] = []
        hreflangs: list[str] = []
        hrefs: list[str] = []
        #: how many alternates and images each rendered entry has, in turn
        counts: list[int] = []

        def render(entry: Entry) -> str:
            if extras_of(entry) != NO_EXTRAS:
                raise LookupError("extra fields take the per-entry path")
            parts: list[str] = []
            alternates = entry.alternates
            images = entry.images
            for alternate in alternates:
                hreflangs.append(alternate.hreflang)
                hrefs.append(alternate.href)
                parts += (ALTERNATE_OPEN, alternate.hreflang, ALTERNATE_HREF, alternate.href)
                parts.append(ALTERNATE_CLOSE)
            for image in images:
                parts += (IMAGE_OPEN, image.loc, IMAGE_CLOSE)
            counts.extend((len(alternates), len(images)))
            text = "".join(parts)  # a TypeError if a value is not a string
            texts.append(text)
            return text

        self.texts = texts
        self.hreflangs = hreflangs
        self.hrefs = hrefs
        self.counts = counts
        self.render = render

    def are_plain(self, site: Site) -> bool:
        """Whether every value rendered is ASCII, free of characters XML 1.0 forbids and of
        ``<``, ``>``, ``"``, and every ``href`` is on ``site`` or, in normalized form, on an
        origin its alternates may point to (``Site.alternate_ok``).

        The tags hold exactly 6 ``"``, one ``<`` and one ``>`` per alternate and four of each
        per image, so any more are in a value; with no ``"`` in a value, each ``" href="``
        is a tag's, right before its value."""
        prefix = site.root_url
        joined = "".join(self.texts)
        alternates = sum(self.counts[0::2])
        tags = alternates + 4 * sum(self.counts[1::2])
        return (
            joined.isascii()
            and not joined.encode("ascii").translate(None, _XML_ASCII)
            and joined.count('"') == 6 * alternates
            and joined.count("<") == tags
            and joined.count(">") == tags
            and (
                joined.count(ALTERNATE_HREF + prefix) == alternates
                or self._hrefs_elsewhere_are_plain(site)
            )
            and self._hrefs_are_normalized(prefix)
            and (not alternates or _language_codes(self.hreflangs))
        )

    def _hrefs_elsewhere_are_plain(self, site: Site) -> bool:
        """Whether every href not on ``site`` is in normalized form on an origin the site's
        alternates may point to."""
        prefix = site.root_url
        alternate_ok = site.alternate_ok
        return all(
            href.startswith(prefix) or (alternate_ok(href) and already_normalized(href))
            for href in self.hrefs
        )

    def _hrefs_are_normalized(self, prefix: str) -> bool:
        """Whether every href (each already known to be on the site, or in normalized form) is
        in normalized form and 12 to 2,048 characters long once XML-escaped."""
        hrefs = self.hrefs
        return not hrefs or _normalized(hrefs, "\n".join(hrefs), prefix)


def _normalized(urls: list[str], joined: str, prefix: str) -> bool:
    """Whether each of ``urls`` (``joined`` with ``\\n``; each known to start with ``prefix``, or
    to be in normalized form) has only the characters of a normalized URL, ``%`` only in
    ``%XX``, and 12 to 2,048 characters once XML-escaped; checked over the joined text with
    C-level operations (one ``bytes.translate`` leaves only the line breaks)."""
    if not (
        joined.isascii()
        and joined.encode("ascii").translate(None, _URL_CHARS) == b"\n" * (len(urls) - 1)
        and ("%" not in joined or _LONE_PERCENT.search(joined) is None)
    ):
        return False
    longest = max(map(len, urls))
    if longest > MAX_LOC_LENGTH:
        return False
    if len(prefix) < MIN_LOC_LENGTH and min(map(len, urls)) < MIN_LOC_LENGTH:
        return False
    if longest * _MOST_ESCAPED_GROWTH > MAX_LOC_LENGTH and ("&" in joined or "'" in joined):
        # escaping makes these longer: & -> &amp;, ' -> &apos;
        return max(xml_length(url) for url in urls if "&" in url or "'" in url) <= MAX_LOC_LENGTH
    return True


def _language_codes(hreflangs: list[str]) -> bool:
    """Whether every hreflang is a language tag or ``x-default`` (``languages.tags``)."""
    return all(map(is_hreflang, hreflangs))


def _newest_lastmod(lastmods: list[str]) -> str | None:
    """The newest of ``lastmods`` (``None`` if there is none); ``ValueError`` if one is not in
    normalized form (or not ASCII), ``TypeError`` if one is not a string."""
    if not lastmods:
        return None
    shapes = "\n".join(lastmods).encode("ascii").translate(_LASTMOD_SHAPE)
    # each value, and nothing else, must become one "D" ("D" itself became "?" above)
    if shapes.replace(_DATETIME_SHAPE, b"D").replace(_DATE_SHAPE, b"D") != b"\n".join(
        [b"D"] * len(lastmods)
    ):
        raise ValueError("a lastmod is not in normalized form")
    return max(lastmods)
