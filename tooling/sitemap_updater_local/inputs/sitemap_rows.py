"""Streaming reader of sitemap XML: a urlset, or a sitemap index and every child it lists.

lxml reports only the end of the ``<url>`` and ``<sitemap>`` elements (whatever their
namespace); the root element is told apart by a second parser that reads the same bytes only
until the root's start tag. Each finished element is freed with the siblings before it, so
memory stays flat. An entry is a :data:`~sitemap_updater_local.inputs.records.Row`; what cannot be
read is a :class:`~sitemap_updater_local.inputs.records.Problem` naming the file and line.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any, Final, cast

from lxml import etree

from sitemap_updater.protocol.limits import IMAGE_NS, XHTML_NS
from sitemap_updater_local.inputs.opening import child_location, open_source
from sitemap_updater_local.inputs.records import Problem, Row, SourceError, quote

#: Sitemap indexes must not list indexes (sitemaps.org); one level of children is followed.
MAX_INDEX_DEPTH: Final = 1
#: The root elements read, each with the element that holds one record.
ROOTS: Final = {"urlset": "url", "sitemapindex": "sitemap"}
#: Parser settings: no entities resolved, nothing fetched, comments and PIs dropped.
OPTIONS: Final[dict[str, Any]] = {
    "resolve_entities": False,
    "no_network": True,
    "remove_comments": True,
    "remove_pis": True,
    "load_dtd": False,
}

# What a child of <url> is, by its tag (see _kind).
_OTHER, _LOC, _LASTMOD, _CHANGEFREQ, _PRIORITY, _LINK, _IMAGE = range(7)
_FIELDS: Final = {"lastmod": _LASTMOD, "changefreq": _CHANGEFREQ, "priority": _PRIORITY}
#: Kinds of the tags met so far; a document with many distinct tags stops adding to it.
_KIND_CACHE: dict[object, int] = {}
_KIND_CACHE_SIZE: Final = 1024


def local_name(tag: object) -> tuple[str, str]:
    """(namespace, local name) of an element tag."""
    if not isinstance(tag, str):
        return "", ""
    if tag.startswith("{"):
        ns, _, local = tag[1:].partition("}")
        return ns, local
    return "", tag


def _classify(tag: object) -> int:
    ns, name = local_name(tag)
    if name == "loc":
        return _OTHER if ns in {IMAGE_NS, XHTML_NS} else _LOC
    if name in _FIELDS:
        return _FIELDS[name]
    if name == "link" and ns == XHTML_NS:
        return _LINK
    if name == "image" and ns == IMAGE_NS:
        return _IMAGE
    return _OTHER


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


def _image_locs(image: etree._Element) -> list[str]:
    """The ``loc`` values of one ``<image:image>`` element, in order."""
    return [_text(part) or "" for part in image if local_name(part.tag)[1] == "loc"]


def url_row(element: etree._Element, location: str) -> Row | Problem:
    """The entry of one ``<url>`` element; the last of each field wins."""
    loc = lastmod = changefreq = priority = None
    alternates: list[tuple[str, str]] | None = None
    images: list[str] | None = None
    for child in element:
        kind = _kind(child.tag)
        if kind == _LOC:
            loc = _text(child)
        elif kind == _LASTMOD:
            lastmod = _text(child)
        elif kind == _CHANGEFREQ:
            changefreq = _text(child)
        elif kind == _PRIORITY:
            priority = _text(child)
        elif kind == _LINK and child.get("rel") == "alternate":
            if alternates is None:
                alternates = []
            alternates.append((child.get("hreflang") or "", child.get("href") or ""))
        elif kind == _IMAGE:
            if images is None:
                images = []
            images.extend(_image_locs(child))
    line = cast(int, element.sourceline)
    if loc is None:
        return Problem(f"{location}:{line}", "loc: missing: every <url> needs a <loc>")
    return (
        location,
        line,
        loc,
        lastmod,
        changefreq,
        priority,
        () if alternates is None else tuple(alternates),
        () if images is None else tuple(images),
    )


def release(element: etree._Element) -> None:
    """Free a finished element and the siblings before it (constant memory)."""
    element.clear()
    parent = element.getparent()
    if parent is not None:
        while element.getprevious() is not None:
            del parent[0]


class RootProbe:
    """Hands a stream's bytes to the main parser and finds the root's start tag on the way."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._parser: etree.XMLPullParser | None = etree.XMLPullParser(events=("start",), **OPTIONS)
        #: (local name, line) of the root element, once its start tag has been read
        self.root: tuple[str, int] | None = None

    @property
    def name(self) -> Any:
        """The stream's name (lxml takes it as the document's URL), if it has one."""
        return self._stream.name

    def read(self, size: int = -1) -> bytes:
        data = self._stream.read(size)
        parser = self._parser
        if parser is not None:
            try:
                if data:
                    parser.feed(data)
                else:
                    parser.close()
            except etree.XMLSyntaxError:
                self._parser = None  # the main parser meets the same error
            for _, event in parser.read_events():
                element = cast(etree._Element, event)
                self.root = local_name(element.tag)[1], cast(int, element.sourceline)
                self._parser = None
                break
        return data


def _root_problem(root: tuple[str, int] | None, location: str) -> Problem | None:
    """The problem with a root element that is neither a urlset nor an index, if any."""
    if root is None or root[0] in ROOTS:
        return None
    return Problem(
        f"{location}:{root[1]}",
        f"root element: {root[0]!r} is invalid: must be <urlset> or <sitemapindex>",
    )


@dataclass(frozen=True, slots=True)
class ChildSitemap:
    """A child sitemap an index lists, for the caller to read with :func:`read_sitemap_rows`."""

    location: str
    depth: int


def iter_sitemap_rows(
    stream: IO[bytes], location: str, *, depth: int = 0
) -> Iterator[Row | Problem]:
    """Entries of a urlset, or of every child of a sitemap index (followed in order)."""
    for item in iter_sitemap_items(stream, location, depth=depth):
        if isinstance(item, ChildSitemap):
            yield from read_sitemap_rows(item.location, depth=item.depth)
        else:
            yield item


def iter_sitemap_items(
    stream: IO[bytes], location: str, *, depth: int = 0
) -> Iterator[Row | Problem | ChildSitemap]:
    """Entries of a urlset, or the children of a sitemap index, each a :class:`ChildSitemap`
    read by the caller before the next item is asked for (the index stays open meanwhile)."""
    probe = RootProbe(stream)
    parser = etree.iterparse(probe, events=("end",), tag=("{*}url", "{*}sitemap"), **OPTIONS)
    record = suffix = ""
    try:
        for _, element in parser:
            if not record:
                problem = _root_problem(probe.root, location)
                if problem is not None:
                    yield problem
                    return
                record = ROOTS[probe.root[0]] if probe.root is not None else "?"
                suffix = "}" + record
            tag = element.tag
            if tag != record and not tag.endswith(suffix):
                continue
            if record == "url":
                yield url_row(element, location)
                release(element)
            else:
                yield from _index_child(element, location, depth)
    except etree.XMLSyntaxError as exc:
        if not record:
            problem = _root_problem(probe.root, location)
            if problem is not None:
                yield problem
                return
        yield Problem(f"{location}:{exc.lineno}", f"not well-formed XML, rest skipped: {exc.msg}")
        return
    if not record:
        problem = _root_problem(probe.root, location)
        if problem is not None:
            yield problem


def _index_child(
    element: etree._Element, location: str, depth: int
) -> Iterator[Problem | ChildSitemap]:
    where = f"{location}:{element.sourceline}"
    child = next((c for c in element if local_name(c.tag)[1] == "loc"), None)
    child_loc = None if child is None else _text(child)
    release(element)
    if child_loc is None:
        yield Problem(where, "loc: missing: every <sitemap> needs a <loc>")
    elif depth >= MAX_INDEX_DEPTH:
        yield Problem(
            where,
            f"loc: {quote(child_loc)} is not followed: a sitemap index must not list another index",
        )
    else:
        yield ChildSitemap(child_location(location, child_loc), depth + 1)


def read_sitemap_rows(location: str, *, depth: int = 0) -> Iterator[Row | Problem]:
    """:func:`iter_sitemap_rows` on a location; a child that cannot be opened is one problem."""
    try:
        with open_source(location) as stream:
            yield from iter_sitemap_rows(stream, location, depth=depth)
    except (SourceError, OSError, EOFError) as exc:
        if depth == 0:
            raise SourceError(str(exc)) from exc
        yield Problem(location, f"child sitemap skipped: {exc}")
