"""URL normalization (the identity of a page) and the site a file belongs to.

One normalizer, ``normal_form`` (RFC 3986 section 6.2.2/6.2.3): a URL already in normalized form
is returned as it is (its cheap check, one regular expression), and every other value takes the
full parse, which also names the rule a bad value breaks.
"""

from __future__ import annotations

from sitemap_updater.protocol.urls.normal_form import (
    NORMALIZED_PATH,
    NORMALIZED_TAIL,
    already_normalized,
    escapes_and_length_ok,
    normal_url,
    xml_length,
)
from sitemap_updater.protocol.urls.site import Site, host_of, origin_of

__all__ = [
    "NORMALIZED_PATH",
    "NORMALIZED_TAIL",
    "Site",
    "already_normalized",
    "escapes_and_length_ok",
    "host_of",
    "normal_url",
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
    if isinstance(raw, str) and already_normalized(raw):
        return raw
    return normal_url(raw, field=field)
