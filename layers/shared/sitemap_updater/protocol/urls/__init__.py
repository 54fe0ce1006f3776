"""URL normalization (the identity of an entry) and the site a file belongs to.

The rules are those of ``careful`` (RFC 3986 section 6.2.2/6.2.3), which every other path must
agree with: a URL already in normalized form is returned as it is (one regular expression), a
URL that needs normalizing goes to the compiled parser where its shape allows (``compiled``),
and everything else, and every URL the compiled parser is not sure of, to the full parse, which
also names the rule a bad value breaks.
"""

from __future__ import annotations

from sitemap_updater.protocol.urls.careful import (
    NORMALIZED_PATH,
    NORMALIZED_TAIL,
    already_normalized,
    careful_normalize_url,
    escapes_and_length_ok,
    xml_length,
)
from sitemap_updater.protocol.urls.compiled import compiled_normalize
from sitemap_updater.protocol.urls.site import Site, host_of, origin_of

__all__ = [
    "NORMALIZED_PATH",
    "NORMALIZED_TAIL",
    "Site",
    "already_normalized",
    "careful_normalize_url",
    "escapes_and_length_ok",
    "host_of",
    "normalize_url",
    "origin_of",
    "xml_length",
]


def normalize_url(raw: object, *, field: str = "loc") -> str:
    """The normalized form of an absolute http(s) URL; raises :class:`InvalidUrlError`.

    The length rule (12 to 2,048 characters, sitemap.xsd ``tLoc``) applies to the normalized,
    percent-encoded result as it is written in the XML, that is once XML-escaped. Normalization
    percent-encodes ``<``, ``>`` and ``"``, so only ``&`` (written ``&amp;``, 4 more characters)
    and ``'`` (``&apos;``, 5 more) can make the written form longer than the URL.
    """
    if isinstance(raw, str):
        if already_normalized(raw):
            return raw
        url = compiled_normalize(raw)
        if url is not None:
            return url
    return careful_normalize_url(raw, field=field)
