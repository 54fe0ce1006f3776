"""URLs recognized in normalized form by one regular expression each, many at once.

``build`` judges blocks of thousands of changes, and nearly all their URLs (the pages',
alternates', images') are in normalized form. :func:`careful.already_normalized` asks three
things of a URL: its shape, its escapes and dot segments, its length. A URL in the *plain* form
answers all three with one match: the normalized characters but ``%``, no ``.`` right after a
``/``, and short enough to fit the length rule however XML escaping lengthens it. Matched over a
whole column (``map`` of one compiled pattern), that costs a fraction of asking each URL alone.
``False`` only means "not sure": the caller then asks :func:`careful.already_normalized` (or the
site's own test) of that URL.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Final

from sitemap_updater.protocol.limits import MIN_LOC_LENGTH
from sitemap_updater.protocol.urls.careful import NEVER_TOO_LONG, NORMALIZED_ORIGIN

#: The path and query of a URL in the plain form: ``careful.NORMALIZED_PATH`` without ``%``,
#: each ``/`` followed by something other than ``.`` (so no dot segment). Possessive, since
#: nothing it matched need ever be given back.
PLAIN_PATH: Final = r"/(?!\.)(?:[A-Za-z0-9\-._~!$&'()*+,;=:@?]++|/(?!\.))*+"
#: The joint of a column's URLs matched at once: a character no URL in the plain form holds.
_JOINT: Final = "\n"


@lru_cache(maxsize=16)
def _plain_forms(origin: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """URLs in the plain form whose origin matches ``origin`` (a pattern), bar the length
    rule: one URL, and one or more joined by :data:`_JOINT`."""
    one = f"{origin}{PLAIN_PATH}"
    return re.compile(one), re.compile(f"{one}(?:{_JOINT}{one})*+")


def plain_each(urls: Sequence[str], origin: str = NORMALIZED_ORIGIN) -> list[bool]:
    """For each of ``urls`` (strings), whether it is in the plain form with an origin that
    matches ``origin`` (a pattern; by default any origin in normalized form without a port), so
    that it surely passes ``already_normalized``; ``False``: not sure. A column whose URLs are
    all in that form is matched at once."""
    if not urls:
        return []
    one, joined = _plain_forms(origin)
    lengths = list(map(len, urls))
    if min(lengths) >= MIN_LOC_LENGTH and max(lengths) <= NEVER_TOO_LONG:
        text = _JOINT.join(urls)
        if text.count(_JOINT) == len(urls) - 1 and joined.fullmatch(text) is not None:
            return [True] * len(urls)
    return [
        found is not None and MIN_LOC_LENGTH <= length <= NEVER_TOO_LONG
        for found, length in zip(map(one.fullmatch, urls), lengths, strict=True)
    ]
