"""Value rules shared by the news and video extensions: plain text, W3C dates, yes/no flags.

Each function takes the field name and the error class to raise, so every rejection names the
exact field (``videos[0].title``, ``news.publication_date``), the value and the rule.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime
from typing import Final

from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.protocol.escape import check_chars, escape, needs_escape
from sitemap_updater.protocol.lastmod import normalize_lastmod

#: Bidi embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069): they reorder the text
#: around them when shown. The marks U+200E and U+200F, which right-to-left text needs, are kept.
BIDI_CONTROL: Final = re.compile("[\u202a-\u202e\u2066-\u2069]")
#: A reference moment late enough that no date is "in the future" of it.
_NO_FUTURE_LIMIT = datetime(9999, 12, 30, tzinfo=UTC)


def is_blank(text: str) -> bool:
    """Whether ``text`` shows nothing: empty, or only whitespace and invisible format characters
    (Unicode category Cf, such as U+200B ZERO WIDTH SPACE)."""
    if text.isprintable():  # no Cf character: blank only if all whitespace
        return not text.strip()
    return all(char.isspace() or unicodedata.category(char) == "Cf" for char in text)


def normalize_text(field: str, value: object, max_length: int, error: type[SitemapError]) -> str:
    """``value`` if it is a string that shows something (not :func:`is_blank`), at most
    ``max_length`` characters, with no bidi embedding, override or isolate
    (:data:`BIDI_CONTROL`), and only characters XML 1.0 allows; XML-special characters are kept
    (the writer escapes them)."""
    if not isinstance(value, str):
        raise error(field, value, "must be a string")
    if is_blank(value):
        raise error(
            field, value, "must not be empty or blank (whitespace and invisible characters only)"
        )
    if len(value) > max_length:
        raise error(field, f"{len(value)} characters", f"must be at most {max_length:,} characters")
    bidi = BIDI_CONTROL.search(value)
    if bidi is not None:
        raise error(
            field,
            value,
            f"must not contain bidi embeddings, overrides or isolates (U+202A-U+202E, "
            f"U+2066-U+2069): U+{ord(bidi.group()):04X} at index {bidi.start()}",
        )
    try:
        check_chars(field, value)
    except SitemapError as exc:
        raise error(field, value, exc.rule) from None
    return value


def normalize_date(
    field: str,
    value: object,
    error: type[SitemapError],
    *,
    now: datetime | None,
    future_ok: bool = False,
) -> str:
    """A W3C date or datetime (as ``lastmod`` accepts it), normalized to ``YYYY-MM-DD`` or UTC
    ``YYYY-MM-DDThh:mm:ssZ``; from 1970 on and, unless ``future_ok``, at most one day after
    ``now``."""
    try:
        return normalize_lastmod(value, now=_NO_FUTURE_LIMIT if future_ok else now)
    except SitemapError as exc:
        raise error(field, value, exc.rule) from None


def normalize_flag(field: str, value: object, error: type[SitemapError]) -> bool:
    """A JSON boolean (published as Google's ``yes`` or ``no``)."""
    if type(value) is not bool:
        raise error(field, value, "must be true or false (a JSON boolean)")
    return value


def yes_no(flag: bool) -> str:
    return "yes" if flag else "no"


def xml_text(field: str, value: str) -> str:
    """``value`` checked for characters XML 1.0 forbids and escaped for element text."""
    check_chars(field, value)
    return escape(value) if needs_escape(value) else value
