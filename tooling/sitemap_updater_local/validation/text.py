"""A text sitemap (sitemaps.org: one absolute URL per line, UTF-8, at most 50,000 URLs and
52,428,800 bytes), validated as a urlset is: each line read by ``backfill``'s reader
(``text_sitemap.iter_text_rows``), its URL judged by the one judge (``pages``), and every URL on
one host, under the file's directory when its URL is known (``rules``).
"""

from __future__ import annotations

from datetime import datetime
from typing import IO, Final

from sitemap_updater.protocol.limits import MAX_BYTES, MAX_URLS
from sitemap_updater_local.inputs.sitemaps.text_sitemap import iter_text_rows
from sitemap_updater_local.inputs.sitemaps.xml_guard import TooLargeError
from sitemap_updater_local.inputs.source_records import Problem, quote
from sitemap_updater_local.validation.pages import PAGE, judge_text_url
from sitemap_updater_local.validation.report import FileReport
from sitemap_updater_local.validation.rules import HostRule, LocationRule

#: Bytes of a file looked at to tell a text sitemap from other text.
HEAD_BYTES: Final = 4096


def text_refusal(head: bytes) -> str | None:
    """Why a file that is not XML is no text sitemap either (``None``: it is one): its first
    line is not a URL."""
    first = head.removeprefix(b"\xef\xbb\xbf").lstrip().split(b"\n", 1)[0].strip()
    text = first.decode("utf-8", "replace")
    if "://" in text:
        return None
    return (
        f"not a sitemap: the first line {quote(text[:80])} is neither XML nor a URL (a text "
        "sitemap lists one absolute URL per line)"
    )


class _Capped:
    """Lines of a stream, its bytes counted against the protocol's limit."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self.size = 0

    def readline(self, size: int = -1) -> bytes:
        data = self._stream.readline(size)
        self.size += len(data)
        if self.size > MAX_BYTES:
            raise TooLargeError(MAX_BYTES)
        return data


def validate_text(
    stream: IO[bytes], report: FileReport, file_url: str | None, now: datetime
) -> None:
    """Validate a text sitemap into ``report``."""
    report.kind = "text"
    capped = _Capped(stream)
    hosts = HostRule(file_url)
    location = None if file_url is None else LocationRule(file_url)
    try:
        for row in iter_text_rows(capped, ""):  # type: ignore[arg-type]  # lines alone are read
            line = int(row.where.rsplit(":", 1)[1])
            if isinstance(row, Problem):
                report.problem(line, row.reason, PAGE, row.reason.split(": ")[-1])
                continue
            report.url_count += 1
            if report.url_count > MAX_URLS:
                continue  # counted, not checked
            written = str(row.url)
            url = judge_text_url(written, line, now, report)
            if url is not None:
                hosts.add(url, line, written)
                if location is not None:
                    location.check(url, line, written, report)
    except TooLargeError as error:
        report.problem(None, str(error), "file")
    finally:
        report.uncompressed_bytes = capped.size
    hosts.finish(report)
    if report.url_count > MAX_URLS:
        text = f"{report.url_count:,} entries is over the limit of {MAX_URLS:,}"
        report.problem(None, text, "file")
