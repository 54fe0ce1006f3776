"""``sitemap-updater build``: the sitemap files of a data export, without AWS.

Reads a JSONL file of change events (the ingest contract) or a CSV of ``url,lastmod`` (a
sitemap works too), applies last-writer-wins per URL as ingest does, and writes into DIR what
a rebuild from an empty table would publish for that final state: the same shard tree
(``split_counts`` from the root), the same item order (by hash) and the same renderer, so the
shard files are byte for byte the deployed system's.

Memory stays bounded: changes are spooled to temporary files by hash prefix and each shard is
rendered on its own (see ``pipeline.final_state``). Invalid records are reported on stderr, one line
each with file and line number, and skipped; the command then exits 1.

Differences from the deployed index: a file whose entries have no ``lastmod`` is listed
without one (a static build has no history of when the file's bytes changed).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import Final

from sitemap_updater.config import DEFAULT_MAX_BYTES_PER_SITEMAP, DEFAULT_MAX_URLS_PER_SITEMAP
from sitemap_updater.protocol import Site, render_index
from sitemap_updater.protocol.limits import MAX_BYTES, MAX_URLS
from sitemap_updater.rebuild.render import render_fragments, render_home
from sitemap_updater.store.keys import EMPTY_SITE_KEY, INDEX_KEY, shard_file_key
from sitemap_updater_local.inputs.csv_columns import CsvFormat
from sitemap_updater_local.inputs.records import Problem, SourceError, print_problem
from sitemap_updater_local.options import (
    add_csv_arguments,
    add_media_hosts_argument,
    csv_format_of,
)
from sitemap_updater_local.pipeline.final_state import ChangeSpool, FinalState
from sitemap_updater_local.pipeline.fragment_spooling import (
    default_jobs,
    judge,
    source_work,
    worker_pool,
)

#: Files this command writes; others in DIR are never touched.
_OWN_FILE: Final = re.compile(r"^sitemap-(r[01]*|home)\.xml\.gz$")


@dataclass(slots=True)
class BuildResult:
    """What a build wrote: file names (index last), URL count, and the problems met."""

    files: list[str] = field(default_factory=list)
    urls: int = 0
    changes: int = 0
    removed: list[str] = field(default_factory=list)
    problems: int = 0


def _write(out_dir: str, name: str, body: bytes) -> None:
    tmp = os.path.join(out_dir, f".{name}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(body)
    os.replace(tmp, os.path.join(out_dir, name))


@dataclass(frozen=True, slots=True)
class LeafFiles:
    """What rendering one leaf wrote: (file name, URLs, newest lastmod) per file, and the
    ``loc: reason`` of each URL left out."""

    files: list[tuple[str, int, str | None]]
    skipped: list[str]


def render_leaf(
    directory: str, counts: list[int], leaf: str, max_urls: int, max_bytes: int, out_dir: str
) -> LeafFiles:
    """Render one leaf of a resolved spool into ``out_dir`` (the files of it and of the leaves
    a byte split makes of it); safe to run in a worker process."""
    pairs = list(FinalState(directory, counts).pairs(leaf))
    fragments = {uh: payload for uh, payload in pairs if type(payload) is bytes}
    skipped = [] if len(fragments) == len(pairs) else [p for _, p in pairs if type(p) is str]
    files: list[tuple[str, int, str | None]] = []
    for part in render_fragments(leaf, fragments, max_urls=max_urls, max_bytes=max_bytes):
        if part.body is None:
            continue
        name = shard_file_key(part.shard_id)
        _write(out_dir, name, part.body)
        files.append((name, part.url_count, part.newest_lastmod))
    return LeafFiles(files, skipped)


def build_static(
    source: str,
    site: Site,
    out_dir: str,
    *,
    max_urls: int = DEFAULT_MAX_URLS_PER_SITEMAP,
    max_bytes: int = DEFAULT_MAX_BYTES_PER_SITEMAP,
    public_base_url: str | None = None,
    on_problem: Callable[[Problem], None] = lambda p: None,
    jobs: int = 1,
    now: datetime | None = None,
    csv_format: CsvFormat | None = None,
) -> BuildResult:
    """Build the sitemap files of ``source`` into ``out_dir``; raises ``SourceError``.

    ``jobs`` processes judge the records, resolve the buckets and render the leaves (the
    output does not depend on it). ``now`` (default: the clock) is the judge's clock and the
    time from which records without a time of their own are stamped. ``csv_format``: how to
    read a CSV source (default: as its header tells).
    """
    base = (public_base_url or site.origin).rstrip("/")
    result = BuildResult()

    def problem(p: Problem) -> None:
        result.problems += 1
        on_problem(p)

    os.makedirs(out_dir, exist_ok=True)
    now = now or datetime.now(UTC)
    with worker_pool(jobs) as pool, ChangeSpool() as spool:
        work = source_work(source, csv_format)
        for judged in judge(work, site, now, max_bytes=max_bytes, pool=pool, spool=spool.directory):
            for p in judged.problems:
                problem(p)
            for bucket, data in judged.frames.items():
                spool.add_framed(bucket, data)
            result.changes += judged.changes
        state = spool.resolve(map if pool is None else partial(pool.map, chunksize=16))
        leaves = state.leaves(max_urls)
        render = partial(render_leaf, state.directory, state.counts)
        each = [max_urls] * len(leaves), [max_bytes] * len(leaves), [out_dir] * len(leaves)
        rendered = (pool.map if pool is not None else map)(render, leaves, *each)
        pairs: list[tuple[str, str | None]] = []
        for leaf_files in rendered:
            for skipped in leaf_files.skipped:
                problem(Problem(skipped, f"entry alone is larger than {max_bytes} bytes, left out"))
            for name, urls, newest in leaf_files.files:
                result.files.append(name)
                result.urls += urls
                pairs.append((f"{base}/{name}", newest))
    if not pairs:
        _write(out_dir, EMPTY_SITE_KEY, render_home(site, max_urls=max_urls, max_bytes=max_bytes))
        result.files.append(EMPTY_SITE_KEY)
        pairs.append((f"{base}/{EMPTY_SITE_KEY}", None))
    index, _ = render_index(pairs)
    _write(out_dir, INDEX_KEY, index)
    result.files.append(INDEX_KEY)
    listed = set(result.files)
    for name in sorted(os.listdir(out_dir)):
        if _OWN_FILE.match(name) and name not in listed:
            os.remove(os.path.join(out_dir, name))
            result.removed.append(name)
    return result


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
        "--site", required=True, metavar="URL", help="site origin, e.g. https://www.example.com"
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

    add_csv_arguments(parser)
    add_media_hosts_argument(parser)


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.max_urls_per_sitemap <= MAX_URLS:
        print(
            f"--max-urls-per-sitemap: {args.max_urls_per_sitemap} must be 1..{MAX_URLS}",
            file=sys.stderr,
        )
        return 2
    if not 1024 <= args.max_bytes_per_sitemap <= MAX_BYTES:
        print(
            f"--max-bytes-per-sitemap: {args.max_bytes_per_sitemap} must be 1024..{MAX_BYTES}",
            file=sys.stderr,
        )
        return 2
    try:
        site = Site.parse(args.site, args.media_hosts)
    except ValueError as exc:
        print(f"--site: {exc}", file=sys.stderr)
        return 2

    started = time.perf_counter()
    try:
        result = build_static(
            args.source,
            site,
            args.out,
            max_urls=args.max_urls_per_sitemap,
            max_bytes=args.max_bytes_per_sitemap,
            public_base_url=args.public_base_url,
            on_problem=print_problem,
            jobs=args.jobs,
            csv_format=csv_format_of(args),
        )
    except SourceError as exc:
        print(exc, file=sys.stderr)
        return 2
    seconds = time.perf_counter() - started
    shards = len(result.files) - 1
    print(
        f"{result.urls} URLs from {result.changes} changes in {shards} sitemap file(s) "
        f"+ {INDEX_KEY} in {args.out} ({seconds:.2f} s)"
    )
    if result.removed:
        print(
            f"removed {len(result.removed)} file(s) no longer listed: {', '.join(result.removed)}"
        )
    if result.problems:
        print(f"{result.problems} invalid record(s) skipped (see above)", file=sys.stderr)
        return 1
    return 0
