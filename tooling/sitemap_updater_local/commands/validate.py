"""``sitemap-updater validate PATH_OR_URL... [--base-url URL] [--json]``: the checks of
``validation`` on each file (a directory's host folders and a URL's children on its origin
too), one ``FILE:LINE: problem`` line per problem, and a closing summary line; ``--json`` prints
the same as one JSON object. Exits 0 when every file passes, 1 if any has a problem, 3 if no
file was read (only empty files, or directories without sitemap files)."""

from __future__ import annotations

import argparse
import json

from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.protocol.urls import normalize_url
from sitemap_updater_local.console import command_line
from sitemap_updater_local.errors import (
    EXIT_EMPTY,
    EXIT_OK,
    EXIT_SKIPPED,
    CommandError,
    NothingKept,
)
from sitemap_updater_local.validation.document import validate_target
from sitemap_updater_local.validation.report import FileReport, Summary

#: The line a run that read nothing ends with.
NOTHING_READ = "nothing read: no sitemap file, or only empty ones"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "targets", nargs="+", metavar="PATH_OR_URL", help="file, directory, or http(s) URL"
    )
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="URL of the directory local files will be published in (the single-host rule "
        "and the location rule are judged against it), e.g. https://www.example.com/",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object (every file's problems, warnings and notes, and the totals)",
    )


def _base_url(raw: str | None) -> str | None:
    if raw is None:
        return None
    try:
        return normalize_url(raw if raw.endswith("/") else raw + "/", field="--base-url")
    except SitemapError as error:
        raise CommandError(str(error)) from None


def exit_status(reports: list[FileReport]) -> int:
    """0 when every file passed, 1 when one has a problem, 3 when none was read."""
    if all(report.nothing_read for report in reports):
        return EXIT_EMPTY
    return EXIT_OK if all(report.ok for report in reports) else EXIT_SKIPPED


def run(args: argparse.Namespace) -> int:
    base_url = _base_url(args.base_url)
    reports: list[FileReport] = []
    for target in args.targets:
        for report in validate_target(target, base_url=base_url):
            reports.append(report)
            if not args.json:
                for line in report.lines():
                    print(line, flush=True)
    status = exit_status(reports)
    summary = Summary.of(reports)
    if args.json:
        shown = {
            "files": [report.as_json() for report in reports],
            "summary": summary.as_json(),
            "exit_status": status,
        }
        print(json.dumps(shown))
    elif status != EXIT_EMPTY:
        print(command_line("validate", summary.line()))
    if status == EXIT_EMPTY:
        raise NothingKept(NOTHING_READ)
    return status
