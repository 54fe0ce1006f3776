"""The entry of one ``<url>`` element of a sitemap, as ``sitemap_rows`` reads it.

Most ``<url>`` elements hold only a ``<loc>`` and some of ``<lastmod>``, ``<changefreq>`` and
``<priority>``, in the sitemap namespace: :func:`url_row` reads such an element in one loop
over its children. An element holding anything else (an extension, a tag of another namespace,
an entity, two ``<loc>``, a ``<loc>`` too long) is read by :func:`url_record`, which reads
every child by its kind, names each problem and counts the tags it drops; a property test
compares the two.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from lxml import etree

from sitemap_updater.protocol.extensions.news import DEPRECATED_NEWS_FIELDS
from sitemap_updater.protocol.extensions.video import DEPRECATED_VIDEO_FIELDS
from sitemap_updater.protocol.limits import (
    IMAGE_NS,
    MAX_LOC_LENGTH,
    NEWS_NS,
    SITEMAP_NS,
    VIDEO_NS,
    XHTML_NS,
)
from sitemap_updater_local.inputs.records import Note, Problem, RawEntry, Row
from sitemap_updater_local.inputs.sitemaps.sitemap_extensions import news_fields, video_fields
from sitemap_updater_local.inputs.sitemaps.xml_guard import local_name

#: Short names of the extension namespaces, for notes.
_PREFIXES: Final = {IMAGE_NS: "image", XHTML_NS: "xhtml", VIDEO_NS: "video", NEWS_NS: "news"}
#: Why a dropped tag is dropped, by its name in a note.
_WHY: Final = {
    "xhtml:link media": "Google's separate-mobile-URL link; the page is kept, the contract "
    "carries language alternates only",
    "video:rating": "not part of the producer contract",
    "video:view_count": "not part of the producer contract",
}
_DEPRECATED: Final = "Google deprecated it in 2022"
_UNKNOWN: Final = "not read: not part of the sitemap protocol or the producer contract"
#: Characters of a ``<loc>`` past which it is refused before it is normalized (the longest
#: valid URL has 2,048 once normalized; normalizing a huge text would cost time and memory).
_MAX_LOC_CHARS: Final = 1 << 16

# What a child of <url> is, by its tag (see _kind).
_OTHER, _LOC, _LASTMOD, _CHANGEFREQ, _PRIORITY, _LINK, _IMAGE, _VIDEO, _NEWS = range(9)
_FIELDS: Final = {"lastmod": _LASTMOD, "changefreq": _CHANGEFREQ, "priority": _PRIORITY}
_EXTENSIONS: Final = {
    (XHTML_NS, "link"): _LINK,
    (IMAGE_NS, "image"): _IMAGE,
    (VIDEO_NS, "video"): _VIDEO,
    (NEWS_NS, "news"): _NEWS,
}
#: Kinds of the tags met so far; a document with many distinct tags stops adding to it.
_KIND_CACHE: dict[object, int] = {}
_KIND_CACHE_SIZE: Final = 1024


def _classify(tag: object) -> int:
    ns, name = local_name(tag)
    if ns in _PREFIXES:
        return _EXTENSIONS.get((ns, name), _OTHER)
    if name == "loc":
        return _LOC
    return _FIELDS.get(name, _OTHER)


def _kind(tag: object) -> int:
    kind = _KIND_CACHE.get(tag)
    if kind is None:
        kind = _classify(tag)
        if len(_KIND_CACHE) < _KIND_CACHE_SIZE:
            _KIND_CACHE[tag] = kind
    return kind


def element_text(element: etree._Element) -> str | None:
    text = (element.text or "").strip()
    return text or None


def _tag_name(tag: object) -> str:
    ns, name = local_name(tag)
    prefix = _PREFIXES.get(ns)
    return f"{prefix}:{name}" if prefix else f"<{name}>" if not ns else f"{{{ns}}}{name}"


def _image_locs(image: etree._Element) -> list[str]:
    """The ``loc`` values of one ``<image:image>`` element, in order."""
    return [element_text(part) or "" for part in image if local_name(part.tag)[1] == "loc"]


@dataclass(slots=True)
class _Parts:
    locs: int = 0
    loc: str | None = None
    lastmod: str | None = None
    changefreq: str | None = None
    priority: str | None = None
    alternates: list[tuple[str, str]] | None = None
    images: list[str] | None = None
    videos: list[dict[str, object]] | None = None
    news: dict[str, object] | None = None


def _link(child: etree._Element, parts: _Parts, dropped: list[str]) -> None:
    if child.get("rel") != "alternate":
        dropped.append(f"xhtml:link rel={child.get('rel')}")
    elif child.get("hreflang") is None and child.get("media") is not None:
        dropped.append("xhtml:link media")
    else:
        if parts.alternates is None:
            parts.alternates = []
        parts.alternates.append((child.get("hreflang") or "", child.get("href") or ""))


def _read_child(child: etree._Element, parts: _Parts, dropped: list[str]) -> None:
    kind = _kind(child.tag)
    if kind == _LOC:
        parts.locs += 1
        parts.loc = element_text(child)
    elif kind == _LASTMOD:
        parts.lastmod = element_text(child)  # an empty <lastmod/> is no lastmod
    elif kind == _CHANGEFREQ:
        parts.changefreq = element_text(child)
    elif kind == _PRIORITY:
        parts.priority = element_text(child)
    elif kind == _LINK:
        _link(child, parts, dropped)
    elif kind == _IMAGE:
        if parts.images is None:
            parts.images = []
        parts.images.extend(_image_locs(child))
    elif kind == _VIDEO:
        if parts.videos is None:
            parts.videos = []
        parts.videos.append(video_fields(child, dropped))
    elif kind == _NEWS:
        parts.news = news_fields(child, dropped)
    elif isinstance(child.tag, str):
        dropped.append(_tag_name(child.tag))


def url_record(
    element: etree._Element, location: str, dropped: Counter[str] | None = None
) -> Row | RawEntry | Problem:
    """The entry of one ``<url>`` element, each child read by its kind; tags not read are
    counted in ``dropped``."""
    parts = _Parts()
    names: list[str] = []
    for child in element:
        _read_child(child, parts, names)
    if dropped is not None and names:
        dropped.update(set(names))
    line: int = element.sourceline  # type: ignore[assignment]  # set on a parsed element
    where = f"{location}:{line}"
    if parts.loc is None:
        return Problem(where, "loc: missing: every <url> needs a <loc>")
    if parts.locs > 1:
        return Problem(where, f"loc: {parts.locs} <loc> elements in one <url>: it must hold one")
    loc = parts.loc
    if len(loc) > _MAX_LOC_CHARS:
        return Problem(
            where,
            f"loc: {len(loc):,} characters is invalid: must be at most {MAX_LOC_LENGTH:,} "
            "characters once normalized",
        )
    alternates = () if parts.alternates is None else tuple(parts.alternates)
    images = () if parts.images is None else tuple(parts.images)
    if parts.videos is None and parts.news is None:
        return Row(
            location, line, loc, parts.lastmod, parts.changefreq, parts.priority, alternates, images
        )
    return RawEntry(
        where,
        loc,
        parts.lastmod,
        parts.changefreq,
        parts.priority,
        alternates,
        images,
        tuple(parts.videos or ()),
        parts.news,
    )


#: The plain fields of ``<url>`` in the sitemap namespace, by their tag as lxml gives it.
_PLAIN_TAGS: Final = {
    f"{{{SITEMAP_NS}}}{name}": kind
    for name, kind in (
        ("loc", _LOC),
        ("lastmod", _LASTMOD),
        ("changefreq", _CHANGEFREQ),
        ("priority", _PRIORITY),
    )
}


def url_row(
    element: etree._Element, location: str, dropped: Counter[str] | None = None
) -> Row | RawEntry | Problem:
    """The entry of one ``<url>`` element (:func:`url_record`'s, read in one loop when the
    element holds plain fields alone); tags not read are counted in ``dropped``."""
    loc = lastmod = changefreq = priority = None
    locs = 0
    plain = _PLAIN_TAGS
    for child in element:
        kind = plain.get(child.tag)  # type: ignore[call-overload]  # an entity's tag is a function
        if kind is None:
            return url_record(element, location, dropped)
        text = child.text
        if text is not None:
            text = text.strip() or None  # an empty <lastmod/> is no lastmod
        if kind == _LOC:
            locs += 1
            loc = text
        elif kind == _LASTMOD:
            lastmod = text
        elif kind == _CHANGEFREQ:
            changefreq = text
        else:
            priority = text
    if locs != 1 or loc is None or len(loc) > _MAX_LOC_CHARS:
        return url_record(element, location, dropped)
    line: int = element.sourceline  # type: ignore[assignment]  # set on a parsed element
    return Row(location, line, loc, lastmod, changefreq, priority)


def drop_notes(location: str, dropped: Counter[str]) -> Iterator[Note]:
    """One note per kind of tag dropped from the entries of a file."""
    for name, count in sorted(dropped.items()):
        why = _WHY.get(name) or (
            _DEPRECATED if re.split(r"[:}@]", name)[-1] in _DEPRECATED_NAMES else _UNKNOWN
        )
        yield Note(
            location, f"{name} dropped from {count} entr{'y' if count == 1 else 'ies'} ({why})"
        )


#: Tags Google deprecated: its News and video tags of 2022, and its old mobile sitemap tag.
_DEPRECATED_NAMES: Final = frozenset((*DEPRECATED_NEWS_FIELDS, *DEPRECATED_VIDEO_FIELDS, "mobile"))
