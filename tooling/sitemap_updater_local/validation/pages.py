"""Each ``<url>`` of a urlset judged by the one judge, as ingest judges a page.

The entry is read by ``backfill``'s reader (``url_elements.url_listing``) into the producer
contract's fields and judged by ``ingest.judge.judge_listing`` against the site of its own
``<loc>``: images and videos may be on any host and alternates on any origin, as the default
deployment allows; whether every ``<loc>`` of the file is on one host is the file's rule
(``rules.HostRule``). Every rule the page breaks is a problem. The page is judged leniently, so
that every broken rule is named rather than the first, and fails whenever that judgement leaves
anything out, which is exactly when the strict judgement (``drops=None``) refuses it, as a test
checks. Each problem is said in the words ``backfill`` and ``build`` use for the same element
(``pipeline.judging.invalid``), at the line of the element it is about.

The element a problem is about is then taken out of the entry (the whole entry, when its
``<loc>`` is refused), so that the XSDs, which check the entry next, do not report it a second
time. Which element gave which item of a list is known by reading each element alone, with the
same reader; that is done only for an entry that breaks a rule.
"""

from __future__ import annotations

import copy
import re
from datetime import datetime
from functools import lru_cache
from typing import Final

from lxml import etree

from sitemap_updater.ingest.listing import judge_listing
from sitemap_updater.page.normalize import Repaired
from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.protocol.limits import SITEMAP_NS
from sitemap_updater.protocol.urls import Site, normalize_url, origin_of
from sitemap_updater.sites import Sites
from sitemap_updater_local.inputs.sitemaps.url_elements import url_listing
from sitemap_updater_local.inputs.source_records import Problem
from sitemap_updater_local.pipeline.judging import invalid
from sitemap_updater_local.validation.report import FileReport, line_of

#: The kind of check of these problems, in a report.
PAGE: Final = "page"
_URL: Final = f"{{{SITEMAP_NS}}}url"
_LOC: Final = f"{{{SITEMAP_NS}}}loc"
#: The ``<loc>`` of an element read alone (any text the reader takes as a URL).
_STAND_IN: Final = "https://stand-in.invalid/"
#: ``images[3].loc``: the list (or field) a field names, and the item's place in it.
_FIELD: Final = re.compile(r"([A-Za-z_]+)(?:\[(\d+)\])?")
_INDEX: Final = re.compile(r"\[\d+\]")


@lru_cache(maxsize=64)
def _sites(origin: str) -> Sites:
    """The one site of ``origin``, its media and alternates allowed on any host."""
    return Sites([Site(origin, media_hosts=None, alternate_origins=None)])


class _Items:
    """A list value as a problem shows it: how many items it has, not each of them."""

    def __init__(self, items: list[object] | tuple[object, ...]) -> None:
        self.count = len(items)

    def __repr__(self) -> str:
        return f"{self.count:,} items"


def _shown(value: object) -> object:
    return _Items(value) if isinstance(value, list | tuple) else value


def _judged(fields: dict[str, object], now: datetime) -> tuple[str, list[SitemapError]]:
    """The normalized URL of a listing's page, and every rule its other fields break (the
    :class:`SitemapError` of its url raised)."""
    drops: list[SitemapError] = []
    normalized = normalize_url(fields.get("url"), field="url")
    judge_listing(fields, sites=_sites(origin_of(normalized)), now=now, drops=drops)
    return normalized, drops


def judge_entry(url: etree._Element, now: datetime, report: FileReport) -> str | None:
    """Judge one ``<url>``, report each rule it breaks and take out of it each element a
    problem is about; its normalized URL, or ``None`` when its ``<loc>`` (or the lack of one)
    refuses the entry whole (the caller takes the entry out)."""
    line = line_of(url)
    read = url_listing(url, "")
    if isinstance(read, Problem):
        report.problem(line, read.reason, PAGE, read.rule or read.reason.split(": ", 1)[0])
        return None
    try:
        normalized, drops = _judged(read.fields, now)
    except SitemapError as error:
        report.problem(line, invalid(error.field, error.value, error.rule), PAGE, error.rule)
        return None
    if drops:
        _report_drops(url, drops, report)
    return normalized


def judge_text_url(url: str, line: int, now: datetime, report: FileReport) -> str | None:
    """Judge the URL of one line of a text sitemap; its normalized form, or ``None``."""
    try:
        return _judged({"url": url}, now)[0]
    except SitemapError as error:
        report.problem(line, invalid(error.field, error.value, error.rule), PAGE, error.rule)
        return None


def _report_drops(url: etree._Element, drops: list[SitemapError], report: FileReport) -> None:
    sources = _Sources(url)
    taken: set[etree._Element] = set()
    for error in drops:
        elements = sources.of(error.field)
        line = line_of(elements[0]) if elements else line_of(url)
        text = invalid(error.field, _shown(error.value), error.rule)
        if isinstance(error, Repaired):
            text += f" (write {error.to!r})"
        report.problem(line, text, PAGE, f"{_INDEX.sub('', error.field)}: {error.rule}")
        for element in elements:
            if element not in taken and element.getparent() is url:
                taken.add(element)
                url.remove(element)


class _Sources:
    """For each field of an entry's listing, the element each of its values came from: a list
    field (``images``) one element per item, any other the element the reader took it from."""

    def __init__(self, url: etree._Element) -> None:
        self.items: dict[str, list[etree._Element]] = {}
        self.single: dict[str, etree._Element] = {}
        for child in url:
            if isinstance(child.tag, str):
                self._read(child)

    def _read(self, child: etree._Element) -> None:
        alone = etree.Element(_URL)
        etree.SubElement(alone, _LOC).text = _STAND_IN
        alone.append(copy.deepcopy(child))
        read = url_listing(alone, "")
        if isinstance(read, Problem):  # the child is a <loc> too
            self.single["url"] = child
            return
        for name, value in read.fields.items():
            if isinstance(value, list):
                self.items.setdefault(name, []).extend([child] * len(value))
            elif name != "url":
                self.single[name] = child  # the reader keeps the last one

    def of(self, field: str) -> list[etree._Element]:
        """The elements the problem of ``field`` (``videos[1].thumbnail_loc``, ``lastmod``,
        ``images``) is about: the item's element, or a single field's; none for a list as a
        whole (too many images: the entry's own line)."""
        head = _FIELD.match(field)
        if head is None:
            return []
        name, index = head[1], head[2]
        if index is not None:
            place = int(index)
            return self.items.get(name, [])[place : place + 1]
        element = self.single.get(name)
        return [] if element is None else [element]
