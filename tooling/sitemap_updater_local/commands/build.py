"""``sitemap-updater build``: the sitemap files of a data export, without AWS.

Reads a JSONL file of change events (the ingest contract) or a CSV of ``url,lastmod`` (a
sitemap works too), applies last-writer-wins per URL as ingest does, and writes into DIR what
a rebuild from an empty table would publish for that final state: the same layout (each URL in
the space of its host and section, ``store.spaces.Layout``), the same shard tree in each space
(``split_counts`` from the space's root), the same item order (by hash) and the same renderer,
so the shard files are byte for byte the deployed system's, under the same names
(``sitemap-<section>-r<bits>.xml.gz``). ``--site`` may be given more than once: the first is
the primary host, whose files and index are at the top of DIR; every other host's are in the
subdirectory ``DIR/<host>/``, as in the bucket. Each host has its own index, which lists only its
files. A record whose URL is on none of the sites is rejected.

Memory stays bounded: changes are spooled to temporary files by hash prefix and each shard is
rendered on its own (see ``pipeline.final_state``). Invalid records are skipped and reported on
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
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial

from sitemap_updater.config import DEFAULT_MAX_BYTES_PER_SITEMAP, DEFAULT_MAX_URLS_PER_SITEMAP
from sitemap_updater.protocol import Site, SitemapError, render_index
from sitemap_updater.protocol.limits import MAX_BYTES, MAX_URLS
from sitemap_updater.protocol.stylesheet import STYLESHEET_NAME, stylesheet_body
from sitemap_updater.rebuild.render import render_fragments, render_home
from sitemap_updater.sections import SectionRules
from sitemap_updater.sites import Sites, sites_of
from sitemap_updater.store.keys import EMPTY_SITE_KEY, INDEX_KEY
from sitemap_updater.store.shards import space_of_shard
from sitemap_updater.store.spaces import Layout, key_prefix_of, shard_file_key
from sitemap_updater_local.console import ProblemReport
from sitemap_updater_local.errors import EXIT_EMPTY, EXIT_SKIPPED, CommandError
from sitemap_updater_local.inputs.csv_columns import CsvFormat
from sitemap_updater_local.inputs.opening import is_url
from sitemap_updater_local.inputs.records import Dropped, Problem
from sitemap_updater_local.options import (
    add_csv_arguments,
    add_media_hosts_argument,
    csv_format_of,
)
from sitemap_updater_local.outputs.replaced_file import same_file
from sitemap_updater_local.outputs.staged_directory import (
    OWN_FILE,
    StagedDirectory,
    read_manifest,
    write_new,
)
from sitemap_updater_local.pipeline.final_state import ChangeSpool, FinalState, Span
from sitemap_updater_local.pipeline.fragment_spooling import (
    default_jobs,
    judge,
    source_work,
    worker_pool,
)


@dataclass(slots=True)
class BuildResult:
    """What a build wrote: file names (index last), URL count, and the problems met."""

    files: list[str] = field(default_factory=list)
    urls: int = 0
    changes: int = 0
    removed: list[str] = field(default_factory=list)
    problems: int = 0


class NothingToPublish(CommandError):
    """The input leaves no live URL, and an empty site was not asked for."""


#: One file a leaf's rendering wrote: (shard id, file name, URLs, newest lastmod).
LeafFile = tuple[str, str, int, str | None]


@dataclass(frozen=True, slots=True)
class LeafFiles:
    """What rendering one leaf wrote, and the ``loc: reason`` of each URL left out."""

    files: list[LeafFile]
    skipped: list[str]


def render_leaf(
    directory: str,
    stylesheet: bool,
    leaf: str,
    spans: dict[int, Span],
    max_urls: int,
    max_bytes: int,
    out_dir: str,
) -> LeafFiles:
    """Render one leaf of a resolved spool into ``out_dir`` (the files of it and of the leaves
    a byte split makes of it), given the spans of the leaf's space, naming the stylesheet if
    ``stylesheet``; safe to run in a worker process."""
    pairs = list(FinalState(directory, {space_of_shard(leaf): spans}).pairs(leaf))
    fragments = {uh: payload for uh, payload in pairs if type(payload) is bytes}
    skipped = [] if len(fragments) == len(pairs) else [p for _, p in pairs if type(p) is str]
    files: list[LeafFile] = []
    parts = render_fragments(
        leaf, fragments, max_urls=max_urls, max_bytes=max_bytes, stylesheet=stylesheet
    )
    for part in parts:
        if part.body is None:
            continue
        name = shard_file_key(part.shard_id)
        write_new(out_dir, name, part.body)
        files.append((part.shard_id, name, part.url_count, part.newest_lastmod))
    return LeafFiles(files, skipped)


def refuse_own_input(source: str, out_dir: str) -> None:
    """A source that is one of the files a build in ``out_dir`` writes or replaces (at the top
    of it, or named by the previous build's manifest) cannot be built from."""
    if is_url(source) or not os.path.exists(source):
        return
    names = [name for name in os.listdir(out_dir) if OWN_FILE.match(name)]
    for name in names + read_manifest(out_dir):
        if same_file(source, os.path.join(out_dir, name)):
            raise CommandError(
                f"--from {source} is {os.path.join(out_dir, name)}, a file this build replaces; "
                "build from a copy outside the output directory"
            )


def _no_progress(records: int, files: int) -> None:
    return None


def build_static(
    source: str,
    site: Site | Sites,
    out_dir: str,
    *,
    section_rules: SectionRules | None = None,
    max_urls: int = DEFAULT_MAX_URLS_PER_SITEMAP,
    max_bytes: int = DEFAULT_MAX_BYTES_PER_SITEMAP,
    public_base_url: str | None = None,
    on_problem: Callable[[Problem], None] = lambda p: None,
    on_progress: Callable[[int, int], None] = _no_progress,
    jobs: int = 1,
    now: datetime | None = None,
    csv_format: CsvFormat | None = None,
    allow_empty: bool = False,
    stylesheet: bool = True,
) -> BuildResult:
    """Build the sitemap files of ``source`` into ``out_dir``, all or nothing; raises
    ``SourceError`` or ``CommandError`` (``NothingToPublish`` when no live URL is left, unless
    ``allow_empty``), and leaves ``out_dir`` as it was.

    ``site``: the sites (the first the primary host), or the one site; ``section_rules``: the
    path-prefix rules that place a URL whose change names no section (default: none, so such a
    URL is in ``pages``). ``jobs`` processes judge the records, resolve the buckets and render
    the leaves (the
    output does not depend on it). ``now`` (default: the clock) is the judge's clock and the
    time from which records without a time of their own are stamped. ``csv_format``: how to
    read a CSV source (default: as its header tells). ``on_progress`` is told the records
    judged and the files written so far, now and then. ``stylesheet``: every file names
    ``sitemap.xsl``, written beside each host's index.
    """
    sites = site if isinstance(site, Sites) else sites_of(site)
    layout = Layout(sites, section_rules or SectionRules(), public_base_url or "")
    result = BuildResult()

    def problem(p: Problem) -> None:
        result.problems += not isinstance(p, Dropped)  # a warning: the record is kept
        on_problem(p)

    now = now or datetime.now(UTC)
    with StagedDirectory(out_dir) as output:
        refuse_own_input(source, out_dir)
        staging = output.staging
        # the workers stop before the spool they write into is removed
        with ChangeSpool() as spool, worker_pool(jobs) as pool:
            work = source_work(source, csv_format)
            records = 0
            for judged in judge(
                work, layout, now, max_bytes=max_bytes, pool=pool, spool=spool.directory
            ):
                for p in judged.problems:
                    problem(p)
                for bucket, data in judged.frames.items():
                    spool.add_framed(bucket, data)
                result.changes += judged.changes
                records += judged.changes + sum(not isinstance(p, Dropped) for p in judged.problems)
                on_progress(records, 0)
            state = spool.resolve(map if pool is None else partial(pool.map, chunksize=16))
            leaves = state.leaves(max_urls)
            render = partial(render_leaf, state.directory, stylesheet)
            spans = [state.spans[space_of_shard(leaf)] for leaf in leaves]
            each = [max_urls] * len(leaves), [max_bytes] * len(leaves), [staging] * len(leaves)
            rendered = (pool.map if pool is not None else map)(render, leaves, spans, *each)
            written: list[LeafFile] = []
            for leaf_files in rendered:
                for skipped in leaf_files.skipped:
                    problem(
                        Problem(skipped, f"entry alone is larger than {max_bytes} bytes, left out")
                    )
                written += leaf_files.files
                result.urls += sum(urls for _, _, urls, _ in leaf_files.files)
                on_progress(records, len(written))
        if not written and not allow_empty:
            raise NothingToPublish(
                f"nothing to publish: {source} leaves no live URL ({result.changes} "
                f"change(s) accepted, {result.problems} record(s) rejected); {out_dir} is "
                "unchanged (--allow-empty publishes an empty site)",
                EXIT_EMPTY,
            )
        result.files = write_indexes(
            layout, sorted(written), staging, max_urls, max_bytes, stylesheet=stylesheet
        )
        result.removed = output.commit(result.files)
    return result


def write_indexes(
    layout: Layout,
    written: list[LeafFile],
    staging: str,
    max_urls: int,
    max_bytes: int,
    *,
    stylesheet: bool,
) -> list[str]:
    """Write each host's index into ``staging``, listing the host's files of ``written`` (in
    shard id order), or its empty-site file, written here, when it has none, as the rebuild
    does, and with ``stylesheet`` the host's ``sitemap.xsl``; returns every file name of the
    build, each host's index after its files."""
    files: list[str] = []
    for prefix, site in layout.prefixes().items():
        own = [(name, newest) for _, name, _, newest in written if key_prefix_of(name) == prefix]
        if not own:
            home = prefix + EMPTY_SITE_KEY
            body = render_home(site, max_urls=max_urls, max_bytes=max_bytes, stylesheet=stylesheet)
            write_new(staging, home, body)
            own = [(home, None)]
        beside = []
        if stylesheet:
            write_new(staging, prefix + STYLESHEET_NAME, stylesheet_body())
            beside = [prefix + STYLESHEET_NAME]
        listed = [(layout.url_of(name), newest) for name, newest in own]
        index, _ = render_index(listed, stylesheet=stylesheet)
        write_new(staging, prefix + INDEX_KEY, index)
        files += [name for name, _ in own] + beside + [prefix + INDEX_KEY]
    return files


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--from",
        dest="source",
        required=True,
        metavar="FILE",
        help="JSONL file of change events, or CSV with a header naming url and lastmod "
        "columns (plain or .gz)",
    )
    parser.add_argument(
        "--site",
        required=True,
        action="append",
        metavar="URL",
        help="site origin, e.g. https://www.example.com; repeat it (or give a comma-separated "
        "list) for several hosts: the first is the primary, whose files are at the top of DIR, "
        "every other host's are in DIR/<host>/",
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
    if args.jobs < 1:
        raise CommandError(f"--jobs: {args.jobs} must be 1 or more")


class _Progress:
    """Records read and files written, on stderr about once a second, only on a terminal."""

    def __init__(self) -> None:
        from tqdm import tqdm  # imported here: only a progress line needs it

        # no monitor thread: the workers are forked from a process that runs no other thread
        tqdm.monitor_interval = 0
        self._bar = tqdm(
            desc="build", unit=" records", file=sys.stderr, disable=None, mininterval=1.0
        )
        self._files = -1

    def __call__(self, records: int, files: int) -> None:
        if files != self._files:
            self._files = files
            self._bar.set_postfix_str(f"{files} file(s) written", refresh=False)
        self._bar.update(records - self._bar.n)

    def close(self) -> None:
        self._bar.close()


def run(args: argparse.Namespace) -> int:
    _check_numbers(args)
    try:
        sites = Sites.parse(",".join(args.site), args.media_hosts)
    except ValueError as exc:
        raise CommandError(f"--site: {exc}") from exc
    try:
        rules = SectionRules.parse(args.section_rules, field="--section-rules")
    except SitemapError as exc:
        raise CommandError(str(exc)) from exc

    started = time.perf_counter()
    report = ProblemReport()
    progress = _Progress()
    try:
        result = build_static(
            args.source,
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
        )
    except NothingToPublish:
        progress.close()
        for line in report.summary():
            print(line, file=sys.stderr)
        raise
    finally:
        progress.close()
    seconds = time.perf_counter() - started
    shards = sum(name.endswith(".xml.gz") for name in result.files)
    xsl = f"{STYLESHEET_NAME} + " if args.stylesheet else ""
    indexes = f"{xsl}{INDEX_KEY}"
    if len(sites) > 1:
        indexes = f"{len(sites)} indexes ({xsl}{INDEX_KEY} per host)"
    print(
        f"{result.urls} URLs from {result.changes} changes in {shards} sitemap file(s) "
        f"+ {indexes} in {args.out} ({seconds:.2f} s)"
    )
    if result.removed:
        print(
            f"removed {len(result.removed)} file(s) no longer listed: {', '.join(result.removed)}"
        )
    for line in report.summary():
        print(line, file=sys.stderr)
    return EXIT_SKIPPED if result.problems else 0
