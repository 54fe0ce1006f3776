"""The tags and attributes Google deprecated in its sitemap extensions: Google ignores them, so
``validate`` warns of each (once per file, with a count) and takes it out of an entry before the
XSD sees it, rather than failing the file for it.

The lists are Google's announcement of May 2022 for image and video sitemaps
(https://developers.google.com/search/blog/2022/05/spring-cleaning-sitemap-extensions) and the
News tags its News sitemap documentation dropped, as the producer contract already names them
(``protocol.extensions``).
"""

from __future__ import annotations

from collections import Counter
from typing import Final

from lxml import etree

from sitemap_updater.page.model import DEPRECATED_NEWS_TAGS as DEPRECATED_NEWS_FIELDS
from sitemap_updater.page.model import DEPRECATED_VIDEO_TAGS as DEPRECATED_VIDEO_FIELDS
from sitemap_updater.protocol.limits import IMAGE_NS, NEWS_NS, VIDEO_NS

#: Image tags Google deprecated in 2022.
DEPRECATED_IMAGE_TAGS: Final = ("caption", "geo_location", "title", "license")
_VIDEO_ATTRIBUTES: Final = ("allow_embed", "autoplay")
#: Every deprecated tag, by its ``{namespace}name``, with its short name.
_TAGS: Final = {
    **{f"{{{IMAGE_NS}}}{name}": f"image:{name}" for name in DEPRECATED_IMAGE_TAGS},
    **{f"{{{NEWS_NS}}}{name}": f"news:{name}" for name in DEPRECATED_NEWS_FIELDS},
    **{
        f"{{{VIDEO_NS}}}{name}": f"video:{name}"
        for name in DEPRECATED_VIDEO_FIELDS
        if name not in _VIDEO_ATTRIBUTES
    },
}
_PLAYER_LOC: Final = f"{{{VIDEO_NS}}}player_loc"


def take_out_deprecated(batch: etree._Element, found: Counter[str]) -> None:
    """Remove every deprecated tag and attribute from the entries of ``batch``, counting each
    in ``found`` by its short name (``news:keywords``, ``video:player_loc@autoplay``)."""
    for element in list(batch.iter(*_TAGS)):
        parent = element.getparent()
        if parent is not None:
            found[_TAGS[str(element.tag)]] += 1
            parent.remove(element)
    for player in batch.iter(_PLAYER_LOC):
        for name in _VIDEO_ATTRIBUTES:
            if name in player.attrib:
                found[f"video:player_loc@{name}"] += 1
                del player.attrib[name]


def deprecated_warnings(found: Counter[str]) -> list[str]:
    """One warning per deprecated tag or attribute found in a file."""
    return [
        f"{name} in {count} place{'s' if count > 1 else ''}: Google deprecated it in 2022 and "
        "ignores it (remove it; it was not checked against the XSD)"
        for name, count in sorted(found.items())
    ]
