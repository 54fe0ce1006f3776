"""The compiled path of URL normalization: a WHATWG URL parser in C++ (can_ada, the Python
binding of the ada library) for the URLs that need normalizing, trusted only where it cannot
differ from the full parse of ``careful``.

The WHATWG URL standard and RFC 3986 agree on what most URLs normalize to (lower-case scheme
and host, no default port, UTF-8 percent-encoding of what a path or query may not hold, dot
segments removed), but not on all. A URL is handed to the parser only when its shape leaves
out every known difference: an ``http`` or ``https`` scheme followed by ``//``; a host of
ASCII letters, digits, ``-``, ``_`` and dots whose last label starts with a letter or ``_``
(WHATWG reads ``01.2.3.4`` or ``1234`` as an IPv4 address, decodes ``%`` in hosts, drops an
empty ``user@``, and maps IDNs by UTS #46 without the IDNA 2008 rules); an optional port; no
``\\`` (WHATWG reads it as ``/``) and no ``'`` (WHATWG encodes it in a query, RFC 3986 keeps
it). Its result is kept only when it is already in normalized form
(``careful.already_normalized``: no port, upper-case hex in every ``%XX`` and no encoded
unreserved character, no dot segment, the length rule), since WHATWG keeps escapes as given
and leaves ``|``, ``[``, ``]``, ``^`` and, in a query, ``{``, ``}`` and a backtick unencoded.
Anything else is ``None``, and the full parse decides.
"""

from __future__ import annotations

import re
from typing import Final

import can_ada

from sitemap_updater.protocol.limits import MAX_URL_TEXT_LENGTH
from sitemap_updater.protocol.urls.careful import already_normalized

#: The URLs handed to the parser (see the module text). What follows the authority holds
#: neither a backslash nor ``'``, nor what ``careful.check_text`` rejects (a control character, a
#: lone surrogate, whitespace at the end), so that the parser never sees text that the full
#: parse would refuse.
_PARSER_SAFE: Final = re.compile(
    r"[Hh][Tt][Tt][Pp][Ss]?://(?:[A-Za-z0-9_-]+\.)*[A-Za-z_][A-Za-z0-9_-]*(?::[0-9]{1,5})?"
    r"(?:[/?#][^\\'\x00-\x1f\x7f-\x9f\ud800-\udfff]*(?<!\s))?"
)


def compiled_normalize(text: str) -> str | None:
    """The normalized form of ``text`` by the compiled parser, or ``None`` where only the full
    parse may decide."""
    url = compiled_href(text)
    return url if url is not None and already_normalized(url) else None


def compiled_href(text: str) -> str | None:
    """What the compiled parser makes of ``text``, without its fragment, before the check that
    it is in normalized form (a caller that checks a column of them at once makes that check
    itself); ``None``: ``text`` is not one to hand to the parser, or the parser refused it."""
    if len(text) > MAX_URL_TEXT_LENGTH or _PARSER_SAFE.fullmatch(text) is None:
        return None
    try:
        url = can_ada.parse(text).href
    except ValueError:
        return None
    return url.partition("#")[0]
