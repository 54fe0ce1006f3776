"""One file read as a stream and validated in batches: each ``<url>`` judged by the one judge
(``pages``), the file's own rules applied (``rules``), then the entries checked against the XSDs
(``schemas``); a file, a directory of them, or a URL."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, cast
from urllib.parse import urlsplit

from lxml import etree

from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.protocol.limits import MAX_URLS, SITEMAP_NS
from sitemap_updater.protocol.urls import normalize_url
from sitemap_updater_local.inputs.opening import (
    SourcePolicy,
    SourceStream,
    is_url,
    open_source,
    origin_of,
)
from sitemap_updater_local.inputs.sitemaps.url_elements import element_text
from sitemap_updater_local.inputs.sitemaps.xml_guard import (
    XML_OPTIONS,
    RootProbe,
    TooLargeError,
    local_name,
)
from sitemap_updater_local.inputs.source_records import EmptySource, SourceError
from sitemap_updater_local.validation.deprecated import Deprecated
from sitemap_updater_local.validation.pages import judge_entry
from sitemap_updater_local.validation.report import FileReport, line_of
from sitemap_updater_local.validation.rules import (
    HostRule,
    IndexEntries,
    LocationRule,
    NewsCount,
    video_tags_once,
)
from sitemap_updater_local.validation.schemas import (
    index_schema,
    schema_message,
    urlset_schema,
)
from sitemap_updater_local.validation.text import HEAD_BYTES, text_refusal, validate_text

_URL: Final = f"{{{SITEMAP_NS}}}url"
_SITEMAP: Final = f"{{{SITEMAP_NS}}}sitemap"
_LOC: Final = f"{{{SITEMAP_NS}}}loc"


class _StreamedDocument:
    """One document read as a stream: its entries are validated in batches of
    :data:`BATCH_ENTRIES`, each moved under a copy of the root, and then freed."""

    def __init__(
        self,
        report: FileReport,
        file_url: str | None,
        directory: Path | None,
        on_child: Callable[[str], None] | None = None,
    ):
        self.report = report
        self.on_child = on_child
        self.file_url = file_url
        self.directory = directory
        self.root: etree._Element | None = None
        self.schema: etree.XMLSchema | None = None
        self.pending = 0
        self.now = datetime.now(UTC)
        #: deprecated tags and attributes taken out of the entries
        self.deprecated = Deprecated()
        self.hosts = HostRule(file_url)
        self.location = None if file_url is None else LocationRule(file_url)
        self.news = NewsCount()
        self.index: IndexEntries | None = None

    def open(self, root: etree._Element, probe: RootProbe) -> bool:
        """Take the root; ``False`` when the document is refused."""
        refusal = probe.refusal(_ROOTS)
        if refusal is not None:
            self.report.problem(refusal[0], refusal[1], "file")
            return False
        note = probe.namespace_note()
        if note is not None:
            self.report.problem(line_of(root), note, "file")
            return False
        self.root = root
        self.report.kind = local_name(root.tag)[1]
        self.schema = _ROOTS[self.report.kind]()
        if self.report.kind == "sitemapindex":
            self.index = IndexEntries(self.file_url, self.directory, self.now)
        return True

    def entry(self, element: etree._Element, probe: RootProbe) -> None:
        self.report.url_count += element.tag in (_URL, _SITEMAP)
        entity = probe.entity_in(element)
        if entity is not None and self.root is not None:
            self.report.problem(line_of(element), entity, "entity")
            self.root.remove(element)  # the XSD would only repeat it
            return
        if self.report.url_count > MAX_URLS and self.root is not None:
            # the file is over the limit already: the rest is counted, not checked
            self.flush(upto=element)
            while element.getprevious() is not None:
                del self.root[0]
            self.root.remove(element)
            return
        if self.on_child is not None and element.tag == _SITEMAP:
            locs = element.findall(_LOC)
            self.on_child((element_text(locs[0]) or "") if locs else "")
        self.pending += 1
        if self.pending >= BATCH_ENTRIES:
            self.flush(upto=element)

    def flush(self, *, upto: etree._Element | None = None, last: bool = False) -> None:
        """Validate the finished entries, up to ``upto`` (the parser may have started the
        elements after it already), or all of them at the end of the document."""
        root, schema = self.root, self.schema
        if root is None or schema is None:
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
        self.deprecated.take_out(batch)
        if self.index is not None:
            self.index.check(batch, self.report)
        else:
            self.judge(batch)
        if not schema.validate(batch):
            for error in cast(Iterable[Any], schema.error_log):
                line = error.line or None
                if line is None:  # the batch's root, made here: the document's own root
                    if self.report.url_count and "Missing child element" in error.message:
                        continue  # the document has entries; this batch's were taken out
                    line = line_of(root)
                text = f"{schema_message(error.message)} (XSD)"
                self.report.problem(line, text, "XSD")

    def judge(self, batch: etree._Element) -> None:
        """Each ``<url>`` of a urlset's batch judged, and the file's rules applied to it."""
        self.news.add(batch)
        video_tags_once(batch, self.report)
        for url in list(batch.iterchildren(_URL)):
            normalized = judge_entry(url, self.now, self.report)
            if normalized is None:
                batch.remove(url)  # refused whole: the XSD would only repeat it
                continue
            line = line_of(url)
            written = element_text(url.find(_LOC)) or ""  # type: ignore[arg-type]  # it has one
            self.hosts.add(normalized, line, written)
            if self.location is not None:
                self.location.check(normalized, line, written, self.report)

    def close(self) -> None:
        self.flush(last=True)
        self.report.warnings += self.deprecated.warnings()
        if self.report.kind == "urlset":
            self.hosts.finish(self.report)
            self.news.finish(self.report)
        if self.report.url_count > MAX_URLS:
            self.report.problem(
                None, f"{self.report.url_count:,} entries is over the limit of {MAX_URLS:,}", "file"
            )


_ROOTS: Final = {"urlset": urlset_schema, "sitemapindex": index_schema}
#: A host name as a folder of an output of several hosts is named (``www.example.de``).
_HOST_NAME: Final = re.compile(r"(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9-]+", re.IGNORECASE)
#: Entries validated at a time (memory holds one batch, not the document).
BATCH_ENTRIES: Final = 1000


def validate_stream(
    stream: SourceStream,
    *,
    source: str,
    file_url: str | None = None,
    directory: Path | None = None,
    on_child: Callable[[str], None] | None = None,
) -> FileReport:
    """Validate one file read as a stream (already inflated by ``open_source``), in bounded
    memory: the bytes are capped at the protocol's limit, the entries checked in batches.
    ``on_child`` is given the ``loc`` of each child an index lists."""
    report = FileReport(source=source, gzipped=stream.gzipped)
    file_url = _normalized(file_url)
    head = stream.peek(HEAD_BYTES)
    if not head.removeprefix(b"\xef\xbb\xbf").lstrip().startswith(b"<"):
        not_text = text_refusal(head)
        if not_text is not None:
            report.problem(None, not_text, "file")
            return _finished(report, file_url)
        try:
            validate_text(stream, report, file_url, datetime.now(UTC))
        except SourceError as err:  # a gzip that breaks off
            report.problem(None, str(err).removeprefix(f"{source}: "), "file")
        return _finished(report, file_url)
    probe = RootProbe(stream)
    document = _StreamedDocument(report, file_url, directory, on_child)
    try:
        for event, element in etree.iterparse(probe, events=("start", "end"), **XML_OPTIONS):
            if document.root is None:
                if not document.open(element, probe):
                    break
            elif event == "end" and element.getparent() is document.root:
                document.entry(element, probe)
        else:
            document.close()
    except etree.XMLSyntaxError as err:
        refusal = probe.refusal(_ROOTS)
        if refusal is not None and document.root is None:
            report.problem(refusal[0], refusal[1], "file")
        else:
            report.problem(err.lineno or None, f"not well-formed XML: {err.msg}", "file")
    except TooLargeError as err:
        report.problem(None, str(err), "file")
    except SourceError as err:
        report.problem(None, str(err).removeprefix(f"{source}: "), "file")
    report.uncompressed_bytes = probe.size
    return _finished(report, file_url)


def _finished(report: FileReport, file_url: str | None) -> FileReport:
    report.finish()
    if file_url is None and report.ok:
        report.notes.append("location rule skipped: the file's URL is unknown (use --base-url)")
    return report


def _normalized(file_url: str | None) -> str | None:
    """A file's URL in normalized form, as the URLs it lists are compared in."""
    if file_url is None:
        return None
    try:
        return normalize_url(file_url, field="file URL")
    except SitemapError:
        return file_url


def validate_location(
    location: str,
    *,
    file_url: str | None = None,
    directory: Path | None = None,
    policy: SourcePolicy | None = None,
    on_child: Callable[[str], None] | None = None,
) -> FileReport:
    """Open a file or URL (``open_source``: gzip by its magic bytes, http(s) only, redirects
    on the URL's own origin, within ``policy``'s caps) and validate it as a stream."""
    try:
        with open_source(location, policy, refuse_empty=True) as stream:
            return validate_stream(
                stream, source=location, file_url=file_url, directory=directory, on_child=on_child
            )
    except SourceError as err:
        return _unread(
            location, str(err).removeprefix(f"{location}: "), isinstance(err, EmptySource)
        )


def _unread(source: str, problem: str, nothing_read: bool = False) -> FileReport:
    """The report of a source that could not be read: its one problem."""
    report = FileReport(source=source, nothing_read=nothing_read)
    report.problem(None, problem, "file")
    return report


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


def _sitemap_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if _is_sitemap_file(p))


def _host_folders(directory: Path) -> list[Path]:
    """The subdirectories of an output of several hosts: each named after its host (a dot in
    its name, as every host name of a site has), holding sitemap files."""
    return sorted(
        p
        for p in directory.iterdir()
        if p.is_dir() and not p.is_symlink() and _HOST_NAME.fullmatch(p.name) and _sitemap_files(p)
    )


def _host_base(base_url: str | None, host: str) -> str | None:
    """Where a host folder's files are published: the root of its host, in ``base_url``'s
    scheme (the deployed system's layout when the sitemaps are on the site's hosts)."""
    if base_url is None:
        return None
    return f"{urlsplit(base_url).scheme}://{host}/"


def validate_path(path: Path, *, base_url: str | None = None) -> list[FileReport]:
    """Validate a local file, or every ``*.xml``/``*.xml.gz`` file of a directory and of each of
    its host folders (``DIR/<host>/``, the other hosts of an output of several)."""
    if path.is_dir():
        folders = [(path, base_url)]
        folders += [(sub, _host_base(base_url, sub.name)) for sub in _host_folders(path)]
        if not _sitemap_files(path) and len(folders) == 1:
            return [_unread(str(path), "no .xml or .xml.gz files", nothing_read=True)]
        files = [(file, base) for folder, base in folders for file in _sitemap_files(folder)]
    elif path.is_file():
        files = [(path, base_url)]
    else:
        return [_unread(str(path), "no such file or directory")]
    return [
        validate_location(str(file), file_url=_file_url(file, base), directory=file.parent)
        for file, base in files
    ]


def validate_url(url: str, policy: SourcePolicy | None = None) -> list[FileReport]:
    """Validate the file at ``url`` and, for an index, each child it lists on the same origin
    (scheme, host and port), once each, one level deep (sitemaps.org allows no more), within
    one source's caps (``SourcePolicy``: the bytes of the index and its children in total).
    A child on another origin is not fetched: a note counts them."""
    policy = policy or SourcePolicy()
    children: list[str] = []
    index = validate_location(url, file_url=url, policy=policy, on_child=children.append)
    reports = [index]
    seen = {url}
    elsewhere = 0
    for child in children:
        if child in seen:
            continue
        seen.add(child)
        if not is_url(child) or origin_of(child) != origin_of(url):
            elsewhere += 1
            continue
        if policy.bytes_read >= policy.max_bytes:
            index.problem(
                None, f"the children after {policy.max_bytes:,} bytes read are not checked", "file"
            )
            break
        reports.append(validate_location(child, file_url=child, policy=policy))
    if elsewhere:
        index.notes.append(
            f"{elsewhere} child sitemap(s) not on {origin_of(url)} not fetched or checked"
        )
    return reports


def validate_target(target: str, *, base_url: str | None = None) -> list[FileReport]:
    """A URL (http/https) is fetched, an index's children with it; anything else is a local
    path."""
    if target.lower().startswith(("http://", "https://")):
        return validate_url(target)
    return validate_path(Path(target), base_url=base_url)
