"""Streaming reader of sitemap XML: a urlset, or a sitemap index and every child it lists.

lxml reports only the end of the ``<url>`` and ``<sitemap>`` elements (whatever their
namespace); the root element and any DOCTYPE (whose entities are never expanded) are told apart
by a second parser that reads the bytes only until the root's start tag (``RootProbe``). Each
finished element is freed with the siblings before it, so memory stays flat. An entry is a Row, or a
:class:`~sitemap_updater_local.inputs.records.RawEntry` when it carries videos or a news
object; what cannot be read is a :class:`~sitemap_updater_local.inputs.records.Problem` naming
the file and line; what is dropped from entries is said once per file by a
:class:`~sitemap_updater_local.inputs.records.Note`. The policies are in docs/cli.md.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import IO, Final, cast
from urllib.parse import urlsplit

from lxml import etree

from sitemap_updater.protocol.extensions.news import DEPRECATED_NEWS_FIELDS
from sitemap_updater.protocol.extensions.video import DEPRECATED_VIDEO_FIELDS
from sitemap_updater.protocol.limits import (
    IMAGE_NS,
    MAX_LOC_LENGTH,
    MAX_URLS,
    NEWS_NS,
    VIDEO_NS,
    XHTML_NS,
)
from sitemap_updater_local.inputs.opening import (
    SCHEMES,
    BudgetError,
    SourcePolicy,
    child_location,
    open_source,
)
from sitemap_updater_local.inputs.records import Note, Problem, RawEntry, Row, SourceError, quote
from sitemap_updater_local.inputs.sitemaps.sitemap_extensions import news_fields, video_fields
from sitemap_updater_local.inputs.sitemaps.xml_guard import (
    XML_OPTIONS,
    RootProbe,
    TooLargeError,
    local_name,
)

#: Sitemap indexes must not list indexes (sitemaps.org); one level of children is followed.
MAX_INDEX_DEPTH: Final = 1
#: The root elements read, each with the element that holds one record.
ROOTS: Final = {"urlset": "url", "sitemapindex": "sitemap"}
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


def _text(element: etree._Element) -> str | None:
    text = (element.text or "").strip()
    return text or None


def _tag_name(tag: object) -> str:
    ns, name = local_name(tag)
    prefix = _PREFIXES.get(ns)
    return f"{prefix}:{name}" if prefix else f"<{name}>" if not ns else f"{{{ns}}}{name}"


def _image_locs(image: etree._Element) -> list[str]:
    """The ``loc`` values of one ``<image:image>`` element, in order."""
    return [_text(part) or "" for part in image if local_name(part.tag)[1] == "loc"]


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
        parts.loc = _text(child)
    elif kind == _LASTMOD:
        parts.lastmod = _text(child)  # an empty <lastmod/> is no lastmod
    elif kind == _CHANGEFREQ:
        parts.changefreq = _text(child)
    elif kind == _PRIORITY:
        parts.priority = _text(child)
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


def url_row(
    element: etree._Element, location: str, dropped: Counter[str] | None = None
) -> Row | RawEntry | Problem:
    """The entry of one ``<url>`` element; tags not read are counted in ``dropped``."""
    parts = _Parts()
    names: list[str] = []
    for child in element:
        _read_child(child, parts, names)
    if dropped is not None and names:
        dropped.update(set(names))
    line = cast(int, element.sourceline)
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


def release(element: etree._Element) -> None:
    """Free a finished element and the siblings before it (constant memory)."""
    element.clear()
    parent = element.getparent()
    if parent is not None:
        while element.getprevious() is not None:
            del parent[0]


@dataclass(frozen=True, slots=True)
class ChildSitemap:
    """A child sitemap an index lists, for the caller to read with :func:`read_sitemap_rows`."""

    location: str
    depth: int


Item = Row | RawEntry | Problem | Note | ChildSitemap


def iter_sitemap_rows(
    stream: IO[bytes], location: str, *, depth: int = 0, policy: SourcePolicy | None = None
) -> Iterator[Row | RawEntry | Problem | Note]:
    """Entries of a urlset, or of every child of a sitemap index (followed in order)."""
    for item in iter_sitemap_items(stream, location, depth=depth, policy=policy):
        if isinstance(item, ChildSitemap):
            yield from read_sitemap_rows(item.location, depth=item.depth, policy=policy)
        else:
            yield item


class _Reader:
    """The state of reading one document: its probe, its record element, what it dropped."""

    def __init__(self, stream: IO[bytes], location: str, depth: int, policy: SourcePolicy):
        self.probe = RootProbe(stream)
        self.location = location
        self.depth = depth
        self.policy = policy
        self.record = ""
        self.count = 0
        self.dropped: Counter[str] = Counter()
        #: children listed again (or the index itself), read once
        self.repeats = 0

    def start(self) -> Iterator[Problem | Note]:
        """Problems of the root (the document ends there), or its namespace note."""
        refusal = self.probe.refusal(ROOTS)
        if refusal is not None:
            yield Problem(f"{self.location}:{refusal[0]}", refusal[1])
            return
        root = self.probe.root
        self.record = ROOTS[root[1]] if root is not None else "?"
        note = self.probe.namespace_note()
        if note is not None:
            yield Note(self.location, note + "; read anyway")

    def begin(self) -> Generator[Problem | Note, None, bool]:
        """:meth:`start`; ``True`` when the document ends there."""
        for item in self.start():
            yield item
            if isinstance(item, Problem):
                return True
        return False

    def element(self, element: etree._Element) -> Iterator[Item]:
        """The record of an element (lxml reports ``<url>`` and ``<sitemap>`` of any parent)."""
        tag = element.tag
        if tag != self.record and not tag.endswith("}" + self.record):
            return
        self.count += 1
        if self.count > MAX_URLS:
            yield Problem(
                f"{self.location}:{element.sourceline}",
                f"over the limit of {MAX_URLS:,} entries per file (sitemaps.org): "
                "this entry and the rest of the file are skipped",
            )
            return
        entity = self.probe.entity_in(element)
        if entity is not None:
            yield Problem(f"{self.location}:{element.sourceline}", entity)
        elif self.record == "url":
            yield url_row(element, self.location, self.dropped)
            release(element)
        else:
            yield from _index_child(element, self)


def iter_sitemap_items(
    stream: IO[bytes], location: str, *, depth: int = 0, policy: SourcePolicy | None = None
) -> Iterator[Item]:
    """Entries of a urlset, or the children of a sitemap index, each a :class:`ChildSitemap`
    read by the caller before the next item is asked for (the index stays open meanwhile)."""
    reader = _Reader(stream, location, depth, policy or SourcePolicy())
    parser = etree.iterparse(
        reader.probe, events=("end",), tag=("{*}url", "{*}sitemap"), **XML_OPTIONS
    )
    started = False
    try:
        for _, element in parser:
            if not started:
                started = True
                if (yield from reader.begin()):
                    return
            yield from reader.element(element)
            if reader.count > MAX_URLS:
                break
    except etree.XMLSyntaxError as exc:
        if not started and reader.probe.refusal(ROOTS) is not None:
            yield from reader.start()
            return
        line = f":{exc.lineno}" if exc.lineno else ""
        yield Problem(f"{location}{line}", f"not well-formed XML, rest skipped: {exc.msg}")
    except TooLargeError as exc:
        yield Problem(location, str(exc))
    else:
        if not started:
            yield from reader.start()
    yield from drop_notes(location, reader.dropped)
    if reader.repeats:
        yield Note(
            location,
            f"{reader.repeats} <sitemap> entr{'y' if reader.repeats == 1 else 'ies'} listed a "
            "child already read (or this index itself): each child is read once",
        )


def _index_child(element: etree._Element, reader: _Reader) -> Iterator[Problem | ChildSitemap]:
    where = f"{reader.location}:{element.sourceline}"
    locs = [c for c in element if local_name(c.tag)[1] == "loc"]
    child_loc = _text(locs[0]) if locs else None
    release(element)
    if child_loc is None:
        yield Problem(where, "loc: missing: every <sitemap> needs a <loc>")
        return
    if len(locs) > 1:
        yield Problem(
            where,
            f"loc: {len(locs)} <loc> elements in one <sitemap>: it must hold one; not followed",
        )
        return
    scheme = urlsplit(child_loc).scheme.lower()
    if scheme and scheme not in SCHEMES:
        yield Problem(
            where,
            f"loc: {quote(child_loc)} is not followed: scheme {scheme!r} is not allowed "
            "(only http and https)",
        )
        return
    if reader.depth >= MAX_INDEX_DEPTH:
        yield Problem(
            where,
            f"loc: {quote(child_loc)} is not followed: a sitemap index must not list another index",
        )
        return
    target = child_location(reader.location, child_loc)
    if target in reader.policy.seen or target == reader.location:
        reader.repeats += 1
        return
    reader.policy.seen.add(target)
    yield ChildSitemap(target, reader.depth + 1)


def read_sitemap_rows(
    location: str, *, depth: int = 0, policy: SourcePolicy | None = None
) -> Generator[Row | RawEntry | Problem | Note, None, None]:
    """:func:`iter_sitemap_rows` on a location; a child that cannot be opened is one problem."""
    try:
        with open_source(location, policy, refuse_empty=True) as stream:
            yield from iter_sitemap_rows(stream, location, depth=depth, policy=policy)
    except BudgetError:
        raise
    except (SourceError, OSError, EOFError) as exc:
        if depth == 0:
            raise SourceError(str(exc)) from exc
        yield Problem(location, f"child sitemap skipped: {exc}")
