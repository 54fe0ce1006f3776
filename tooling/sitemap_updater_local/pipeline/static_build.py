"""A static build: the sitemap files of a data export, all or nothing, without AWS.

The records are judged on worker processes and spooled by hash prefix (``fragment_spooling``),
resolved last writer wins (``final_state``), each leaf rendered on its own, the News articles
inside the window put in each host's News files by the rebuild's own desk (``rebuild.news``),
and each host's index written (``site_files``), all into a staging directory that replaces the
output only once every file is there (``outputs.staged_directory``). ``sitemap-updater build`` is
its command.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial

from sitemap_updater.config import DEFAULT_MAX_BYTES_PER_SITEMAP, DEFAULT_MAX_URLS_PER_SITEMAP
from sitemap_updater.protocol import Site
from sitemap_updater.protocol.limits import MAX_NEWS_WINDOW_HOURS
from sitemap_updater.rebuild.news.desk import NewsDesk
from sitemap_updater.sections import SectionRules
from sitemap_updater.sites import Sites, sites_of
from sitemap_updater.store.items import url_hash_of
from sitemap_updater.store.shards import space_of_shard
from sitemap_updater.store.spaces import Layout
from sitemap_updater_local.errors import EXIT_EMPTY, CommandError
from sitemap_updater_local.inputs.csv_columns import CsvFormat
from sitemap_updater_local.inputs.opening import is_url
from sitemap_updater_local.inputs.records import Dropped, Problem
from sitemap_updater_local.outputs.replaced_file import same_file
from sitemap_updater_local.outputs.staged_directory import (
    OWN_FILE,
    StagedDirectory,
    read_manifest,
)
from sitemap_updater_local.pipeline.final_state import ChangeSpool
from sitemap_updater_local.pipeline.fragment_spooling import judge, worker_pool
from sitemap_updater_local.pipeline.site_files import (
    LeafFile,
    LeafFiles,
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
    keep_page: bool = True,
    news_window_hours: int = MAX_NEWS_WINDOW_HOURS,
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
    ``sitemap.xsl``, written beside each host's index. ``keep_page``: a bad lastmod,
    changefreq or priority of a sitemap or CSV record is left out with a warning (false: the
    record is rejected). The News articles published at most ``news_window_hours`` before
    ``now`` are in each host's News files, as the rebuild writes them (``NEWS_WINDOW_HOURS``).
    """
    sites = site if isinstance(site, Sites) else sites_of(site)
    layout = Layout(sites, section_rules or SectionRules(), public_base_url or "")
    result = BuildResult()

    def problem(p: Problem) -> None:
        result.problems += not isinstance(p, Dropped)  # a warning: the record is kept
        on_problem(p)

    now = now or datetime.now(UTC)
    desk = NewsDesk(
        sites,
        window_hours=news_window_hours,
        now=now.timestamp(),
        max_bytes=max_bytes,
        stylesheet=stylesheet,
    )
    articles = 0
    with StagedDirectory(out_dir) as output:
        refuse_own_input(source, out_dir)
        staging = output.staging
        # the workers stop before the spool they write into is removed
        with ChangeSpool() as spool, worker_pool(jobs) as pool:
            work = source_work(source, csv_format)
            records = 0
            for judged in judge(
                work,
                layout,
                now,
                max_bytes=max_bytes,
                pool=pool,
                spool=spool.directory,
                keep_page=keep_page,
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
            # the largest leaves first, so that no worker is left with a large one at the end
            order = sorted(range(len(leaves)), key=lambda n: -state.size(leaves[n]))
            spans = [state.spans[space_of_shard(leaves[n])] for n in order]
            each = [max_urls] * len(leaves), [max_bytes] * len(leaves), [staging] * len(leaves)
            by_size = [leaves[n] for n in order]
            done = (pool.map if pool is not None else map)(render, by_size, spans, *each)
            rendered: list[LeafFiles | None] = [None] * len(leaves)
            files = 0
            for n, leaf_files in zip(order, done, strict=True):
                rendered[n] = leaf_files
                files += len(leaf_files.files)
                on_progress(records, files)
            written: list[LeafFile] = []
            for leaf_files in filter(None, rendered):
                for skipped in leaf_files.skipped:
                    problem(
                        Problem(skipped, f"entry alone is larger than {max_bytes} bytes, left out")
                    )
                written += leaf_files.files
                if leaf_files.articles:
                    articles += len(leaf_files.articles)
                    desk.apply({url_hash_of(item): item for item in leaf_files.articles})
                result.urls += sum(urls for _, _, urls, _ in leaf_files.files)
        if not written and not allow_empty:
            raise NothingToPublish(
                f"nothing to publish: {source} leaves no live URL ({result.changes} "
                f"change(s) accepted, {result.problems} record(s) rejected); {out_dir} is "
                "unchanged (--allow-empty publishes an empty site)",
                EXIT_EMPTY,
            )
        news = write_news(desk, staging)
        for skipped in desk.skipped:
            problem(Problem(skipped, "left out of the News files"))
        result.news_files = [name for name, _ in news]
        result.news_articles = sum(count for _, count in news)
        result.articles_before_window = articles - result.news_articles - len(desk.skipped)
        result.files = write_indexes(
            layout,
            sorted(written),
            staging,
            max_urls,
            max_bytes,
            stylesheet=stylesheet,
            news=news,
        )
        result.removed = output.commit(result.files)
    return result
