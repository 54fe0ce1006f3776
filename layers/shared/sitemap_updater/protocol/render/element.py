"""The ``<url>`` element: its one text template, and the checked rendering of one entry.

Every ``<url>`` this project writes is :func:`url_element`'s text: elements in sitemap.xsd's
order (loc, lastmod, changefreq, priority, then extensions), one element a line. Three callers
fill it in, each with values it has checked in its own way:

- :class:`EntryRenderer`, entry by entry, checking and escaping every value and raising the
  typed error (field, value, rule) of the first one that breaks a rule; the writer
  (``urlset.UrlsetWriter.add``) and the fragment API (``render.fragments``) use it;
- the block renderer (``render.chunk``), which checks a block of entries at once;
- :func:`plain_fragment`, for entries recognized in normalized form (``protocol.normalized``).

The plain fields (``protocol.entry``) are the template's; the extra fields (videos, a news
object, ...) follow the alternates and images, each rendered by its own field's ``render``.

All three give the same bytes for the same entry (tests/unit/protocol/test_add_many.py and
tests/property/test_fast_judge.py compare them).
"""

from __future__ import annotations

import re
from typing import Final

from sitemap_updater.protocol.entry import (
    EXTRA_FIELDS,
    NO_EXTRAS,
    Alternate,
    Entry,
    PlainFields,
    extras_of,
)
from sitemap_updater.protocol.errors import (
    ForeignHostError,
    InvalidChangefreqError,
    InvalidHreflangError,
    InvalidLastmodError,
    InvalidPriorityError,
    InvalidUrlError,
    UrlLengthError,
)
from sitemap_updater.protocol.escape import check_chars, escape, needs_escape
from sitemap_updater.protocol.languages.tags import hreflang_rule, is_hreflang
from sitemap_updater.protocol.lastmod import NORMALIZED_FORM
from sitemap_updater.protocol.limits import CHANGEFREQS, MAX_LOC_LENGTH, MIN_LOC_LENGTH
from sitemap_updater.protocol.urls import NORMALIZED_TAIL, Site, origin_of, xml_length

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
ALTERNATE_OPEN: Final = '<xhtml:link rel="alternate" hreflang="'
ALTERNATE_HREF: Final = '" href="'
ALTERNATE_CLOSE: Final = '"/>'
IMAGE_OPEN: Final = "<image:image><image:loc>"
IMAGE_CLOSE: Final = "</image:loc></image:image>"
_LASTMOD_FORM: Final = NORMALIZED_FORM.fullmatch
#: One C-level check for the common loc: on the site (the pattern's prefix), in normalized form
#: (RFC 3986 path and query characters, % only in %XX, no fragment) and nothing to escape.
_CLEAN_TAIL: Final = r"(?:[A-Za-z0-9\-._~!$()*+,;=:@/?]|%[0-9A-Fa-f]{2})*"


def url_element(
    loc: str,
    lastmod: str | None,
    changefreq: str | None,
    priority: float | None,
    extensions: str,
) -> str:
    """The ``<url>`` text of an entry whose values are already checked: ``loc``, its loc
    escaped, then its lastmod, changefreq and priority, then ``extensions``, the text of its
    alternates, images and extra fields; a changefreq or priority outside the tables is a
    ``KeyError``."""
    return (
        f"<url><loc>{loc}</loc>{'' if lastmod is None else f'<lastmod>{lastmod}</lastmod>'}"
        f"{CHANGEFREQ_TEXT[changefreq]}{PRIORITY_ELEMENT[priority]}{extensions}"
        "</url>\n"
    )


def extras_xml(entry: Entry) -> str:
    """The elements of ``entry``'s extra fields, each checked and escaped by its renderer."""
    extras = extras_of(entry)
    if extras == NO_EXTRAS:
        return ""
    return "".join(
        [
            field.render(value)
            for field, value in zip(EXTRA_FIELDS, extras, strict=True)
            if field.render is not None and value != field.absent
        ]
    )


def escape_plain(text: str) -> str:
    """``text`` with ``&`` and ``'`` escaped: the two special characters a value in normalized
    form may hold, and no tag does."""
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "'" in text:
        text = text.replace("'", "&apos;")
    return text


def plain_fragment(fields: PlainFields) -> str:
    """The ``<url>`` text of an entry of plain fields alone, given as its plain values
    (``protocol.entry.PlainFields``), when each is already known to be in normalized form (URLs
    on the site, or for images anywhere, of the normalized characters; a normalized lastmod;
    language codes), as the recognizer of normalized form knows of the entries it recognizes.
    It checks nothing: a value outside the changefreq and priority tables is a ``KeyError``."""
    loc, lastmod, changefreq, priority, alternates, images = fields
    extensions = ""
    if alternates:
        extensions = "".join(
            [
                f"{ALTERNATE_OPEN}{hreflang}{ALTERNATE_HREF}{href}{ALTERNATE_CLOSE}"
                for hreflang, href in alternates
            ]
        )
    if images:
        extensions += "".join([f"{IMAGE_OPEN}{image}{IMAGE_CLOSE}" for image in images])
    # a normalized value holds no < > or ": & and ' are the two to escape
    return escape_plain(url_element(loc, lastmod, changefreq, priority, extensions))


def too_large_reason(loc: str, max_bytes: int) -> str:
    """Why an entry alone over ``max_bytes`` (a file's byte cap) is refused."""
    return f"{loc} alone needs more than {max_bytes} uncompressed bytes"


def check_lastmod(lastmod: str, field: str = "lastmod") -> str:
    """``lastmod`` if it has the normalized form; escapes nothing, so it must be exact."""
    if NORMALIZED_FORM.fullmatch(lastmod) is None:
        raise InvalidLastmodError(
            field, lastmod, "must be normalized: YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ"
        )
    return lastmod


def normalized_origin(url: str, *, field: str) -> str:
    """The origin of ``url`` if it is in the form ``normalize_url`` gives an origin (what
    follows it is ``check_normalized``'s to check); else :class:`InvalidUrlError`."""
    origin = origin_of(url)
    try:
        normal = Site.parse(origin).origin
    except InvalidUrlError as exc:
        raise InvalidUrlError(field, url, exc.rule) from None
    if normal != origin:
        raise InvalidUrlError(field, url, f"must be normalized: its origin is written {normal}")
    return origin


def _text(field: str, value: str) -> str:
    check_chars(field, value)
    return escape(value) if needs_escape(value) else value


class EntryRenderer:
    """The checked ``<url>`` text of one entry at a time, for one site.

    Entries are trusted to be normalized (see ``make_entry``), but every ``loc`` must be on the
    site (:class:`ForeignHostError`), every value is escaped and checked for characters XML 1.0
    forbids (:class:`ForbiddenCharacterError`), and lastmod, changefreq and priority must have
    their normalized form; the first value that breaks a rule raises its typed error.
    """

    __slots__ = ("_clean_loc", "_prefix", "_site")

    def __init__(self, site: Site) -> None:
        self._site = site
        self._prefix = site.origin + "/"
        self._clean_loc = re.compile(re.escape(self._prefix) + _CLEAN_TAIL).fullmatch

    def text(self, entry: Entry) -> str:
        """The ``<url>`` element of ``entry``, every value checked and escaped."""
        loc = entry.loc
        if not MIN_LOC_LENGTH <= len(loc) <= MAX_LOC_LENGTH or self._clean_loc(loc) is None:
            loc = self._checked_loc(loc)
        lastmod = entry.lastmod
        if lastmod is not None and _LASTMOD_FORM(lastmod) is None:
            check_lastmod(lastmod)
        changefreq = entry.changefreq
        if changefreq is not None and changefreq not in CHANGEFREQS:
            raise InvalidChangefreqError(
                "changefreq", changefreq, "must be one of the seven changefreq values"
            )
        if entry.priority is not None and entry.priority not in PRIORITY_ELEMENT:
            raise InvalidPriorityError(
                "priority", entry.priority, "must be one of 0.0, 0.1, ... 1.0"
            )
        extensions = (
            self._extensions(entry)
            if entry.alternates or entry.images or extras_of(entry) != NO_EXTRAS
            else ""
        )
        return url_element(loc, entry.lastmod, entry.changefreq, entry.priority, extensions)

    def _checked_loc(self, loc: str) -> str:
        """Not the common case (normalized, on the site, nothing to escape): check all, so that
        an entry that was never normalized cannot make the file invalid."""
        self._site.check(loc)
        check_chars("loc", loc)
        check_normalized(loc, self._site.origin)
        return escape(loc)

    def _alternate(self, i: int, alternate: Alternate) -> str:
        field = f"alternates[{i}]"
        href = alternate.href
        elsewhere = not href.startswith(self._prefix)
        if elsewhere:  # another site of the list, or any origin (``Site.alternate_ok``)
            self._site.check_alternate(href, field=field + ".href")
        check_chars(field + ".href", href)
        origin = normalized_origin(href, field=field + ".href") if elsewhere else self._site.origin
        check_normalized(href, origin, field=field + ".href")
        hreflang = alternate.hreflang
        check_chars(field + ".hreflang", hreflang)
        if not is_hreflang(hreflang):
            raise InvalidHreflangError(field + ".hreflang", hreflang, hreflang_rule(hreflang))
        return (
            f"{ALTERNATE_OPEN}{hreflang}{ALTERNATE_HREF}{_text(field + '.href', href)}"
            f"{ALTERNATE_CLOSE}"
        )

    def _extensions(self, entry: Entry) -> str:
        parts = [self._alternate(i, alternate) for i, alternate in enumerate(entry.alternates)]
        for i, image in enumerate(entry.images):
            parts.append(f"{IMAGE_OPEN}{_text(f'images[{i}].loc', image.loc)}{IMAGE_CLOSE}")
        parts.append(extras_xml(entry))
        return "".join(parts)


def check_normalized(url: str, origin: str, *, field: str = "loc") -> None:
    """Raise :class:`InvalidUrlError` unless ``url`` is in the form :func:`normalize_url` returns
    for a URL on ``origin`` (``scheme://host[:port]``), length rule included. For values that
    were never normalized (an :class:`Entry` built by hand): the writers call it, so they never
    write a loc or href that sitemap.xsd would refuse."""
    if not url.startswith(origin + "/"):
        raise ForeignHostError(
            field, url, f"must be on {origin} (same scheme, host and port as the site)"
        )
    length = xml_length(url)  # first: the pattern below costs more the longer the text
    if not MIN_LOC_LENGTH <= length <= MAX_LOC_LENGTH:
        raise UrlLengthError(
            field,
            url,
            f"must be {MIN_LOC_LENGTH} to {MAX_LOC_LENGTH} characters once XML-escaped "
            f"(it has {length})",
        )
    if NORMALIZED_TAIL.fullmatch(url, len(origin)) is None:
        raise InvalidUrlError(
            field,
            url,
            "must be normalized: only RFC 3986 path and query characters, % only in %XX, "
            "no fragment (see normalize_url)",
        )
