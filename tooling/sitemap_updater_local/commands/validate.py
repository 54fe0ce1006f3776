"""Validate sitemap (urlset) and sitemap index files, gzipped or plain, local or fetched.

Checks, each reported as one ``SOURCE: problem`` line:

* well-formed XML and validity against the official XSDs (with the image, xhtml, video and news
  extension schemas bundled in ``schemas/``), plus the two extension rules an XSD does not say:
  a video has ``content_loc`` or ``player_loc``, and a file holds at most 1,000 news articles;
* the protocol limits: at most 50,000 URLs (or child sitemaps) and 52,428,800 uncompressed bytes;
* every ``loc`` and alternate ``href`` follows the URL rules the writers apply: an absolute
  http(s) URL of 12 to 2,048 characters once normalized and XML-escaped, without control
  characters, and with any whitespace inside it percent-encoded;
* single host: every URL of a urlset (``loc`` and alternate ``href``) has the same scheme, host and
  port;
* the location rule: a urlset at ``https://h/a/sitemap.xml`` lists only URLs under
  ``https://h/a/``, and an index lists only sitemaps on its own site. A local file's URL is
  known only with ``--base-url`` (the URL of the directory the file will be published in);
  without it the rule is skipped with a note;
* ``lastmod`` forms: a date, or a datetime with a time zone, not more than a day ahead;
* for a local index, that every child it lists exists in the index's directory (matched by the
  last path segment of the child's URL).
"""

from __future__ import annotations

import argparse
import functools
import re
import urllib.request
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, cast
from urllib.parse import unquote, urlsplit

from lxml import etree

from sitemap_updater.protocol.errors import SitemapError, show_value
from sitemap_updater.protocol.gzipio import is_gzip
from sitemap_updater.protocol.lastmod import normalize_lastmod
from sitemap_updater.protocol.limits import (
    IMAGE_NS,
    MAX_BYTES,
    MAX_NEWS_URLS_PER_FILE,
    MAX_URLS,
    NEWS_NS,
    SITEMAP_NS,
    VIDEO_NS,
    XHTML_NS,
)
from sitemap_updater.protocol.urls import normalize_url

SCHEMA_DIR: Final = Path(__file__).resolve().parents[1] / "schemas"
#: Problems reported per rule and file before the rest are summed up in one line.
MAX_LINES_PER_RULE: Final = 20
_URL = f"{{{SITEMAP_NS}}}url"
_SITEMAP = f"{{{SITEMAP_NS}}}sitemap"
_LOC = f"{{{SITEMAP_NS}}}loc"
_LASTMOD = f"{{{SITEMAP_NS}}}lastmod"
_XHTML_LINK = f"{{{XHTML_NS}}}link"
_URLSET = f"{{{SITEMAP_NS}}}urlset"
_VIDEO = f"{{{VIDEO_NS}}}video"
_VIDEO_LOCS = (f"{{{VIDEO_NS}}}content_loc", f"{{{VIDEO_NS}}}player_loc")
_NEWS = f"{{{NEWS_NS}}}news"
_INDEX = f"{{{SITEMAP_NS}}}sitemapindex"
#: XML's whitespace characters, which the XSD types of loc, href and lastmod collapse.
_XML_SPACE: Final = " \t\r\n"
_SPACE: Final = re.compile(r"\s")


def _wrapper_schema(imports: dict[str, str]) -> etree.XMLSchema:
    lines = ['<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema">']
    for namespace, file_name in imports.items():
        location = (SCHEMA_DIR / file_name).as_uri()
        lines.append(f'<xsd:import namespace="{namespace}" schemaLocation="{location}"/>')
    lines.append("</xsd:schema>")
    return etree.XMLSchema(etree.fromstring("\n".join(lines).encode()))


@functools.cache
def urlset_schema() -> etree.XMLSchema:
    """sitemap.xsd together with the image, xhtml, video and news extension schemas."""
    return _wrapper_schema(
        {
            SITEMAP_NS: "sitemap.xsd",
            IMAGE_NS: "sitemap-image.xsd",
            XHTML_NS: "xhtml-link.xsd",
            VIDEO_NS: "sitemap-video.xsd",
            NEWS_NS: "sitemap-news.xsd",
        }
    )


@functools.cache
def index_schema() -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(SCHEMA_DIR / "siteindex.xsd")))


@dataclass
class FileReport:
    """The outcome for one file: what it is and every problem found."""

    source: str
    kind: str | None = None
    url_count: int = 0
    uncompressed_bytes: int = 0
    gzipped: bool = False
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        """One ``SOURCE: text`` line per problem, then notes; an ``ok`` line if clean."""
        out = [f"{self.source}: {p}" for p in self.problems]
        out += [f"{self.source}: note: {n}" for n in self.notes]
        if self.ok:
            out.append(
                f"{self.source}: ok ({self.kind}, {self.url_count} entries, "
                f"{self.uncompressed_bytes} bytes uncompressed)"
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


def decompress(data: bytes, limit: int = MAX_BYTES) -> tuple[bytes, int]:
    """``data`` un-gzipped if it starts with the gzip magic: (at most ``limit + 1`` bytes,
    the full uncompressed size). Raises ``zlib.error`` on a corrupt stream."""
    if not is_gzip(data):
        return data[: limit + 1], len(data)
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    kept = inflater.decompress(data, limit + 1)
    total = len(kept)
    tail = inflater.unconsumed_tail
    while tail:
        chunk = inflater.decompress(tail, 1 << 20)
        total += len(chunk)
        tail = inflater.unconsumed_tail
    total += len(inflater.flush())
    if not inflater.eof:
        raise zlib.error("truncated gzip stream")
    return kept, total


def _origin(url: str) -> str:
    return "/".join(url.split("/", 3)[:3])


def _directory(url: str) -> str:
    return url[: url.rfind("/") + 1]


def _check_urls(
    report: FileReport, root: etree._Element, file_url: str | None, is_index: bool
) -> None:
    invalid, host, where = _Rule(report), _Rule(report), _Rule(report)
    expected_origin: str | None = None
    allowed = None
    if file_url is not None:
        allowed = _origin(file_url) + "/" if is_index else _directory(file_url)
    tags = {_LOC} if is_index else {_LOC, _XHTML_LINK}
    for element in root.iter(*tags):
        parent = element.getparent()
        if element.tag == _LOC and (parent is None or parent.tag not in (_URL, _SITEMAP)):
            continue
        text = element.get("href") if element.tag == _XHTML_LINK else element.text
        # xsd:anyURI collapses whitespace: a pretty-printed <loc> is valid
        raw = (text or "").strip(_XML_SPACE)
        what = "href" if element.tag == _XHTML_LINK else "loc"
        line = element.sourceline
        try:
            url = normalize_url(raw)
        except SitemapError as err:
            invalid.add(f"line {line}: {what} {show_value(raw)}: {err.rule}")
            continue
        if _SPACE.search(raw):
            invalid.add(
                f"line {line}: {what} {show_value(raw)}: whitespace inside a URL must be "
                f"percent-encoded (RFC 3986): write {show_value(url)}"
            )
        origin = _origin(url)
        if expected_origin is None:
            expected_origin = origin
        elif origin != expected_origin and not is_index:
            host.add(
                f"line {line}: {what} {raw} is on {origin}, but the file's first URL is on "
                f"{expected_origin} (single-host rule)"
            )
        if allowed is not None and not url.startswith(allowed):
            rule = "same site" if is_index else "location rule"
            where.add(f"line {line}: {what} {raw} is not under {allowed} ({rule})")
    invalid.finish("URL")
    host.finish("single-host")
    where.finish("location")


def _check_lastmods(report: FileReport, root: etree._Element) -> None:
    rule = _Rule(report)
    for element in root.iter(_LASTMOD):
        try:
            # xsd:date and xsd:dateTime collapse whitespace around the value
            normalize_lastmod((element.text or "").strip(_XML_SPACE))
        except SitemapError as err:
            rule.add(f"line {element.sourceline}: lastmod {element.text!r}: {err.rule}")
    rule.finish("lastmod")


def _check_extensions(report: FileReport, root: etree._Element) -> None:
    """Rules of the video and news extensions an XSD 1.0 sequence does not express: a video
    needs ``content_loc`` or ``player_loc``; a file of News articles holds at most 1,000."""
    rule = _Rule(report)
    for video in root.iter(_VIDEO):
        if not any(child.tag in _VIDEO_LOCS for child in video):
            rule.add(f"line {video.sourceline}: a video needs content_loc or player_loc")
    news = sum(1 for _ in root.iter(_NEWS))
    if news > MAX_NEWS_URLS_PER_FILE:
        rule.add(
            f"{news} news:news elements is over Google's limit of {MAX_NEWS_URLS_PER_FILE} "
            "per News sitemap"
        )
    rule.finish("extension")


def _check_children(report: FileReport, root: etree._Element, directory: Path) -> None:
    rule = _Rule(report)
    for element in root.iter(_LOC):
        name = unquote(urlsplit((element.text or "").strip()).path.rsplit("/", 1)[-1])
        if not name or not (directory / name).is_file():
            rule.add(
                f"line {element.sourceline}: child sitemap {element.text} has no file "
                f"{name!r} in {directory}"
            )
    rule.finish("missing-child")


def validate_document(
    data: bytes,
    *,
    source: str,
    file_url: str | None = None,
    directory: Path | None = None,
) -> FileReport:
    """Validate one file's bytes (gzip or plain). ``file_url`` is where it is (or will be)
    published; ``directory`` is the local directory that must hold an index's children."""
    report = FileReport(source=source, gzipped=is_gzip(data))
    try:
        xml, size = decompress(data)
    except zlib.error as err:
        report.problems.append(f"not a readable gzip file: {err}")
        return report
    report.uncompressed_bytes = size
    if size > MAX_BYTES:
        report.problems.append(
            f"uncompressed size {size} bytes is over the limit of {MAX_BYTES} bytes"
        )
        return report
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    try:
        root = etree.fromstring(xml, parser)
    except etree.XMLSyntaxError as err:
        report.problems.append(f"not well-formed XML: {err}")
        return report
    if root.tag == _URLSET:
        report.kind, schema, child = "urlset", urlset_schema(), _URL
    elif root.tag == _INDEX:
        report.kind, schema, child = "sitemapindex", index_schema(), _SITEMAP
    else:
        report.problems.append(f"root element {root.tag} is neither urlset nor sitemapindex")
        return report
    report.url_count = sum(1 for _ in root.iterchildren(child))
    if not schema.validate(root):
        xsd = _Rule(report)
        for error in cast(Iterable[Any], schema.error_log):
            xsd.add(f"line {error.line}: {error.message} (XSD)")
        xsd.finish("XSD")
    if report.url_count > MAX_URLS:
        report.problems.append(f"{report.url_count} entries is over the limit of {MAX_URLS}")
    is_index = report.kind == "sitemapindex"
    _check_urls(report, root, file_url, is_index)
    _check_lastmods(report, root)
    if not is_index:
        _check_extensions(report, root)
    if file_url is None:
        report.notes.append("location rule skipped: the file's URL is unknown (use --base-url)")
    if is_index and directory is not None:
        _check_children(report, root, directory)
    return report


def _file_url(path: Path, base_url: str | None) -> str | None:
    if base_url is None:
        return None
    return (base_url if base_url.endswith("/") else base_url + "/") + path.name


def _is_sitemap_file(path: Path) -> bool:
    return path.is_file() and path.name.endswith((".xml", ".xml.gz"))


def validate_path(path: Path, *, base_url: str | None = None) -> list[FileReport]:
    """Validate a local file, or every ``*.xml``/``*.xml.gz`` file of a directory."""
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if _is_sitemap_file(p))
        if not files:
            return [FileReport(source=str(path), problems=["no .xml or .xml.gz files"])]
    elif path.is_file():
        files = [path]
    else:
        return [FileReport(source=str(path), problems=["no such file or directory"])]
    reports = []
    for file in files:
        try:
            data = file.read_bytes()
        except OSError as err:
            reports.append(FileReport(source=str(file), problems=[f"cannot read: {err}"]))
            continue
        reports.append(
            validate_document(
                data,
                source=str(file),
                file_url=_file_url(file, base_url),
                directory=file.parent,
            )
        )
    return reports


def fetch(url: str, *, timeout: float = 30.0) -> bytes:
    """The body at ``url`` (at most one byte over the size limit)."""
    if not url.lower().startswith(("http://", "https://")):
        raise ValueError(f"{url!r} is not an http(s) URL")
    with urllib.request.urlopen(url, timeout=timeout) as response:
        body: bytes = response.read(MAX_BYTES + 1)
    return body


def validate_url(url: str) -> FileReport:
    try:
        data = fetch(url)
    except (OSError, ValueError) as err:
        return FileReport(source=url, problems=[f"cannot fetch: {err}"])
    return validate_document(data, source=url, file_url=url)


def validate_target(target: str, *, base_url: str | None = None) -> list[FileReport]:
    """A URL (http/https) is fetched; anything else is a local path."""
    if target.lower().startswith(("http://", "https://")):
        return [validate_url(target)]
    return validate_path(Path(target), base_url=base_url)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "targets", nargs="+", metavar="PATH_OR_URL", help="file, directory, or http(s) URL"
    )
    parser.add_argument(
        "--base-url",
        help="URL of the directory local files will be published in "
        "(enables the location rule for them), e.g. https://www.example.com/",
    )


def run(args: argparse.Namespace) -> int:
    failed = False
    for target in args.targets:
        for report in validate_target(target, base_url=args.base_url):
            for line in report.lines():
                print(line)
            failed = failed or not report.ok
    return 1 if failed else 0
