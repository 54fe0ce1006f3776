"""``sitemap-updater validate PATH_OR_URL...``: the checks of ``validation`` on each file, one
``SOURCE: problem`` line per problem (see ``validation`` for the checks); a directory's host
folders and a URL's children on its origin are checked too. Exits 1 if any file fails, 3 if no
file was read (only empty files, or directories without sitemap files)."""

from __future__ import annotations

import argparse

from sitemap_updater_local.errors import EXIT_SKIPPED, NothingKept
from sitemap_updater_local.validation.document import validate_target


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "targets", nargs="+", metavar="PATH_OR_URL", help="file, directory, or http(s) URL"
    )
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="URL of the directory local files will be published in "
        "(enables the location rule for them), e.g. https://www.example.com/",
    )


def run(args: argparse.Namespace) -> int:
    failed = read = False
    for target in args.targets:
        for report in validate_target(target, base_url=args.base_url):
            for line in report.lines():
                print(line)
            failed = failed or not report.ok
            read = read or not report.nothing_read
    if not read:
        raise NothingKept("nothing read: no sitemap file, or only empty ones")
    return EXIT_SKIPPED if failed else 0
