"""The alternates, images, videos and News objects of a urlset's entries, judged as ``backfill``
and ``build`` judge them (``make_entry_keeping_page``), before the XSD sees them: an element
they would leave out is taken out of the entry, one they would repair (a News language
``en-US``, read as ``en``) is repaired, each with the ``warning:`` line they print, naming the
line, the field and the value. Such a problem does not cost the page there, so it does not fail
the file here; what the layer accepts is still checked against the XSDs.

An entry is read by ``backfill``'s own reader (``url_row``) and its elements judged together,
as the reader's entry would be. Only when one is left out is each element read in an entry of
its own, so that the field a rule names (``videos[1].thumbnail_loc``) leads back to the element
it came from.
"""

from __future__ import annotations

import copy
from collections import Counter
from datetime import datetime
from typing import Final

from lxml import etree

from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.protocol.errors import TooManyImagesError
from sitemap_updater.protocol.limits import (
    IMAGE_NS,
    MAX_IMAGES_PER_URL,
    NEWS_NS,
    SITEMAP_NS,
    VIDEO_NS,
    XHTML_NS,
)
from sitemap_updater.protocol.urls import Site, normalize_url
from sitemap_updater_local.inputs.records import Problem, RawEntry, Row, raw_entry
from sitemap_updater_local.inputs.sitemaps.url_elements import url_row
from sitemap_updater_local.pipeline.raw_entries import (
    Repaired,
    bad_element,
    dropped_warning,
    raw_entry_keeping_page,
)

_URL: Final = f"{{{SITEMAP_NS}}}url"
_LOC: Final = f"{{{SITEMAP_NS}}}loc"
_ELEMENTS: Final = (
    f"{{{XHTML_NS}}}link",
    f"{{{IMAGE_NS}}}image",
    f"{{{VIDEO_NS}}}video",
    f"{{{NEWS_NS}}}news",
)
_LANGUAGE: Final = (f"{{{NEWS_NS}}}publication", f"{{{NEWS_NS}}}language")
#: For each list of an entry (and ``news``), the element each item was read from.
_Sources = dict[str, list[etree._Element]]
#: Warnings printed in full per file before the rest are counted by rule.
SHOWN: Final = 20


class ExtensionWarnings:
    """The warnings of one file: the first :data:`SHOWN` in full, then a count per rule."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.more: Counter[str] = Counter()

    def add(self, line: int | None, error: SitemapError) -> None:
        warning = dropped_warning(error, f"line {line}")
        if len(self.lines) < SHOWN:
            self.lines.append(f"{warning.where}: {warning.text}")
        else:
            self.more[warning.rule] += 1

    def finish(self) -> list[str]:
        return self.lines + [
            f"... and {count} more element(s) left out or repaired: {rule}"
            for rule, count in self.more.most_common()
        ]


def _sources(url: etree._Element, loc: etree._Element) -> tuple[RawEntry, _Sources]:
    """The entry ``backfill`` reads from ``url``'s loc and extension elements, and for each of
    its lists (and ``news``) the element each item came from."""
    read: list[RawEntry] = []
    sources: _Sources = {"alternates": [], "images": [], "videos": [], "news": []}
    for element in url.iterchildren(*_ELEMENTS):
        alone = etree.Element(_URL)
        alone.append(copy.copy(loc))
        alone.append(copy.deepcopy(element))
        entry = _read(alone)
        if entry is None:
            continue
        read.append(entry)
        sources["alternates"] += [element] * len(entry.alternates)
        sources["images"] += [element] * len(entry.images)
        sources["videos"] += [element] * len(entry.videos)
        if entry.news is not None:
            sources["news"] = [element]
    news = [entry.news for entry in read if entry.news is not None]
    whole = RawEntry(
        "",
        (loc.text or "").strip(),
        alternates=tuple(a for entry in read for a in entry.alternates),
        images=tuple(i for entry in read for i in entry.images),
        videos=tuple(v for entry in read for v in entry.videos),
        news=news[-1] if news else None,
    )
    return whole, sources


def _read(url: etree._Element) -> RawEntry | None:
    """The loc and extension elements of ``url`` as ``backfill`` reads them."""
    entry = url_row(url, "")
    if isinstance(entry, Problem):
        return None
    entry = raw_entry(entry) if isinstance(entry, Row) else entry
    return RawEntry(
        "",
        entry.loc,
        alternates=entry.alternates,
        images=entry.images,
        videos=entry.videos,
        news=entry.news,
    )


def _dropped(site: Site, raw: RawEntry | None, now: datetime) -> list[SitemapError]:
    """What the layer leaves out of ``raw``'s extension elements, or repairs."""
    if raw is None:
        return []
    try:
        return raw_entry_keeping_page(site, raw, now)[1]
    except SitemapError:
        return []  # its loc: the URL rule reports it


def _site(loc: str) -> Site | None:
    """The site of ``loc`` alone: any host for media and alternates, as ``validate`` allows."""
    try:
        url = normalize_url(loc, field="loc")
    except SitemapError:
        return None
    return Site("/".join(url.split("/", 3)[:3]), None, None)


def _elements_of(error: SitemapError, sources: _Sources) -> list[etree._Element]:
    """The elements ``error`` left out of the entry."""
    where = bad_element(error.field)
    if where is None:
        return []
    name, index = where
    items = sources[name]
    if index is not None:
        return items[index : index + 1]
    if isinstance(error, TooManyImagesError):
        return items[MAX_IMAGES_PER_URL:]
    return items


def judge_entry(url: etree._Element, now: datetime, warnings: ExtensionWarnings) -> None:
    """Take out of ``url`` each extension element ``backfill`` would leave out, and repair each
    one it would repair, with one warning each."""
    locs = list(url.iterchildren(_LOC))
    if len(locs) != 1 or next(url.iterchildren(*_ELEMENTS), None) is None:
        return  # the XSD reports a <url> without one <loc>
    site = _site((locs[0].text or "").strip())
    if site is None:
        return  # the URL rule reports the loc, the XSD what is wrong in the extensions
    dropped = _dropped(site, _read(url), now)
    if not dropped:
        return  # the common case: every element is good, no need to know where each came from
    raw, sources = _sources(url, locs[0])
    dropped = _dropped(site, raw, now)
    taken: set[etree._Element] = set()
    for error in dropped:
        elements = _elements_of(error, sources)
        line = elements[0].sourceline if elements else url.sourceline
        warnings.add(line if isinstance(line, int) else None, error)
        if isinstance(error, Repaired):
            for news in elements:
                language = news.find(f"{_LANGUAGE[0]}/{_LANGUAGE[1]}")
                if language is not None:
                    language.text = error.to
            continue
        for element in elements:
            if element not in taken:
                taken.add(element)
                url.remove(element)


def take_out_bad_extensions(
    batch: etree._Element, now: datetime, warnings: ExtensionWarnings
) -> None:
    """:func:`judge_entry` on each ``<url>`` of ``batch``."""
    for url in batch.iterchildren(_URL):
        judge_entry(url, now, warnings)
