"""Reader of a text sitemap (sitemaps.org: one absolute URL per line, UTF-8), and the test
that tells one, or a file of plain text that is no source at all, from a CSV file.

A line is read up to :data:`MAX_LINE_BYTES`; a longer one is one problem, and the reader goes
on after its line break, so memory stays flat whatever the file holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO

from sitemap_updater_local.inputs.csv_columns import DELIMITERS, URL_NAMES
from sitemap_updater_local.inputs.line_blocks import MAX_LINE_BYTES
from sitemap_updater_local.inputs.source_records import (
    Listing,
    Problem,
    SourceError,
    listing,
    quote,
)


def first_line_kind(head: bytes) -> str:
    """``"text"``, ``"csv"`` or ``"plain"`` (neither) from the first bytes of a source that
    is not XML or JSON."""
    first = head.removeprefix(b"\xef\xbb\xbf").lstrip().split(b"\n", 1)[0]
    line = first.decode("utf-8", "replace").strip()
    if any(d in line for d in DELIMITERS):
        return "csv"
    if "://" in line:
        return "text"
    return "csv" if line.lower() in URL_NAMES else "plain"


def plain_text_error(location: str, head: bytes) -> SourceError:
    first = head.removeprefix(b"\xef\xbb\xbf").lstrip().split(b"\n", 1)[0][:80]
    return SourceError(
        f"{location}:1: not a sitemap (XML or text), CSV or JSONL file: the first line "
        f"{quote(first.decode('utf-8', 'replace'))} is not a URL, a CSV header or JSON"
    )


def iter_text_rows(stream: IO[bytes], location: str) -> Iterator[Listing | Problem]:
    """A row per URL line; blank lines are skipped, any other line is a problem."""
    number = 0
    while True:
        raw = stream.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):
                raw = stream.readline(MAX_LINE_BYTES)
            yield Problem(f"{location}:{number}", f"line longer than {MAX_LINE_BYTES:,} bytes")
            continue
        try:
            text = raw.decode("utf-8").strip()
        except UnicodeDecodeError as exc:
            yield Problem(f"{location}:{number}", f"line is not UTF-8 ({exc.reason})")
            continue
        if number == 1:
            text = text.removeprefix("\ufeff").strip()
        if not text:
            continue
        if "://" not in text:
            yield Problem(
                f"{location}:{number}",
                f"{quote(text)} is not a URL: a text sitemap lists one absolute URL per line",
            )
            continue
        yield listing(location, number, text)
