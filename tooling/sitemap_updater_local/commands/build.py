"""``sitemap-updater build``: the sitemap files of data exports, without AWS.

Reads JSONL files of changes (the ingest contract), CSV files of ``url,lastmod`` or
sitemaps, every ``--from`` in the order given, keeps the newest change of each page by the rule
ingest applies, and writes into DIR what a rebuild from an empty table would publish for that
final state: the same layout (each URL in the space of its host and section,
``store.spaces.Layout``), the same shard tree in each space, the same item order (by hash) and the
same renderer, so the shard files are byte for byte the deployed system's, under the same names
(``sitemap-<section>-r<bits>.xml.gz``). ``--site`` may be given more than once: the first is
the primary host, whose files and index are at the top of DIR; every other host's are in the
subdirectory ``DIR/<host>/``, as in the bucket. Each host has its own index, which lists only its
files. A record whose URL is on none of the sites is rejected.

Memory stays bounded: changes are spooled to temporary files by hash prefix and each shard is
rendered on its own (see ``pipeline.static_build``). Invalid records are skipped and reported on
stderr: the first 20 one line each with file and line number, then a count per broken rule; the
command then exits 1.

A build is all or nothing (``outputs.staged_directory``): the files are written into a staging
directory inside DIR and moved in only once all of them are there, the index last; a failure or
Ctrl-C before that leaves DIR as it was. Only files that the previous build listed in its
manifest are removed. Input that leaves no live URL (an empty export, every record rejected,
every URL deleted) changes nothing and exits 3, unless ``--allow-empty`` asks for the empty
site, which is published as the deployed system publishes it (``sitemap-home.xml.gz``, holding
the site's root URL). As in the deployed system, a host without a live URL while another host
has some gets its own ``sitemap-home.xml.gz``, so that no index is ever empty.

With the stylesheet (the default; ``--no-stylesheet`` turns it off, as ``STYLESHEET=false``
does for the deployed system) every file names ``sitemap.xsl``, which the build writes beside
each host's index, so that a browser shows the files as tables.

Differences from the deployed index: a file whose entries have no ``lastmod`` is listed
without one (a static build has no history of when the file's bytes changed).
"""

from __future__ import annotations

import argparse
import sys
import time

from sitemap_updater.config import DEFAULT_MAX_BYTES_PER_SITEMAP, DEFAULT_MAX_URLS_PER_SITEMAP
from sitemap_updater.printable import printable
from sitemap_updater.protocol.errors import SitemapError
from sitemap_updater.protocol.limits import MAX_BYTES, MAX_NEWS_WINDOW_HOURS, MAX_URLS
from sitemap_updater.protocol.stylesheet import STYLESHEET_NAME
from sitemap_updater.sections import SectionRules
from sitemap_updater.store.keys import INDEX_KEY
from sitemap_updater_local.console import ProblemReport
from sitemap_updater_local.errors import EXIT_SKIPPED, CommandError
from sitemap_updater_local.options import (
    add_csv_arguments,
    add_media_hosts_argument,
    add_sites_arguments,
    csv_format_of,
    sites_of,
)
from sitemap_updater_local.pipeline.ordered_pool import default_jobs
from sitemap_updater_local.pipeline.static_build import (
    BuildResult,
    NothingToPublish,
    build_static,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--from",
        dest="sources",
        action="append",
        required=True,
        metavar="SOURCE",
        help="JSONL file of changes, CSV with a header naming url and lastmod columns, "
        "or a sitemap or sitemap index (a file or http(s) URL, plain or .gz); repeatable, "
        "read in the order given",
    )
    add_sites_arguments(
        parser,
        required=True,
        help="site origin, e.g. https://www.example.com; the primary's files are at the top of "
        "DIR, every other host's in DIR/<host>/",
    )
    parser.add_argument(
        "--section-rules",
        default="",
        metavar="RULES",
        help="ordered path-prefix rules placing a URL whose change names no section, e.g. "
        "/p/=products,/blog/=articles (first match wins; default section: pages)",
    )
    parser.add_argument(
        "--out", required=True, metavar="DIR", help="directory to write the files into"
    )
    parser.add_argument(
        "--max-urls-per-sitemap",
        type=int,
        default=DEFAULT_MAX_URLS_PER_SITEMAP,
        metavar="N",
        help=f"shard cap: a shard above it is split (default {DEFAULT_MAX_URLS_PER_SITEMAP}, "
        f"at most {MAX_URLS})",
    )
    parser.add_argument(
        "--max-bytes-per-sitemap",
        type=int,
        default=DEFAULT_MAX_BYTES_PER_SITEMAP,
        metavar="N",
        help=(
            f"uncompressed bytes per file (default {DEFAULT_MAX_BYTES_PER_SITEMAP}, "
            f"at most {MAX_BYTES})"
        ),
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=default_jobs(),
        metavar="N",
        help=f"processes that check the records; the output does not depend on it "
        f"(default: every available core, {default_jobs()} here)",
    )
    parser.add_argument(
        "--public-base-url",
        metavar="URL",
        help="base URL the files are served from, for the index (default: the site)",
    )
    parser.add_argument(
        "--news-window-hours",
        type=int,
        default=MAX_NEWS_WINDOW_HOURS,
        metavar="N",
        help="News files list the articles published in the last N hours, as the stack's "
        f"NewsWindowHours (default {MAX_NEWS_WINDOW_HOURS}, at most {MAX_NEWS_WINDOW_HOURS})",
    )
    parser.add_argument(
        "--allow-empty",
        action="store_true",
        help="publish an empty site (sitemap-home.xml.gz) when no live URL is left, instead "
        "of leaving DIR unchanged and exiting 3",
    )
    parser.add_argument(
        "--no-stylesheet",
        dest="stylesheet",
        action="store_false",
        help=f"write the files without naming {STYLESHEET_NAME}, and without it (by default "
        "they name it and it is written beside each index, so a browser shows them as tables)",
    )
    add_csv_arguments(parser)
    add_media_hosts_argument(parser)


def _check_numbers(args: argparse.Namespace) -> None:
    if not 1 <= args.max_urls_per_sitemap <= MAX_URLS:
        raise CommandError(
            f"--max-urls-per-sitemap: {args.max_urls_per_sitemap} must be 1..{MAX_URLS}"
        )
    if not 1024 <= args.max_bytes_per_sitemap <= MAX_BYTES:
        raise CommandError(
            f"--max-bytes-per-sitemap: {args.max_bytes_per_sitemap} must be 1024..{MAX_BYTES}"
        )
    if not 1 <= args.news_window_hours <= MAX_NEWS_WINDOW_HOURS:
        raise CommandError(
            f"--news-window-hours: {args.news_window_hours} must be 1..{MAX_NEWS_WINDOW_HOURS}"
        )
    if args.jobs < 1:
        raise CommandError(f"--jobs: {args.jobs} must be 1 or more")


class _Progress:
    """Records read and files written, on stderr about once a second, only on a terminal."""

    def __init__(self) -> None:
        self._files = -1
        self._bar = None
        if not sys.stderr.isatty():
            return  # no progress line, and no progress bar module to import (about 30 ms)
        from tqdm import tqdm

        # no monitor thread: the workers are forked from a process that runs no other thread
        tqdm.monitor_interval = 0
        self._bar = tqdm(desc="build", unit=" records", file=sys.stderr, mininterval=1.0)

    def __call__(self, records: int, files: int) -> None:
        if self._bar is None:
            return
        if files != self._files:
            self._files = files
            self._bar.set_postfix_str(f"{files} file(s) written", refresh=False)
        self._bar.update(records - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


def _news_line(result: BuildResult, window_hours: int) -> str:
    """What the build made of the pages' News articles (a build without any says nothing)."""
    line = (
        f"News: {result.news_articles} article(s) of the last {window_hours} hours in "
        f"{len(result.news_files)} file(s)"
    )
    if result.news_files:
        line += f" ({', '.join(result.news_files)})"
    if result.articles_before_window:
        line += (
            f"; {result.articles_before_window} article(s) published before that are in the "
            "regular files only"
        )
    return line


def run(args: argparse.Namespace) -> int:
    _check_numbers(args)
    sites = sites_of(args, args.media_hosts)
    assert sites is not None  # --site is required
    try:
        rules = SectionRules.parse(args.section_rules, field="--section-rules")
    except SitemapError as exc:
        raise CommandError(str(exc)) from exc

    started = time.perf_counter()
    report = ProblemReport()
    progress = _Progress()
    try:
        result = build_static(
            args.sources,
            sites,
            args.out,
            section_rules=rules,
            max_urls=args.max_urls_per_sitemap,
            max_bytes=args.max_bytes_per_sitemap,
            public_base_url=args.public_base_url,
            on_problem=report,
            on_progress=progress,
            jobs=args.jobs,
            csv_format=csv_format_of(args),
            allow_empty=args.allow_empty,
            stylesheet=args.stylesheet,
            keep_page=not args.strict_fields,
            news_window_hours=args.news_window_hours,
        )
    except NothingToPublish:
        progress.close()
        for line in report.summary():
            print(line, file=sys.stderr)
        raise
    finally:
        progress.close()
    seconds = time.perf_counter() - started
    shards = sum(name.endswith(".xml.gz") for name in result.files) - len(result.news_files)
    xsl = f"{STYLESHEET_NAME} + " if args.stylesheet else ""
    indexes = f"{xsl}{INDEX_KEY}"
    if len(sites) > 1:
        indexes = f"{len(sites)} indexes ({xsl}{INDEX_KEY} per host)"
    print(
        printable(
            f"{result.urls} URLs from {result.changes} changes in {shards} sitemap file(s) "
            f"+ {indexes} in {args.out} ({seconds:.2f} s)"
        )
    )
    if result.news_articles or result.articles_before_window:
        print(printable(_news_line(result, args.news_window_hours)))
    if result.removed:
        removed = ", ".join(result.removed)
        print(printable(f"removed {len(result.removed)} file(s) no longer listed: {removed}"))
    for line in report.summary():
        print(line, file=sys.stderr)
    return EXIT_SKIPPED if result.problems else 0
