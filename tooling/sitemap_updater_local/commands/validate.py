"""Validate sitemap (urlset) and sitemap index files, gzipped or plain, local or fetched.

Checks, each reported as one ``SOURCE: problem`` line:

* well-formed XML and validity against the official XSDs (with the image, xhtml, video and news
  extension schemas bundled in ``schemas/``), plus the extension rules an XSD does not say: a
  video has ``content_loc`` or ``player_loc``, an ``xhtml:link`` has ``hreflang`` or ``media``, a
  file holds at most 1,000 news articles, and a URL at most 1,000 images and 100 videos (the
  limits ``backfill`` applies, from ``protocol.limits``);
* the protocol limits: at most 50,000 URLs (or child sitemaps) and 52,428,800 uncompressed bytes;
* every ``loc`` and alternate ``href`` follows the URL rules the writers apply: an absolute
  http(s) URL of 12 to 2,048 characters once normalized and XML-escaped, without control
  characters, and with any whitespace inside it percent-encoded;
* single host: every ``loc`` of a urlset has the same scheme, host and port; an alternate ``href``
  may be on any host ("Alternate URLs don't need to be in the same domain":
  https://developers.google.com/search/docs/specialty/international/localized-versions);
* the location rule: a urlset at ``https://h/a/sitemap.xml`` lists only URLs (``loc``) under
  ``https://h/a/``, and an index lists only sitemaps on its own site. A local file's URL is
  known only with ``--base-url`` (the URL of the directory the file will be published in);
  without it the rule is skipped with a note;
* ``lastmod`` forms: a date, or a datetime with a time zone, not more than a day ahead;
* for a local index, that every child it lists exists in the index's directory (matched by the
  last path segment of the child's URL).

A file is read as a stream, never whole: a DOCTYPE refuses it unread, a root that is not a
sitemap (a feed, another namespace) is named in one line, the inflated bytes stop at the
protocol's limit, and the entries are checked against the XSDs and the rules above in batches of
:data:`BATCH_ENTRIES` (``inputs/xml_guard.py`` holds what ``backfill``'s reader shares).
"""

from __future__ import annotations

import argparse
import functools
import re
import tempfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, cast
from urllib.parse import unquote, urlsplit

from lxml import etree

from sitemap_updater.protocol.errors import SitemapError, show_value
from sitemap_updater.protocol.languages.tags import RULE, hreflang_rule, is_hreflang
from sitemap_updater.protocol.lastmod import normalize_lastmod
from sitemap_updater.protocol.limits import (
    IMAGE_NS,
    MAX_IMAGES_PER_URL,
    MAX_NEWS_URLS_PER_FILE,
    MAX_URLS,
    MAX_VIDEO_TAGS,
    MAX_VIDEOS_PER_URL,
    NEWS_NS,
    SITEMAP_NS,
    VIDEO_NS,
    XHTML_NS,
)
from sitemap_updater.protocol.urls import normalize_url
from sitemap_updater_local.inputs.opening import SourceStream, open_source
from sitemap_updater_local.inputs.records import SourceError
from sitemap_updater_local.inputs.xml_guard import (
    XML_OPTIONS,
    RootProbe,
    TooLargeError,
    local_name,
)

SCHEMA_DIR: Final = Path(__file__).resolve().parents[1] / "schemas"
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


def _origin(url: str) -> str:
    return "/".join(url.split("/", 3)[:3])


def _directory(url: str) -> str:
    return url[: url.rfind("/") + 1]


class _Checks:
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


#: The rules of :class:`_Checks`, each capped on its own.
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


class _Document:
    """One document read as a stream: its entries are validated in batches of
    :data:`BATCH_ENTRIES`, each moved under a copy of the root, and then freed."""

    def __init__(self, report: FileReport, file_url: str | None, directory: Path | None):
        self.report = report
        self.file_url = file_url
        self.directory = directory
        self.root: etree._Element | None = None
        self.schema: etree.XMLSchema | None = None
        self.checks: _Checks | None = None
        self.pending = 0

    def open(self, root: etree._Element, probe: RootProbe) -> bool:
        """Take the root; ``False`` when the document is refused."""
        refusal = probe.refusal(_ROOTS)
        if refusal is not None:
            self.report.problems.append(f"line {refusal[0]}: {refusal[1]}")
            return False
        note = probe.namespace_note()
        if note is not None:
            self.report.problems.append(f"line {root.sourceline}: {note}")
            return False
        self.root = root
        self.report.kind = local_name(root.tag)[1]
        self.schema = _ROOTS[self.report.kind]()
        self.checks = _Checks(self.report, self.file_url, self.report.kind == "sitemapindex")
        return True

    def entry(self, element: etree._Element) -> None:
        self.report.url_count += element.tag in (_URL, _SITEMAP)
        if self.report.url_count > MAX_URLS and self.root is not None:
            # the file is over the limit already: the rest is counted, not checked
            self.flush(upto=element)
            while element.getprevious() is not None:
                del self.root[0]
            self.root.remove(element)
            return
        self.pending += 1
        if self.pending >= BATCH_ENTRIES:
            self.flush(upto=element)

    def flush(self, *, upto: etree._Element | None = None, last: bool = False) -> None:
        """Validate the finished entries, up to ``upto`` (the parser may have started the
        elements after it already), or all of them at the end of the document."""
        root, schema, checks = self.root, self.schema, self.checks
        if root is None or schema is None or checks is None:
            return
        if not self.pending and not (last and self.report.url_count == 0):
            return
        nsmap = cast(Any, root.nsmap)  # a default namespace has the key None
        attrib: dict[str, str] = {str(k): str(v) for k, v in root.attrib.items()}
        batch = etree.Element(root.tag, attrib=attrib, nsmap=nsmap)
        for child in list(root):
            batch.append(child)
            if child is upto:
                break
        self.pending = 0
        if not schema.validate(batch):
            for error in cast(Iterable[Any], schema.error_log):
                checks.rules["XSD"].add(
                    f"line {error.line}: {' '.join(error.message.split())} (XSD)"
                )
        checks.batch(batch, self.directory)

    def close(self) -> None:
        self.flush(last=True)
        if self.checks is not None:
            self.checks.finish()
        if self.report.url_count > MAX_URLS:
            self.report.problems.append(
                f"{self.report.url_count} entries is over the limit of {MAX_URLS}"
            )


_ROOTS: Final = {"urlset": urlset_schema, "sitemapindex": index_schema}
#: Entries validated at a time (memory holds one batch, not the document).
BATCH_ENTRIES: Final = 1000


def validate_stream(
    stream: SourceStream,
    *,
    source: str,
    file_url: str | None = None,
    directory: Path | None = None,
) -> FileReport:
    """Validate one file read as a stream (already inflated by ``open_source``), in bounded
    memory: the bytes are capped at the protocol's limit, the entries checked in batches."""
    report = FileReport(source=source, gzipped=stream.gzipped)
    if not stream.peek(4096).removeprefix(b"\xef\xbb\xbf").lstrip().startswith(b"<"):
        report.problems.append(
            "not XML: plain text (validate checks XML sitemaps; backfill reads a text sitemap)"
        )
        return report
    probe = RootProbe(stream)
    document = _Document(report, file_url, directory)
    try:
        for event, element in etree.iterparse(probe, events=("start", "end"), **XML_OPTIONS):
            if document.root is None:
                if not document.open(element, probe):
                    break
            elif event == "end" and element.getparent() is document.root:
                document.entry(element)
        else:
            document.close()
    except etree.XMLSyntaxError as err:
        refusal = probe.refusal(_ROOTS)
        if refusal is not None and document.root is None:
            report.problems.append(f"line {refusal[0]}: {refusal[1]}")
        else:
            where = f"line {err.lineno}: " if err.lineno else ""
            report.problems.append(f"{where}not well-formed XML: {err.msg}")
    except TooLargeError as err:
        report.problems.append(str(err))
    except SourceError as err:
        report.problems.append(str(err).removeprefix(f"{source}: "))
    report.uncompressed_bytes = probe.size
    if file_url is None and report.ok:
        report.notes.append("location rule skipped: the file's URL is unknown (use --base-url)")
    return report


def validate_location(
    location: str, *, file_url: str | None = None, directory: Path | None = None
) -> FileReport:
    """Open a file or URL (``open_source``: gzip by its magic bytes, http(s) only, redirects
    on the URL's own origin) and validate it as a stream."""
    try:
        with open_source(location, refuse_empty=True) as stream:
            return validate_stream(stream, source=location, file_url=file_url, directory=directory)
    except SourceError as err:
        return FileReport(source=location, problems=[str(err).removeprefix(f"{location}: ")])


def validate_document(
    data: bytes,
    *,
    source: str,
    file_url: str | None = None,
    directory: Path | None = None,
) -> FileReport:
    """Validate one file's bytes (gzip or plain). ``file_url`` is where it is (or will be)
    published; ``directory`` is the local directory that must hold an index's children."""
    with tempfile.NamedTemporaryFile(suffix=".xml") as held:
        held.write(data)
        held.flush()
        report = validate_location(held.name, file_url=file_url, directory=directory)
    report.source = source
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
    return [
        validate_location(str(file), file_url=_file_url(file, base_url), directory=file.parent)
        for file in files
    ]


def validate_url(url: str) -> FileReport:
    return validate_location(url, file_url=url)


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
