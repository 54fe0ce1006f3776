"""``sitemap-updater validate PATH_OR_URL...``: the checks of ``validation`` on each file, one
``SOURCE: problem`` line per problem (see ``validation`` for the checks); exits 1 if any file
fails."""

from __future__ import annotations

import argparse

from sitemap_updater_local.validation.document import validate_target


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
