"""What an XSD does not say, checked on batches of entries, and the report of one file
(one ``SOURCE: problem`` line per problem, capped per rule)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final
from urllib.parse import unquote, urlsplit

from lxml import etree

from sitemap_updater.printable import printable
from sitemap_updater.protocol.errors import SitemapError, show_value
from sitemap_updater.protocol.languages.tags import RULE, hreflang_rule, is_hreflang
from sitemap_updater.protocol.lastmod import normalize_lastmod
from sitemap_updater.protocol.limits import (
    IMAGE_NS,
    MAX_IMAGES_PER_URL,
    MAX_NEWS_URLS_PER_FILE,
    MAX_VIDEO_TAGS,
    MAX_VIDEOS_PER_URL,
    NEWS_NS,
    SITEMAP_NS,
    VIDEO_NS,
    XHTML_NS,
)
from sitemap_updater.protocol.urls import normalize_url
from sitemap_updater_local.inputs.sitemaps.xml_guard import (
    local_name,
)

#: Problems reported per rule and file before the rest are summed up in one line.
MAX_LINES_PER_RULE: Final = 20
_URL = f"{{{SITEMAP_NS}}}url"
_SITEMAP = f"{{{SITEMAP_NS}}}sitemap"
_LOC = f"{{{SITEMAP_NS}}}loc"
_LASTMOD = f"{{{SITEMAP_NS}}}lastmod"
_XHTML_LINK = f"{{{XHTML_NS}}}link"
_VIDEO = f"{{{VIDEO_NS}}}video"
_VIDEO_LOCS = (f"{{{VIDEO_NS}}}content_loc", f"{{{VIDEO_NS}}}player_loc")
_NEWS = f"{{{NEWS_NS}}}news"
_IMAGE = f"{{{IMAGE_NS}}}image"
#: XML's whitespace characters, which the XSD types of loc, href and lastmod collapse.
_XML_SPACE: Final = " \t\r\n"
_SPACE: Final = re.compile(r"\s")


@dataclass
class FileReport:
    """The outcome for one file: what it is and every problem found."""

    source: str
    kind: str | None = None
    url_count: int = 0
    uncompressed_bytes: int = 0
    gzipped: bool = False
    problems: list[str] = field(default_factory=list)
    #: what Google ignores (deprecated tags): said, but the file is still ok
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: nothing was read: an empty file, or a directory without sitemap files
    nothing_read: bool = False

    @property
    def ok(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        """One ``SOURCE: text`` line per problem, then warnings and notes; an ``ok`` line if
        clean; each
        with the control and format characters of the file's name and content escaped."""
        out = [printable(f"{self.source}: {p}") for p in self.problems]
        out += [printable(f"{self.source}: warning: {w}") for w in self.warnings]
        out += [printable(f"{self.source}: note: {n}") for n in self.notes]
        if self.ok:
            out.append(
                printable(
                    f"{self.source}: ok ({self.kind}, {self.url_count} entries, "
                    f"{self.uncompressed_bytes} bytes uncompressed)"
                )
            )
        return out


class _Rule:
    """Collects problems of one rule, capped at MAX_LINES_PER_RULE lines."""

    def __init__(self, report: FileReport) -> None:
        self._report = report
        self._extra = 0
        self._shown = 0

    def add(self, message: str) -> None:
        if self._shown < MAX_LINES_PER_RULE:
            self._report.problems.append(message)
            self._shown += 1
        else:
            self._extra += 1

    def finish(self, what: str) -> None:
        if self._extra:
            self._report.problems.append(f"... and {self._extra} more {what} problems")


def _origin(url: str) -> str:
    return "/".join(url.split("/", 3)[:3])


def _directory(url: str) -> str:
    return url[: url.rfind("/") + 1]


class EntryChecks:
    """The rules an XSD does not say, applied to one batch of entries after another, with the
    state they need across batches (the first URL's origin, the News article count)."""

    def __init__(self, report: FileReport, file_url: str | None, is_index: bool) -> None:
        self.report = report
        self.is_index = is_index
        self.rules = {name: _Rule(report) for name in _RULES}
        self.expected_origin: str | None = None
        self.allowed: str | None = None
        if file_url is not None:
            self.allowed = _origin(file_url) + "/" if is_index else _directory(file_url)
        self.news = 0

    def batch(self, root: etree._Element, directory: Path | None) -> None:
        self.urls(root)
        self.lastmods(root)
        if not self.is_index:
            self.extensions(root)
        elif directory is not None:
            self.children(root, directory)

    def urls(self, root: etree._Element) -> None:
        tags = {_LOC} if self.is_index else {_LOC, _XHTML_LINK}
        for element in root.iter(*tags):
            parent = element.getparent()
            if element.tag == _LOC and (parent is None or parent.tag not in (_URL, _SITEMAP)):
                continue
            if element.tag == _XHTML_LINK and element.get("href") is None:
                continue  # the XSD reports it
            self.url(element)

    def url(self, element: etree._Element) -> None:
        invalid, host, where = self.rules["URL"], self.rules["single-host"], self.rules["location"]
        text = element.get("href") if element.tag == _XHTML_LINK else element.text
        # xsd:anyURI collapses whitespace: a pretty-printed <loc> is valid
        raw = (text or "").strip(_XML_SPACE)
        what = "href" if element.tag == _XHTML_LINK else "loc"
        line = element.sourceline
        try:
            url = normalize_url(raw)
        except SitemapError as err:
            invalid.add(f"line {line}: {what} {show_value(raw)}: {err.rule}")
            return
        if _SPACE.search(raw):
            invalid.add(
                f"line {line}: {what} {show_value(raw)}: whitespace inside a URL must be "
                f"percent-encoded (RFC 3986): write {show_value(url)}"
            )
        if what == "href":
            return  # a language alternate may be on any host (see the module docstring)
        origin = _origin(url)
        if self.expected_origin is None:
            self.expected_origin = origin
        elif origin != self.expected_origin and not self.is_index:
            host.add(
                f"line {line}: {what} {raw} is on {origin}, but the file's first URL is on "
                f"{self.expected_origin} (single-host rule)"
            )
        if self.allowed is not None and not url.startswith(self.allowed):
            rule = "same site" if self.is_index else "location rule"
            where.add(f"line {line}: {what} {raw} is not under {self.allowed} ({rule})")

    def lastmods(self, root: etree._Element) -> None:
        rule = self.rules["lastmod"]
        for element in root.iter(_LASTMOD):
            try:
                # xsd:date and xsd:dateTime collapse whitespace around the value
                normalize_lastmod((element.text or "").strip(_XML_SPACE))
            except SitemapError as err:
                rule.add(f"line {element.sourceline}: lastmod {element.text!r}: {err.rule}")

    def extensions(self, root: etree._Element) -> None:
        """Rules of the extensions an XSD 1.0 does not express, and the per-URL limits
        ``backfill`` applies too (``make_entry``, from ``protocol.limits``)."""
        rule = self.rules["extension"]
        for url in root.iterchildren(_URL):
            _per_url_limits(url, rule)
        for video in root.iter(_VIDEO):
            if not any(child.tag in _VIDEO_LOCS for child in video):
                rule.add(f"line {video.sourceline}: a video needs content_loc or player_loc")
            _video_counts(video, rule)
        for link in root.iter(_XHTML_LINK):
            _link_rules(link, rule)
        self.news += sum(1 for _ in root.iter(_NEWS))

    def children(self, root: etree._Element, directory: Path) -> None:
        rule = self.rules["missing-child"]
        for element in root.iter(_LOC):
            name = unquote(urlsplit((element.text or "").strip()).path.rsplit("/", 1)[-1])
            if not name or not (directory / name).is_file():
                rule.add(
                    f"line {element.sourceline}: child sitemap {element.text} has no file "
                    f"{name!r} in {directory}"
                )

    def finish(self) -> None:
        if self.news > MAX_NEWS_URLS_PER_FILE:
            self.rules["extension"].add(
                f"{self.news} news:news elements is over Google's limit of "
                f"{MAX_NEWS_URLS_PER_FILE} per News sitemap"
            )
        for name, rule in self.rules.items():
            rule.finish(name)


#: The rules of :class:`EntryChecks`, each capped on its own.
_RULES: Final = ("XSD", "URL", "single-host", "location", "lastmod", "extension", "missing-child")


def _video_counts(video: etree._Element, rule: _Rule) -> None:
    """What the video schema's free order cannot say: each tag at most once, ``tag`` at most
    :data:`MAX_VIDEO_TAGS` times."""
    counts = Counter(local_name(child.tag)[1] for child in video if isinstance(child.tag, str))
    for name, count in sorted(counts.items()):
        most = MAX_VIDEO_TAGS if name == "tag" else 1
        if count > most:
            rule.add(f"line {video.sourceline}: video:{name} appears {count} times: at most {most}")


def _link_rules(link: etree._Element, rule: _Rule) -> None:
    """An ``xhtml:link`` is a language alternate with a hreflang ``backfill`` accepts too
    (``protocol.languages``), or Google's separate-mobile-URL link."""
    hreflang = link.get("hreflang")
    if hreflang is None and link.get("media") is None:
        rule.add(
            f"line {link.sourceline}: xhtml:link needs hreflang (a language alternate) "
            "or media (Google's separate-mobile-URL link)"
        )
    elif hreflang is not None and not is_hreflang(hreflang):
        broken = hreflang_rule(hreflang)
        if broken != RULE:  # a tag of the right form whose language is not registered; the
            # XSD already reports a value of the wrong form
            rule.add(f"line {link.sourceline}: hreflang {hreflang!r}: {broken}")


def _per_url_limits(url: etree._Element, rule: _Rule) -> None:
    images = sum(1 for _ in url.iterchildren(_IMAGE))
    if images > MAX_IMAGES_PER_URL:
        rule.add(
            f"line {url.sourceline}: {images} images is over the limit of "
            f"{MAX_IMAGES_PER_URL} images per URL"
        )
    videos = sum(1 for _ in url.iterchildren(_VIDEO))
    if videos > MAX_VIDEOS_PER_URL:
        rule.add(
            f"line {url.sourceline}: {videos} videos is over the limit of "
            f"{MAX_VIDEOS_PER_URL} videos per URL"
        )
