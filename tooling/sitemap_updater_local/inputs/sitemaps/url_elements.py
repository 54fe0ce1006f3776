"""The listing of one ``<url>`` element of a sitemap, as ``sitemap_rows`` reads it: each child
read by its kind into the producer contract's fields, each problem named, the tags it drops
counted. The protocol's own elements are read by their names, as the page declares its fields
(``page.model``); the text of every value is trimmed of whitespace and of invisible characters
(a byte order mark, a zero-width space) around it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final

from lxml import etree

from sitemap_updater.page.model import (
    DEPRECATED_IMAGE_TAGS,
    DEPRECATED_NEWS_TAGS,
    DEPRECATED_VIDEO_TAGS,
    EXTENSION_TEXTS,
    PROTOCOL_VALUES,
)
from sitemap_updater.protocol.limits import (
    IMAGE_NS,
    MAX_LOC_LENGTH,
    NEWS_NS,
    SITEMAP_NS,
    VIDEO_NS,
    XHTML_NS,
)
from sitemap_updater_local.inputs.lastmod_forms import LastmodForms
from sitemap_updater_local.inputs.sitemaps.sitemap_extensions import (
    news_fields,
    trimmed,
    video_fields,
)
from sitemap_updater_local.inputs.sitemaps.xml_guard import local_name
from sitemap_updater_local.inputs.source_records import Listing, Note, Problem

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

# What a child of <url> is, by its tag (see _kind): a field of its own, or one of these.
_OTHER, _LOC, _FIELD, _LINK, _IMAGE, _VIDEO, _NEWS = range(7)
#: The elements a page declares as fields of its own (``page.model``), by namespace and name:
#: the protocol's single values (``url`` is ``<loc>``) and the extension texts.
_FIELDS: Final = {
    **{(SITEMAP_NS, name): name for name in PROTOCOL_VALUES},
    **{
        (namespace, element.partition(":")[2]): name
        for name, (element, namespace) in EXTENSION_TEXTS.items()
    },
}
_EXTENSIONS: Final = {
    (XHTML_NS, "link"): _LINK,
    (IMAGE_NS, "image"): _IMAGE,
    (VIDEO_NS, "video"): _VIDEO,
    (NEWS_NS, "news"): _NEWS,
}
#: The namespaces of the extension texts a page declares.
_OWN_NAMESPACES: Final = frozenset(namespace for _, namespace in EXTENSION_TEXTS.values())
#: Kinds of the tags met so far; a document with many distinct tags stops adding to it.
_KIND_CACHE: dict[object, int] = {}
_KIND_CACHE_SIZE: Final = 1024


def _field_key(tag: object) -> tuple[str, str]:
    """The (namespace, name) a child's tag is looked up by: a tag of a namespace that is not an
    extension's is the protocol's, whatever namespace the file gave it (old sitemaps have
    others)."""
    ns, name = local_name(tag)
    return (ns if ns in _OWN_NAMESPACES else SITEMAP_NS), name


def _classify(tag: object) -> int:
    ns, name = local_name(tag)
    if ns in _PREFIXES:
        return _EXTENSIONS.get((ns, name), _OTHER)
    key = _field_key(tag)
    if key == (SITEMAP_NS, "loc"):
        return _LOC
    return _FIELD if key in _FIELDS else _OTHER


def _kind(tag: object) -> int:
    kind = _KIND_CACHE.get(tag)
    if kind is None:
        kind = _classify(tag)
        if len(_KIND_CACHE) < _KIND_CACHE_SIZE:
            _KIND_CACHE[tag] = kind
    return kind


def element_text(element: etree._Element) -> str | None:
    return trimmed(element.text or "") or None


def _tag_name(tag: object) -> str:
    ns, name = local_name(tag)
    prefix = _PREFIXES.get(ns)
    return f"{prefix}:{name}" if prefix else f"<{name}>" if not ns else f"{{{ns}}}{name}"


def _image_locs(image: etree._Element, dropped: list[str]) -> list[str]:
    """The ``loc`` values of one ``<image:image>`` element, in order; its other tags dropped."""
    locs: list[str] = []
    for part in image:
        if not isinstance(part.tag, str):
            continue
        if local_name(part.tag)[1] == "loc":
            locs.append(element_text(part) or "")
        else:
            dropped.append(_tag_name(part.tag))
    return locs


@dataclass(slots=True)
class _Parts:
    locs: int = 0
    fields: dict[str, object] = field(default_factory=dict)


def _link(child: etree._Element, parts: _Parts, dropped: list[str]) -> None:
    if child.get("rel") != "alternate":
        dropped.append(f"xhtml:link rel={child.get('rel')}")
    elif child.get("hreflang") is None and child.get("media") is not None:
        dropped.append("xhtml:link media")
    else:
        alternate = {
            "hreflang": trimmed(child.get("hreflang") or ""),
            "href": trimmed(child.get("href") or ""),
        }
        parts.fields.setdefault("alternates", []).append(alternate)  # type: ignore[attr-defined]


def _read_child(child: etree._Element, parts: _Parts, dropped: list[str]) -> None:
    kind = _kind(child.tag)
    fields = parts.fields
    if kind == _LOC:
        parts.locs += 1
        fields["url"] = element_text(child)
    elif kind == _FIELD:
        text = element_text(child)  # an empty element is no value
        name = _FIELDS[_field_key(child.tag)]
        if text is None:
            fields.pop(name, None)
        else:
            fields[name] = text
    elif kind == _LINK:
        _link(child, parts, dropped)
    elif kind == _IMAGE:
        images = fields.setdefault("images", [])
        images += [{"loc": loc} for loc in _image_locs(child, dropped)]  # type: ignore[operator]
    elif kind == _VIDEO:
        fields.setdefault("videos", []).append(video_fields(child, dropped))  # type: ignore[attr-defined]
    elif kind == _NEWS:
        fields["news"] = news_fields(child, dropped)
    elif isinstance(child.tag, str):
        dropped.append(_tag_name(child.tag))


#: What a sitemap calls the page's url.
_NAMES: Final = (("url", "loc"),)


def url_listing(
    element: etree._Element,
    location: str,
    dropped: Counter[str] | None = None,
    forms: LastmodForms | None = None,
) -> Listing | Problem:
    """The listing of one ``<url>`` element; tags not read are counted in ``dropped``, and with
    ``forms`` a lastmod in a form of its own is read as W3C (``lastmod_forms``)."""
    parts = _Parts()
    names: list[str] = []
    for child in element:
        _read_child(child, parts, names)
    if dropped is not None and names:
        dropped.update(set(names))
    line: int = element.sourceline  # type: ignore[assignment]  # set on a parsed element
    where = f"{location}:{line}"
    url = parts.fields.get("url")
    if url is None:
        return Problem(where, "loc: missing: every <url> needs a <loc>")
    if parts.locs > 1:
        return Problem(where, f"loc: {parts.locs} <loc> elements in one <url>: it must hold one")
    if isinstance(url, str) and len(url) > _MAX_LOC_CHARS:
        return Problem(
            where,
            f"loc: {len(url):,} characters is invalid: must be at most {MAX_LOC_LENGTH:,} "
            "characters once normalized",
        )
    lastmod = parts.fields.get("lastmod")
    if forms is not None and isinstance(lastmod, str):
        parts.fields["lastmod"] = forms.read(lastmod)
    return Listing(where, parts.fields, _NAMES)


def drop_notes(location: str, dropped: Counter[str]) -> Iterator[Note]:
    """One note per kind of tag dropped from the pages of a file."""
    for name, count in sorted(dropped.items()):
        why = _WHY.get(name) or (_DEPRECATED if _is_deprecated(name) else _UNKNOWN)
        yield Note(location, f"{name} dropped from {count} page{'s' if count > 1 else ''} ({why})")


#: Tags Google deprecated, by the prefix of their extension: its image, News and video tags of
#: 2022 (``page.model``).
_DEPRECATED_BY_PREFIX: Final = {
    "image": frozenset(DEPRECATED_IMAGE_TAGS),
    "news": frozenset(DEPRECATED_NEWS_TAGS),
    "video": frozenset(DEPRECATED_VIDEO_TAGS),
}
#: Google's old mobile sitemap tag, in its own namespace.
_MOBILE: Final = "{http://www.google.com/schemas/sitemap-mobile/1.0}mobile"


def _is_deprecated(name: str) -> bool:
    """Whether the dropped tag ``name`` (``news:keywords``, ``video:player_loc@autoplay``) is
    one Google deprecated."""
    prefix, _, rest = name.partition(":")
    return rest.rpartition("@")[2] in _DEPRECATED_BY_PREFIX.get(prefix, ()) or name == _MOBILE
