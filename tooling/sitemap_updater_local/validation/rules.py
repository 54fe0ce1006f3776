"""The rules only a file-level validator can check, which no page breaks on its own: every
``<loc>`` of a urlset on one host, the location rule, the entries of an index, the News file's
article count, and what the video XSD's free order cannot say.

Each rule is applied entry by entry as the batches of a document come (``document``), with what
it needs across them; the values themselves are judged by the layer's rules (``normalize_url``,
``normalize_date``), never by a copy of them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Final
from urllib.parse import unquote, urlsplit

from lxml import etree

from sitemap_updater.page.normalize import normalize_date
from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.protocol.limits import (
    MAX_NEWS_URLS_PER_FILE,
    NEWS_NS,
    SITEMAP_NS,
    VIDEO_NS,
)
from sitemap_updater.protocol.urls import normalize_url, origin_of
from sitemap_updater_local.inputs.sitemaps.xml_guard import local_name
from sitemap_updater_local.inputs.source_records import quote
from sitemap_updater_local.pipeline.judging import invalid
from sitemap_updater_local.validation.report import SHOWN, FileReport, line_of

_SITEMAP: Final = f"{{{SITEMAP_NS}}}sitemap"
_LOC: Final = f"{{{SITEMAP_NS}}}loc"
_LASTMOD: Final = f"{{{SITEMAP_NS}}}lastmod"
_VIDEO: Final = f"{{{VIDEO_NS}}}video"
_NEWS: Final = f"{{{NEWS_NS}}}news"
#: XML's whitespace characters, which the XSD types of loc and lastmod collapse.
_XML_SPACE: Final = " \t\r\n"
_SINGLE_HOST: Final = (
    "every URL of a sitemap must have the same scheme, host and port (single-host rule)"
)


def directory_of(url: str) -> str:
    """The URL of the directory a file at ``url`` is in (``https://h/a/`` of ``https://h/a/s.xml``)."""
    return url[: url.rfind("/") + 1]


@dataclass
class _Origin:
    """The entries of one origin: how many, and the first :data:`SHOWN` (line, loc as written)."""

    count: int = 0
    examples: list[tuple[int | None, str]] = field(default_factory=list)


class HostRule:
    """The single-host rule: every ``<loc>`` of a urlset has the same scheme, host and port.
    The reference is the file's own origin when its URL is known (``--base-url``, or a fetched
    file's URL), else the origin most of its entries are on (the first met, of equals); the
    entries on any other origin are named, each on its line, once the file is read."""

    def __init__(self, file_url: str | None) -> None:
        self.reference = None if file_url is None else origin_of(file_url)
        self.origins: dict[str, _Origin] = {}

    def add(self, url: str, line: int | None, written: str) -> None:
        """An entry whose normalized URL is ``url`` (``written`` as the file writes it)."""
        origin = self.origins.setdefault(origin_of(url), _Origin())
        origin.count += 1
        if len(origin.examples) < SHOWN:
            origin.examples.append((line, written))

    def finish(self, report: FileReport) -> None:
        if not self.origins:
            return
        total = sum(o.count for o in self.origins.values())
        if self.reference is not None:
            reference = self.reference
            where = f"{reference}, where the file is published"
        else:
            reference = max(self.origins, key=lambda o: self.origins[o].count)
            most = self.origins[reference].count
            where = f"{reference}, where {most:,} of the file's {total:,} URLs are"
        for origin, entries in self.origins.items():
            if origin == reference:
                continue
            rule = f"a URL on {origin}, not on {reference} (single-host rule)"
            for line, written in entries.examples:
                text = f"url {quote(written)} is on {origin}, not on {where}: {_SINGLE_HOST}"
                report.problem(line, text, "single-host", rule)
            report.uncounted(entries.count - len(entries.examples), rule)


class LocationRule:
    """The location rule (sitemaps.org): a urlset at ``https://h/a/sitemap.xml`` lists only
    URLs under ``https://h/a/``; checked when the file's URL is known. An entry on another
    origin breaks the single-host rule, which names it."""

    def __init__(self, file_url: str) -> None:
        self.directory = directory_of(file_url)
        self.origin = origin_of(file_url)

    def check(self, url: str, line: int | None, written: str, report: FileReport) -> None:
        if not url.startswith(self.directory) and origin_of(url) == self.origin:
            text = f"url {quote(written)} is not under {self.directory} (location rule)"
            report.problem(line, text, "location")


class IndexEntries:
    """The ``<sitemap>`` entries of an index: each ``loc`` an absolute http(s) URL (the layer's
    URL rule), on the index's own origin when the index's URL is known, and a file of the
    index's directory when that is local; each ``lastmod`` a W3C date (the layer's date rule).
    The element a rule refuses is taken out before the XSD check, which would repeat it."""

    def __init__(self, file_url: str | None, directory: Path | None, now: datetime) -> None:
        self.origin = None if file_url is None else origin_of(file_url)
        self.directory = directory
        self.now = now

    def check(self, batch: etree._Element, report: FileReport) -> None:
        for entry in list(batch.iterchildren(_SITEMAP)):
            for lastmod in list(entry.iterchildren(_LASTMOD)):
                self._lastmod(entry, lastmod, report)
            locs = list(entry.iterchildren(_LOC))
            if len(locs) == 1 and not self._loc(locs[0], report):
                batch.remove(entry)

    def _lastmod(self, entry: etree._Element, lastmod: etree._Element, report: FileReport) -> None:
        # xsd:date and xsd:dateTime collapse whitespace around the value
        value = (lastmod.text or "").strip(_XML_SPACE)
        if not value:
            return  # the XSD reports an empty lastmod
        try:
            normalize_date("lastmod", value, self.now)
        except SitemapError as error:
            text = invalid(error.field, error.value, error.rule)
            report.problem(line_of(lastmod), text, "index", f"lastmod: {error.rule}")
            entry.remove(lastmod)

    def _loc(self, loc: etree._Element, report: FileReport) -> bool:
        """Whether the entry's ``loc`` passes (its problems reported)."""
        written = (loc.text or "").strip(_XML_SPACE)
        try:
            url = normalize_url(written, field="loc")
        except SitemapError as error:
            text = invalid(error.field, error.value, error.rule)
            report.problem(line_of(loc), text, "index", f"loc: {error.rule}")
            return False
        if self.origin is not None and origin_of(url) != self.origin:
            text = f"loc {quote(written)} is not on {self.origin}, the index's own site"
            report.problem(line_of(loc), text, "index", "a child on another site")
        if self.directory is not None:
            name = unquote(urlsplit(url).path.rsplit("/", 1)[-1])
            if not name or not (self.directory / name).is_file():
                text = f"child sitemap {quote(written)} has no file {name!r} in {self.directory}"
                report.problem(line_of(loc), text, "index", "a missing child")
        return True


class NewsCount:
    """Google's limit of :data:`MAX_NEWS_URLS_PER_FILE` articles in one News sitemap."""

    def __init__(self) -> None:
        self.count = 0

    def add(self, batch: etree._Element) -> None:
        self.count += sum(1 for _ in batch.iter(_NEWS))

    def finish(self, report: FileReport) -> None:
        if self.count > MAX_NEWS_URLS_PER_FILE:
            text = (
                f"{self.count:,} news:news elements is over Google's limit of "
                f"{MAX_NEWS_URLS_PER_FILE:,} per News sitemap"
            )
            report.problem(None, text, "news")


def video_tags_once(batch: etree._Element, report: FileReport) -> None:
    """Each tag of a ``<video:video>`` at most once (``tag`` aside, which the page counts): the
    video XSD takes its optional tags in any order, as files in the wild write them, so it
    cannot say so itself."""
    for video in batch.iter(_VIDEO):
        counts = Counter(local_name(child.tag)[1] for child in video if isinstance(child.tag, str))
        for name, count in sorted(counts.items()):
            if name != "tag" and count > 1:
                text = f"video:{name} appears {count} times in one video: at most once"
                report.problem(line_of(video), text, "video", "a video tag given twice")
