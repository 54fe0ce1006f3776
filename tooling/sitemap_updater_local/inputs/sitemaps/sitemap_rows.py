"""Streaming reader of sitemap XML: a urlset, or a sitemap index and every child it lists.

lxml reports only the end of the ``<url>`` and ``<sitemap>`` elements (whatever their
namespace); the root element and any DOCTYPE (whose entities are never expanded) are told apart
by a second parser that reads the bytes only until the root's start tag (``RootProbe``). What
was read is freed every few elements (``release_before``), so memory stays flat. A ``<url>``
(``url_elements``) is a :class:`~sitemap_updater_local.inputs.source_records.Listing`; what
cannot be read is a :class:`~sitemap_updater_local.inputs.source_records.Problem` naming the file
and line; what is dropped from the pages is said once per file by a
:class:`~sitemap_updater_local.inputs.source_records.Note`. The policies are in docs/cli.md.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import IO, Final
from urllib.parse import urlsplit

from lxml import etree

from sitemap_updater.protocol.limits import MAX_URLS
from sitemap_updater_local.inputs.lastmod_forms import LastmodForms
from sitemap_updater_local.inputs.opening import (
    SCHEMES,
    BudgetError,
    SourcePolicy,
    child_location,
    open_source,
)
from sitemap_updater_local.inputs.sitemaps.url_elements import drop_notes, element_text, url_listing
from sitemap_updater_local.inputs.sitemaps.xml_guard import (
    XML_OPTIONS,
    RootProbe,
    TooLargeError,
    local_name,
)
from sitemap_updater_local.inputs.source_records import Listing, Note, Problem, SourceError, quote

#: Sitemap indexes must not list indexes (sitemaps.org); one level of children is followed.
MAX_INDEX_DEPTH: Final = 1
#: The root elements read, each with the element that holds one record.
ROOTS: Final = {"urlset": "url", "sitemapindex": "sitemap"}
#: ``<url>`` elements read between two frees of what was read (:func:`release_before`).
RELEASE_EVERY: Final = 64


def release(element: etree._Element) -> None:
    """Free a finished element and the siblings before it (constant memory)."""
    element.clear()
    parent = element.getparent()
    if parent is not None:
        while element.getprevious() is not None:
            del parent[0]


def release_before(element: etree._Element) -> None:
    """Free every element before ``element`` in the document, all of them finished: the
    siblings before it and before each of its ancestors (constant memory, at one cost for
    many elements)."""
    node, parent = element, element.getparent()
    while parent is not None:
        index = parent.index(node)
        if index:
            del parent[:index]
        node, parent = parent, parent.getparent()


def _outer_urls(element: etree._Element) -> Iterator[etree._Element]:
    """The ``<url>`` elements (of any namespace) that hold ``element``."""
    return element.iterancestors("{*}url")


@dataclass(frozen=True, slots=True)
class ChildSitemap:
    """A child sitemap an index lists, for the caller to read with :func:`read_sitemap_rows`."""

    location: str
    depth: int


SitemapItem = Listing | Problem | Note | ChildSitemap


def iter_sitemap_rows(
    stream: IO[bytes], location: str, *, depth: int = 0, policy: SourcePolicy | None = None
) -> Iterator[Listing | Problem | Note]:
    """Entries of a urlset, or of every child of a sitemap index (followed in order)."""
    if depth >= MAX_INDEX_DEPTH:  # a child: an index it lists is a problem, never followed
        yield from iter_sitemap_items(stream, location, depth=depth, policy=policy)  # type: ignore[misc]
        return
    for item in iter_sitemap_items(stream, location, depth=depth, policy=policy):
        if isinstance(item, ChildSitemap):
            yield from read_sitemap_rows(item.location, depth=item.depth, policy=policy)
        else:
            yield item


class _SourceDocument:
    """The state of reading one document: its probe, its record element, what it dropped."""

    def __init__(self, stream: IO[bytes], location: str, depth: int, policy: SourcePolicy):
        self.probe = RootProbe(stream)
        self.location = location
        self.depth = depth
        self.policy = policy
        self.record = ""
        self.suffix = ""
        self.count = 0
        self.dropped: Counter[str] = Counter()
        self.forms = LastmodForms()
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
        self.suffix = "}" + self.record
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

    def element(self, element: etree._Element) -> SitemapItem | None:
        """The record of an element (lxml reports ``<url>`` and ``<sitemap>`` of any parent);
        ``None`` for one that holds no record."""
        tag = element.tag
        if tag != self.record and not tag.endswith(self.suffix):
            return None
        self.count += 1
        if self.count > MAX_URLS:
            return Problem(
                f"{self.location}:{element.sourceline}",
                f"over the limit of {MAX_URLS:,} entries per file (sitemaps.org): "
                "this entry and the rest of the file are skipped",
            )
        entity = self.probe.entity_in(element)
        if entity is not None:
            return Problem(f"{self.location}:{element.sourceline}", entity)
        if self.record == "url":
            row = url_listing(element, self.location, self.dropped, self.forms)
            # a <url> inside another is freed with it: the outer one is still to be read
            if not self.count % RELEASE_EVERY and next(_outer_urls(element), None) is None:
                release_before(element)
            return row
        return _index_child(element, self)


def iter_sitemap_items(
    stream: IO[bytes], location: str, *, depth: int = 0, policy: SourcePolicy | None = None
) -> Iterator[SitemapItem]:
    """Entries of a urlset, or the children of a sitemap index, each a :class:`ChildSitemap`
    read by the caller before the next item is asked for (the index stays open meanwhile)."""
    reader = _SourceDocument(stream, location, depth, policy or SourcePolicy())
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
            item = reader.element(element)
            if item is not None:
                yield item
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
    yield from reader.forms.notes(location)
    if reader.repeats:
        yield Note(
            location,
            f"{reader.repeats} <sitemap> entr{'y' if reader.repeats == 1 else 'ies'} listed a "
            "child already read (or this index itself): each child is read once",
        )


def _index_child(element: etree._Element, reader: _SourceDocument) -> Problem | ChildSitemap | None:
    """The child a ``<sitemap>`` element lists, the problem that keeps it from being followed,
    or ``None`` for a child already listed."""
    where = f"{reader.location}:{element.sourceline}"
    locs = [c for c in element if local_name(c.tag)[1] == "loc"]
    child_loc = element_text(locs[0]) if locs else None
    release(element)
    if child_loc is None:
        return Problem(where, "loc: missing: every <sitemap> needs a <loc>")
    if len(locs) > 1:
        return Problem(
            where,
            f"loc: {len(locs)} <loc> elements in one <sitemap>: it must hold one; not followed",
        )
    scheme = urlsplit(child_loc).scheme.lower()
    if scheme and scheme not in SCHEMES:
        return Problem(
            where,
            f"loc: {quote(child_loc)} is not followed: scheme {scheme!r} is not allowed "
            "(only http and https)",
        )
    if reader.depth >= MAX_INDEX_DEPTH:
        return Problem(
            where,
            f"loc: {quote(child_loc)} is not followed: a sitemap index must not list another index",
        )
    target = child_location(reader.location, child_loc)
    if target in reader.policy.seen or target == reader.location:
        reader.repeats += 1
        return None
    reader.policy.seen.add(target)
    return ChildSitemap(target, reader.depth + 1)


def read_sitemap_rows(
    location: str, *, depth: int = 0, policy: SourcePolicy | None = None
) -> Generator[Listing | Problem | Note, None, None]:
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
