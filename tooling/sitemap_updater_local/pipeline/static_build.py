"""A static build: the sitemap files of data exports, all or nothing, without AWS.

The records of every source are judged on worker processes into the URL items ingest would
write (``judging``), the newest change of each page kept (``final_state``), the live pages spooled
into their leaves by the rebuild's own spools and each leaf rendered by its leaf renderer (on the
workers), the News articles inside the window put in each host's News files by the rebuild's own
desk (``rebuild.news``), and each host's index written (``site_files``), all into a staging
directory that replaces the output only once every file is there (``outputs.staged_directory``).
So a build writes what a full rebuild of a table holding the same changes publishes.
``sitemap-updater build`` is its command.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sitemap_updater.config import DEFAULT_MAX_BYTES_PER_SITEMAP, DEFAULT_MAX_URLS_PER_SITEMAP
from sitemap_updater.protocol.limits import MAX_NEWS_WINDOW_HOURS
from sitemap_updater.rebuild.inputs.spools import Spools
from sitemap_updater.rebuild.news import NewsDesk
from sitemap_updater.sections import SectionRules
from sitemap_updater.sites import Sites
from sitemap_updater.store.items import has_news, url_hash_of
from sitemap_updater.store.spaces import Layout
from sitemap_updater_local.errors import EXIT_EMPTY, CommandError
from sitemap_updater_local.inputs.csv_columns import CsvFormat
from sitemap_updater_local.inputs.opening import is_url
from sitemap_updater_local.inputs.source_records import Dropped, Note, Problem
from sitemap_updater_local.outputs.replaced_file import same_file
from sitemap_updater_local.outputs.staged_directory import OWN_FILE, StagedDirectory, read_manifest
from sitemap_updater_local.pipeline.final_state import FinalState
from sitemap_updater_local.pipeline.judging import Judging, judge_all
from sitemap_updater_local.pipeline.ordered_pool import OrderedPool, in_order
from sitemap_updater_local.pipeline.site_files import (
    LeafFile,
    LeafWork,
    render_leaf,
    write_indexes,
    write_news,
)
from sitemap_updater_local.pipeline.source_blocks import source_work


@dataclass(slots=True)
class BuildResult:
    """What a build wrote: file names (index last), URL count, and the problems met; its
    News files with their article count, and how many of the pages' articles were published
    before the window (listed in the regular files alone)."""

    files: list[str] = field(default_factory=list)
    urls: int = 0
    changes: int = 0
    removed: list[str] = field(default_factory=list)
    problems: int = 0
    news_files: list[str] = field(default_factory=list)
    news_articles: int = 0
    articles_before_window: int = 0


class NothingToPublish(CommandError):
    """The input leaves no live URL, and an empty site was not asked for."""


def refuse_own_input(sources: Sequence[str], out_dir: str) -> None:
    """A source that is one of the files a build in ``out_dir`` writes or replaces (at the top
    of it, or named by the previous build's manifest) cannot be built from."""
    names = [name for name in os.listdir(out_dir) if OWN_FILE.match(name)] + read_manifest(out_dir)
    for source in sources:
        if is_url(source) or not os.path.exists(source):
            continue
        for name in names:
            if same_file(source, os.path.join(out_dir, name)):
                raise CommandError(
                    f"--from {source} is {os.path.join(out_dir, name)}, a file this build "
                    "replaces; build from a copy outside the output directory"
                )


def _no_progress(records: int, files: int) -> None:
    return None


def build_static(
    sources: list[str],
    sites: Sites,
    out_dir: str,
    *,
    section_rules: SectionRules | None = None,
    max_urls: int = DEFAULT_MAX_URLS_PER_SITEMAP,
    max_bytes: int = DEFAULT_MAX_BYTES_PER_SITEMAP,
    public_base_url: str | None = None,
    on_problem: Callable[[Problem | Note], None] = lambda p: None,
    on_progress: Callable[[int, int], None] = _no_progress,
    jobs: int = 1,
    now: datetime | None = None,
    csv_format: CsvFormat | None = None,
    allow_empty: bool = False,
    stylesheet: bool = True,
    keep_page: bool = True,
    news_window_hours: int = MAX_NEWS_WINDOW_HOURS,
) -> BuildResult:
    """Build the sitemap files of ``sources`` (read in the order given) into ``out_dir``, all or
    nothing; raises ``SourceError`` or ``CommandError`` (``NothingToPublish`` when no live URL
    is left, unless ``allow_empty``), and leaves ``out_dir`` as it was.

    ``sites``: the sites (the first the primary host); ``section_rules``: the path-prefix rules
    that place a URL whose change names no section (default: none, so such a URL is in
    ``pages``). ``jobs`` processes judge the records and render the leaves (the output does not
    depend on it). ``now`` (default: the clock) is the judge's clock and the time from which
    records without a time of their own are stamped. ``csv_format``: how to read a CSV source
    (default: as its header tells). ``on_progress`` is told the records judged and the files
    written so far, now and then. ``stylesheet``: every file names ``sitemap.xsl``, written beside
    each host's index. ``keep_page``: a bad single value of a sitemap or CSV record is left out
    with a warning (false: the record is rejected). The News articles published at most
    ``news_window_hours`` before ``now`` are in each host's News files, as the rebuild writes
    them (``NEWS_WINDOW_HOURS``).
    """
    layout = Layout(sites, section_rules or SectionRules(), public_base_url or "")
    result = BuildResult()

    def problem(p: Problem | Note) -> None:
        result.problems += isinstance(p, Problem) and not isinstance(p, Dropped)
        on_problem(p)

    now = now or datetime.now(UTC)
    desk = NewsDesk(
        sites, window_hours=news_window_hours, now=now.timestamp(), max_bytes=max_bytes,
        stylesheet=stylesheet,
    )  # fmt: skip
    with (
        StagedDirectory(out_dir) as output,
        tempfile.TemporaryDirectory(prefix="sitemap-build-") as spool,
        OrderedPool[Any](jobs) as pool,
    ):
        refuse_own_input(sources, out_dir)
        workers = pool if jobs > 1 else None
        state = FinalState(Path(spool) / "changes")
        records = 0
        for judged in judge_all(
            source_work(sources, csv_format), Judging(sites, now, keep_page), workers
        ):  # type: ignore[arg-type]
            for p in judged.problems:
                problem(p)
            for record in judged.records:
                state.add(record)
            records += judged.changes + sum(
                isinstance(p, Problem) and not isinstance(p, Dropped) for p in judged.problems
            )
            on_progress(records, 0)
        result.changes = state.changes
        leaves = Spools(Path(spool) / "leaves", (), layout.space_of)
        articles = 0
        for item in state.pages():
            leaves.add(item)
            if has_news(item):
                articles += 1
                desk.apply({url_hash_of(item): item})
        written: list[LeafFile] = []
        files = 0
        for leaf_files in in_order(
            workers,
            render_leaf,
            _leaf_work(leaves, layout, max_urls, max_bytes, stylesheet, output.staging),
        ):  # type: ignore[arg-type]
            for skipped in leaf_files.skipped:
                problem(
                    Problem(skipped.partition(": ")[0], skipped.partition(": ")[2] + ", left out")
                )
            written += leaf_files.files
            result.urls += sum(urls for _, _, urls, _ in leaf_files.files)
            files += len(leaf_files.files)
            on_progress(records, files)
        if not written and not allow_empty:
            raise NothingToPublish(
                f"nothing to publish: {', '.join(sources)} leaves no live URL ({result.changes} "
                f"change(s) accepted, {result.problems} record(s) rejected); {out_dir} is "
                "unchanged (--allow-empty publishes an empty site)",
                EXIT_EMPTY,
            )
        news = write_news(desk, output.staging)
        for skipped in desk.skipped:
            problem(Problem(skipped, "left out of the News files"))
        result.news_files = [name for name, _ in news]
        result.news_articles = sum(count for _, count in news)
        result.articles_before_window = articles - result.news_articles - len(desk.skipped)
        result.files = write_indexes(
            layout, sorted(written), output.staging, stylesheet=stylesheet, news=news
        )
        result.removed = output.commit(result.files)
    return result


def _leaf_work(
    leaves: Spools, layout: Layout, max_urls: int, max_bytes: int, stylesheet: bool, out_dir: str
) -> Iterator[LeafWork]:
    """Each leaf of the build's spools to render, with its items, in shard id order."""
    leaves.close()
    for root in sorted(leaves.index.new_roots):
        for part, records in leaves.load_records(root, max_urls, max_bytes):
            site = layout.site_of_shard(part)
            yield LeafWork(part, records, site, max_urls, max_bytes, stylesheet, out_dir)
