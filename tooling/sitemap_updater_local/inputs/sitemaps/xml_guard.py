"""What every sitemap XML reader (``backfill``'s and ``validate``'s) applies before it trusts a
document: the parser settings, the entities it never expands, the root element's name and
namespace, and the cap on the bytes read.

lxml is told to resolve no entity, load no DTD and fetch nothing. A document that declares a
DOCTYPE is read like any other (many generators write one), but an entity it declares is never
expanded: lxml keeps ``&p;`` as a reference node, where an element's text stops, so an entry
that uses one would be cut short silently. Such an entry is reported instead
(:func:`entity_use`), and only in a document with a DOCTYPE, told from lxml's own record of the
prolog once the root's start tag is read (a document without one cannot declare an entity: a
reference to one is an XML error).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import IO, Any, Final, cast

from lxml import etree

from sitemap_updater.protocol.limits import MAX_BYTES, SITEMAP_NS

#: Parser settings: no entities resolved, no DTD loaded, nothing fetched, comments and PIs
#: dropped.
XML_OPTIONS: Final[dict[str, Any]] = {
    "resolve_entities": False,
    "no_network": True,
    "remove_comments": True,
    "remove_pis": True,
    "load_dtd": False,
}
#: The rule an entry that uses an entity breaks.
ENTITY_RULE: Final = "entities are never expanded: the entry is skipped"
#: Root elements of feeds, which are not sitemaps (named in the refusal).
FEED_ROOTS: Final = {"rss": "an RSS feed", "RDF": "an RSS 1.0 feed", "feed": "an Atom feed"}
#: Bytes of the prolog kept to look for a DOCTYPE when the prolog cannot be parsed.
_PROLOG_BYTES: Final = 1 << 16


class TooLargeError(Exception):
    """More bytes came out of a document than its cap allows."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"uncompressed size is over the limit of {limit:,} bytes "
            "(sitemaps.org: 52,428,800 per file); reading stopped there"
        )
        self.limit = limit


def local_name(tag: object) -> tuple[str, str]:
    """(namespace, local name) of an element tag."""
    if not isinstance(tag, str):
        return "", ""
    if tag.startswith("{"):
        ns, _, local = tag[1:].partition("}")
        return ns, local
    return "", tag


def entity_use(element: etree._Element) -> str | None:
    """What is wrong with an entry that uses an entity (``name: uses &e;; rule``), or ``None``
    when none of its descendants is an entity reference."""
    for node in element.iter(etree.Entity):
        parent = node.getparent()
        field = local_name(parent.tag)[1] if parent is not None else "entry"
        return f"{field}: uses the entity {node.text}, which is not read; {ENTITY_RULE}"
    return None


class RootProbe:
    """Hands a stream's bytes to the main parser, counts them against ``limit``, and finds the
    root's start tag (and any DOCTYPE before it) on the way."""

    def __init__(self, stream: IO[bytes], *, limit: int = MAX_BYTES) -> None:
        self._stream = stream
        self._parser: etree.XMLPullParser | None = etree.XMLPullParser(
            events=("start",), **XML_OPTIONS
        )
        self._limit = limit
        self._prolog = b""
        #: bytes read so far (uncompressed)
        self.size = 0
        #: (namespace, local name, line) of the root element, once its start tag has been read
        self.root: tuple[str, str, int] | None = None
        #: whether the document declares a DOCTYPE
        self.doctype = False

    @property
    def name(self) -> Any:
        """The stream's name (lxml takes it as the document's URL), if it has one."""
        return getattr(self._stream, "name", None)

    def read(self, size: int = -1) -> bytes:
        data = self._stream.read(size)
        self.size += len(data)
        if self.size > self._limit:
            raise TooLargeError(self._limit)
        parser = self._parser
        if parser is not None:
            if len(self._prolog) < _PROLOG_BYTES:
                self._prolog += data[: _PROLOG_BYTES - len(self._prolog)]
            self._probe(parser, data)
        return data

    def _probe(self, parser: etree.XMLPullParser, data: bytes) -> None:
        try:
            if data:
                parser.feed(data)
            else:
                parser.close()
        except etree.XMLSyntaxError:
            self._parser = None  # the main parser meets the same error
            self.doctype = b"<!DOCTYPE" in self._prolog
        for _, event in parser.read_events():
            element = cast(etree._Element, event)
            ns, name = local_name(element.tag)
            self.root = ns, name, cast(int, element.sourceline)
            info: Any = element.getroottree().docinfo  # lxml's stubs lack ``doctype``
            self.doctype = bool(info.doctype)
            self._parser = None
            break

    def entity_in(self, element: etree._Element) -> str | None:
        """:func:`entity_use` of an entry of a document with a DOCTYPE (``None`` without one:
        such a document cannot use an entity)."""
        return entity_use(element) if self.doctype else None

    def refusal(self, roots: Mapping[str, object]) -> tuple[int, str] | None:
        """(line, reason) when the document must not be read further: a feed, a root that is
        not one of ``roots``; ``None`` when it may be read (a root in another namespace is
        read: :meth:`namespace_note` says so)."""
        if self.root is None:
            return None
        _, name, line = self.root
        if name in roots:
            return None
        if name in FEED_ROOTS:
            return line, (
                f"root element: <{name}> is {FEED_ROOTS[name]}, not a sitemap: RSS and Atom "
                "feeds are not read; use the site's XML or text sitemap"
            )
        wanted = " or ".join(f"<{r}>" for r in roots)
        return line, f"root element: <{name}> is not a sitemap: must be {wanted}"

    def namespace_note(self) -> str | None:
        """What is wrong with the root's namespace, if anything."""
        if self.root is None or self.root[0] == SITEMAP_NS:
            return None
        ns, name, _ = self.root
        found = "has no namespace" if not ns else f"is in the namespace {ns}"
        return f"root element <{name}> {found}: a sitemap's root must be in {SITEMAP_NS}"
